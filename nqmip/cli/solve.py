"""``solve-weighted`` (``scripts/solve_weighted.py`` is a thin wrapper around
:func:`solve_weighted_main`).

argparse keeps ``--help`` instant: Pyomo, OR-Tools and numba load only once a solve runs.
Bad input exits with status 2 and one line on stderr, never a traceback; Ctrl-C exits
with status 130 after printing the best verified placement (:mod:`nqmip.cli.run`), SIGTERM
and SIGHUP with 143 and 129 (:mod:`nqmip.cli.signals`); an output that fails, as
:mod:`nqmip.cli.streams` says; ``--time-limit S`` bounds the whole command.
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m nqmip.cli.solve, as nqmip.cli.launch does: a stop
    from nqmip.cli.signals import listen_early  # while numpy loads was a KeyboardInterrupt
    listen_early()  # traceback, or SIGTERM's default death, no placement (10 of 12)

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nqmip.budget import Deadline
from nqmip.capacity import cores
from nqmip.cli import picture
from nqmip.cli.clash import check_distinct
from nqmip.cli.options import checked_options
from nqmip.cli.parser import (
    EXIT_BAD_INPUT,
    EXIT_SOLVER_FAILED,
    Parser,
    UsageError,
    add_fixed_options,
    add_value_options,
    board_and_fixed,
    check_method_floor,
    check_record_file,
    check_values,
    check_writable,
    command_seconds,
    glue_values,
    positive_int,
    scheduler_address,
    seed_int,
    target_float,
    threads_int,
    typed,
    work_amount,
)
from nqmip.cli.signals import InputWait, Stop, stops_as_ctrl_c, waiting_inputs
from nqmip.cli.streams import deliver, final_status, hard_exit, plain_fallback, say
from nqmip.files import write_whole
from nqmip.instance import InstanceError
from nqmip.jsonlines import RecordUnwritten
from nqmip.result import Result, Termination

DESCRIPTION = (
    "Solve the weighted N-Queens problem and print a verified placement. Without weight "
    "options the board has chess weights (black squares, row + column even, worth 2; white "
    "worth 1): --n 8 proves the optimum 12. (From Python, nqmip.solve(8) means no weights "
    "at all, feasibility: pass weights='chess' for this command's default.) Rows and "
    "columns count from 0: row r, column c is the chess square of file c+1 and rank r+1 "
    "(--fix 0,4 is e1). Exit status: 0 done, 2 bad input, 1 solver failure, 130 "
    "interrupted by Ctrl-C, 143 by SIGTERM, 129 by SIGHUP (the best placement so far is "
    "printed and --output written), 74 standard output could not be written (the result "
    "is in --output) or a result file could not be written (the result is printed), 141 "
    "the reader of standard output went away.")


def _param(text: str) -> tuple[str, Any]:
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"takes NAME=VALUE, got {text!r}")
    value: Any
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.replace("-", "_"), value


def build_parser() -> Parser:
    from nqmip.methods import HEURISTIC_METHODS, LEX_METHODS, METHODS

    parser = Parser(prog="solve_weighted", description=DESCRIPTION)
    parser.add_argument("--n", type=positive_int, default=None,
                        help="board size (default 8, or the size of a --weights or --fixed file)")
    parser.add_argument(
        "--method", default="auto", choices=tuple(dict.fromkeys((*METHODS, *LEX_METHODS))),
        help="auto (default: proves the optimum where it can, else improves the best "
             "placement until the time limit), an exact backend or a heuristic; with "
             f"--lex-first: auto, {', '.join(LEX_METHODS)}")
    parser.add_argument("--warm-start", choices=HEURISTIC_METHODS, metavar="HEURISTIC",
                        help="start an exact backend from this heuristic's placement "
                             f"({', '.join(HEURISTIC_METHODS)})")
    parser.add_argument("--no-warm-start", action="store_true",
                        help="exact backends: no start at all (by default a solve with a "
                             "time limit starts from an explicit solution)")
    weights = parser.add_mutually_exclusive_group()
    weights.add_argument("--weights", metavar="FILE", type=Path,
                         help="an n x n weight matrix: .npy, or .csv with n lines of n "
                              "comma-separated numbers and no header; - reads standard "
                              "input "
                              "(example: docs/examples/weights6.csv)")
    weights.add_argument("--costs", metavar="FILE", type=Path,
                         help="an n x n cost matrix (as --weights): the cheapest placement "
                              "(--weights FILE --minimize)")
    weights.add_argument("--lex-first", action="store_true",
                         help="no weights: the lexicographically first solution (rows in "
                              "order, smallest column first; OEIS A141843)")
    weights.add_argument("--feasibility", action="store_true",
                         help="no weights: place n queens (the objective is n)")
    weights.add_argument("--random-weights", metavar="SEED", type=seed_int,
                         help="integer weights 1..9 drawn with this seed")
    add_value_options(parser)  # --black, --white, --minimize: the compare command's too
    add_fixed_options(parser)
    parser.add_argument("--no-strengthen", action="store_true",
                        help="exact backends: the textbook model only (no colour-bound proof, "
                             "no parity column)")
    parser.add_argument("--time-limit", type=command_seconds, metavar="S",
                        help="seconds for the whole command, start to exit, at least 0.5 "
                             "(glpk, highs-pyomo: 2; without it, the method runs to its own "
                             "end: a proof, or a heuristic's default budget)")
    parser.add_argument("--work-limit", type=work_amount, metavar="UNITS",
                        help="stop after this much work in the method's own unit (nodes, "
                             "swaps, evaluations; CP-SAT: deterministic seconds): the same "
                             "answer on any machine, cold or warm (not --method auto)")
    parser.add_argument("--target", type=target_float, metavar="VALUE",
                        help="stop as soon as the best placement reaches this objective "
                             "(at least it; at most it with costs)")
    parser.add_argument("--seed", type=seed_int, help="random seed (default 0: the same "
                                                      "command gives the same answer)")
    parser.add_argument("--threads", type=threads_int,
                        help="solver threads (1 to 256; what each method honours: "
                             "docs/api.md)")
    cluster = parser.add_mutually_exclusive_group()
    cluster.add_argument("--workers", type=typed("workers"), metavar="N",
                         help="--method bnb: its search's subtrees as tasks on a local Dask "
                              "cluster of N one-thread worker processes (docs/cluster.md); "
                              "--lex-first: its hard questions split into cubes conquered "
                              "by N processes (docs/lex-first.md)")
    cluster.add_argument("--scheduler", type=scheduler_address, metavar="ADDRESS",
                         help="the same on this Dask scheduler's workers, "
                              "e.g. tcp://127.0.0.1:8786")
    parser.add_argument("--record", metavar="FILE", help="bnb with --workers/--scheduler, "
                        "--lex-first: keep the state in FILE, which the same command continues")
    parser.add_argument("--param", action="append", type=_param, default=[],
                        metavar="NAME=VALUE",
                        help="a heuristic's own parameter, e.g. --param population=50")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true",
                        help="print one JSON object with the result and nothing else")
    output.add_argument("--quiet", action="store_true",
                        help="print one short line: status, objective, bound, gap, time "
                             "(--lex-first: status, placement, time), and stopped=WHY "
                             "when the run did not settle its question")
    parser.add_argument("--output", metavar="FILE", type=Path,
                        help="also write the result, placement included, as JSON to FILE")
    picture.add_options(parser)
    parser.add_argument("--verbose", action="store_true", help="stream the solver's log")
    parser.add_argument("--warm-up", action="store_true",
                        help="compile every numba kernel now (once per machine, in parallel on the "
                             "cores there are) and exit")
    return parser


def load_weights(path: Path, option: str = "--weights") -> np.ndarray:
    """The matrix of ``option`` FILE (``-``: standard input), read by
    :func:`nqmip.read_weights` (its formats: :mod:`nqmip.instances.weights_file`); its
    refusal as this option's one line."""
    from nqmip.instances.weights_file import read_weights

    try:
        return read_weights(path)
    except InstanceError as exc:
        raise UsageError(f"{option}: {exc}") from None


