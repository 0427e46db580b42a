"""The command line ``nqmip-compare``: parse and check the grid, run it (locally or on Dask),
append the rows to the records file, print the summary, draw the plot."""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from nqmip.cli.parser import EXIT_BAD_INPUT, EXIT_INTERRUPTED
from nqmip.compare.grid import (
    WEIGHT_CHOICES,
    Cell,
    UsageError,
    build_grid,
    exact_methods,
    parse_methods,
    parse_seeds,
    parse_sizes,
)
from nqmip.compare.harness import HARNESS_STATUSES, kill_active, worker_main
from nqmip.compare.store import (
    RowWriter,
    StoreError,
    read_rows,
    row_key,
    rows_for_grid,
    unfinished_tail,
)

PROG = "nqmip-compare"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _param(text: str) -> tuple[str | None, str, Any]:
    key, sep, raw = text.partition("=")
    target, colon, name = key.rpartition(":")
    if not sep or not name or not name.replace("_", "").replace("-", "").isalnum():
        raise argparse.ArgumentTypeError(f"--param takes [METHOD:]NAME=VALUE, got {text!r}")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return (target if colon else None), name.replace("-", "_"), value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description=(
            "Compare exact and heuristic N-Queens methods over a grid of board sizes, each "
            "run in its own process with a hard time limit."
        ),
        epilog=("Example: nqmip-compare --n 8:20:4 --methods highs,cpsat,ga,tabu "
                "--weights chess --repeats 3 --time-limit 30 --output runs.jsonl "
                "--plot time.png"),
    )
    parser.add_argument("--n", default="8", metavar="SIZES",
                        help="board sizes: 8,16,32 or START:STOP[:STEP] ranges (inclusive)")
    parser.add_argument("--methods", default="highs,cpsat,ga,tabu,sa,minconflicts",
                        help="comma-separated methods (exact backends, heuristics, auto)")
    parser.add_argument("--weights", default="chess", choices=WEIGHT_CHOICES,
                        help="chess (black 2, white 1), none (feasibility) or random "
                             "(integers 1..9 drawn with each run's seed)")
    parser.add_argument("--repeats", type=int, metavar="R",
                        help="runs per (n, method), seeds 0..R-1 (default 1)")
    parser.add_argument("--seeds", metavar="S,S,...", help="explicit seeds, one run each")
    parser.add_argument("--time-limit", type=float, default=60.0, metavar="S",
                        help="the solver's own time limit per run (default 60)")
    parser.add_argument("--grace", type=float, default=30.0, metavar="S",
                        help="the process is killed this long after the time limit "
                             "(default 30: process start, imports, numba cache)")
    parser.add_argument("--hard-limit", type=float, metavar="S",
                        help="kill each run after S seconds (default time limit + grace)")
    parser.add_argument("--memory-limit", type=int, metavar="MB",
                        help="address-space limit of each run's process (RLIMIT_AS)")
    parser.add_argument("--warm-start", metavar="HEURISTIC",
                        help="exact methods start from this heuristic's placement "
                             "(nqmip.solve(..., warm_start=HEURISTIC))")
    parser.add_argument("--param", action="append", type=_param, default=[],
                        metavar="[METHOD:]NAME=VALUE",
                        help="a keyword for nqmip.solve (VALUE as JSON), for every method or "
                             "only METHOD, e.g. --param strengthen=false "
                             "--param tabu:tenure=15 (repeatable)")
    parser.add_argument("--output", type=Path, metavar="FILE",
                        help="append one JSON line per run, flushed as each run finishes")
    parser.add_argument("--resume", type=Path, metavar="FILE",
                        help="skip the cells already in FILE (and append to it unless "
                             "--output is given)")
    parser.add_argument("--retry-failed", action="store_true",
                        help="with --resume: run again the cells that ended in timeout, "
                             "crashed or error")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true",
                        help="print the summary as JSON (nothing else on stdout)")
    output.add_argument("--csv", action="store_true",
                        help="print the summary as CSV (nothing else on stdout)")
    output.add_argument("--markdown", action="store_true",
                        help="print the summary as a Markdown table")
    parser.add_argument("--plot", type=Path, metavar="FILE",
                        help="write time against n (.png, .svg or .pdf)")
    parser.add_argument("--jobs", type=int, default=1, metavar="J",
                        help="local runs at once (default 1: timings on a quiet machine)")
    dask = parser.add_mutually_exclusive_group()
    dask.add_argument("--scheduler", metavar="ADDRESS",
                      help="run on this Dask scheduler, e.g. tcp://host:8786")
    dask.add_argument("--workers", type=int, metavar="N",
                      help="run on a local Dask cluster of N worker processes")
    parser.add_argument("--no-progress", action="store_true", help="no progress output")
    parser.add_argument("--worker", metavar="RESULT", help=argparse.SUPPRESS)
    return parser


@dataclass
class Plan:
    cells: list[Cell]
    todo: list[Cell]
    previous: list[dict[str, Any]]
    output: Path | None


