"""``nqmip.solve``: one entry point for every method, exact or heuristic.

Whatever the method, the placement is checked by :mod:`nqmip.verify` before the
:class:`~nqmip.result.Result` is returned; a backend that answers wrongly raises
:class:`~nqmip.verify.VerificationError` instead of returning a silent wrong answer.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from nqmip.backends.base import EXACT_METHODS, ProgressCallback, SolveOptions, get_backend
from nqmip.instance import CHESS_BLACK, CHESS_WHITE, FixedSpec, Instance, WeightsSpec, make_instance
from nqmip.result import Result, Status, Termination
from nqmip.verify import VerificationError, check_placement
from nqmip.warmstart import Start, WarmStartError, WarmStartSpec, prepare_start

if TYPE_CHECKING:  # pragma: no cover
    from nqmip.colour_proof import ColourProof

#: Share of a time limit that a named warm-start heuristic may use before the exact solve.
WARM_START_SHARE = 0.2


def heuristic_methods() -> tuple[str, ...]:
    from nqmip.heuristics import HEURISTIC_METHODS

    return HEURISTIC_METHODS


def all_methods() -> tuple[str, ...]:
    return (*EXACT_METHODS, *heuristic_methods(), "auto")


def solve(
    n: int | Instance,
    weights: WeightsSpec = None,
    fixed: FixedSpec = None,
    method: str = "highs",
    time_limit: float | None = None,
    seed: int | None = None,
    *,
    warm_start: WarmStartSpec | bool = None,
    on_progress: ProgressCallback | None = None,
    threads: int | None = None,
    mip_gap: float = 0.0,
    verbose: bool = False,
    strengthen: bool = True,
    bound_proof: bool = False,
    black: float = CHESS_BLACK,
    white: float = CHESS_WHITE,
    weights_seed: int | None = None,
    **params: Any,
) -> Result:
    """Solve an N-Queens instance and return a verified :class:`Result`.

    ``method`` is an exact backend (``"highs"``, ``"glpk"``, ``"gurobi"``, ``"cpsat"``,
    ``"highs-pyomo"``), a heuristic (``"ga"``, ``"tabu"``, ``"sa"``, ``"minconflicts"``) or
    ``"auto"`` (see :mod:`nqmip.hybrid`); ``params`` are the heuristic's own parameters.
    ``time_limit`` is in seconds, for the whole call; ``seed`` makes randomised methods
    reproducible. ``warm_start`` (exact backends) is a placement, a :class:`Result` or a
    heuristic's name, run first with its time counted; without one, an exact solve with a
    time limit starts from the explicit solution of :mod:`nqmip.construct` (no fixed
    queens), so that a limit never leaves it empty-handed; ``warm_start=False`` turns that
    off. ``on_progress`` receives
    :class:`~nqmip.backends.base.Progress` updates while a solver runs. ``strengthen``
    (exact backends, default True) adds the valid rows of
    :mod:`nqmip.formulation.strengthen`; ``strengthen=False`` solves the textbook model.
    ``bound_proof`` (exact backends; what ``method="auto"`` does) first looks, for weights
    constant per colour, for a placement reaching the colour bound, which proves optimality
    without running the backend at all; by default the chosen backend does the solving.
    """
    instance = make_instance(n, weights, fixed, black=black, white=white,
                             weights_seed=weights_seed)
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be positive seconds, got {time_limit}")
    if not 0.0 <= mip_gap < 1.0:
        raise ValueError(f"mip_gap must be in [0, 1), got {mip_gap}")
    if method == "auto":
        from nqmip.hybrid import solve_auto

        return solve_auto(instance, time_limit=time_limit, seed=seed, threads=threads,
                          verbose=verbose, on_progress=on_progress, warm_start=warm_start,
                          **params)
    if method in EXACT_METHODS:
        if params:
            raise TypeError(f"unexpected parameters for {method!r}: {', '.join(params)}")
        options = SolveOptions(time_limit=time_limit, seed=seed, threads=threads,
                               mip_gap=mip_gap, verbose=verbose, on_progress=on_progress,
                               strengthen=strengthen)
        return solve_exact(instance, method, options, warm_start=warm_start,
                           bound_proof=bound_proof)
    if warm_start is not None and warm_start is not False:
        raise WarmStartError(f"warm starts are for the exact backends, not {method!r}")
    if threads is not None:
        raise TypeError(f"the heuristic {method!r} is single-threaded: no threads option")
    if method in heuristic_methods():
        from nqmip.heuristics import run_heuristic

        result = run_heuristic(method, instance, seed=seed, time_limit=time_limit, **params)
        return verified(instance, result)
    raise ValueError(f"unknown method {method!r}: choose from {', '.join(all_methods())}")


def solve_exact(
    instance: Instance,
    method: str,
    options: SolveOptions,
    *,
    warm_start: WarmStartSpec | bool = None,
    warm_start_params: dict[str, Any] | None = None,
    bound_proof: bool = False,
) -> Result:
    """Run an exact backend, after the warm start (if any) has been produced and checked.

    The time limit covers both: a named heuristic gets at most ``WARM_START_SHARE`` of it.
    When the solver ends with nothing better than the start (a backend that cannot take
    starts, or a limit hit early), the start is returned as the incumbent, marked in
    ``extra["incumbent_from"]``.
    """
    backend = get_backend(method)
    backend.require()
    begin = time.perf_counter()
    colour = None
    if bound_proof and options.strengthen and warm_start is None:
        colour = _colour_proof(instance, options)
        if colour is not None and colour.proven:
            return _proof_by_bound(instance, method, backend.solver_label(), options, begin,
                                   colour)
        if colour is not None and colour.placement is not None:
            warm_start = colour.placement  # the best count found: the solver's incumbent
    if warm_start is None and options.time_limit is not None and not instance.fixed:
        # Never empty-handed: a limit that stops the proof still returns this placement.
        from nqmip.construct import explicit_solution

        explicit = explicit_solution(instance.n)
        if explicit is not None:
            warm_start = tuple(int(c) for c in explicit)
    if warm_start is False:
        warm_start = None
    heuristic_limit = None
    if options.time_limit is not None:
        heuristic_limit = options.time_limit * WARM_START_SHARE
    start = prepare_start(instance, warm_start, seed=options.seed, time_limit=heuristic_limit,
                          params=warm_start_params)
    if start is not None and start.placement is not None:
        options = replace(options, warm_start=start.placement)
    if options.time_limit is not None:
        remaining = options.time_limit - (time.perf_counter() - begin)
        options = replace(options, time_limit=max(remaining, 0.01))
    solve_begin = time.perf_counter()
    raw = backend.solve(instance, options)
    solve_time = time.perf_counter() - solve_begin
    compile_time = None
    if start is not None and start.heuristic_result is not None:
        compile_time = start.heuristic_result.compile_time
    result = Result(
        status=raw.status,
        termination=raw.termination,
        n=instance.n,
        method=method,
        solver=backend.solver_label(),
        objective=raw.objective,
        bound=raw.bound,
        placement=raw.placement,
        # numba's compile or cache load is reported apart, as for the heuristics themselves
        wall_time=time.perf_counter() - begin - (compile_time or 0.0),
        weights=instance.name,
        seed=options.seed,
        nodes=raw.nodes,
        warm_start_accepted=_accepted(start, raw.warm_start_accepted),
        start_objective=start.objective if start is not None else None,
        heuristic_time=start.heuristic_time if start is not None else None,
        compile_time=compile_time,
        solve_time=solve_time,
        message=raw.message,
        extra=dict(raw.extra),
    )
    result = verified(instance, result)
    if start is not None:
        result = _keep_better_start(instance, result, start)
    if colour is not None:
        result = _with_colour_bound(instance, result, colour)
    return result


def _colour_proof(instance: Instance, options: SolveOptions) -> ColourProof | None:
    """The colour proof (:mod:`nqmip.colour_proof`) within its share of the time limit."""
    from nqmip.colour_proof import PROOF_SEARCH_SHARE, colour_proof

    budget = None if options.time_limit is None else PROOF_SEARCH_SHARE * options.time_limit
    return colour_proof(instance, time_limit=budget, seed=options.seed)


def _proof_by_bound(
    instance: Instance, method: str, solver: str, options: SolveOptions, begin: float,
    colour: ColourProof,
) -> Result:
    """Optimal without running the solver: the placement reaches the colour bound.

    See :mod:`nqmip.colour_proof`: with weights constant per colour the black-queen bound
    (lowered by the counts the line sets refuted) is a proven objective bound, and a
    placement reaching it is optimal. The backend is then never called (``extra["proof"]``
    says so).
    """
    extra: dict[str, Any] = {"proof": "colour_bound"}
    message = "optimal by the colour bound: the solver was not needed"
    if colour.refuted:
        extra["refuted_black_counts"] = list(colour.refuted)
        message += (f" (no placement has {', '.join(map(str, colour.refuted))} black queens:"
                    " refuted by the line sets)")
    return verified(instance, Result(
        status=Status.OPTIMAL, termination=Termination.OPTIMAL, n=instance.n, method=method,
        solver=f"{solver} (not run: proof by the colour bound)", objective=colour.objective,
        bound=colour.bound, placement=colour.placement,
        wall_time=time.perf_counter() - begin, weights=instance.name, seed=options.seed,
        nodes=0, message=message, extra=extra,
    ))


def _with_colour_bound(instance: Instance, result: Result, colour: ColourProof) -> Result:
    """Tighten the solver's bound with the colour proof's (refuted counts lower it)."""
    if result.status == Status.INFEASIBLE:
        return result
    if result.bound is not None and result.bound <= colour.bound:
        return result
    tol = 1e-6 * max(1.0, abs(colour.bound))
    proven = result.objective is not None and result.objective >= colour.bound - tol
    extra = {**result.extra, "bound_from": "colour_bound"}
    if colour.refuted:
        extra["refuted_black_counts"] = list(colour.refuted)
    return verified(instance, result.with_(
        bound=colour.bound,
        status=Status.OPTIMAL if proven else result.status,
        termination=Termination.OPTIMAL if proven else result.termination,
        extra=extra,
    ))


def _accepted(start: Start | None, solver_said: bool | None) -> bool | None:
    if start is None:
        return None
    if start.placement is None:  # the heuristic found nothing to pass on
        return False
    return bool(solver_said)


def _keep_better_start(instance: Instance, result: Result, start: Start) -> Result:
    if start.placement is None or start.objective is None:
        return result
    if result.status == Status.INFEASIBLE:
        raise VerificationError(
            f"{result.method}: reports infeasible, but the warm start is a valid placement"
        )
    tol = 1e-6 * max(1.0, abs(start.objective))
    if result.objective is not None and result.objective >= start.objective - tol:
        return result
    proven = result.bound is not None and start.objective >= result.bound - tol
    extra = {**result.extra, "incumbent_from": "warm_start"}
    return verified(instance, result.with_(
        placement=start.placement,
        objective=start.objective,
        status=Status.OPTIMAL if proven else Status.FEASIBLE,
        termination=Termination.OPTIMAL if proven else result.termination,
        extra=extra,
    ))


def verified(instance: Instance, result: Result) -> Result:
    """Check a result's placement and objective independently; raise if they are wrong."""
    source = f"{result.method} ({result.solver})"
    if result.placement is None:
        if result.status in (Status.OPTIMAL, Status.FEASIBLE):
            raise VerificationError(f"{source}: status {result.status} without a placement")
        return result
    if result.status in (Status.INFEASIBLE, Status.UNKNOWN):
        raise VerificationError(f"{source}: status {result.status} with a placement")
    value = check_placement(
        result.placement,
        instance.n,
        instance.colours if instance.colours is not None else instance.dense,
        instance.fixed,
        result.objective,
        source=source,
    )
    bound = result.bound
    if bound is not None and value > bound + 1e-6 * max(1.0, abs(value)):
        raise VerificationError(f"{source}: objective {value} exceeds the proven bound {bound}")
    return result.with_(objective=value, conflicts=0)  # check_placement counted them