def solve_weighted_main(argv: Sequence[str] | None = None, *,
                        started: float | None = None) -> int:
    """Run the command on ``argv`` and return its exit status; ``started``: when the
    command began (``time.perf_counter()``), which ``--time-limit`` counts from. SIGTERM
    and SIGHUP stop it as Ctrl-C does (:mod:`nqmip.cli.signals`)."""
    started = time.perf_counter() if started is None else started
    argv = sys.argv[1:] if argv is None else list(argv)
    plain_fallback()
    # a stop heard while the options are read is answered once the board is known
    with stops_as_ctrl_c(deferred=True) as stop:
        try:
            parser = build_parser()
            args = parser.parse_args(glue_values(argv, ("--fix",)))
            args.limit_text = parser.written.get("time_limit")  # as typed: 2, not 2.0
            if args.warm_up:
                stop.replay()
                return warm_up(stop)
            check_method_floor(args.method, args.time_limit)
            picture.check_pictures(args)  # before the work: a file that cannot be written
            check_distinct([("--weights", args.weights), ("--costs", args.costs),
                            ("--fixed", args.fixed)],
                           [("--output", args.output), ("--svg", args.svg),
                            ("--png", args.png), ("--record", args.record)], UsageError)
            outcome, instance = _run(args, started, stop)
        except UsageError as exc:
            return _bad_input(str(exc))
        except KeyboardInterrupt:  # before the board was known: nothing to print
            say("solve_weighted: interrupted before the solve started")
            return stop.status
        except InputWait as exc:  # no board to place queens on within the time limit
            return _bad_input(str(exc))
        except OSError as exc:  # a full disk under --record (EX_IOERR): not bad input
            said = [str(exc.strerror)] if isinstance(exc, RecordUnwritten) else [
                str(p) for p in (args.record or exc.filename,) if p] + [
                str(exc.strerror or exc)]
            say(f"solve_weighted: {'--record ' if args.record else ''}{': '.join(said)}")
            return final_status(written=False)
        except (InstanceError, ValueError, TypeError) as exc:
            return _bad_input(str(exc))
        except RuntimeError as exc:  # BackendError, BackendUnavailable, VerificationError
            say(f"solve_weighted: {type(exc).__name__}: {exc}")
            return EXIT_SOLVER_FAILED
        stop.hold()  # the answer is known: writing it is not cut short
        status = _answer(args, outcome, instance)
        return stop.status if status == 0 and (outcome.interrupted or stop.heard) else status