def make_plan(args: argparse.Namespace) -> Plan:
    sizes = parse_sizes(args.n)
    methods = parse_methods(args.methods)
    if args.seeds is not None:
        seeds = parse_seeds(args.seeds)
        if args.repeats is not None and args.repeats != len(seeds):
            raise UsageError(f"--repeats {args.repeats} disagrees with {len(seeds)} --seeds")
    else:
        repeats = 1 if args.repeats is None else args.repeats
        if repeats < 1:
            raise UsageError(f"--repeats must be at least 1, got {repeats}")
        seeds = list(range(repeats))
    if not (args.time_limit > 0 and math.isfinite(args.time_limit)):
        raise UsageError(f"--time-limit must be positive seconds, got {args.time_limit:g}")
    if not (args.grace >= 0 and math.isfinite(args.grace)):
        raise UsageError(f"--grace must be non-negative seconds, got {args.grace:g}")
    hard = args.time_limit + args.grace if args.hard_limit is None else args.hard_limit
    if not (hard > 0 and math.isfinite(hard)):
        raise UsageError(f"--hard-limit must be positive seconds, got {hard:g}")
    if args.memory_limit is not None and args.memory_limit < 16:
        raise UsageError(f"--memory-limit is in MB and must be at least 16, "
                         f"got {args.memory_limit}")
    if args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {args.jobs}")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    if args.warm_start is not None:
        from nqmip.heuristics import HEURISTIC_METHODS

        if args.warm_start not in HEURISTIC_METHODS:
            raise UsageError(f"--warm-start takes a heuristic's name: "
                             f"{', '.join(HEURISTIC_METHODS)}; got {args.warm_start!r}")
        if not set(methods) & set(exact_methods()):
            raise UsageError("--warm-start applies to exact methods; none is in --methods")
    if args.plot is not None and args.plot.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise UsageError(f"--plot writes .png, .svg or .pdf, got {args.plot.name!r}")
    if args.retry_failed and args.resume is None:
        raise UsageError("--retry-failed needs --resume FILE")
    if args.resume is not None and not args.resume.is_file():
        raise UsageError(f"--resume: no such file: {args.resume}")
    for option, path in (("--output", args.output), ("--plot", args.plot)):
        if path is not None and not path.parent.is_dir():
            raise UsageError(f"{option}: folder {path.parent} does not exist; create it first")
        if path is not None and path.is_dir():
            raise UsageError(f"{option}: {path} is a folder; give a file name")
    for target, name, _ in args.param:
        if target is not None and target not in methods:
            raise UsageError(f"--param {target}:{name}: {target!r} is not in --methods")
        if name in ("n", "weights", "method", "time_limit", "seed", "warm_start",
                    "weights_seed", "fixed"):
            raise UsageError(f"--param {name}: set it with the grid's own options")
    cells = build_grid(sizes, methods, args.weights, seeds, args.time_limit, hard,
                       args.warm_start, args.memory_limit, args.param)
    previous: list[dict[str, Any]] = []
    if args.resume is not None:
        try:
            previous = read_rows(args.resume)
        except StoreError as exc:
            raise UsageError(f"--resume: {exc}") from None
        if args.retry_failed:
            previous = [r for r in previous if r.get("status") not in HARNESS_STATUSES]
    done = {row_key(r) for r in previous}
    todo = [c for c in cells if c.key() not in done]
    output = args.output if args.output is not None else args.resume
    return Plan(cells=cells, todo=todo, previous=previous, output=output)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:  # no grid asked for: say how to ask, run nothing
        build_parser().print_usage(sys.stderr)
        print(f"{PROG}: give at least --n and --methods (--help explains every option)",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        args = build_parser().parse_args(argv)
        if args.worker is not None:
            return worker_main(args.worker)
        plan = make_plan(args)
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT

    from nqmip.compare.runners import Progress, run_dask, run_local, warm_kernels
    from nqmip.compare.summary import summarize, summary_csv, summary_markdown, summary_table

    new_rows: list[dict[str, Any]] = []
    writer = RowWriter(plan.output)
    progress = Progress(len(plan.todo), enabled=not args.no_progress)
    skipped = len(plan.cells) - len(plan.todo)
    if args.resume is not None and unfinished_tail(args.resume):
        print(f"{PROG}: the last line of {args.resume} was unfinished (the sweep was killed "
              "while writing it): its cell runs again", file=sys.stderr)
    if skipped and not args.no_progress:
        progress.console.print(f"resume: {skipped} of {len(plan.cells)} cells already done "
                               f"in {args.resume}", markup=False, soft_wrap=True)

    def on_term(signum: int, frame: Any) -> None:  # kill(1) stops the sweep like Ctrl-C
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_term)

    def on_row(row: dict[str, Any], running: int) -> None:
        writer.write(row)
        new_rows.append(row)
        progress.update(running, row)

    try:
        with progress:
            if plan.todo:
                if args.scheduler is not None or args.workers is not None:
                    run_dask(plan.todo, args.scheduler, args.workers, on_row)
                else:  # Dask workers keep their own caches: warm the local one only
                    seconds = warm_kernels(plan.todo)
                    if seconds > 1.0:
                        progress.console.print(f"compiled the search kernels once before the "
                                               f"sweep ({seconds:.1f} s); later runs load "
                                               "them from the cache", markup=False,
                                               soft_wrap=True)
                    run_local(plan.todo, args.jobs, on_row)
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        kill_active()
        where = f"; resume with --resume {plan.output}" if plan.output else ""
        print(f"{PROG}: interrupted after {len(new_rows)} runs{where}", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        writer.close()

    rows = rows_for_grid(plan.cells, plan.previous + new_rows)
    summary = summarize(rows)
    if args.json:
        print(json.dumps({"summary": summary, "runs": len(rows)}, indent=1))
    elif args.csv:
        sys.stdout.write(summary_csv(summary))
    elif args.markdown:
        sys.stdout.write(summary_markdown(summary))
    else:
        from rich.console import Console

        console = Console(highlight=False)
        if not console.is_terminal:  # a pipe or a file: wide enough, never wrapped
            console = Console(highlight=False, width=160)
        console.print(summary_table(summary))
    if args.plot is not None:
        from nqmip.compare.plot import plot

        plot(rows, args.plot)
    return 0
