"""``nqmip.solve``: one entry point for every method, exact or heuristic.

Whatever the method, the placement is checked by :mod:`nqmip.verify` before the
:class:`~nqmip.result.Result` is returned; a backend that answers wrongly raises
:class:`~nqmip.verify.VerificationError` instead of returning a silent wrong answer.
"""

from __future__ import annotations

import time
from typing import Any

from nqmip.backends.base import EXACT_METHODS, SolveOptions, get_backend
from nqmip.instance import CHESS_BLACK, CHESS_WHITE, FixedSpec, Instance, WeightsSpec, make_instance
from nqmip.result import Result, Status
from nqmip.verify import VerificationError, check_placement, conflicts


def heuristic_methods() -> tuple[str, ...]:
    from nqmip.heuristics import HEURISTIC_METHODS

    return HEURISTIC_METHODS


def all_methods() -> tuple[str, ...]:
    return EXACT_METHODS + heuristic_methods()


def solve(
    n: int | Instance,
    weights: WeightsSpec = None,
    fixed: FixedSpec = None,
    method: str = "highs",
    time_limit: float | None = None,
    seed: int | None = None,
    *,
    threads: int | None = None,
    mip_gap: float = 0.0,
    verbose: bool = False,
    black: float = CHESS_BLACK,
    white: float = CHESS_WHITE,
    weights_seed: int | None = None,
    **params: Any,
) -> Result:
    """Solve an N-Queens instance and return a verified :class:`Result`.

    ``method`` is an exact backend (``"highs"``, ``"glpk"``, ``"gurobi"``, ``"cpsat"``,
    ``"highs-pyomo"``) or a heuristic (``"ga"``, ``"tabu"``, ``"sa"``, ``"minconflicts"``);
    ``params`` are the heuristic's own parameters. ``time_limit`` is in seconds;
    ``seed`` makes randomised methods reproducible.
    """
    instance = make_instance(n, weights, fixed, black=black, white=white,
                             weights_seed=weights_seed)
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be positive seconds, got {time_limit}")
    if not 0.0 <= mip_gap < 1.0:
        raise ValueError(f"mip_gap must be in [0, 1), got {mip_gap}")
    if method in EXACT_METHODS:
        if params:
            raise TypeError(f"unexpected parameters for {method!r}: {', '.join(params)}")
        options = SolveOptions(time_limit=time_limit, seed=seed, threads=threads,
                               mip_gap=mip_gap, verbose=verbose)
        return solve_exact(instance, method, options)
    if method in heuristic_methods():
        from nqmip.heuristics import run_heuristic

        result = run_heuristic(method, instance, seed=seed, time_limit=time_limit, **params)
        return verified(instance, result)
    raise ValueError(f"unknown method {method!r}: choose from {', '.join(all_methods())}")


def solve_exact(instance: Instance, method: str, options: SolveOptions) -> Result:
    backend = get_backend(method)
    backend.require()
    start = time.perf_counter()
    raw = backend.solve(instance, options)
    wall = time.perf_counter() - start
    result = Result(
        status=raw.status,
        termination=raw.termination,
        n=instance.n,
        method=method,
        solver=backend.solver_label(),
        objective=raw.objective,
        bound=raw.bound,
        placement=raw.placement,
        wall_time=wall,
        weights=instance.name,
        seed=options.seed,
        nodes=raw.nodes,
        warm_start_accepted=raw.warm_start_accepted,
        solve_time=wall,
        message=raw.message,
        extra=raw.extra,
    )
    return verified(instance, result)


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
        instance.weights,
        instance.fixed,
        result.objective,
        source=source,
    )
    bound = result.bound
    if bound is not None and value > bound + 1e-6 * max(1.0, abs(value)):
        raise VerificationError(f"{source}: objective {value} exceeds the proven bound {bound}")
    return result.with_(objective=value, conflicts=conflicts(result.placement))
