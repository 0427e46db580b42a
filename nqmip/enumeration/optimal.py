"""Every optimal placement of a small board: by the bitboard enumerator, or by CP-SAT.

For the feasibility problem (no weights: every solution is optimal, so the counts are OEIS
A000170, 92 for n = 8) and for integer weights on boards up to ``BITBOARD_WEIGHTED_MAX_N``,
the numba bitboard enumerator of :mod:`nqmip.enumeration.count` lists every solution and
keeps the best (n = 12's 14,200 placements in 0.16 s, where CP-SAT took 8.5 s). Otherwise CP-SAT,
in two
runs: the first proves the optimum; the second fixes the objective at that value and lists
every solution (``enumerate_all_solutions``, which turns off the presolve reductions that
could lose solutions). The model is the textbook one, with no symmetry breaking: symmetric
optima are all listed.
"""

from __future__ import annotations

import logging
from typing import Literal, overload

import numpy as np

from nqmip.budget import Deadline
from nqmip.formulation.cpsat import cp_solver
from nqmip.instance import FixedSpec, Instance, WeightsSpec, make_instance

log = logging.getLogger(__name__)

#: The bitboard engine takes weighted boards up to this size (all 14,200 solutions of
#: n = 12 are listed and scored); beyond, CP-SAT's optimum proof prunes far more.
BITBOARD_WEIGHTED_MAX_N = 12

Engine = Literal["auto", "bitboard", "cpsat"]


class EnumerationError(RuntimeError):
    """The optimum could not be proven, or the weights are not integers."""


def choose_engine(instance: Instance, engine: Engine = "auto") -> str:
    """The engine that lists the optima of ``instance``: "bitboard" or "cpsat"."""
    if engine not in ("auto", "bitboard", "cpsat"):
        raise ValueError(f"engine must be 'auto', 'bitboard' or 'cpsat', got {engine!r}")
    if engine != "auto":
        return engine
    from nqmip.enumeration.count import MAX_N

    if instance.is_feasibility:
        return "bitboard" if instance.n <= MAX_N else "cpsat"
    return "bitboard" if instance.n <= BITBOARD_WEIGHTED_MAX_N else "cpsat"


@overload
def enumerate_optimal(
    n: int | Instance | None, weights: WeightsSpec = ..., fixed: FixedSpec = ..., *,
    black: float | None = ..., white: float | None = ..., weights_seed: int | None = ...,
    time_limit: float | None = ..., max_solutions: int | None = ..., engine: Engine = ...,
    return_engine: Literal[False] = ...,
) -> tuple[float | None, list[tuple[int, ...]]]: ...


@overload
def enumerate_optimal(
    n: int | Instance | None, weights: WeightsSpec = ..., fixed: FixedSpec = ..., *,
    black: float | None = ..., white: float | None = ..., weights_seed: int | None = ...,
    time_limit: float | None = ..., max_solutions: int | None = ..., engine: Engine = ...,
    return_engine: Literal[True],
) -> tuple[float | None, list[tuple[int, ...]], str]: ...


