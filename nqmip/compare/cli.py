"""The command line ``nqmip-compare``: parse and check the grid and every output before any
work, run it (locally or on Dask, the heuristics of each board after its exact methods),
append the rows to the records file, print the summary and the failed runs, draw the
pictures and write the report.

Exit status: 0 when every run gave a result and every file was written; 1 when a run
failed (timeout, crashed, error: each named in one line); else 74 when a file could not be
written (the summary is printed all the same) or standard output failed (closed, full;
the files hold the results), 141 when its reader went away (``| head -1``), as at every
door (:func:`nqmip.cli.streams.final_status`); 2 for bad input, refused before the sweep;
130 when interrupted by Ctrl-C, 143 by SIGTERM, 129 by SIGHUP (128 + the signal)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from nqmip.cli.parser import (
    EXIT_BAD_INPUT,
    Parser,
    add_fixed_options,
    add_value_options,
    finite_seconds,
    glue_values,
    scheduler_address,
    seconds_in,
    whole_in,
)
from nqmip.compare.grid import (
    MAX_RUNS,
    TARGET_AUTO,
    Cell,
    UsageError,
    build_grid,
    exact_methods,
    parse_methods,
    parse_seeds,
    parse_target,
    runs_first,
)
from nqmip.compare.harness import HARNESS_STATUSES, kill_active, worker_main
from nqmip.compare.results import PROG, SweepInterrupted, show_results
from nqmip.compare.store import (
    RowWriter,
    StoreError,
    appended_to,
    check_grid,
    read_rows,
    row_key,
    rows_for_grid,
    unfinished_tail,
)
from nqmip.option_types import TIME_LIMIT_MAX, WORKERS_MAX

#: The most MB ``--memory-limit`` takes (2^30 MB, a petabyte: RLIMIT_AS counts bytes in
#: 64 bits, and 2^63 MB overflowed it in every run's process).
MEMORY_LIMIT_MAX = 2**30


class _Parser(Parser):
    """The commands' parser (:class:`nqmip.cli.parser.Parser`: ``--version``, ``--n -inf``
    read as a value) with bad input as this command's :class:`UsageError`."""

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


def _grid_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--n", default=None, metavar="SIZES",
                        help="board sizes: 8,16,32 or START:STOP[:STEP] ranges (inclusive; "
                             "default 8, or the n of a weights file or a --fixed file)")
    parser.add_argument("--methods", default="highs,cpsat,ga,tabu,sa,minconflicts",
                        help="comma-separated methods (exact backends, heuristics, auto)")
    weights = parser.add_mutually_exclusive_group()
    weights.add_argument("--weights", default=None, metavar="KIND|FILE",
                         help="chess (default: black 2, white 1), none (feasibility), random "
                              "(integers 1..9 drawn with each run's seed), toulbar2 (the "
                              "weighted-queens tutorial's costs, minimised), or an n x n "
                              "matrix file as the solve command reads (.npy, .csv; - : "
                              "standard input), which fixes n")
    weights.add_argument("--costs", metavar="FILE", type=Path,
                         help="an n x n cost matrix (as --weights FILE): the cheapest "
                              "placement (--weights FILE --minimize)")
    add_value_options(parser)  # --black, --white, --minimize: the solve command's
    add_fixed_options(parser)  # --fix, --fixed: the completion problem, on every n
    parser.add_argument("--repeats", type=whole_in(1, MAX_RUNS), metavar="R",
                        help="runs per (n, method), seeds 0..R-1 (default 1)")
    parser.add_argument("--seeds", metavar="S,S,...", help="explicit seeds, one run each")
    parser.add_argument("--target", default=None, metavar="auto|none|VALUE",
                        help="the heuristics' target: auto (default: on each board the "
                             "exact methods and auto run first, and the best they found, a "
                             "proven optimum if any, is the target), none, or a value; a "
                             "run stops as soon as it reaches it")
    parser.add_argument("--time-limit", type=finite_seconds, default=60.0,
                        metavar="S",
                        help="the solver's own time limit per run (default 60)")
    kill = parser.add_mutually_exclusive_group()  # one says when a run is killed
    kill.add_argument("--grace", type=seconds_in(TIME_LIMIT_MAX, zero=True), default=30.0,
                      metavar="S",
                      help="the process is killed this long after the time limit "
                           "(default 30: process start, imports, numba cache)")
    kill.add_argument("--hard-limit", type=finite_seconds, metavar="S",
                      help="kill each run after S seconds, above --time-limit (default "
                           "time limit + grace)")
    parser.add_argument("--memory-limit", type=whole_in(16, MEMORY_LIMIT_MAX, "MB"),
                        metavar="MB",
                        help="address-space limit of each run's process (RLIMIT_AS)")
    parser.add_argument("--warm-start", metavar="HEURISTIC",
                        help="exact methods start from this heuristic's placement "
                             "(nqmip.solve(..., warm_start=HEURISTIC))")
    parser.add_argument("--param", action="append", type=_param, default=[],
                        metavar="[METHOD:]NAME=VALUE",
                        help="a keyword for nqmip.solve (VALUE as JSON), for every method or "
                             "only METHOD, e.g. --param strengthen=false "
                             "--param tabu:tenure=15 (repeatable)")


