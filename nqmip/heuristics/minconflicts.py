"""Large n: a QS4-style greedy placement and min-conflicts swap repair (Sosic and Gu).

1. **Greedy.** Row by row (free rows only), draw a random column among those not yet
   used (a Fisher-Yates step: swap the row's column with that of a random later row) until
   the queen lands on an empty diagonal and anti-diagonal, at most ``greedy_attempts``
   draws. Near the end few columns are left and draws fail more often, so the last
   ``tail`` rows (or all rows from the first that exhausts its draws) are not placed
   greedily: they keep the leftover columns at random.
2. **Strict repair.** Every conflict now involves a tail queen (greedy queens do not
   attack one another nor a fixed queen). For each attacked tail queen draw random partner
   rows until a swap leaves *both* moved queens unattacked; such a swap removes all the
   queen's conflicts and adds none, so once every tail queen is unattacked the board is
   solved — no O(n) scan needed. With half the lines empty a draw succeeds with
   probability about 1/16, so this costs O(tail) swaps.
3. **Fallback** (small boards, or when strict repair runs out of tries): min-conflicts —
   pick an attacked queen, try ``samples`` random partners, apply the best swap if it does
   not add conflicts (sideways moves allowed), else the best with probability ``noise``.

Each phase is linear in n in practice: the greedy draws a bounded number of columns per
row, the repair touches O(tail) rows. Memory: the permutation (int32) and, from
``2**20`` queens up, uint8 line counters — 0.8 GB for 10^8 queens. Weights are not
optimised: on a weighted instance the first conflict-free placement is returned (use
tabu or sa to optimise weights).
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from nqmip.heuristics.common import (
    check_float,
    check_int,
    heuristic_result,
    kernel_seed,
    make_rng,
    timed_compile,
)
from nqmip.heuristics.kernels import apply_swap, queen_conflicts, swap_delta
from nqmip.heuristics.localsearch import (
    CONFLICTS,
    EVALUATIONS,
    IMPROVEMENTS,
    ITERATIONS,
    LIST_SIZE,
    RESTARTS,
    STATE_SLOTS,
    fixed_queens_clash,
    note_row,
    pick_conflicted,
    run_chunks,
    sorted_start,
)
from nqmip.instance import Instance, make_instance
from nqmip.result import Result, Status, Termination

METHOD = "minconflicts"
#: From this many queens on, the line counters are uint8 (a line holds at most tail + 1
#: queens after the greedy phase, and the repair never adds a queen to a full line).
SMALL_COUNTERS_FROM = 2**20
GREEDY_CHUNK = 1 << 21  # rows per kernel call between clock checks
REPAIR_CHUNK = 1 << 20  # evaluations per kernel call in the repair phases
COUNTER_CAP_UINT8 = 250


@njit(cache=True)
def _row(free_rows: np.ndarray, idx: int) -> int:
    # An empty free_rows array stands for "every row is free" (saves 4n bytes).
    return idx if free_rows.size == 0 else free_rows[idx]


@njit(cache=True)
def greedy_chunk(
    perm: np.ndarray,
    diag: np.ndarray,
    anti: np.ndarray,
    free_rows: np.ndarray,
    start: int,
    stop: int,
    free_count: int,
    max_attempts: int,
    seed: int,
    state: np.ndarray,
) -> int:
    """Place free rows ``start .. stop-1`` (in free-row order) on empty lines; return the
    index reached: ``stop``, or the first row whose ``max_attempts`` draws all failed.

    Row ``idx`` takes the column at a uniformly drawn position in ``idx .. free_count-1``
    whose lines are empty, swapped into place (a Fisher-Yates step). Failed draws only
    read: writing on every draw dirtied a random cache line each time and measured slower.
    """
    np.random.seed(seed)
    n = perm.size
    evaluations = 0
    for idx in range(start, stop):
        row = _row(free_rows, idx)
        chosen = -1
        for _ in range(max_attempts):
            pick = _row(free_rows, idx + np.random.randint(0, free_count - idx))
            col = perm[pick]
            evaluations += 1
            if diag[row - col + n - 1] == 0 and anti[row + col] == 0:
                chosen = pick
                break
        if chosen < 0:
            state[EVALUATIONS] += evaluations
            state[ITERATIONS] += idx - start
            return idx
        col = perm[chosen]
        perm[chosen] = perm[row]
        perm[row] = col
        diag[row - col + n - 1] += 1
        anti[row + col] += 1
    state[EVALUATIONS] += evaluations
    state[ITERATIONS] += stop - start
    return stop


@njit(cache=True)
def place_tail(
    perm: np.ndarray,
    diag: np.ndarray,
    anti: np.ndarray,
    free_rows: np.ndarray,
    start: int,
    free_count: int,
) -> int:
    """Put the tail queens (free rows ``start ..``) on the board as they stand; return the
    attacking pairs they add."""
    n = perm.size
    added = 0
    for idx in range(start, free_count):
        row = _row(free_rows, idx)
        d = row - perm[row] + n - 1
        a = row + perm[row]
        added += np.int64(diag[d]) + np.int64(anti[a])
        diag[d] += 1
        anti[a] += 1
    return added


@njit(cache=True)
def strict_repair_pass(
    perm: np.ndarray,
    diag: np.ndarray,
    anti: np.ndarray,
    free_rows: np.ndarray,
    start: int,
    free_count: int,
    tries: int,
    seed: int,
    state: np.ndarray,
) -> int:
    """One pass over the tail rows: free each attacked one by a swap that leaves both moved
    queens unattacked (at most ``tries`` random partners each). Return how many tail
    queens are still attacked."""
    np.random.seed(seed)
    left = 0
    for idx in range(start, free_count):
        row = _row(free_rows, idx)
        attacked = queen_conflicts(perm, diag, anti, row)
        if attacked == 0:
            continue
        freed = False
        for _ in range(tries):
            partner = _row(free_rows, np.random.randint(0, free_count))
            if partner == row or queen_conflicts(perm, diag, anti, partner) != 0:
                continue
            delta = swap_delta(perm, diag, anti, row, partner)
            state[EVALUATIONS] += 1
            # Removing the queen frees exactly `attacked` pairs; any other delta means one
            # of the two moved queens lands on an occupied line.
            if delta == -attacked:
                apply_swap(perm, diag, anti, row, partner)
                state[CONFLICTS] += delta
                state[ITERATIONS] += 1
                state[IMPROVEMENTS] += 1
                freed = True
                break
        if not freed:
            left += 1
    return left


@njit(cache=True)
def min_conflicts_chunk(
    perm: np.ndarray,
    diag: np.ndarray,
    anti: np.ndarray,
    free_rows: np.ndarray,
    conflicted: np.ndarray,
    in_list: np.ndarray,
    state: np.ndarray,
    samples: int,
    noise: float,
    seed: int,
    budget: int,
) -> bool:
    """Min-conflicts steps until no conflict is left (True) or ``budget`` evaluations."""
    np.random.seed(seed)
    free_count = free_rows.size
    stop = state[EVALUATIONS] + budget
    while state[EVALUATIONS] < stop:
        row = pick_conflicted(perm, diag, anti, free_rows, conflicted, in_list, state)
        if row < 0:
            return state[CONFLICTS] == 0
        best_delta = 1 << 40
        best_partner = -1
        for _ in range(samples):
            partner = free_rows[np.random.randint(0, free_count)]
            if partner == row:
                continue
            delta = swap_delta(perm, diag, anti, row, partner)
            state[EVALUATIONS] += 1
            if delta < best_delta:
                best_delta = delta
                best_partner = partner
        if best_partner < 0:
            continue
        if best_delta > 0 and np.random.random() >= noise:
            continue
        apply_swap(perm, diag, anti, row, best_partner)
        state[CONFLICTS] += best_delta
        state[ITERATIONS] += 1
        if best_delta < 0:
            state[IMPROVEMENTS] += 1
        if best_delta > 0:
            state[RESTARTS] += 1  # a noise (uphill) step
        note_row(perm, diag, anti, best_partner, conflicted, in_list, state)
        if state[CONFLICTS] == 0:
            return True
    return state[CONFLICTS] == 0


def minconflicts_placement(
    instance: Instance,
    *,
    seed: int | None = None,
    time_limit: float | None = None,
    max_evaluations: int | None = None,
    tail: int = 64,
    greedy_attempts: int = 4096,
    repair_tries: int = 4096,
    samples: int = 16,
    noise: float = 0.05,
) -> tuple[np.ndarray | None, dict[str, object]]:
    """The search itself, returning the permutation as an int32 array (or None) and the
    run's statistics; :func:`solve_minconflicts` wraps it into a :class:`Result`. Kept apart
    so that huge boards can be solved and checked without building a tuple of n ints."""
    tail = check_int("tail", tail, 0)
    greedy_attempts = check_int("greedy_attempts", greedy_attempts, 1)
    repair_tries = check_int("repair_tries", repair_tries, 1)
    samples = check_int("samples", samples, 1)
    noise = check_float("noise", noise, 0.0, 1.0)
    if max_evaluations is not None:
        max_evaluations = check_int("max_evaluations", max_evaluations, 1)
    n = instance.n
    budget = max_evaluations if max_evaluations is not None else 64 * n + 10_000_000
    compile_time = timed_compile(_warm_up)
    start = time.perf_counter()
    stats: dict[str, object] = {"compile_time": compile_time, "termination": "done"}
    if fixed_queens_clash(instance):
        stats.update(wall_time=time.perf_counter() - start, termination="infeasible")
        return None, stats
    rng = make_rng(seed)
    perm, free_rows = sorted_start(instance)
    free_count = free_rows.size
    # Without fixed queens pass an empty free-row array: the kernels read it as identity.
    rows_arg = free_rows if instance.fixed else np.empty(0, dtype=np.int32)
    dtype = np.uint8 if n >= SMALL_COUNTERS_FROM else np.int32
    size = max(2 * n - 1, 1)
    diag = np.zeros(size, dtype=dtype)
    anti = np.zeros(size, dtype=dtype)
    for row, col in instance.fixed:
        diag[row - col + n - 1] += 1
        anti[row + col] += 1
    state = np.zeros(STATE_SLOTS, dtype=np.int64)

    # 1. greedy
    greedy_end = max(free_count - tail, 0)
    reached = 0
    outcome = "done"
    while reached < greedy_end:
        if state[EVALUATIONS] >= budget:
            outcome = "iterations"
            break
        if time_limit is not None and time.perf_counter() - start >= time_limit:
            outcome = "time"
            break
        stop = min(reached + GREEDY_CHUNK, greedy_end)
        got = greedy_chunk(perm, diag, anti, rows_arg, reached, stop, free_count,
                           greedy_attempts, kernel_seed(rng), state)
        if got < stop:
            reached = got
            break
        reached = got
    greedy_time = time.perf_counter() - start
    if outcome == "done" and dtype is np.uint8 and free_count - reached > COUNTER_CAP_UINT8:
        diag, anti = diag.astype(np.int32), anti.astype(np.int32)  # a long tail: wide counts
    state[CONFLICTS] = place_tail(perm, diag, anti, rows_arg, reached, free_count)
    stats["greedy_rows"] = reached

    # 2. strict repair of the tail, while each pass still frees queens
    passes = 0
    if outcome == "done" and state[CONFLICTS] > 0:
        left = free_count - reached
        while state[CONFLICTS] > 0 and state[EVALUATIONS] < budget:
            if time_limit is not None and time.perf_counter() - start >= time_limit:
                outcome = "time"
                break
            passes += 1
            now_left = strict_repair_pass(perm, diag, anti, rows_arg, reached, free_count,
                                          repair_tries, kernel_seed(rng), state)
            if now_left == 0 or now_left >= left:
                break
            left = now_left
    stats["strict_passes"] = passes

    # 3. min-conflicts fallback
    if outcome == "done" and state[CONFLICTS] > 0:
        stats["fallback"] = True
        if diag.dtype != np.int32:
            diag, anti = diag.astype(np.int32), anti.astype(np.int32)  # noise may pile up
        conflicted = np.empty(max(free_count, 1), dtype=np.int32)
        in_list = np.zeros(n, dtype=np.uint8)
        state[LIST_SIZE] = 0

        def step(kseed: int, chunk: int) -> bool:
            return bool(min_conflicts_chunk(perm, diag, anti, free_rows, conflicted, in_list,
                                            state, samples, noise, kseed, chunk))

        outcome = run_chunks(step, state, rng, budget=budget, time_limit=time_limit,
                             start=start, chunk=REPAIR_CHUNK, budget_slot=EVALUATIONS)
    wall = time.perf_counter() - start
    solved = int(state[CONFLICTS]) == 0 and outcome == "done"
    stats.update(
        wall_time=wall,
        greedy_time=greedy_time,
        termination=outcome,
        evaluations=int(state[EVALUATIONS]),
        iterations=int(state[ITERATIONS]),
        improvements=int(state[IMPROVEMENTS]),
        noise_steps=int(state[RESTARTS]),
        conflicts=int(state[CONFLICTS]),
        counter_dtype=str(diag.dtype),
    )
    return perm if solved else None, stats


def solve_minconflicts(
    instance: Instance,
    *,
    seed: int | None = None,
    time_limit: float | None = None,
    max_evaluations: int | None = None,
    tail: int = 64,
    greedy_attempts: int = 4096,
    repair_tries: int = 4096,
    samples: int = 16,
    noise: float = 0.05,
) -> Result:
    """QS4-style greedy placement plus min-conflicts repair; see the module docstring.

    Parameters (defaults): ``max_evaluations`` (64·n + 10^7) candidate checks in all;
    ``tail`` (64) rows left to the repair; ``greedy_attempts`` (4096) column draws per
    greedy row; ``repair_tries`` (4096) partners per tail queen and pass; ``samples`` (16)
    partners per min-conflicts step; ``noise`` (0.05) probability of an uphill step.
    """
    perm, stats = minconflicts_placement(
        instance, seed=seed, time_limit=time_limit, max_evaluations=max_evaluations,
        tail=tail, greedy_attempts=greedy_attempts, repair_tries=repair_tries,
        samples=samples, noise=noise,
    )
    return _to_result(instance, perm, stats, seed)


_TERMINATIONS = {
    "done": Termination.SOLUTION_FOUND,
    "iterations": Termination.ITERATION_LIMIT,
    "time": Termination.TIME_LIMIT,
}


def _to_result(
    instance: Instance, perm: np.ndarray | None, stats: dict[str, object], seed: int | None
) -> Result:
    compile_time = float(stats["compile_time"])  # type: ignore[arg-type]
    wall = float(stats["wall_time"])  # type: ignore[arg-type]
    if stats["termination"] == "infeasible":
        return heuristic_result(
            instance, METHOD, None, wall_time=wall, seed=seed,
            termination=Termination.INFEASIBLE, compile_time=compile_time,
        ).with_(status=Status.INFEASIBLE, message="two fixed queens attack each other")
    extra = {k: v for k, v in stats.items()
             if k not in ("compile_time", "wall_time", "termination", "evaluations",
                          "iterations", "improvements", "conflicts")}
    return heuristic_result(
        instance, METHOD, perm, wall_time=wall, seed=seed,
        termination=_TERMINATIONS[str(stats["termination"])],
        evaluations=int(stats["evaluations"]),  # type: ignore[call-overload]
        iterations=int(stats["iterations"]),  # type: ignore[call-overload]
        improvements=int(stats["improvements"]),  # type: ignore[call-overload]
        compile_time=compile_time,
        best_conflicts=int(stats["conflicts"]),  # type: ignore[call-overload]
        extra=extra,
    )


def _warm_up() -> None:
    """Compile (or load from numba's cache) every kernel on a tiny board, both dtypes."""
    instance = make_instance(12, fixed={0: 1})
    minconflicts_placement_kernels_only(instance, np.int32)
    minconflicts_placement_kernels_only(make_instance(12), np.uint8)


def minconflicts_placement_kernels_only(instance: Instance, dtype: type) -> None:
    perm, free_rows = sorted_start(instance)
    n = instance.n
    diag = np.zeros(2 * n - 1, dtype=dtype)
    anti = np.zeros(2 * n - 1, dtype=dtype)
    state = np.zeros(STATE_SLOTS, dtype=np.int64)
    rows_arg = free_rows if instance.fixed else np.empty(0, dtype=np.int32)
    m = free_rows.size
    got = greedy_chunk(perm, diag, anti, rows_arg, 0, m - 4, m, 4, 1, state)
    state[CONFLICTS] = place_tail(perm, diag, anti, rows_arg, got, m)
    strict_repair_pass(perm, diag, anti, rows_arg, got, m, 4, 1, state)
    if dtype is np.int32:
        conflicted = np.empty(m, dtype=np.int32)
        in_list = np.zeros(n, dtype=np.uint8)
        min_conflicts_chunk(perm, diag, anti, free_rows, conflicted, in_list, state, 4, 0.1,
                            1, 100)