def enumerate_optimal(
    n: int | Instance | None,
    weights: WeightsSpec = None,
    fixed: FixedSpec = None,
    *,
    black: float | None = None,
    white: float | None = None,
    weights_seed: int | None = None,
    time_limit: float | None = 60.0,
    max_solutions: int | None = None,
    engine: Engine = "auto",
    return_engine: bool = False,
) -> tuple[float | None, list[tuple[int, ...]]] | tuple[float | None, list[tuple[int, ...]], str]:
    """``(optimum, placements)``: every optimal placement, sorted; ``(None, [])`` if none.

    Weights must be integers (the optimum is fixed exactly); ``max_solutions`` stops the
    listing early (the first ones in lexicographic order with the bitboard engine). Raises
    :class:`EnumerationError` when the optimum or the listing is not complete within
    ``time_limit`` seconds (each CP-SAT run; the whole listing for the bitboard engine).
    ``engine`` picks "bitboard" (feasibility up to n = 32, weights up to
    ``BITBOARD_WEIGHTED_MAX_N``) or "cpsat"; the one that ran is logged, and returned third
    with ``return_engine=True``.
    """
    from nqmip.formulation.cpsat import integral_weights

    if max_solutions is not None and (isinstance(max_solutions, bool)
                                      or not isinstance(max_solutions, int | np.integer)):
        raise TypeError(f"max_solutions must be a whole number or None, got "
                        f"{type(max_solutions).__name__}")
    if max_solutions is not None and max_solutions < 1:  # -1 sliced off the last optimum
        raise ValueError(f"max_solutions must be at least 1 (or None: all), got "
                         f"{max_solutions}")
    Deadline(time_limit)  # refused alike by both engines ('x', -1, nan: CP-SAT's words)
    instance = make_instance(n, weights, fixed, black=black, white=white,
                             weights_seed=weights_seed)
    chosen = choose_engine(instance, engine)
    from nqmip.capacity import check_fits
    from nqmip.instance import free_rows

    # before the matrix and the model: n = 5000 by CP-SAT grew past a minute and 10 GB
    check_fits(instance.n, dense_weights=True, exact_model=chosen == "cpsat",
               method=f"enumerate_optimal engine {chosen!r}",
               model_rows=free_rows(instance))
    w = instance.weight_matrix()
    if not integral_weights(w):
        raise EnumerationError("enumeration needs integer weights")
    log.info("enumerate_optimal: n = %d by %s", instance.n, chosen)
    if chosen == "bitboard":
        optimum, found = _by_bitboard(instance, w, time_limit, max_solutions)
    else:
        optimum, found = _by_cpsat(instance, w, time_limit, max_solutions)
    if return_engine:
        return optimum, found, chosen
    return optimum, found


#: The most memory a list of optimal placements may take (and at most half of what the
#: machine has available): past it the listing is refused, up front when the number is
#: known (the empty board's A000170), as soon as the list reaches it otherwise.
LIST_BYTES = 8 * 2**30


