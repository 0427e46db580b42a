"""``nqmip-count``: count (or list) every N-Queens solution.

``nqmip-count --n 8`` prints 92, ``--unique`` 12. ``--fix ROW,COL`` counts completions,
``--list`` prints the boards (``--json``: one JSON line each), ``--workers N`` or
``--scheduler ADDRESS`` split the search over processes or a Dask cluster, and ``--record
FILE`` keeps the finished sub-trees so a killed run resumes. Bad input exits with status 2
and one line on stderr; Ctrl-C, SIGTERM and SIGHUP stop it with 128 + the signal's number
(:mod:`nqmip.cli.signals`).
"""

from __future__ import annotations

if __name__ == "__main__":  # as nqmip.cli.launch does: Ctrl-C while numpy loads was a
    from nqmip.cli.signals import listen_early  # KeyboardInterrupt traceback, exit -2

    listen_early()

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from nqmip.cli.clash import check_distinct
from nqmip.cli.parser import (
    EXIT_BAD_INPUT,
    Parser,
    UsageError,
    board_and_fixed,
    check_record_file,
    check_writable,
    fixed_queen,
    glue_values,
    positive_int,
    scheduler_address,
    typed,
)
from nqmip.cli.parser import EXIT_SOLVER_FAILED as EXIT_FAILED
from nqmip.cli.signals import Stop, stops_as_ctrl_c
from nqmip.cli.streams import deliver, final_status, plain_fallback, say
from nqmip.files import picture_kind, write_drawn
from nqmip.jsonlines import RecordUnwritten


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="nqmip-count",
        description="Count every solution of the N-Queens problem (OEIS A000170), its "
        "symmetry classes (A002562) or the completions of fixed queens; or list them.",
    )
    parser.add_argument("--n", type=positive_int, default=None,
                        help="board size (1 .. 32; any size with --fix/--fixed leaving at most "
                             "62 free rows, counted or listed on the free rows: with many "
                             "free rows that can take very long); taken from a --fixed "
                             "CSPLib file if not given")
    parser.add_argument("--unique", action="store_true",
                        help="count classes under the 8 symmetries of the square")
    parser.add_argument("--fix", type=fixed_queen, action="append", default=[],
                        metavar="ROW,COL", help="a pre-placed queen (0-based); repeatable")
    parser.add_argument("--fixed", metavar="FILE", default=None,
                        help="pre-placed queens from a file: ROW,COL lines (0-based; or squares "
                             "such as e1) or CSPLib "
                             "prob079's 'letting n = ...' / 'letting init = [[r, c], ...]'")
    parser.add_argument("--list", action="store_true",
                        help="print every solution as a board (the fundamental ones with "
                        "--unique)")
    parser.add_argument("--plot", default=None, metavar="PNG",
                        help="draw the solutions (at most 48; the fundamental ones with "
                        "--unique) into an image file")
    parser.add_argument("--limit", type=positive_int, default=None,
                        help="with --list: stop after this many")
    parser.add_argument("--json", action="store_true",
                        help="JSON: the count with its timings, or one line per solution")
    split = parser.add_mutually_exclusive_group()  # the scheduler's cluster, or processes
    split.add_argument("--workers", type=typed("workers"), default=None,
                       help="split the search over this many processes (1 to 256)")
    split.add_argument("--scheduler", type=scheduler_address, default=None,
                       metavar="ADDRESS",
                       help="split the search over a Dask cluster (tcp://host:8786)")
    parser.add_argument("--record", default=None, metavar="FILE",
                        help="JSON lines of finished sub-trees: a rerun skips them")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="print the timings and the engine on stderr")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (the count's, on a terminal; --list and "
                             "--plot show none)")
    return parser


