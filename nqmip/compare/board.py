"""The instance of an ``nqmip-compare`` grid, read from the solve command's instance options
by the same code (:mod:`nqmip.cli.parser`): the kind of weights or a weights file
(``--weights FILE``, ``--costs FILE``: the matrix fixes n), ``--black``/``--white``,
``--minimize`` and the fixed queens (``--fix``, ``--fixed``), which every size of the grid
must hold. Every run of the grid solves this instance at its n
(:func:`nqmip.compare.harness.cell_instance`)."""

from __future__ import annotations

import argparse
import hashlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nqmip.cli.parser import UsageError, check_values, sizes_and_fixed
from nqmip.compare.grid import WEIGHT_CHOICES, WEIGHTS_FILE, Board, parse_sizes

#: The board size of a grid given neither ``--n`` nor a file that states one.
DEFAULT_N = 8


@dataclass(frozen=True)
class GridInstance:
    """What :func:`grid_instance` read: the sizes, the kind of weights, the board (sense,
    fixed queens, matrix) and the ``--param``-style entries of ``--black``/``--white``."""

    sizes: list[int]
    weights: str
    board: Board
    params: list[tuple[str | None, str, Any]]


def _matrix(args: argparse.Namespace) -> tuple[str, Path, Any] | None:
    """The weights file (option, path, matrix), read as the solve command reads it."""
    if args.costs is not None:
        option, path = "--costs", args.costs
    elif args.weights is not None and args.weights not in WEIGHT_CHOICES:
        option, path = "--weights", Path(args.weights)
        if not path.exists() and str(path) != "-" and not path.suffix:
            raise UsageError(f"--weights takes {', '.join(WEIGHT_CHOICES)} or a weights "
                             f"file (.csv, .npy, - for standard input), got {args.weights!r}")
    else:
        return None
    if str(path) == "-" and args.fixed is not None and str(args.fixed) == "-":
        raise UsageError(f"{option} - and --fixed -: standard input holds one of them; give "
                         "the other as a file")
    from nqmip.cli.solve import load_weights

    return option, path, load_weights(path, option)


def _sizes(args: argparse.Namespace, read: tuple[str, Path, Any] | None) -> list[int] | None:
    """``--n``'s sizes; with a weights file, its n (``--n`` must then be that n alone)."""
    sizes = None if args.n is None else parse_sizes(args.n)
    if read is None:
        return sizes
    option, path, matrix = read
    n = int(matrix.shape[0])
    if sizes is not None and sizes != [n]:
        raise UsageError(f"--n {args.n} but {option} {path} is {n} x {n}: a weights file "
                         "fixes n; drop --n or give --n " + str(n))
    return [n]


def _read(args: argparse.Namespace, stop: Any, hard: float | None
          ) -> tuple[tuple[str, Path, Any] | None, list[int], list[tuple[int, int]]]:
    """The weights file and the sizes and fixed queens; an input that may wait (standard
    input, a pipe) is waited on for one run's hard limit at most (``hard`` seconds:
    :class:`~nqmip.cli.signals.InputWait`), and a stop signal ends the wait (``stop``:
    the command's :class:`~nqmip.cli.signals.Stop`; a pipe no program writes to held
    the sweep past SIGTERM, whose handler only recorded it)."""
    from contextlib import nullcontext

    from nqmip.cli.signals import waiting_inputs, waits

    files = [(option, path) for option, path in (
        ("--weights", None if args.weights in WEIGHT_CHOICES else args.weights),
        ("--costs", args.costs), ("--fixed", args.fixed)) if path is not None]
    waiting = any(waits(path) for _, path in files)
    limit = (f"--hard-limit {hard:g}" if args.hard_limit is not None else
             f"one run's hard limit ({hard:g} s: --time-limit + --grace)")
    with stop.interruptible(waiting, waits=waiting) if stop is not None else nullcontext(), \
            waiting_inputs(files, hard, limit):
        read = _matrix(args)
        sized_by = None if read is None or args.n is not None else f"{read[0]} {read[1]}"
        sizes, fixed = sizes_and_fixed(_sizes(args, read), args.fix, args.fixed, DEFAULT_N,
                                       sized_by)
    return read, sizes, fixed


def grid_instance(args: argparse.Namespace, stop: Any = None,
                  hard: float | None = None) -> GridInstance:
    """The grid's instance from the command line (bad input: :class:`UsageError`);
    ``stop``, ``hard``: see :func:`_read`."""
    read, sizes, fixed = _read(args, stop, hard)
    kind = WEIGHTS_FILE if read is not None else (args.weights or "chess")
    source = f"a weights file ({read[1]})" if read is not None else f"--weights {kind}"
    check_values(args.black, args.white, args.minimize, kind == "chess", source,
                 kind != "none")
    sense = "min" if args.minimize or args.costs is not None or kind == "toulbar2" else "max"
    queens = tuple(sorted((int(r), int(c)) for r, c in fixed))
    _check_instance(min(sizes), None if read is None else read[2], queens, sense)
    if kind == "chess" and (args.black is not None or args.white is not None):
        # values whose totals pass 2^53 on the largest board: every run would refuse them
        _check_colours(max(sizes), args.black, args.white)
    for _, name, value in args.param if kind == "chess" else ():  # --param black=1e30
        if name in ("black", "white") and isinstance(value, int | float) \
                and not isinstance(value, bool) and math.isfinite(value):
            _check_colours(max(sizes), *((value, None) if name == "black" else (None, value)))
    params: list[tuple[str | None, str, Any]] = [
        (None, name, value) for name, value in (("black", args.black), ("white", args.white))
        if value is not None]
    given = [name for _, name, _ in params if any(p[1] == name for p in args.param)]
    if given:
        raise UsageError(f"--{given[0]} and --param {given[0]}: give it once")
    if read is None:
        return GridInstance(sizes, kind, Board(sense=sense, fixed=queens), params)
    matrix = read[2].astype(float)
    digest = hashlib.sha256(matrix.tobytes()).hexdigest()
    board = Board(sense=sense, fixed=queens, matrix=matrix.tolist(), source=str(read[1]),
                  digest=digest)
    return GridInstance(sizes, kind, board, params)


def _check_colours(n: int, black: float | None, white: float | None) -> None:
    """``--black``/``--white`` refused as every run at board ``n`` would refuse them
    (:func:`nqmip.instance.make_instance`: weights whose totals pass 2^53)."""
    from nqmip.instance import InstanceError, make_instance

    try:
        make_instance(n, "chess", black=black, white=white)
    except InstanceError as exc:
        raise UsageError(str(exc)) from None


def _check_instance(n: int, matrix: Any, fixed: tuple[tuple[int, int], ...],
                    sense: str) -> None:
    """Fixed queens that attack each other, or a matrix that is no board's weights,
    refused as every run would refuse them (:func:`nqmip.instance.make_instance`)."""
    if not fixed and matrix is None:
        return
    from nqmip.instance import InstanceError, make_instance

    try:
        make_instance(n, matrix, list(fixed), sense=sense if matrix is not None else "max")
    except InstanceError as exc:
        raise UsageError(str(exc)) from None
