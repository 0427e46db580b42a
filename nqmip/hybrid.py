"""``method="auto"``: the right tool for the instance, within one time limit.

- Feasibility (no weights): min-conflicts first; a conflict-free placement of n queens
  is optimal (the bound is n). Only when it fails (fixed queens that may admit no
  completion) and n is inside the exact range does an exact backend settle the question.
- Weights constant per colour (chess), n <= ``AUTO_COLOUR_EXACT_MAX_N``: the colour-bound
  proof, else the strengthened model; beyond: the colour search (a proof when it reaches
  the bound), else the heuristic with the colour bound.
- Other weights, n <= ``AUTO_EXACT_MAX_N``: a heuristic warm start (simulated annealing), then
  the exact backend that proves fastest here (see docs/warm-starts.md for the measurements).
- Weights, larger n: the heuristics alone; the result is ``feasible`` with the best cheap
  bound (the LP relaxation up to ``LP_BOUND_MAX_N``, beyond it the smaller of the row-
  and column-maximum sums) and the gap.

A time limit covers the whole call; whatever stopped it, the best incumbent and bound
found so far come back.
"""

from __future__ import annotations

import time
from typing import Any

from nqmip.backends.base import ProgressCallback, SolveOptions, get_backend
from nqmip.instance import Instance
from nqmip.result import Result, Status

#: Largest n for which "auto" runs an exact backend on other weights: HiGHS proved random
#: weights (1..9) up to n = 36 within 60 s (37.9 s cold, median of 3) and none at n = 40
#: (docs/benchmarks-warmstart.md).
AUTO_EXACT_MAX_N = 36
#: Largest n for which "auto" runs the exact path on weights constant per colour (chess):
#: the colour-bound proof, then the strengthened model (docs/frontier.md).
AUTO_COLOUR_EXACT_MAX_N = 64
#: Seconds of colour proof beyond that range when no time limit is given, else its share
#: of the time left (the heuristic gets the rest): chess n = 66 and 72 were proven in
#: 10-33 s for 3 seeds, n = 80 for 2 of 3 (docs/benchmarks-colour.md).
AUTO_COLOUR_SEARCH = 60.0
AUTO_COLOUR_SHARE = 0.8
#: Largest n for which the LP relaxation is solved for a bound (a few seconds at most).
LP_BOUND_MAX_N = 200
#: The exact backends "auto" prefers, in order, among those installed and licensed for n.
#: Gurobi first where it is installed and its licence covers n: it proved what HiGHS could
#: not (chess n = 36, 37 with the strengthened model; random weights n = 40) and was
#: faster elsewhere (random n = 36: 12.7 s against 37.9 s; docs/benchmarks-warmstart.md,
#: docs/frontier.md). HiGHS, which ships with nqmip, everywhere else.
AUTO_BACKENDS = ("gurobi", "highs")
GUROBI_SIZE_LIMITED_MAX_N = 44
#: Heuristic used as the warm start and, beyond the exact range, as the solver.
AUTO_HEURISTIC = "sa"
#: Below this n the exact backends prove the optimum in a few hundredths of a second: a warm
#: start (and loading numba for it) would cost more than it saves.
AUTO_WARM_START_MIN_N = 16


def pick_backend(n: int) -> str:
    for name in AUTO_BACKENDS:
        backend = get_backend(name)
        if not backend.available():
            continue
        if name == "gurobi" and n > GUROBI_SIZE_LIMITED_MAX_N:
            continue  # pip's licence; a full licence user can ask for method="gurobi"
        return name
    return "highs"


def lp_bound(instance: Instance, time_limit: float | None = None) -> float | None:
    """The LP relaxation's optimum (an upper bound on the weighted optimum), or None."""
    import highspy

    from nqmip.backends.highs import to_highs_lp
    from nqmip.formulation.matrix import build_linear_model

    lm = build_linear_model(instance)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    if time_limit is not None:
        h.setOptionValue("time_limit", max(float(time_limit), 0.01))
    lp = to_highs_lp(lm, highspy)
    lp.integrality_ = []
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    return float(h.getInfo().objective_function_value)


def cheap_bound(instance: Instance, time_limit: float | None) -> tuple[float, str]:
    from nqmip.heuristics.common import weight_bound

    combinatorial = weight_bound(instance)
    if _colour_weights(instance):
        from nqmip.formulation.strengthen import plan

        colour_bound = plan(instance).objective_bound
        if colour_bound is not None and colour_bound < combinatorial:
            return float(colour_bound), "colour_bound"
    if instance.n <= LP_BOUND_MAX_N:
        lp = lp_bound(instance, time_limit)
        if lp is not None and lp < combinatorial:
            return lp, "lp_relaxation"
    return combinatorial, "row_column_maxima"