def _answer(args: argparse.Namespace, outcome: Any, instance: Any) -> int:
    """Write the result files, then print the result: the files hold it whatever becomes
    of standard output (:func:`nqmip.cli.streams.deliver`); the exit status (0: all
    written)."""
    result = outcome.result
    problems: list[str] = []
    kept: list[str] = []
    written = True
    if args.output is not None:
        try:  # checked before the work; if it fails now, the result is printed anyway
            write_whole(args.output, result.to_json() + "\n")
            kept.append(f"--output {args.output}")
        except OSError as exc:
            written = False
            problems.append(f"solve_weighted: the result is printed above, but --output "
                            f"{args.output} could not be written ({exc.strerror or exc})")
    pictures, drawn = picture.save_pictures(args, result, "solve_weighted", problems)
    failed = deliver(lambda: _show(args, result, instance), "solve_weighted",
                     f"it is in {', '.join(kept + pictures)}" if kept + pictures else "")
    for line in problems:
        say(line)
    # a solver that failed (its process out of memory): said, and not a success
    return final_status(failed=result.termination is Termination.ERROR, printed=failed,
                        written=written and drawn)


def _show(args: argparse.Namespace, result: Result, instance: Any) -> None:
    if args.json:
        print(result.to_json())
    elif args.quiet:
        from nqmip.cli.report import summary_line

        print(summary_line(result))
    else:
        from nqmip.cli.report import print_result

        print_result(result, instance)


def _bad_input(message: str) -> int:
    first = message.strip().splitlines()[0] if message.strip() else "bad input"
    print(f"solve_weighted: error: {first}", file=sys.stderr)
    return EXIT_BAD_INPUT


def entry() -> None:
    """The console command: exit with :func:`solve_weighted_main`'s status at once, the
    output flushed. Neither a thread the watchdog abandoned nor the solver libraries'
    own clean-up at exit (measured: 0.65 s after a colour proof) may hold the process
    past its time limit."""
    from nqmip.cli.run import process_started

    hard_exit(solve_weighted_main(started=process_started()))


def _run(args: argparse.Namespace, started: float, stop: Stop) -> tuple[Any, Any]:
    from nqmip.cli.run import lex_first_outcome, solve_watched, stopped_before
    from nqmip.instance import make_instance
    from nqmip.option_types import time_limit_note
    from nqmip.weights import draws_long

    reads = [(o, p) for o, p in (("--weights", args.weights), ("--costs", args.costs),
                                 ("--fixed", args.fixed)) if p is not None]
    waits = any(str(p) == "-" or not Path(p).is_file() for _, p in reads)  # stdin, a pipe
    draws = args.random_weights is not None and draws_long(args.n)  # seconds at n = 10^4
    left = None if args.time_limit is None or time_limit_note(args.time_limit) else \
        args.time_limit - (time.perf_counter() - started)
    with stop.interruptible(bool(reads) or draws, waits=waits or draws), \
            waiting_inputs(reads, left, f"--time-limit {args.limit_text}"):
        instance = _instance(args, make_instance, started)  # drawn, read by the limit
    options = checked_options(args)
    check_output(args.output)
    check_record(args.record)
    note = time_limit_note(args.time_limit, "--time-limit")
    if note is not None:  # the input is good: a note, and the run has no limit
        print(f"solve_weighted: note: {note}", file=sys.stderr)
        args.time_limit = None
    if args.lex_first:
        try:
            stop.replay()
            outcome = lex_first_outcome(instance, args.method, args.time_limit, started,
                                        options)
        except KeyboardInterrupt:  # heard before its watchdog: its answer to a stop now
            outcome = lex_first_outcome(instance, args.method, args.time_limit, started,
                                        options, stopped=True)
        stop.hold()  # the answer is known: a stop from here does not lose it
        return outcome, instance
    try:
        stop.replay()  # a stop heard so far is answered here, with the board known
        check_available(args.method)
        from nqmip.cli.report import live_progress

        show = not (args.json or args.quiet or args.verbose)
        with live_progress(show, args.method, instance.sense) as on_progress:
            outcome = solve_watched(
                instance, method=args.method, time_limit=picture.ready(args, args.time_limit),
                started=started, on_progress=on_progress, answered=stop.hold, **options)
    except KeyboardInterrupt:  # before the solve's watchdog heard it (a solver's import)
        outcome = stopped_before(instance, args.method, started)
    return outcome, instance


