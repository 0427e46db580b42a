"""numba kernels of :mod:`nqmip.heuristics.minconflicts`: the greedy placement on
occupancy bits, the line counters of the repair, the strict repair pass and the
min-conflicts steps of the fallback (the module docstring there describes the phases).
"""

from __future__ import annotations

import numpy as np

from nqmip.heuristics.kernels import apply_swap, queen_conflicts, swap_delta
from nqmip.heuristics.localsearch import (
    CONFLICTS,
    EVALUATIONS,
    IMPROVEMENTS,
    ITERATIONS,
    LIST_SIZE,
    RESTARTS,
    note_row,
    pick_conflicted,
)
from nqmip.numba_cache import njit
from nqmip.numba_consts import NO_ROW, as_int64


@njit(cache=True, nogil=True)
def _row(free_rows: np.ndarray, idx: int) -> int:
    # An empty free_rows array stands for "every row is free" (saves 4n bytes).
    return idx if free_rows.size == 0 else free_rows[idx]


@njit(cache=True, nogil=True)
def _bit_is_set(bits: np.ndarray, index: int) -> bool:
    return (bits[index >> 6] >> np.uint64(index & 63)) & np.uint64(1) != 0


@njit(cache=True, nogil=True)
def _set_bit(bits: np.ndarray, index: int) -> None:
    bits[index >> 6] |= np.uint64(1) << np.uint64(index & 63)


@njit(cache=True, nogil=True)
def greedy_chunk(
    perm: np.ndarray,
    diag_bits: np.ndarray,
    anti_bits: np.ndarray,
    free_rows: np.ndarray,
    start: int,
    stop: int,
    free_count: int,
    window: int,
    max_attempts: int,
    deferred: np.ndarray,
    seed: int,
    state: np.ndarray,
) -> int:
    """Place free rows ``start .. stop-1`` (in free-row order) on empty lines; return the
    index reached: ``stop``, or the row at which the ``deferred`` list filled up.

    The pool ``perm[free rows idx ..]`` holds the unused columns in random order (shuffled
    beforehand). Row ``idx`` draws positions in the next ``window`` slots of the pool, then
    (after ``window_draws`` failures) anywhere in it, until a column on an empty diagonal
    and anti-diagonal turns up, and swaps it into place. A row whose ``max_attempts``
    draws all fail keeps the column at its own pool slot and is *deferred*: listed in
    ``deferred`` (count in ``state[LIST_SIZE]``), left out of the bits, and put on the
    board with the tail for the repair. Near the end of a large board no unused column
    fits some rows; deferring them instead of stopping keeps the tail short.

    Why a window and bits: with 10^8 queens every uniform draw missed the cache three
    times (pool, diagonal, anti-diagonal); the window keeps the pool reads in L2, and one
    bit per line (25 MB per family at 10^8) keeps most line reads in L3. Failed draws only
    read.
    """
    np.random.seed(seed)
    n = perm.size
    evaluations = 0
    window_draws = 64
    for idx in range(start, stop):
        row = _row(free_rows, idx)
        chosen = NO_ROW
        left = free_count - idx
        span = min(window, left)
        for attempt in range(max_attempts):
            reach = span if attempt < window_draws else left
            pick = _row(free_rows, idx + np.random.randint(0, reach))
            col = perm[pick]
            evaluations += 1
            if not _bit_is_set(diag_bits, row - col + n - 1) and not _bit_is_set(
                anti_bits, row + col
            ):
                chosen = pick
                break
        if chosen < 0:
            if state[LIST_SIZE] == deferred.size:
                state[EVALUATIONS] += evaluations
                state[ITERATIONS] += idx - start
                return idx
            deferred[state[LIST_SIZE]] = row
            state[LIST_SIZE] += 1
            continue
        col = perm[chosen]
        perm[chosen] = perm[row]
        perm[row] = col
        _set_bit(diag_bits, row - col + n - 1)
        _set_bit(anti_bits, row + col)
    state[EVALUATIONS] += evaluations
    state[ITERATIONS] += stop - start
    return stop


@njit(cache=True, nogil=True)
def bits_to_counts(bits: np.ndarray, counts: np.ndarray) -> None:
    """Expand one occupancy bit per line into the counters the repair needs (sequential)."""
    for index in range(counts.size):
        counts[index] = (bits[index >> 6] >> np.uint64(index & 63)) & np.uint64(1)


@njit(cache=True, nogil=True)
def place_rows(
    perm: np.ndarray, diag: np.ndarray, anti: np.ndarray, rows: np.ndarray, cap: int
) -> int:
    """Put the queens of ``rows`` (deferred and tail rows) on the counters; return the
    attacking pairs they add, or -1 (counters untouched) if a line would reach ``cap``."""
    n = perm.size
    added = 0
    for idx in range(rows.size):
        row = rows[idx]
        d = row - perm[row] + n - 1
        a = row + perm[row]
        if np.int64(diag[d]) + 1 >= cap or np.int64(anti[a]) + 1 >= cap:
            for undo in range(idx):
                r = rows[undo]
                diag[r - perm[r] + n - 1] -= 1
                anti[r + perm[r]] -= 1
            return -1
        added += int(diag[d]) + int(anti[a])
        diag[d] += 1
        anti[a] += 1
    return added


@njit(cache=True, nogil=True)
def strict_repair_pass(
    perm: np.ndarray,
    diag: np.ndarray,
    anti: np.ndarray,
    free_rows: np.ndarray,
    free_count: int,
    repair_rows: np.ndarray,
    tries: int,
    seed: int,
    state: np.ndarray,
) -> int:
    """One pass over ``repair_rows`` (deferred and tail rows): free each attacked one by a
    swap that leaves both moved queens unattacked (at most ``tries`` random partners each).
    Return how many of them are still attacked."""
    np.random.seed(seed)
    left = 0
    for idx in range(repair_rows.size):
        row = as_int64(repair_rows[idx])  # int64 rows: one signature per callee
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


@njit(cache=True, nogil=True)
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
        best_partner = NO_ROW
        for _ in range(samples):
            partner = as_int64(free_rows[np.random.randint(0, free_count)])
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
