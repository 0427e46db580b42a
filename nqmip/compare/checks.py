"""What ``nqmip-compare`` refuses before the sweep starts, each in one line (exit 2): a
``--param`` no method of the grid takes, a ``--target`` no placement can reach, a method
that is not available here or made for other weights than the grid's, an output file
that cannot be written. A sweep of an hour must not fail at its first cell, nor at its
end."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from nqmip.cli.parser import check_record_file, check_writable
from nqmip.compare.grid import UsageError

#: Keywords the grid sets itself (or that make no sense in a row): refused as ``--param``.
GRID_OWN = ("n", "weights", "method", "time_limit", "seed", "warm_start", "weights_seed",
            "fixed", "target", "on_progress", "verbose")
#: Keywords of :func:`nqmip.solve` every method takes: they make the board.
BOARD = ("black", "white")
#: Keywords of the instance the grid's own options set, and the option of each.
INSTANCE_FLAGS = {"sense": "--minimize", "fixed": "--fix/--fixed",
                  "weights_seed": "--weights random (each run's seed draws its weights)"}


def _check_board_value(name: str, value: Any) -> None:
    """``black``/``white``: finite numbers."""
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not math.isfinite(value):
        raise UsageError(f"--param {name}={json_text(value)}: {name} takes a finite number")


def json_text(value: Any) -> str:
    import json

    return value if isinstance(value, str) else json.dumps(value)


def check_params(params: Sequence[tuple[str | None, str, Any]],
                 methods: Sequence[str]) -> None:
    """Refuse a ``--param`` that a method it applies to would refuse: an option of the
    method table it does not honour or a value outside its type and range (the method
    table's, :meth:`~nqmip.methods.Method.check`), or a parameter of its own it does not
    have or a value not of its declared type (the exact methods and auto take none)."""
    from nqmip.methods import METHODS, OPTIONS, takers_note

    given: dict[tuple[str | None, str], Any] = {}
    for aim, name, value in params:  # the solve command refuses it too (the last won)
        key = (aim, name)
        if key in given:
            where = f"{aim}:{name}" if aim is not None else name
            raise UsageError(f"--param {where}: given twice ({where}={json_text(given[key])}"
                             f" and {where}={json_text(value)}); give it once")
        given[key] = value
    for aim, name, value in params:
        if aim is not None and aim not in methods:
            raise UsageError(f"--param {aim}:{name}: {aim!r} is not in --methods")
        if name in INSTANCE_FLAGS:
            raise UsageError(f"--param {name}: set it with {INSTANCE_FLAGS[name]}")
        if name in GRID_OWN:
            raise UsageError(f"--param {name}: set it with the grid's own options")
        if name in BOARD:
            _check_board_value(name, value)
            continue
        for method in [aim] if aim is not None else methods:
            spec = METHODS[method]
            if name in OPTIONS:
                if not spec.honour(name):
                    if aim is None:  # the grid's methods that take it
                        takers = [m for m in methods if METHODS[m].honour(name)]
                        raise UsageError(f"--param {name}: {method} does not take {name}"
                                         f"{takers_note(takers)}; "
                                         f"give it as --param METHOD:{name}=VALUE")
                    takers = [m for m in METHODS if METHODS[m].honour(name)]
                    raise UsageError(f"--param {aim}:{name}: {method} does not take {name}"
                                     f"{takers_note(takers)}")
                try:
                    spec.check(name, value)
                    if name == "work_limit":  # whole units, not twice, not with the proof
                        _check_work_limit(spec, value, params)
                except (TypeError, ValueError) as exc:
                    raise UsageError(f"--param {name}={json_text(value)}: {exc}") from None
                continue
            from nqmip.heuristics.params import param_refusal

            refusal = param_refusal(method, name, value, json_text(value))
            if refusal is not None:
                raise UsageError(refusal)
    _check_cluster_params(params, methods)


def _check_work_limit(spec: Any, value: Any,
                      params: Sequence[tuple[str | None, str, Any]]) -> None:
    """``work_limit`` as :func:`nqmip.solve` checks it with the method's other parameters
    (a fractional one for a method counting whole units failed every run of the sweep)."""
    from nqmip.solve import check_work_limit

    own = {name: v for aim, name, v in params if aim in (None, spec.name)}
    check_work_limit(spec, value, own, own.get("bound_proof"))


#: The keywords of a run on a Dask cluster, checked together (:func:`nqmip.cluster.check_cluster`).
CLUSTER = ("workers", "scheduler", "record", "threads", "work_limit")


def _check_cluster_params(params: Sequence[tuple[str | None, str, Any]],
                          methods: Sequence[str]) -> None:
    """The keywords of a run on a cluster as each method's runs would get them, checked as
    :func:`nqmip.solve` checks them: ``--param bnb:record=...`` without ``workers`` was
    taken, and every run of the sweep failed ('record keeps the state of a run on a
    cluster: give workers or scheduler too')."""
    from nqmip.cluster import check_cluster

    for method in methods:
        given = {name: value for aim, name, value in params
                 if aim in (None, method) and name in CLUSTER}
        if not given.keys() & {"workers", "scheduler", "record"}:
            continue
        try:
            check_cluster(given, auto=method == "auto")
        except (TypeError, ValueError) as exc:
            raise UsageError(f"--param, for {method}: {exc}") from None


#: The kinds of weights of each ``--weights`` of the grid (:data:`nqmip.methods.WEIGHT_KINDS`).
WEIGHT_KIND = {"chess": "colour", "none": "none", "random": "dense", "toulbar2": "dense",
               "file": "dense"}


def check_weights(weights: str, methods: Sequence[str],
                  params: Sequence[tuple[str | None, str, Any]] = (),
                  warm_start: str | None = None, minimize: bool = False) -> None:
    """Refuse a method, or the ``--warm-start`` heuristic, made for other weights than the
    grid's (topsquares: a matrix; quota: two colour values, not ``--param black`` =
    ``white``; lns: weights), as :func:`nqmip.solve` would refuse each of its runs
    (:func:`nqmip.methods.check_weights`)."""
    from nqmip.cli.parser import check_values
    from nqmip.instance import CHESS_BLACK, CHESS_WHITE
    from nqmip.methods import METHODS
    from nqmip.methods import check_weights as check_kind

    kind = WEIGHT_KIND[weights]
    source = "a weights file" if weights == "file" else f"--weights {weights}"
    # the solve command's refusal of --minimize without weights
    check_values(None, None, minimize, weights == "chess", source, kind != "none")
    colour_values = [key for _, key, _ in params if key in ("black", "white")]
    if colour_values and weights != "chess":  # every run would refuse them (make_instance)
        raise UsageError(f"--param {colour_values[0]}: black and white set the chess colours' "
                         f"values; {source} has no colours")
    runs = [(method, method, f"--methods {method}") for method in methods]
    runs += [(warm_start, method, f"--warm-start {warm_start}") for method in methods
             if warm_start is not None and METHODS[method].honour("warm_start")]
    for name, method, flag in runs:
        colours = {key: value for aim, key, value in params
                   if key in ("black", "white") and aim in (None, method)}
        uniform = colours.get("black", CHESS_BLACK) == colours.get("white", CHESS_WHITE)
        try:
            check_kind(METHODS[name], feasibility=kind == "none", colours=kind == "colour",
                       dense=kind == "dense", uniform=kind == "colour" and uniform)
        except ValueError as exc:
            raise UsageError(f"{flag} with {source}: {exc}") from None


def check_available(methods: Sequence[str]) -> None:
    """Refuse an exact method whose solver is not installed here (the install hint)."""
    from nqmip.backends.base import get_backend
    from nqmip.methods import METHODS

    for method in methods:
        if METHODS[method].kind != "exact":
            continue
        backend = get_backend(method)
        if not backend.available():
            raise UsageError(f"--methods: {method} is not available here: "
                             f"{backend.install_hint}")


def check_outputs(outputs: Sequence[tuple[str, Path | None]]) -> None:
    """:func:`check_writable` for each (option, path) given; the same file named twice
    is refused."""
    seen: dict[Path, str] = {}
    for option, path in outputs:
        if path is None:
            continue
        where = path.resolve()
        if where in seen and seen[where] != option:
            raise UsageError(f"{option}: {path} is also the file of {seen[where]}")
        seen[where] = option
        check_writable(path, option, UsageError)


def check_capacity(sizes: Sequence[int], methods: Sequence[str], weights: str,
                   params: Sequence[tuple[str | None, str, Any]] = (),
                   costs: bool = True) -> None:
    """Refuse a size a method of the grid would refuse for this machine's memory
    (:func:`nqmip.fits.check_capacity`, what each run would answer: before, every such
    run failed in its own process, and the sweep exited 1 after them)."""
    from nqmip.capacity import CapacityError
    from nqmip.fits import check_capacity as check_run
    from nqmip.methods import METHODS, OPTIONS

    dense = WEIGHT_KIND[weights] == "dense"
    for method in methods:
        own = {key: value for aim, key, value in params
               if aim in (None, method) and key not in OPTIONS and key not in BOARD}
        n = max(sizes)  # the largest decides
        try:
            check_run(METHODS[method], n, dense=dense, params=own, costs=costs)
        except CapacityError as exc:
            raise UsageError(f"--n {n} --methods {method}: {exc}") from None


def skip_past_licence(cells: list[Any]) -> tuple[list[Any], list[str]]:
    """The cells to run, less gurobi's on boards past this machine's Gurobi licence (the
    size-limited one pip's gurobipy brings, past n = 44: each run would be refused), and
    a note saying which were skipped; every cell past it is refused in one line."""
    from nqmip.backends.base import get_backend

    # fixed queens take squares out of the model: such a run decides for itself
    sizes = {cell.n for cell in cells if cell.method == "gurobi" and not cell.fixed}
    if not sizes or not get_backend("gurobi").available():
        return cells, []
    from nqmip.backends.gurobi import SIZE_LIMITED, WHAT_TO_DO, past_licence

    past = sorted(n for n in sizes if past_licence(n))
    if not past:
        return cells, []
    kept = [cell for cell in cells
            if not (cell.method == "gurobi" and not cell.fixed and cell.n in past)]
    if not kept:
        raise UsageError(f"--n {','.join(map(str, past))} --methods gurobi: every board is "
                         f"past {SIZE_LIMITED}: {WHAT_TO_DO}")
    return kept, [f"gurobi skipped at n = {', '.join(map(str, past))}: past {SIZE_LIMITED}; "
                  "a full Gurobi licence runs it there"]


def check_target(cells: Sequence[Any]) -> None:
    """A ``--target VALUE`` no placement can reach is refused, in the line the solve
    command and :func:`nqmip.solve` refuse it with (:func:`nqmip.solve.check_target`),
    naming the board whose bound is furthest below it (above it with costs): the most
    (least) a target of the whole grid may be. ``auto`` comes from the runs' own
    placements and ``none`` is no target."""
    from dataclasses import asdict

    from nqmip.compare.grid import TARGET_AUTO
    from nqmip.compare.harness import cell_instance
    from nqmip.heuristics.common import weight_bound
    from nqmip.solve import check_target as check_one

    given = [c for c in cells if c.target_mode not in (None, TARGET_AUTO)]
    boards = {c.board(): c for c in given}
    if not boards:
        return
    sign = -1.0 if given[0].sense == "min" else 1.0
    instances = [(cell, cell_instance(asdict(cell))) for cell in boards.values()]
    cell, tightest = min(instances, key=lambda ci: sign * weight_bound(ci[1]))
    try:
        check_one(tightest, float(cell.target_mode))
    except ValueError as exc:
        where = f" (n = {cell.n}{f', seed {cell.seed}' if cell.weights == 'random' else ''})"
        raise UsageError(f"{exc}{where if len(boards) > 1 else ''}") from None


def check_files(args: Any, output: Path | None) -> Path | None:
    """Check every file the command will write, before any work; the CSV file, if any."""
    from nqmip.compare.plot import plot_files

    if args.plot is not None and args.plot.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise UsageError(f"--plot writes .png, .svg or .pdf, got {args.plot.name!r}")
    if args.report is not None and args.report.suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"--report writes an .html file, got {args.report.name!r}")
    if args.retry_failed and args.resume is None:
        raise UsageError("--retry-failed needs --resume FILE")
    if args.resume is not None and not args.resume.is_file():
        _not_a_record(args.resume)
    if args.csv == "-" and (args.json or args.markdown):
        other = "--json" if args.json else "--markdown"
        raise UsageError(f"argument --csv: not allowed with argument {other} (both print "
                         "to stdout); give --csv a FILE")
    csv = None if args.csv in (None, "-") else Path(args.csv)
    if output is not None:  # read back and appended to, as the other doors' records
        check_record_file(output, "--output" if args.output else "--resume", UsageError)
    from nqmip.cli.clash import check_distinct
    from nqmip.compare.grid import WEIGHT_CHOICES

    check_distinct([("--weights", None if args.weights in WEIGHT_CHOICES else args.weights),
                    ("--costs", args.costs), ("--fixed", args.fixed)],
                   [("--output" if args.output else "--resume", output), ("--csv", csv),
                    ("--report", args.report), ("--plot", args.plot)], UsageError)
    plots = list(plot_files(args.plot).values()) if args.plot is not None else []
    check_outputs([("--output" if args.output else "--resume", output),
                   *[("--plot", p) for p in plots], ("--report", args.report),
                   ("--csv", csv)])
    return csv


def _not_a_record(path: Path) -> NoReturn:
    """Refuse ``--resume PATH`` that is not a file, saying what it is, as the other doors
    say it of a record or an input (a folder, a device or a pipe, nothing)."""
    give = "give the --output file of an earlier sweep"
    if path.is_dir():
        raise UsageError(f"--resume {path}: a folder, not a file; {give}")
    if path.exists():
        raise UsageError(f"--resume {path}: not a regular file (a device or a pipe); {give}")
    raise UsageError(f"--resume: no such file: {path}; {give}")


def check_processes(workers: int | None, jobs: int | None, runs: int) -> None:
    """Refuse a sweep whose processes at once would not fit in this machine's memory (a
    local Dask cluster of ``workers``, or ``jobs`` runs at once, at most one per run):
    ``--workers 200`` ended in a ``CapacityError`` traceback from the cluster's start."""
    from nqmip.capacity import CapacityError
    from nqmip.capacity import check_processes as check

    try:
        if workers is not None:
            check(workers)
        elif jobs is not None:
            check(min(jobs, runs), what="run")
    except CapacityError as exc:
        raise UsageError(f"{'--workers' if workers is not None else '--jobs'} "
                         f"{workers if workers is not None else jobs}: {exc}") from None
