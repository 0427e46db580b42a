"""numba kernel of :mod:`nqmip.heuristics.colour_search` (imported lazily: numba is slow)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _move(p: np.ndarray, diag: np.ndarray, anti: np.ndarray, i: int, j: int, n: int) -> int:
    """Swap the columns of rows i and j; return the change in attacking pairs."""
    delta = 0
    for r in (i, j):
        c = p[r]
        diag[r - c + n - 1] -= 1
        delta -= diag[r - c + n - 1]
        anti[r + c] -= 1
        delta -= anti[r + c]
    p[i], p[j] = p[j], p[i]
    for r in (i, j):
        c = p[r]
        delta += diag[r - c + n - 1]
        diag[r - c + n - 1] += 1
        delta += anti[r + c]
        anti[r + c] += 1
    return delta


@njit(cache=True)
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
    for r in range(n):
        diag[r - p[r] + n - 1] += 1
        anti[r + p[r]] += 1
    cost = 0
    for k in range(2 * n - 1):
        cost += diag[k] * (diag[k] - 1) // 2 + anti[k] * (anti[k] - 1) // 2
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
                    cost += _move(p, diag, anti, i, j, n)
                    break
            continue
        best = 1 << 30
        best_j = -1
        ties = 0
        for j in range(n):
            if j == i or not movable[j]:
                continue
            if (i - j) % 2 != 0 and (p[i] - p[j]) % 2 != 0:
                continue
            d = _move(p, diag, anti, i, j, n)
            _move(p, diag, anti, i, j, n)
            if d < best:
                best = d
                best_j = j
                ties = 1
            elif d == best:
                ties += 1
                if np.random.randint(ties) == 0:
                    best_j = j
        if best_j >= 0:
            cost += _move(p, diag, anti, i, best_j, n)
    return cost == 0