@contextmanager
def _progress_bar(enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    """On a terminal, a bar of the sub-trees counted out of their total (the count is
    split for it: :func:`count_main`), and the time so far; nothing on a pipe."""
    if not enabled or sys.stderr is None or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress("counting", BarColumn(), TextColumn("{task.fields[tally]}"),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("count", total=None, tally="")

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total,
                       tally=f"{done}/{total} sub-trees")

        yield update


def _queens(args: argparse.Namespace) -> list[tuple[int, int]] | None:
    """The fixed queens as the API takes them: a list, so that two queens in one row are
    refused by name (a dict kept the last of them and counted its completions)."""
    return [(int(row), int(col)) for row, col in args.fix] or None


def _list(args: argparse.Namespace) -> None:
    """Every solution, drawn as the solve command draws its board (rank 1, row 0, at the
    bottom; file a, column 0, at the left), or one JSON line each; a line saying so when
    there is none."""
    from nqmip.cli.report import board_console, board_text
    from nqmip.enumeration.count import solutions

    fixed = _queens(args)
    rows = (solutions(args.n, fixed, unique=True) if args.unique
            else ((p, 1) for p in solutions(args.n, fixed)))
    console = None if args.json else board_console(args.n)
    shown = 0
    for shown, (placement, size) in enumerate(rows, 1):
        if console is None:
            entry: dict[str, object] = {"placement": list(placement)}
            if args.unique:
                entry["class_size"] = size
            print(json.dumps(entry))
        else:
            # soft_wrap: one line to copy, however wide (rich broke n = 40's at 100 columns)
            console.print(f"# {shown}" + (f" (class of {size})" if args.unique else "")
                          + ": " + ",".join(map(str, placement)), soft_wrap=True)
            console.print(board_text(placement, args.n, sorted(args.fix)))
        if args.limit is not None and shown >= args.limit:
            break
    if shown == 0:
        what = "completion of the fixed queens" if args.fix else "solution"
        print(f"no {what} on the {args.n} x {args.n} board: there are none",
              file=sys.stderr if args.json else sys.stdout)
    elif console is not None:
        print("Q queen  F fixed queen  : black square  . white square; "
              "the numbers above each board: the column of each row, from row 0 (rank 1)")


def _plot(args: argparse.Namespace) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from nqmip.enumeration.count import solutions

    fixed = _queens(args)
    rows = (solutions(args.n, fixed, unique=True) if args.unique
            else ((p, 1) for p in solutions(args.n, fixed)))
    limit = min(args.limit or 48, 48)
    shown = [row for _, row in zip(range(limit), rows, strict=False)]
    if not shown:
        raise UsageError(f"no solution to draw for n = {args.n}")
    per_row = min(len(shown), 6)
    lines = -(-len(shown) // per_row)
    fig, axes = plt.subplots(lines, per_row, figsize=(2.0 * per_row, 2.4 * lines),
                             squeeze=False)
    n = args.n
    shade = np.indices((n, n)).sum(axis=0) % 2
    for ax in axes.flat:
        ax.axis("off")
    for k, (ax, (placement, size)) in enumerate(zip(axes.flat, shown, strict=False)):
        ax.imshow(shade, cmap="gray", vmin=-0.6, vmax=1.3)
        # a queen stays a visible dot on a large board (n = 40's were 1 pt wide)
        ax.scatter(list(placement), list(range(n)), s=max(4000 / n**2, 9), c="crimson",
                   edgecolors="white" if n <= 20 else "none")
        # the columns as a title while they fit the board's width (n = 40's overlapped
        # their neighbours'); past that the board's number in the order of --list
        label = "".join(str(c) for c in placement) if n <= 10 else \
            ",".join(str(c) for c in placement) if n <= 12 else f"#{k + 1}"
        ax.set_title(label + (f" ({size})" if args.unique else ""), fontsize=8)
    what = "fundamental solutions (class size)" if args.unique else \
        "completions of the fixed queens" if fixed else "solutions"
    fig.suptitle(f"n = {n}: {len(shown)} {what}", fontsize=10)
    fig.tight_layout()
    # the format said: without a suffix matplotlib wrote FILE.png, not the file named
    # whole or not at all: a stop while saving left a fragment in place of the picture
    kind = picture_kind(args.plot)
    write_drawn(args.plot, lambda out: fig.savefig(out, dpi=90, format=kind))
    plt.close(fig)


#: The picture formats matplotlib writes (``FigureCanvasBase.get_supported_filetypes()``,
#: 3.10; a test checks that none is missing), known here so that a bad one is refused
#: before the count without importing matplotlib.
PLOT_FORMATS = ("avif", "eps", "gif", "jpeg", "jpg", "pdf", "pgf", "png", "ps", "raw",
                "rgba", "svg", "svgz", "tif", "tiff", "webp")


def check_plot(path: str) -> None:
    """``--plot FILE``: a format matplotlib writes, in a place that can be written."""
    kind = picture_kind(path)
    if kind not in PLOT_FORMATS:
        raise UsageError(f"--plot: cannot draw a .{kind} file; give a name ending in "
                         f"{', '.join('.' + f for f in ('png', 'svg', 'pdf', 'jpg'))} "
                         "or another format matplotlib writes")
    check_writable(path, "--plot")


def _check_drawing(args: argparse.Namespace) -> None:
    """Options that would do nothing beside ``--list``/``--plot`` (which print or draw the
    solutions, no count): refused, not dropped."""
    if (args.list or args.plot) and args.verbose:
        raise UsageError("--verbose says the count's timings and engine; --list/--plot "
                         "count nothing: drop --verbose")
    if args.plot and args.json and not args.list:
        raise UsageError("--json prints the count, or with --list the solutions; --plot "
                         "alone prints nothing: add --list or drop --json")
    if args.unique and args.fix:
        raise UsageError("--unique counts the symmetry classes of the empty board; with "
                         "--fix/--fixed drop --unique to count the completions")


def count_main(argv: Sequence[str] | None = None) -> int:
    """The command on ``argv``; its exit status. SIGTERM and SIGHUP stop it as Ctrl-C
    does (:mod:`nqmip.cli.signals`: 130, 143, 129); a standard output that fails ends as
    :func:`nqmip.cli.streams.deliver` says (74; 141 when the reader went away)."""
    plain_fallback()
    with stops_as_ctrl_c() as stop:
        return _count_main(sys.argv[1:] if argv is None else list(argv), stop)


def _count_main(argv: list[str], stop: Stop) -> int:
    args: argparse.Namespace | None = None  # a stop may come before the parse
    try:
        stop.replay()  # one heard before the launcher handed over: a stop from here
        args = build_parser().parse_args(glue_values(argv, ("--fix",)))
        if args.plot == "":  # read as no --plot: the count printed, nothing drawn, exit 0
            raise UsageError("--plot: give a file name (.png, .svg, .pdf)")
        check_distinct([("--fixed", args.fixed)],
                       [("--plot", args.plot), ("--record", args.record)], UsageError)
        args.n, args.fix = board_and_fixed(args.n, args.fix, args.fixed, default_n=None)
        if (args.list or args.plot) and (args.workers or args.scheduler or args.record):
            raise UsageError("--list/--plot run in one process: no --workers/--scheduler/--record")
        if args.limit is not None and not (args.list or args.plot):
            raise UsageError("--limit goes with --list or --plot")
        _check_drawing(args)
        if args.plot:
            check_plot(args.plot)  # before the count, not found out after it
            try:
                _plot(args)
            except OSError as exc:
                say(f"nqmip-count: --plot {args.plot} could not be written "
                    f"({exc.strerror or exc})")
                return final_status(written=False)
        if args.list:
            return deliver(lambda: _list(args), "nqmip-count") or 0
        if args.plot:
            return 0
        result = _count(args, stop.hold, stop.check)
    except KeyboardInterrupt as stopped:
        return _stopped(stop, args, stopped)
    except UsageError as exc:
        say(f"nqmip-count: error: {exc}")
        return EXIT_BAD_INPUT
    except RecordUnwritten as exc:  # a full disk under --record: not bad input
        if stop.signum is not None:
            return _stopped(stop, args)
        say(f"nqmip-count: --record {exc.strerror}")
        return final_status(written=False)
    except (ValueError, TypeError, OSError) as exc:  # an InstanceError is a ValueError
        if stop.signum is not None:  # a stop that broke what it interrupted: still a stop
            return _stopped(stop, args)
        say(f"nqmip-count: error: {exc}")
        return EXIT_BAD_INPUT
    except RuntimeError as exc:  # BrokenProcessPool: the pool lost processes too often
        if stop.signum is not None:
            return _stopped(stop, args)
        say(f"nqmip-count: {exc}")
        return EXIT_FAILED
    except Exception:
        # a signal heard while numba compiled (the first count on a machine) reaches it
        # inside a callback of its own and numba fails with "no compiled object yet"
        if stop.signum is None:
            raise
        return _stopped(stop, args)
    stop.hold()
    status = deliver(lambda: _show(args, result), "nqmip-count") or 0
    return stop.status if status == 0 and stop.heard else status


def _stopped(stop: Stop, args: argparse.Namespace | None,
             stopped: KeyboardInterrupt | None = None) -> int:
    """The one line of a count a stop signal ended, and its exit status."""
    stop.hold()  # a repeat of the signal does not cut the line short
    # the parsed option, not a search of argv ('--record=r.jsonl', '--rec r.jsonl')
    kept = args is not None and args.record is not None
    say("nqmip-count: interrupted"
        + ("" if stopped is None else _counted_so_far(stopped))
        + ("; finished sub-trees are kept in the record" if kept else ""))
    return stop.status


def _counted_so_far(stopped: KeyboardInterrupt) -> str:
    """What an interrupted count had finished, said to be a part (nothing on stdout, where
    it could pass for the answer); nothing when it stopped before or outside the count."""
    if "nqmip.enumeration.count_tasks" not in sys.modules:
        return ""  # stopped before the count (maybe within numpy's import: not again)
    from nqmip.enumeration.count_tasks import CountInterrupted

    if not isinstance(stopped, CountInterrupted):
        return ""
    part = "(a part of the count, not the total)"
    if stopped.done is None:
        return f": {stopped.count} {stopped.what} found before the stop {part}"
    return (f" after {stopped.done} of {stopped.total} sub-trees: {stopped.count} "
            f"{stopped.what} in those {part}")


def _count(args: argparse.Namespace, answered: Callable[[], None],
           check: Callable[[], None]) -> Any:
    """Count (with a progress bar on a terminal); the count's result. ``answered`` is
    called as soon as the count is known (the command's :meth:`Stop.hold`), ``check``
    between sub-trees (:meth:`Stop.check`: a stop the kernels' load absorbed)."""
    from nqmip.enumeration.count import (
        CountError,
        beyond_bitboards,
        check_one_call,
        check_record,
        run_count,
    )

    try:  # the options named as typed; the API's policy (the same error by its names)
        check_one_call(args.n, _queens(args), args.unique, {
            "--workers": args.workers, "--scheduler": args.scheduler, "--record": args.record})
    except CountError as exc:
        raise UsageError(str(exc)) from None
    beyond = beyond_bitboards(args.n, _queens(args), args.unique)
    if args.record is not None:  # refused before the kernels compile
        check_record_file(args.record)
        try:
            check_record(args.record, args.n, _queens(args),
                         args.unique)
        except OSError as exc:
            raise UsageError(f"--record {args.record}: {exc.strerror or exc}; give a "
                             "file that can be read and written") from None
    with _progress_bar(not (args.json or args.no_progress)) as progress:
        # a bar needs a total: counted as sub-trees in this process (as fast, measured)
        split = progress is not None and not (beyond or args.workers or args.scheduler
                                              or args.record)
        result = run_count(args.n, _queens(args), args.unique,
                           workers=1 if split else args.workers,
                           scheduler=args.scheduler, record=args.record,
                           progress=progress, check=check)
        answered()  # the count is known: a stop from here (the bar's end) does not lose it
        return result


def _show(args: argparse.Namespace, result: Any) -> None:
    if args.json:
        print(result.to_json())
    else:
        print(result.count)
    if args.verbose:
        what = "classes" if args.unique else ("completions" if args.fix else "solutions")
        say(f"n = {result.n}: {result.count} {what} in {result.wall_time:.3f} s "
            f"(+ {result.compile_time:.3f} s compile/cache load), {result.engine}, "
            f"{result.tasks} sub-tree(s), {result.resumed} from the record")


def entry() -> None:
    """The console command: :func:`count_main`'s status, by :func:`nqmip.cli.streams.leave`
    (a count a signal stopped leaves without the interpreter's teardown)."""
    from nqmip.cli.streams import leave, steady_stderr

    steady_stderr()
    leave(count_main())


if __name__ == "__main__":
    entry()
