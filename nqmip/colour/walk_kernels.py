"""numba kernel of :mod:`nqmip.colour.search` (imported lazily: numba is slow)."""

from __future__ import annotations

import numpy as np

from nqmip.heuristics.kernels import apply_swap, fill_counters, swap_delta
from nqmip.numba_cache import njit
from nqmip.numba_consts import NO_ROW


@njit(cache=True, nogil=True)
def walk(p: np.ndarray, movable: np.ndarray, steps: int, seed: int, noise: float) -> bool:
    """Min-conflicts over colour-preserving swaps; True once ``p`` has no attacking pair.

    Each step picks a random attacked movable row i, scores every movable partner j whose
    swap keeps the colour count (same row parity or same column parity) and takes the best
    (ties at random); with probability ``noise`` it takes a random such partner instead.
    """
    np.random.seed(seed)
    n = p.size
    diag = np.zeros(2 * n - 1, dtype=np.int64)
    anti = np.zeros(2 * n - 1, dtype=np.int64)
    cost = fill_counters(p, diag, anti)
    attacked = np.empty(n, dtype=np.int64)
    for _ in range(steps):
        if cost == 0:
            return True
        m = 0
        for r in range(n):
            if movable[r] and (diag[r - p[r] + n - 1] > 1 or anti[r + p[r]] > 1):
                attacked[m] = r
                m += 1
        if m == 0:
            return False  # only fixed queens attack each other
        i = attacked[np.random.randint(m)]
        if np.random.random() < noise:
            for _try in range(4 * n):
                j = np.random.randint(n)
                if j != i and movable[j] and ((i - j) % 2 == 0 or (p[i] - p[j]) % 2 == 0):
                    cost += swap_delta(p, diag, anti, i, j)
                    apply_swap(p, diag, anti, i, j)
                    break
            continue
        best = 1 << 30
        # not a literal -1: numba would compile swap_delta and apply_swap once more
        best_j = NO_ROW
        ties = 0
        for j in range(n):
            if j == i or not movable[j]:
                continue
            if (i - j) % 2 != 0 and (p[i] - p[j]) % 2 != 0:
                continue
            d = swap_delta(p, diag, anti, i, j)
            if d < best:
                best = d
                best_j = j
                ties = 1
            elif d == best:
                ties += 1
                if np.random.randint(ties) == 0:
                    best_j = j
        if best_j >= 0:
            cost += swap_delta(p, diag, anti, i, best_j)
            apply_swap(p, diag, anti, i, best_j)
    return cost == 0

