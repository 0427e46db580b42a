"""``python -m nqmip``: the solve command (``solve-weighted``), with the same options and
exit statuses: ``python -m nqmip --n 8`` solves the chess-weighted 8-queens."""

from nqmip.cli.solve import entry

if __name__ == "__main__":
    entry()
