"""Command-line entry points. ``scripts/solve_weighted.py`` is a thin wrapper around
:func:`solve_weighted_main`, also installed as the ``solve-weighted`` command.

argparse keeps ``--help`` instant: Pyomo, OR-Tools and numba load only once a solve runs.
Bad input exits with status 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from nqmip.cli.parser import (
    EXIT_BAD_INPUT,
    EXIT_SOLVER_FAILED,
    Parser,
    UsageError,
    fixed_queen,
)
from nqmip.instance import CHESS_BLACK, CHESS_WHITE, InstanceError
from nqmip.result import Result, Status


def _param(text: str) -> tuple[str, Any]:
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--param takes NAME=VALUE, got {text!r}")
    value: Any
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.replace("-", "_"), value


def build_parser() -> argparse.ArgumentParser:
    from nqmip.backends.base import EXACT_METHODS
    from nqmip.heuristics import HEURISTIC_METHODS

    parser = Parser(
        prog="solve_weighted",
        description=(
            "Solve the weighted N-Queens problem: by default the chess weights (black "
            "squares, (i+j) even, worth 2; white worth 1), proven optimal by an exact "
            "solver where one can, with the best placement and bound where none can."
        ),
    )
    parser.add_argument("--n", type=int, default=None,
                        help="board size (default 8, or the n of a --fixed CSPLib file)")
    parser.add_argument(
        "--method",
        default="auto",
        choices=("auto", *EXACT_METHODS, *HEURISTIC_METHODS),
        help="auto (default: a heuristic warm start, then HiGHS, or Gurobi when installed, "
             "within the exact range; heuristics beyond it), an exact backend or a heuristic",
    )
    parser.add_argument("--warm-start", choices=HEURISTIC_METHODS, metavar="HEURISTIC",
                        help="start an exact backend from this heuristic's placement "
                             f"({', '.join(HEURISTIC_METHODS)})")
    parser.add_argument("--no-warm-start", action="store_true",
                        help="exact backends: no start at all (by default a solve with a "
                             "time limit starts from an explicit solution)")
    weights = parser.add_mutually_exclusive_group()
    weights.add_argument("--weights", metavar="FILE", type=Path,
                         help="an n x n weight matrix as .csv or .npy")
    weights.add_argument("--lex-first", action="store_true",
                         help="the lexicographically first solution (OEIS A141843)")
    weights.add_argument("--feasibility", action="store_true",
                         help="no weights: maximise the number of queens (optimum n)")
    weights.add_argument("--random-weights", metavar="SEED", type=int,
                         help="integer weights 1..9 drawn with this seed")
    parser.add_argument("--black", type=float, default=CHESS_BLACK,
                        help=f"value of a black square (default {CHESS_BLACK:g})")
    parser.add_argument("--white", type=float, default=CHESS_WHITE,
                        help=f"value of a white square (default {CHESS_WHITE:g})")
    parser.add_argument("--fix", action="append", type=fixed_queen, default=[],
                        metavar="ROW,COL", help="a pre-placed queen, 0-based (repeatable)")
    parser.add_argument("--fixed", metavar="FILE", type=Path,
                        help="pre-placed queens from a file: one ROW,COL per line (0-based, "
                             "# comments), or CSPLib prob079's 'letting n = ...' and "
                             "'letting init = [[r, c], ...]' (0-based)")
    parser.add_argument("--no-strengthen", action="store_true",
                        help="exact backends: the textbook model only (no colour-bound proof, "
                             "no parity column)")
    parser.add_argument("--time-limit", type=float, metavar="S", help="time limit in seconds")
    parser.add_argument("--seed", type=int, help="random seed (reproducible runs)")
    parser.add_argument("--threads", type=int, help="solver threads")
    parser.add_argument("--param", action="append", type=_param, default=[],
                        metavar="NAME=VALUE",
                        help="a heuristic's own parameter, e.g. --param population=50")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true",
                        help="print one JSON object with the result and nothing else")
    output.add_argument("--quiet", action="store_true", help="print only the result line")
    parser.add_argument("--verbose", action="store_true", help="stream the solver's log")
    return parser


def load_weights(path: Path) -> np.ndarray:
    if not path.is_file():
        raise UsageError(f"weights file not found: {path}")
    try:
        if path.suffix.lower() == ".npy":
            return np.load(path, allow_pickle=False)
        return np.loadtxt(path, delimiter=",", ndmin=2)
    except (ValueError, OSError) as exc:
        raise UsageError(f"cannot read weights from {path}: {exc}") from None


def solve_weighted_main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        result, instance = _run(args)
    except KeyboardInterrupt:
        print("solve_weighted: interrupted before any placement was found", file=sys.stderr)
        return 130
    except UsageError as exc:
        print(f"solve_weighted: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (InstanceError, ValueError, TypeError) as exc:
        print(f"solve_weighted: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RuntimeError as exc:  # BackendError, BackendUnavailable, VerificationError
        print(f"solve_weighted: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_SOLVER_FAILED
    if args.json:
        print(result.to_json())
    elif args.quiet:
        print(summary_line(result))
    else:
        from nqmip.cli.report import print_result

        print_result(result, instance)
    return 0


def _run(args: argparse.Namespace) -> tuple[Result, Any]:
    from nqmip.instance import make_instance
    from nqmip.solve import solve

    if args.feasibility or args.lex_first:
        weights: Any = None
    elif args.weights is not None:
        weights = load_weights(args.weights)
    elif args.random_weights is not None:
        weights = "random"
    else:
        weights = "chess"
    n, fixed = board_and_fixed(args)
    instance = make_instance(
        n, weights, fixed, black=args.black, white=args.white,
        weights_seed=args.random_weights,
    )
    if args.threads is not None and args.threads < 1:
        raise UsageError(f"--threads must be at least 1, got {args.threads}")
    options: dict[str, Any] = dict(args.param)
    if args.lex_first:
        options["objective"] = "lex-first"
    if args.threads is not None:
        options["threads"] = args.threads
    if args.warm_start is not None and args.no_warm_start:
        raise UsageError("--warm-start and --no-warm-start exclude each other")
    if args.warm_start is not None:
        options["warm_start"] = args.warm_start
    if args.no_warm_start:
        from nqmip.backends.base import EXACT_METHODS

        if args.method not in EXACT_METHODS:
            raise UsageError("--no-warm-start applies to the exact backends (--method highs, …)")
        options["warm_start"] = False
    if args.no_strengthen:
        from nqmip.backends.base import EXACT_METHODS

        if args.method not in EXACT_METHODS:
            raise UsageError("--no-strengthen applies to the exact backends (--method highs, …)")
        options["strengthen"] = False
    with live_progress(not (args.json or args.quiet or args.verbose),
                       args.method) as on_progress:
        result = solve(
            instance, method=args.method, time_limit=args.time_limit, seed=args.seed,
            verbose=args.verbose, on_progress=on_progress, **options,
        )
    return result, instance


def board_and_fixed(args: argparse.Namespace) -> tuple[int, list[tuple[int, int]]]:
    """The board size and the fixed queens of ``--n``, ``--fix`` and ``--fixed``."""
    n = args.n
    fixed = list(args.fix)
    if args.fixed is not None:
        from nqmip.instances.csplib import read_fixed

        data = read_fixed(args.fixed)
        if data.n is not None and n is not None and n != data.n:
            raise UsageError(f"--n {n} but {args.fixed} says n = {data.n}")
        n = data.n if n is None else n
        fixed += data.fixed
    return (8 if n is None else n), fixed


@contextmanager
def live_progress(enabled: bool, method: str = "") -> Iterator[Any]:
    """A live line on stderr while a solve runs: spinner, method, elapsed time, and the
    incumbent and bound (or conflicts left) as the solver reports them. Only on a
    terminal, so pipes and files get no control characters."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
               TextColumn("{task.fields[info]}"))
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(f"solving ({method})", info="")

        def on_progress(p: Any) -> None:
            parts = [p.method]
            if p.incumbent is not None:
                parts.append(f"incumbent {p.incumbent:g}")
            if p.bound is not None:
                parts.append(f"bound {p.bound:g}")
            if p.conflicts is not None:
                parts.append(f"conflicts left {p.conflicts}")
            progress.update(task, info="  ".join(parts))

        yield on_progress


def summary_line(result: Result) -> str:
    objective = "-" if result.objective is None else f"{result.objective:g}"
    bound = "-" if result.bound is None else f"{result.bound:g}"
    return (
        f"{result.status} objective={objective} bound={bound} method={result.method} "
        f"time={result.wall_time:.3f}s"
        + (f" placement={np.asarray(result.placement).tolist()}"
           if result.status != Status.INFEASIBLE
           and result.placement is not None else "")
    )


if __name__ == "__main__":  # pragma: no cover
    sys.exit(solve_weighted_main())
