"""Tabu swap search (seed 003), for boards up to 10^5 queens and for weighted objectives.

Each iteration takes an attacked queen (while conflicts remain; else, weighted, any free
queen), draws ``samples`` random partner rows, and applies the best swap among the
non-tabu ones — even an uphill one, which is what lets tabu search climb out of local
minima. Scanning all n-1 partners would make an iteration O(n); sampling keeps it
O(samples).

Weighted, ours beyond the reference: the run starts from a conflict-free min-conflicts
placement (as sa's does), a conflict-free board moves by a swap that keeps it so where the
sample holds one (the best of those, uphill or not), and an attacked queen is taken at
every iteration while conflicts remain (half of them took any queen, whose swaps then
traded attacks for weight). Random weights, 5 s, seeds 0-2: n = 100 from 695-706 to
734-737, 300 from 1956-1974 to 2071-2103, 1000 and 3000 from the explicit construction
(5022, 14710: the search held no conflict-free board) to 6698-6705 and 19640-19716; chess
n = 1000 from 1500 to 1570-1572 (sa: 885 at n = 100, 2678 at 300).

* Cost: the number of attacking pairs; weighted, ``penalty · pairs − weight`` with a
  penalty larger than any weight change of a swap (see ``conflict_penalty``), and the
  heaviest conflict-free board seen is kept.
* Tabu list: 003 keeps an n x n matrix of swapped row pairs; 10^5 queens would need
  80 GB, so the pair ``(i, k)`` is hashed into a table of ``2**16`` "tabu until iteration"
  stamps. A hash collision only makes an innocent pair tabu for a while: harmless.
  A swapped pair stays tabu for ``tenure`` iterations.
* Aspiration: a tabu swap is allowed when it reaches fewer conflicts than ever seen
  (weighted: a conflict-free board heavier than the best).
* Stagnation: after ``stall_limit`` iterations without a new best, ``perturb`` random
  swaps are applied (counted in ``extra["restarts"]``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from nqmip.budget import Deadline
from nqmip.heuristics.anneal import conflict_free_start, warm_up_weighted_start
from nqmip.heuristics.common import Bound, checked, default_budget
from nqmip.heuristics.kernels import apply_swap, swap_delta, swap_weight_delta
from nqmip.heuristics.localsearch import (
    BEST_CONFLICTS,
    BEST_WEIGHT,
    CONFLICTS,
    EVALUATIONS,
    ITERATIONS,
    LAST_IMPROVEMENT,
    RESTARTS,
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
from nqmip.numba_cache import njit
from nqmip.numba_consts import NO_ROW, as_int64
from nqmip.progress import ProgressCallback
from nqmip.result import Result

METHOD = "tabu"
TABU_TABLE_BITS = 16
CHUNK = 1 << 16  # iterations per kernel call between clock checks


@njit(cache=True, nogil=True)
def _pair_slot(i: int, k: int) -> int:
    low = min(i, k)
    high = max(i, k)
    return ((low * 73856093) ^ (high * 19349663)) & ((1 << TABU_TABLE_BITS) - 1)


@njit(cache=True, nogil=True)
def tabu_chunk(
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
    tabu_until: np.ndarray,
    tenure: int,
    samples: int,
    stall_limit: int,
    perturb: int,
    seed: int,
    budget: int,
) -> bool:
    """At most ``budget`` tabu iterations; True when the goal is reached (no conflict, or
    weighted: a board as heavy as the bound)."""
    np.random.seed(seed)
    free_count = free_rows.size
    if free_count < 2:
        return goal_reached(state, fstate, weighted, bound)
    stop = state[ITERATIONS] + budget
    while state[ITERATIONS] < stop:
        if goal_reached(state, fstate, weighted, bound):
            return True
        iteration = state[ITERATIONS]
        row = NO_ROW  # rows and partners as int64 (numpy scalars): one signature per callee
        if state[CONFLICTS] > 0:
            row = pick_conflicted(perm, diag, anti, free_rows, conflicted, in_list, state)
        if row < 0:
            if not weighted:
                return state[CONFLICTS] == 0  # only fixed queens are attacked
            row = as_int64(free_rows[np.random.randint(0, free_count)])
        best_cost = np.inf
        best_keeps = False  # weighted, conflict-free: the best swap keeps it so
        free_board = weighted and state[CONFLICTS] == 0
        best_partner = NO_ROW
        best_conflict_delta = 0
        best_weight_delta = 0.0
        for _ in range(samples):
            partner = as_int64(free_rows[np.random.randint(0, free_count)])
            if partner == row:
                continue
            # Pricing and applying the swap repeat anneal_chunk's lines on purpose: moved
            # into shared njit helpers (even inline="always") they cost 5-20 % per evaluation.
            conflict_delta = swap_delta(perm, diag, anti, row, partner)
            state[EVALUATIONS] += 1
            weight_delta = swap_weight_delta(perm, weights, row, partner) if weighted else 0.0
            cost = penalty * conflict_delta - weight_delta
            keeps = free_board and conflict_delta == 0
            if (best_keeps and not keeps) or (keeps == best_keeps and cost >= best_cost):
                continue
            if tabu_until[_pair_slot(row, partner)] > iteration:
                new_conflicts = state[CONFLICTS] + conflict_delta
                if weighted:
                    aspires = (new_conflicts == 0
                               and fstate[WEIGHT] + weight_delta > fstate[BEST_WEIGHT] + 1e-9)
                else:
                    aspires = new_conflicts < state[BEST_CONFLICTS]
                if not aspires:
                    continue
            best_cost = cost
            best_keeps = keeps
            best_partner = partner
            best_conflict_delta = conflict_delta
            best_weight_delta = weight_delta
        state[ITERATIONS] += 1
        if best_partner >= 0:
            apply_swap(perm, diag, anti, row, best_partner)
            state[CONFLICTS] += best_conflict_delta
            fstate[WEIGHT] += best_weight_delta
            tabu_until[_pair_slot(row, best_partner)] = iteration + tenure
            note_row(perm, diag, anti, best_partner, conflicted, in_list, state)
            note_row(perm, diag, anti, row, conflicted, in_list, state)
            record_best(perm, best_perm, state, fstate, weighted)
        if state[ITERATIONS] - state[LAST_IMPROVEMENT] > stall_limit:
            # Stuck: shake the board with random swaps and carry on from there.
            for _ in range(perturb):
                first = as_int64(free_rows[np.random.randint(0, free_count)])
                second = as_int64(free_rows[np.random.randint(0, free_count)])
                conflict_delta = swap_delta(perm, diag, anti, first, second)
                if weighted:
                    fstate[WEIGHT] += swap_weight_delta(perm, weights, first, second)
                apply_swap(perm, diag, anti, first, second)
                state[CONFLICTS] += conflict_delta
                note_row(perm, diag, anti, first, conflicted, in_list, state)
                note_row(perm, diag, anti, second, conflicted, in_list, state)
            state[RESTARTS] += 1
            state[LAST_IMPROVEMENT] = state[ITERATIONS]
            record_best(perm, best_perm, state, fstate, weighted)
    return goal_reached(state, fstate, weighted, bound)


#: Tabu search's own numeric parameters (checked here and before a run).
BOUNDS: dict[str, Bound] = {
    "tenure": Bound(0), "samples": Bound(1), "stall_limit": Bound(1), "perturb": Bound(0),
    "max_iterations": Bound(1)}


def solve_tabu(
    instance: Instance,
    *,
    seed: int | None = None,
    time_limit: float | Deadline | None = None,
    max_iterations: int | None = None,
    tenure: int = 10,
    samples: int = 32,
    stall_limit: int = 2000,
    perturb: int = 3,
    on_progress: ProgressCallback | None = None,
) -> Result:
    """Tabu swap search; see the module docstring.

    Parameters (defaults): ``max_iterations`` (with a time limit: none, it searches until
    the deadline; without: feasibility 10^6 + 200·n, weighted 2·10^5 + 2000·n) moves;
    ``tenure`` (10) iterations a swapped pair stays tabu;
    ``samples`` (32) partner rows tried per iteration; ``stall_limit`` (2000) iterations
    without a new best before a perturbation of ``perturb`` (3) random swaps;
    ``on_progress``: the best weight so far, live (:func:`run_swap_search`).
    """
    tenure = checked(BOUNDS, "tenure", tenure)
    samples = checked(BOUNDS, "samples", samples)
    stall_limit = checked(BOUNDS, "stall_limit", stall_limit)
    perturb = checked(BOUNDS, "perturb", perturb)
    n = instance.n
    if max_iterations is None:
        max_iterations = default_budget(
            time_limit,
            (10**6 + 200 * n) if instance.is_feasibility else (2 * 10**5 + 2000 * n))
    max_iterations = checked(BOUNDS, "max_iterations", max_iterations)

    def prepare(search: SwapSearch, _deadline: Deadline) -> Callable[[int, int], bool]:
        tabu_until = np.zeros(1 << TABU_TABLE_BITS, dtype=np.int64)

        def step(kseed: int, budget: int) -> bool:
            # the arguments read at each chunk: the bound may have improved meanwhile
            return bool(tabu_chunk(*search.kernel_args(), tabu_until, tenure, samples,
                                   stall_limit, perturb, kseed, budget))

        return step

    return run_swap_search(
        instance, METHOD, seed=seed, time_limit=time_limit, max_iterations=max_iterations,
        chunk=CHUNK, warm_up=warm_up_run, prepare=prepare, on_progress=on_progress,
        first=None if instance.is_feasibility else conflict_free_start(instance, seed),
        extra=lambda _: {"tenure": tenure, "samples": samples, "stall_limit": stall_limit,
                         "perturb": perturb, "max_iterations": max_iterations},
    )


def warm_up_run(like: Instance | None = None) -> None:
    """The kernels a run on ``like`` uses (every kind when None): tabu's, and on weights
    the conflict-free start's (as :func:`nqmip.heuristics.anneal.warm_up_run`)."""
    warm_up(like)
    warm_up_weighted_start(like)


def warm_up(like: Instance | None = None) -> None:
    """Compile (or load from the cache) the kernel for both objectives on tiny boards
    (``like``: only for that instance's kind of weights)."""

    def run(search: SwapSearch, kseed: int) -> None:
        tabu_until = np.zeros(1 << TABU_TABLE_BITS, dtype=np.int64)
        tabu_chunk(*search.kernel_args(), tabu_until, 3, 4, 50, 2, kseed, 100)

    warm_up_swap_search(run, like)
