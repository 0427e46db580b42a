"""Simulated annealing on swaps (seed 003), for boards up to 10^5 queens and weighted
objectives.

Each iteration swaps the queen of a row ``i`` with that of a random free row: ``i`` is an
attacked queen with probability ``conflict_bias`` while conflicts remain (a uniform row
would almost never touch one of the few attacked queens of a large board), else a uniform
free row. A swap of cost change Δ is accepted if Δ ≤ 0, else with probability
``exp(-Δ / (T · penalty))``.

* Cost: the number of attacking pairs; weighted, ``penalty · pairs − weight`` (see
  ``conflict_penalty``) — the temperature is in units of one conflict, so one schedule
  serves both objectives.
* Cooling schedule (geometric): ``T_k = t_start · cooling^k``, ``k`` rising by one every
  ``steps_per_temperature`` iterations (default: the number of free rows, at least 64).
* Reheating: when ``T`` falls below ``t_end`` the search is frozen; ``T`` goes back to
  ``t_start`` (counted in ``extra["restarts"]``) and the cooling begins again from the
  current board.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from nqmip.budget import Deadline
from nqmip.heuristics.common import ParameterError, check_float, check_int, default_budget
from nqmip.heuristics.kernels import apply_swap, swap_delta, swap_weight_delta
from nqmip.heuristics.localsearch import (
    CONFLICTS,
    EVALUATIONS,
    ITERATIONS,
    RESTARTS,
    TEMPERATURE,
    WEIGHT,
    SwapSearch,
    goal_reached,
    note_row,
    pick_conflicted,
    record_best,
    run_swap_search,
    warm_up_swap_search,
)
from nqmip.instance import Instance
from nqmip.result import Result

METHOD = "sa"
CHUNK = 1 << 16  # iterations per kernel call between clock checks


@njit(cache=True)
def anneal_chunk(
    perm: np.ndarray,
    diag: np.ndarray,
    anti: np.ndarray,
    free_rows: np.ndarray,
    conflicted: np.ndarray,
    in_list: np.ndarray,
    state: np.ndarray,
    fstate: np.ndarray,
    best_perm: np.ndarray,
    weights: np.ndarray,
    weighted: bool,
    penalty: float,
    bound: float,
    t_start: float,
    t_end: float,
    cooling: float,
    steps_per_temperature: int,
    conflict_bias: float,
    seed: int,
    budget: int,
) -> bool:
    """At most ``budget`` annealing iterations; True when the goal is reached (no conflict,
    or weighted: a board as heavy as the bound)."""
    np.random.seed(seed)
    free_count = free_rows.size
    if free_count < 2:
        return goal_reached(state, fstate, weighted, bound)
    stop = state[ITERATIONS] + budget
    while state[ITERATIONS] < stop:
        if goal_reached(state, fstate, weighted, bound):
            return True
        row = -1
        if state[CONFLICTS] > 0 and np.random.random() < conflict_bias:
            row = pick_conflicted(perm, diag, anti, free_rows, conflicted, in_list, state)
        if row < 0:
            row = free_rows[np.random.randint(0, free_count)]
        partner = free_rows[np.random.randint(0, free_count)]
        state[ITERATIONS] += 1
        if state[ITERATIONS] % steps_per_temperature == 0:
            fstate[TEMPERATURE] *= cooling
            if fstate[TEMPERATURE] < t_end:
                fstate[TEMPERATURE] = t_start  # frozen: reheat
                state[RESTARTS] += 1
        if partner == row:
            continue
        # Pricing and applying the swap repeat tabu_chunk's lines on purpose: moved into
        # shared njit helpers (even inline="always") they cost 5-20 % per evaluation.
        conflict_delta = swap_delta(perm, diag, anti, row, partner)
        state[EVALUATIONS] += 1
        weight_delta = swap_weight_delta(perm, weights, row, partner) if weighted else 0.0
        cost = penalty * conflict_delta - weight_delta
        if cost > 0 and np.random.random() >= np.exp(-cost / (fstate[TEMPERATURE] * penalty)):
            continue
        apply_swap(perm, diag, anti, row, partner)
        state[CONFLICTS] += conflict_delta
        fstate[WEIGHT] += weight_delta
        note_row(perm, diag, anti, partner, conflicted, in_list, state)
        note_row(perm, diag, anti, row, conflicted, in_list, state)
        record_best(perm, best_perm, state, fstate, weighted)
    return goal_reached(state, fstate, weighted, bound)


def solve_sa(
    instance: Instance,
    *,
    seed: int | None = None,
    time_limit: float | Deadline | None = None,
    max_iterations: int | None = None,
    t_start: float = 0.5,
    t_end: float = 0.02,
    cooling: float = 0.95,
    steps_per_temperature: int | None = None,
    conflict_bias: float = 0.9,
) -> Result:
    """Simulated annealing on swaps; see the module docstring.

    Parameters (defaults): ``max_iterations`` (with a time limit: none, it anneals until
    the deadline; without: feasibility 10^6 + 500·n, weighted 10^6 + 5000·n) proposed
    swaps; ``t_start`` (0.5) and ``t_end`` (0.02) temperatures in
    conflict units, ``t_end < t_start``; ``cooling`` (0.95) factor in (0, 1);
    ``steps_per_temperature`` (free rows, at least 64); ``conflict_bias`` (0.9)
    probability of moving an attacked queen.
    """
    t_start = check_float("t_start", t_start, 0.0, 1e9, low_open=True)
    t_end = check_float("t_end", t_end, 0.0, t_start, low_open=True)
    cooling = check_float("cooling", cooling, 0.0, 1.0, low_open=True)
    if cooling == 1.0:  # check_float has no open upper end; 1.0 would never cool
        raise ParameterError("cooling must be in (0, 1), got 1.0")
    conflict_bias = check_float("conflict_bias", conflict_bias, 0.0, 1.0)
    n = instance.n
    free_count = n - len(instance.fixed)
    if steps_per_temperature is None:
        steps_per_temperature = max(64, free_count)
    steps_per_temperature = check_int("steps_per_temperature", steps_per_temperature, 1)
    if max_iterations is None:
        max_iterations = default_budget(
            time_limit, (10**6 + 500 * n) if instance.is_feasibility else (10**6 + 5000 * n))
    max_iterations = check_int("max_iterations", max_iterations, 1)

    def prepare(search: SwapSearch) -> Callable[[int, int], bool]:
        search.fstate[TEMPERATURE] = t_start
        args = search.kernel_args()

        def step(kseed: int, budget: int) -> bool:
            return bool(anneal_chunk(*args, t_start, t_end, cooling, steps_per_temperature,
                                     conflict_bias, kseed, budget))

        return step

    return run_swap_search(
        instance, METHOD, seed=seed, time_limit=time_limit, max_iterations=max_iterations,
        chunk=CHUNK, warm_up=_warm_up, prepare=prepare,
        extra=lambda search: {
            "t_start": t_start, "t_end": t_end, "cooling": cooling,
            "steps_per_temperature": steps_per_temperature,
            "conflict_bias": conflict_bias, "max_iterations": max_iterations,
            "final_temperature": float(search.fstate[TEMPERATURE]),
        },
    )


def _warm_up() -> None:
    """Compile (or load from the cache) the kernel for both objectives on tiny boards."""

    def run(search: SwapSearch, kseed: int) -> None:
        search.fstate[TEMPERATURE] = 0.5
        anneal_chunk(*search.kernel_args(), 0.5, 0.02, 0.9, 16, 0.9, kseed, 100)

    warm_up_swap_search(run)