def _list_cap(each: int, max_solutions: int | None) -> int:
    """The most placements of ``each`` bytes the list may hold (see :data:`LIST_BYTES`)."""
    from nqmip.capacity import available_bytes

    room = available_bytes()
    budget = LIST_BYTES if room is None else min(LIST_BYTES, room // 2)
    cap = max(1, budget // each)
    if max_solutions is not None and max_solutions <= cap:
        return cap + 4096  # the listing keeps max_solutions (the last block read passes it)
    return cap


def _too_many(cap: int, each: int, size: int) -> EnumerationError:
    from nqmip.capacity import human_bytes

    return EnumerationError(
        f"the optimal placements of this n = {size} board are more than {cap:,} (over "
        f"{human_bytes(cap * each)} as a list, the most this machine gives a list): "
        f"pass max_solutions, or iterate nqmip.solutions / count them with "
        f"nqmip.count_solutions")


def _by_bitboard(instance: Instance, w: np.ndarray, time_limit: float | None,
                 max_solutions: int | None) -> tuple[float | None, list[tuple[int, ...]]]:
    """Every solution from the bitboard enumerator (verified there), the best kept."""
    from nqmip.enumeration.count import A000170, MAX_N, solutions

    size = instance.n
    if size > MAX_N:
        raise EnumerationError(f"the bitboard enumerator takes n <= {MAX_N}, got {size}")
    each = 64 + 8 * size  # bytes of one placement in the list
    if instance.is_feasibility and max_solutions is None and not instance.fixed:
        known = size <= len(A000170)  # n = 28..32: more than A000170's last, unknown
        need = A000170[size - 1] * each if known else 2**62
        if need > LIST_BYTES:
            many = f"all {A000170[size - 1]:,}" if known else \
                f"the more than {A000170[-1]:,}"
            raise EnumerationError(
                f"{many} solutions of n = {size} would take "
                f"{f'about {need / 2**30:,.0f} GiB' if known else 'more memory than exists'}"
                f" as a list: pass max_solutions, or iterate nqmip.solutions({size}) / "
                "count them with nqmip.count_solutions")
    cap = _list_cap(each, max_solutions)
    deadline = Deadline(time_limit)
    coefs = np.rint(w).astype(np.int64)
    rows = np.arange(size)
    best: int | None = None
    found: list[tuple[int, ...]] = []
    chunk: list[tuple[int, ...]] = []

    least = instance.sense == "min"  # an Instance of costs: the cheapest (the largest
    # was listed: a 6-board of costs answered its dearest placement, 25 where 12 is least)

    def take(block: list[tuple[int, ...]]) -> None:
        nonlocal best, found
        if instance.is_feasibility:
            best = size
            found.extend(block)
            if len(found) > cap:
                raise _too_many(cap, each, size)
            return
        scores = coefs[rows, np.asarray(block)].sum(axis=1)
        top = int(scores.min() if least else scores.max())
        if best is None or (top < best if least else top > best):
            best, found = top, []
        if top == best:
            found.extend(p for p, s in zip(block, scores.tolist(), strict=True) if s == best)
            if max_solutions is not None:  # ties past it are never returned
                del found[max_solutions:]
        if len(found) > cap:  # fixed queens or ties: their number is not known up front
            raise _too_many(cap, each, size)

    for placement in solutions(size, dict(instance.fixed) or None):
        chunk.append(placement)
        if len(chunk) == 4096:
            take(chunk)
            chunk = []
            if deadline.expired():
                raise EnumerationError("listing stopped early: time limit")
            if instance.is_feasibility and max_solutions is not None \
                    and len(found) >= max_solutions:
                break
    if chunk:
        take(chunk)
    if best is None:
        return None, []
    if max_solutions is not None:
        found = found[:max_solutions]
    return float(best), found


def _by_cpsat(instance: Instance, w: np.ndarray, time_limit: float | None,
              max_solutions: int | None) -> tuple[float | None, list[tuple[int, ...]]]:
    from ortools.sat.python import cp_model

    from nqmip.formulation.cpsat import build_cpsat_model

    size = instance.n
    coefs = [[round(float(w[i, j])) for j in range(size)] for i in range(size)]

    cps = build_cpsat_model(instance)
    solver = cp_solver()
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = 1
    status = solver.solve(cps.model)
    if status == cp_model.INFEASIBLE:
        return None, []
    if status != cp_model.OPTIMAL:
        raise EnumerationError(f"CP-SAT did not prove the optimum: {solver.status_name(status)}")
    optimum = round(float(solver.objective_value))

    cps = build_cpsat_model(instance)
    model = cps.model
    fixed_value = sum(coefs[i][j] for i, j in cps.fixed.items())
    model.add(sum(coefs[i][j] * var for (i, j), var in cps.x.items() if coefs[i][j])
              + fixed_value == optimum)
    model.clear_objective()
    found: list[tuple[int, ...]] = []

    cap = _list_cap(64 + 8 * size, max_solutions)
    over = []

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            found.append(tuple(int(self.value(q)) for q in cps.queen))
            if max_solutions is not None and len(found) >= max_solutions:
                self.stop_search()
            elif len(found) > cap:
                over.append(True)
                self.stop_search()

    solver = cp_solver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = float(time_limit)
    status = solver.solve(model, Collect())
    if over:
        raise _too_many(cap, 64 + 8 * size, size)
    complete = status == cp_model.OPTIMAL or (
        max_solutions is not None and len(found) >= max_solutions
    )
    if not complete:
        raise EnumerationError(f"listing stopped early: {solver.status_name(status)}")
    return float(optimum), sorted(set(found))