def _output_options(parser: argparse.ArgumentParser) -> None:
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
    output.add_argument("--markdown", action="store_true",
                        help="print the summary as a Markdown table")
    parser.add_argument("--csv", nargs="?", const="-", metavar="FILE",
                        help="print the summary as CSV (nothing else on stdout), or write "
                             "it to FILE (then any form above may go to stdout)")
    parser.add_argument("--plot", type=Path, metavar="FILE",
                        help="draw time against n in FILE (.png, .svg or .pdf) and beside "
                             "it the time-to-target plots (FILE-ttt), the performance "
                             "profile (FILE-profile) and one board's curves (FILE-curve)")
    parser.add_argument("--report", type=Path, metavar="FILE.html",
                        help="write the whole comparison as one self-contained HTML page "
                             "(tables and pictures inline, nothing fetched)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description=(
            "Compare exact and heuristic N-Queens methods over a grid of board sizes, each "
            "run in its own process with a hard time limit: time to target, time to best, "
            "gaps, time-to-target plots, performance profiles and a report."
        ),
        epilog=("Example: nqmip-compare --n 8:16:4 --methods highs,cpsat,sa,tabu,ga "
                "--repeats 3 --time-limit 10 --output runs.jsonl --report report.html"),
    )
    _grid_options(parser)
    _output_options(parser)
    dask = parser.add_mutually_exclusive_group()  # local jobs, or Dask's workers
    # no default of 1: argparse tells a given value from the default by identity, and
    # int("1") is the default's object, so '--jobs 1 --workers 2' passed the group
    dask.add_argument("--jobs", type=whole_in(1, WORKERS_MAX), default=None, metavar="J",
                      help="local runs at once (default 1: timings on a quiet machine)")
    dask.add_argument("--scheduler", type=scheduler_address, metavar="ADDRESS",
                      help="run on this Dask scheduler, e.g. tcp://host:8786")
    dask.add_argument("--workers", type=whole_in(1, WORKERS_MAX), metavar="N",
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
    csv: Path | None = None
    #: The records file, open and locked from before the resumed rows are read.
    writer: RowWriter | None = None
    #: The resumed file ended in a partial line (a sweep killed while writing it).
    unfinished: bool = False
    #: How this grid differs from the resumed file's in sizes, methods or seeds.
    grown: tuple[str, ...] = ()
    #: What was left out of the grid and why (gurobi past its licence).
    notes: tuple[str, ...] = ()


def _seeds(args: argparse.Namespace) -> list[int]:
    if args.seeds is not None:
        seeds = parse_seeds(args.seeds)
        if args.repeats is not None and args.repeats != len(seeds):
            raise UsageError(f"--repeats {args.repeats} disagrees with {len(seeds)} --seeds")
        return seeds
    return list(range(1 if args.repeats is None else args.repeats))  # 1..MAX_RUNS: parsed


def _check_numbers(args: argparse.Namespace) -> float:
    """The hard limit of each run (the limits, counts and their ranges are the parser's:
    :func:`~nqmip.cli.parser.whole_in`, :func:`~nqmip.cli.parser.seconds_in`)."""
    if args.hard_limit is not None and args.hard_limit <= args.time_limit:
        # every run was killed before its solver's own limit: the limits contradict
        raise UsageError(f"--hard-limit {args.hard_limit:g} s is not above the solver's "
                         f"limit, --time-limit {args.time_limit:g} s (default 60): each run "
                         "would be killed before it; give a longer hard limit, or --grace")
    return float(args.time_limit + args.grace if args.hard_limit is None else args.hard_limit)


def make_plan(args: argparse.Namespace, stop: Any = None) -> Plan:
    from nqmip.compare.board import grid_instance
    from nqmip.compare.checks import (
        check_available,
        check_capacity,
        check_files,
        check_params,
        check_processes,
        check_target,
        check_weights,
        skip_past_licence,
    )

    hard = _check_numbers(args)
    instance = grid_instance(args, stop, hard)  # a pipe waited on for one run's limit
    sizes, weights = instance.sizes, instance.weights
    params = [*args.param, *instance.params]
    methods = parse_methods(args.methods)
    seeds = _seeds(args)
    runs = len(sizes) * len(methods) * len(seeds)
    if runs > MAX_RUNS:
        raise UsageError(f"--n, --methods and --seeds/--repeats span {runs:,} runs; a grid "
                         f"takes at most {MAX_RUNS:,}")
    target = parse_target(TARGET_AUTO if args.target is None else args.target)
    if args.target is not None and all(runs_first(m) for m in methods):  # dropped unsaid
        raise UsageError("--target applies to the heuristics (the exact methods and auto run "
                         "without one); none is in --methods")
    if args.warm_start is not None:
        from nqmip.methods import HEURISTIC_METHODS

        if args.warm_start not in HEURISTIC_METHODS:
            raise UsageError(f"--warm-start takes a heuristic's name: "
                             f"{', '.join(HEURISTIC_METHODS)}; got {args.warm_start!r}")
        if not set(methods) & set(exact_methods()):
            raise UsageError("--warm-start applies to exact methods; none is in --methods")
    output = args.output if args.output is not None else args.resume
    csv = check_files(args, output)
    check_params(params, methods)
    check_weights(weights, methods, params, args.warm_start, instance.board.sense == "min")
    check_capacity(sizes, methods, weights, params, instance.board.sense == "min")
    if args.scheduler is None and args.workers is None:  # Dask workers have their own
        check_available(methods)
    cells = build_grid(sizes, methods, weights, seeds, args.time_limit, hard,
                       args.warm_start, args.memory_limit, params, target, instance.board)
    check_target(cells)
    check_processes(args.workers, args.jobs, len(cells))
    notes: list[str] = []
    if args.scheduler is None and args.workers is None:  # Dask workers: their licence
        cells, notes = skip_past_licence(cells)
    grid = {"n": sizes, "methods": methods, "weights": weights, "seeds": seeds,
            "time_limit": float(args.time_limit), "target": target,
            "warm_start": args.warm_start, "params": [list(p) for p in params],
            "instance": instance.board.describe()}
    unfinished = args.resume is not None and unfinished_tail(args.resume)
    try:  # the lock first: no other sweep may write the rows while they are read
        writer = RowWriter(output, grid=None)
    except StoreError as exc:
        raise UsageError(f"{'--output' if args.output else '--resume'}: {exc}") from None
    try:
        previous, grown = _previous(args, grid)
        if args.resume is None:
            notes += appended_to(output, {c.key() for c in cells})
        writer.start(grid)  # a header row: the grid, unless it is the file's last one
    except StoreError as exc:
        writer.close()
        raise UsageError(str(exc)) from None
    except BaseException:
        writer.close()
        raise
    done = {row_key(r) for r in previous}
    todo = [c for c in cells if c.key() not in done]
    return Plan(cells=cells, todo=todo, previous=previous, output=output, csv=csv,
                writer=writer, unfinished=unfinished, grown=tuple(grown), notes=tuple(notes))


def _previous(args: argparse.Namespace, grid: dict[str, Any]
              ) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows of ``--resume`` (the finished ones with ``--retry-failed``), once its grid
    is this sweep's but for sizes, methods and seeds; how it differs in those."""
    if args.resume is None:
        return [], []
    try:
        previous = read_rows(args.resume)
        grown = check_grid("--resume", args.resume, grid, previous)
    except StoreError as exc:
        raise UsageError(str(exc) if str(exc).startswith("--resume") else
                         f"--resume: {exc}") from None
    if args.retry_failed:
        previous = [r for r in previous if r.get("status") not in HARNESS_STATUSES]
    return previous, grown


class _Recorder:
    """The sweep's events: each row appended to the records file (a failure to write is
    kept and said at the end: the sweep goes on) and shown by the progress."""

    def __init__(self, writer: RowWriter, progress: Any, stop: Any = None) -> None:
        self.writer = writer
        self.progress = progress
        self.stop = stop
        self.rows: list[dict[str, Any]] = []
        self.write_error: str | None = writer.error
        if self.write_error is not None:
            progress.say(f"{PROG}: cannot write {writer.path}: {self.write_error}; the "
                         "sweep goes on, the rows stay in memory")

    def started(self, cell: Cell) -> None:
        self.progress.started(cell)

    def finished(self, cell: Cell, row: dict[str, Any]) -> None:
        self.rows.append(row)
        if self.write_error is None:
            try:
                self.writer.write(row)
            except OSError as exc:
                self.write_error = f"{exc.strerror or type(exc).__name__}"
                self.progress.say(f"{PROG}: cannot write {self.writer.path}: "
                                  f"{self.write_error}; the sweep goes on, the rows stay in "
                                  "memory")
        self.progress.finished(cell, row)

    def tick(self) -> None:
        self.progress.tick()
        if self.stop is not None:
            self.stop.check()


def run_sweep(args: argparse.Namespace, plan: Plan, stop: Any = None) -> _Recorder:
    """Run the plan's cells with the progress on stderr; the recorder holds the rows and
    looks at ``stop`` (:class:`nqmip.cli.signals.Stop`) at every tick (Stop.check)."""
    from nqmip.compare.progress import SweepProgress
    from nqmip.compare.runners import run_dask, run_local, warm_kernels
    from nqmip.compare.schedule import Sweep

    sweep = Sweep(plan.todo, plan.previous)
    jobs = (args.jobs or 1) if args.scheduler is None and args.workers is None else \
        (args.workers or 1)
    progress = SweepProgress(sweep, jobs, enabled=not args.no_progress)
    writer = plan.writer if plan.writer is not None else RowWriter(None)
    recorder = _Recorder(writer, progress, stop)
    skipped = len(plan.cells) - len(plan.todo)
    for note in plan.notes:
        print(f"{PROG}: note: {note}", file=sys.stderr)
    if plan.unfinished:
        print(f"{PROG}: the last line of {args.resume} was unfinished (the sweep was killed "
              "while writing it): its cell runs again", file=sys.stderr)
    if plan.grown:
        print(f"{PROG}: resume: another grid than {args.resume}'s: "
              f"{'; '.join(plan.grown)}: its new cells run, the file's others are left out "
              "of the summary", file=sys.stderr)
    if skipped:
        progress.say(f"resume: {skipped} of {len(plan.cells)} cells already done "
                     f"in {args.resume}")
    if any(c.target_mode == TARGET_AUTO for c in plan.cells) and \
            not any(runs_first(c.method) for c in plan.cells):
        progress.say("--target auto: no exact method nor auto in --methods, so the "
                     "heuristics run without a target, each to its time limit, and are "
                     "measured against the best any of them found")
    try:
        with progress:
            if not plan.todo:
                return recorder
            if args.scheduler is not None or args.workers is not None:
                run_dask(sweep, args.scheduler, args.workers, recorder)
            else:  # Dask workers keep their own caches: warm the local one only
                seconds = warm_kernels(plan.todo)
                recorder.tick()  # the warm-up's searches return on Ctrl-C: looked at here
                if seconds > 1.0:
                    progress.say(f"compiled the search kernels once before the sweep "
                                 f"({seconds:.1f} s); later runs load them from the cache")
                run_local(sweep, jobs, recorder)
    except KeyboardInterrupt as stopped:  # the rows finished before the stop go with it
        raise SweepInterrupted(recorder.rows) from stopped
    except Exception as broken:
        # a signal heard while numba compiled (the warm-up on a new cache) reaches it inside
        # a callback of its own, and numba fails with "no compiled object yet": the stop
        if stop.signum is None:
            raise
        raise SweepInterrupted(recorder.rows) from broken
    finally:
        writer.close()
    return recorder


def main(argv: Sequence[str] | None = None) -> int:
    from nqmip.cli.streams import plain_fallback

    plain_fallback()  # a console that is not UTF-8 gets ASCII stand-ins
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:  # no grid asked for: say how to ask, run nothing
        build_parser().print_usage(sys.stderr)
        print(f"{PROG}: give at least --n and --methods (--help explains every option)",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    begin = time.perf_counter()
    try:
        args = build_parser().parse_args(glue_values(argv, ("--fix",)))
        args.argv = argv
        if args.worker is not None:
            return worker_main(args.worker)
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT

    from nqmip.cli.signals import InputWait, stops_as_ctrl_c

    # SIGTERM and SIGHUP stop the sweep as Ctrl-C does (exit 130, 143, 129: 128 + signal);
    # while the plan is made only recorded, but for a wait on an input
    with stops_as_ctrl_c(deferred=True) as stop:
        try:
            plan = make_plan(args, stop)
        except (UsageError, InputWait) as exc:
            print(f"{PROG}: error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        except KeyboardInterrupt:
            print(f"{PROG}: interrupted before any run finished", file=sys.stderr)
            return stop.status
        try:
            stop.replay()  # heard while the plan was made: a stop here
            recorder = run_sweep(args, plan, stop)
            stop.hold()  # the sweep is done: its summary is written whole
        except UsageError as exc:
            print(f"{PROG}: error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        except KeyboardInterrupt as stopped:
            kill_active()
            stop.hold()  # a repeat of the signal does not cut the summary short
            return _interrupted(args, plan, stopped, begin, stop.status)
        status = _report(args, plan, recorder, begin)
        return stop.status if stop.heard else status  # a stop as it was written: 128 + it


def _interrupted(args: argparse.Namespace, plan: Plan, stopped: KeyboardInterrupt,
                 begin: float, status: int) -> int:
    """A sweep a stop ended: the summary of its finished runs (and the files asked for,
    said to be a part), one line on stderr; ``status`` (128 + the signal)."""
    done = rows_for_grid(plan.cells, plan.previous + (
        stopped.rows if isinstance(stopped, SweepInterrupted) else []))
    where = f"; resume with --resume {plan.output}" if plan.output else ""
    if not done:
        print(f"{PROG}: interrupted before any run finished{where}", file=sys.stderr)
        return status
    print(f"{PROG}: interrupted after {len(done)} of {len(plan.cells)} runs (the summary "
          f"is of those){where}", file=sys.stderr, flush=True)  # the files may take seconds
    said = (f"Interrupted: {len(done)} of {len(plan.cells)} runs finished; this summary "
            "is of those.")
    problems: list[str] = []
    show_results(args, plan.csv, plan.output, done, time.perf_counter() - begin, problems,
                 said)  # a console that failed is said; the status is the stop's
    for line in problems:
        print(f"{PROG}: {line}", file=sys.stderr)
    return status


def _report(args: argparse.Namespace, plan: Plan, recorder: _Recorder, begin: float) -> int:
    """The finished sweep's results and what failed (:func:`show_results`); the status."""
    problems = [] if recorder.write_error is None else [
        f"--output: cannot write {plan.output}: {recorder.write_error} (the rows of this "
        "sweep are in the summary above, not in the file)"]
    rows = rows_for_grid(plan.cells, plan.previous + recorder.rows)
    wall = time.perf_counter() - begin if plan.todo else None
    printed = show_results(args, plan.csv, plan.output, rows, wall, problems)
    from nqmip.cli.streams import final_status
    from nqmip.compare.summary import failures

    failed = failures(rows)
    for line in failed:
        print(f"{PROG}: failed: {line}", file=sys.stderr)
    for line in problems:
        print(f"{PROG}: {line}", file=sys.stderr)
    if plan.todo and not args.no_progress:
        print(f"{PROG}: {len(plan.todo)} runs in {wall:.0f} s", file=sys.stderr)
    return final_status(failed=bool(failed), printed=printed, written=not problems)