def _instance(args: argparse.Namespace, make_instance: Any, started: float) -> Any:
    sized_by = None  # what gave n when --n did not: a weights file
    if args.feasibility or args.lex_first:
        weights: Any = None
    elif args.weights is not None or args.costs is not None:
        option, path = ("--weights", args.weights) if args.weights is not None \
            else ("--costs", args.costs)
        if str(path) == "-" and args.fixed is not None and str(args.fixed) == "-":
            raise UsageError(f"{option} - and --fixed -: standard input holds one of them; "
                             "give the other as a file")
        weights = load_weights(path, option)
        if args.n is not None and args.n != weights.shape[0]:
            raise UsageError(f"--n {args.n} but {option} {path} is "
                             f"{weights.shape[0]} x {weights.shape[1]}: drop --n or fix one")
        sized_by = None if args.n is not None else f"{option} {path}"
        args.n = weights.shape[0]
    elif args.random_weights is not None:
        weights = "random"
    else:
        weights = "chess"
    n, fixed = board_and_fixed(args.n, args.fix, args.fixed, default_n=8, sized_by=sized_by)
    what = ("--feasibility" if args.feasibility else "--lex-first" if args.lex_first
            else "--random-weights" if args.random_weights is not None else "a weights file")
    check_values(args.black, args.white, args.minimize,
                 isinstance(weights, str) and weights == "chess", what, weights is not None,
                 "--lex-first orders placements and" if args.lex_first else None)
    sense = "min" if args.minimize or args.costs is not None else "max"
    if isinstance(weights, str) and weights == "random":  # before it is drawn, as solve()
        from nqmip.fits import check_random
        from nqmip.solve import method_of

        check_random(method_of(args.method), n, args.random_weights, costs=sense == "min")
    return make_instance(n, weights, fixed, deadline=Deadline(args.time_limit, start=started),
                         black=args.black, white=args.white,
                         weights_seed=args.random_weights, sense=sense)


def check_output(path: Path | None) -> None:
    """``--output FILE`` can be written: checked before the work (:func:`check_writable`)."""
    if path is not None:
        check_writable(path, "--output")


def check_record(path: str | None) -> None:
    """``--record FILE`` (bnb's search, the lex-first cubes) is a file that can be read
    and written: checked before the work (:func:`check_record_file`)."""
    if path is not None:
        check_record_file(path)


def check_available(method: str) -> None:
    """An exact method whose solver cannot run here (not installed, or installed and failing
    to import) is refused before the work, in one line saying why."""
    from nqmip.methods import METHODS

    spec = METHODS.get(method)
    if spec is None or spec.kind != "exact":
        return
    from nqmip.backends.base import get_backend

    why = get_backend(method).why_unavailable()
    if why is not None:
        raise UsageError(f"--method {method}: {why}")


def warm_up(stop: Stop) -> int:
    """Compile (or load) every kernel of the method table, lex-first's, the counting's and
    the colour proof's, a group per core at a time; say how long (a stop: Stop.check)."""
    from nqmip.warmup import Group, warm_up_every

    begin = time.perf_counter()
    workers = cores()
    print(f"compiling the kernels (numba), {workers} at a time…", file=sys.stderr)

    def said(group: Group) -> None:
        what = f"compiled {group.compiles} kernels" if group.compiles else "loaded from the cache"
        print(f"  {group.target.partition(':')[0]}: {what} in {group.seconds:.1f} s",
              file=sys.stderr)
        stop.check()

    groups = warm_up_every(workers, said)
    compiled = sum(group.compiles for group in groups)
    print(f"ready in {time.perf_counter() - begin:.1f} s ("
          + (f"{compiled} kernels compiled and cached for every later run)" if compiled
             else "every kernel loaded from the cache: nothing to compile)"),
          file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    entry()