def solve_auto(
    instance: Instance,
    *,
    time_limit: float | None,
    seed: int | None,
    threads: int | None = None,
    verbose: bool = False,
    on_progress: ProgressCallback | None = None,
    warm_start: Any = None,
    **params: Any,
) -> Result:
    from nqmip.heuristics import run_heuristic
    from nqmip.solve import solve_exact, verified

    if params:
        raise TypeError(f"unexpected parameters for 'auto': {', '.join(params)}")
    begin = time.perf_counter()
    n = instance.n

    def remaining() -> float | None:
        if time_limit is None:
            return None
        return max(time_limit - (time.perf_counter() - begin), 0.01)

    options = SolveOptions(time_limit=time_limit, seed=seed, threads=threads, verbose=verbose,
                           on_progress=on_progress)
    if instance.is_feasibility:
        first = verified(instance, run_heuristic("minconflicts", instance, seed=seed,
                                                 time_limit=remaining()))
        if first.status == Status.OPTIMAL or n > AUTO_EXACT_MAX_N:
            return _as_auto(first, begin, plan=["minconflicts"])
        backend = pick_backend(n)
        exact = solve_exact(instance, backend, _with_limit(options, remaining()))
        return _as_auto(exact, begin, plan=["minconflicts", backend],
                        heuristic_time=first.wall_time)

    colour = _colour_weights(instance)
    if colour and n <= AUTO_COLOUR_EXACT_MAX_N and warm_start is None:
        # Weights constant per colour (chess): the colour-bound proof, then the strengthened
        # model (docs/formulation-strengthening.md); a heuristic start would skip the proof.
        backend = pick_backend(n)
        result = solve_exact(instance, backend, options, bound_proof=True)
        plan = ["colour-bound proof"] if result.extra.get("proof") else [backend]
        return _as_auto(result, begin, plan=plan)

    if n <= AUTO_EXACT_MAX_N:
        backend = pick_backend(n)
        if warm_start is None and n >= AUTO_WARM_START_MIN_N:
            warm_start = AUTO_HEURISTIC
        result = solve_exact(instance, backend, options, warm_start=warm_start)
        plan = [backend] if warm_start is None else [_start_label(warm_start), backend]
        return _as_auto(result, begin, plan=plan)

    if colour:
        found = _colour_search(instance, seed, remaining())
        if found is not None:
            return _as_auto(found, begin, plan=["colour search", "bound:colour_bound"])

    # Beyond the exact range: the heuristic alone, with a cheap bound.
    heuristic_limit = None if time_limit is None else remaining() * 0.8  # type: ignore[operator]
    found = verified(instance, run_heuristic(AUTO_HEURISTIC, instance, seed=seed,
                                             time_limit=heuristic_limit))
    if found.placement is None:
        return _as_auto(found, begin, plan=[AUTO_HEURISTIC])
    bound, bound_kind = cheap_bound(instance, remaining())
    proven = found.objective is not None and found.objective >= bound - 1e-9
    result = verified(instance, found.with_(
        bound=bound, status=Status.OPTIMAL if proven else Status.FEASIBLE,
        extra={**found.extra, "bound_from": bound_kind}))
    return _as_auto(result, begin, plan=[AUTO_HEURISTIC, f"bound:{bound_kind}"])


def _colour_weights(instance: Instance) -> bool:
    if instance.is_feasibility:
        return False
    from nqmip.formulation.strengthen import colour_weights

    return colour_weights(instance) is not None


def _colour_search(instance: Instance, seed: int | None, limit: float | None) -> Result | None:
    """Beyond the exact range, for weights constant per colour: the colour proof of
    :mod:`nqmip.colour_proof` (search at the bound B, refute B with the line sets, then
    B - 2, …) with ``AUTO_COLOUR_SHARE`` of the time left, or ``AUTO_COLOUR_SEARCH`` seconds
    without a limit.
    None when it found no placement (the heuristic takes over)."""
    from nqmip.colour_proof import colour_proof
    from nqmip.result import Termination
    from nqmip.solve import verified

    begin = time.perf_counter()
    budget = AUTO_COLOUR_SEARCH if limit is None else AUTO_COLOUR_SHARE * limit
    found = colour_proof(instance, time_limit=budget, seed=seed)
    if found is None or found.placement is None:
        return None
    proven = found.proven
    extra: dict[str, Any] = {"black_queens": found.black}
    if proven:
        extra["proof"] = "colour_bound"
    if found.refuted:
        extra["refuted_black_counts"] = list(found.refuted)
    return verified(instance, Result(
        status=Status.OPTIMAL if proven else Status.FEASIBLE,
        termination=Termination.OPTIMAL if proven else Termination.TIME_LIMIT,
        n=instance.n, method="auto", solver="colour search", objective=found.objective,
        bound=found.bound, placement=found.placement,
        wall_time=time.perf_counter() - begin, weights=instance.name, seed=seed,
        message=("optimal: the placement reaches the colour bound" if proven else
                 f"{found.black} black queens; the bound allows {found.black_bound}"),
        extra=extra))


def _start_label(warm_start: Any) -> str:
    return warm_start if isinstance(warm_start, str) else "given start"


def _with_limit(options: SolveOptions, limit: float | None) -> SolveOptions:
    from dataclasses import replace

    return replace(options, time_limit=limit)


def _as_auto(result: Result, begin: float, *, plan: list[str],
             heuristic_time: float | None = None) -> Result:
    solver = result.solver if result.method == plan[-1] else f"{result.method}: {result.solver}"
    return result.with_(
        method="auto",
        solver=f"auto[{' -> '.join(plan)}] {solver}",
        wall_time=time.perf_counter() - begin - (result.compile_time or 0.0),
        heuristic_time=heuristic_time if heuristic_time is not None else result.heuristic_time,
        extra={**result.extra, "plan": plan},
    )

