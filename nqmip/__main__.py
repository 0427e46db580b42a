"""``python -m nqmip``: the solve command (``solve-weighted``), with the same options and
exit statuses: ``python -m nqmip --n 8`` solves the chess-weighted 8-queens. Its launcher
(:mod:`nqmip.cli.launch`) hears a stop signal before anything heavy is imported."""

if __name__ == "__main__":
    from nqmip.cli.launch import solve

    solve()
