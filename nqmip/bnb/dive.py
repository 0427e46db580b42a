"""A dive for placements at a node of the LP search: a depth-first search of the node's
completions on its live squares, the squares with the least reduced cost first, within a
budget of nodes (numba).

The LP search's rounds look only for placements at or above a target, so they find none
until the target reaches the optimum; and a round whose target is just above the optimum
proves the bound, but the search then has to find a placement at it. Measured (toulbar2
family, 300 s, the shared machine): N = 40 seed 1, the rounds proved 137 (the optimum) and
ended at 157 / 137; N = 44 seed 123456789 at 157 / 139, where SCIP had found 139 in 60 s.
The LP's reduced costs say which squares the best completions use: a dive along them finds
placements near the node's bound. Each opened node dives once (``DIVE_NODES``), and what it
finds is an incumbent like any other.
"""

from __future__ import annotations

import numpy as np

from nqmip.numba_cache import njit
from nqmip.numba_consts import INT0

#: Nodes of one dive (a few microseconds each: a tenth of a node's LP).
DIVE_NODES = 500
#: The dive goes on past completions below the node's need, to the first that reaches it
#: (:func:`dive_to`); off: the first completion. Tried (docs/bnb.md, Part 14): toulbar2
#: N = 36 seeds 123456789 and 2, one thread, the same trees (13,747 and 4,437 nodes).
DIVE_TO_NEED = False


def dive_at(allowed: np.ndarray, key: np.ndarray, w: np.ndarray, need: float | None,
            free: list[np.ndarray], budget: int, out: np.ndarray) -> bool:
    """The node's dive: :func:`dive_to` with ``DIVE_TO_NEED`` and a need, else :func:`dive`."""
    if DIVE_TO_NEED and need is not None:
        return bool(dive_to(allowed, key, w, float(need), free[0], free[1], free[2], free[3],
                            budget, out))
    return bool(dive(allowed, key, free[0], free[1], free[2], free[3], budget, out))


@njit(cache=True, nogil=True)
def dive(allowed: np.ndarray, key: np.ndarray, rowf: np.ndarray, colf: np.ndarray,
         d1f: np.ndarray, d2f: np.ndarray, budget: int, out: np.ndarray) -> bool:
    """A completion of the board (lines free where ``rowf``, ``colf``, ``d1f``, ``d2f`` are
    1; the placed queens' columns already in ``out``, -1 elsewhere) on the squares
    ``allowed`` (n x n, 1: may take a queen): the free row with the fewest squares left
    first, its squares by ``key`` (least first). True with ``out`` complete, False when the
    budget ran out or there is none. The line arrays are left as they were given."""
    n = allowed.shape[0]
    free = 0
    for r in range(n):
        if rowf[r]:
            free += 1
    if free == 0:
        return True
    cand = np.empty((free, n), np.int64)  # per depth: the row's squares, best first
    ncand = np.zeros(free, np.int64)
    pos = np.zeros(free, np.int64)
    row = np.empty(free, np.int64)
    nodes = 0
    e = INT0  # a numpy scalar: _undo compiles for int64 only, never Literal[int](0)
    opened = False
    while True:
        if not opened:  # choose the row of depth e and its squares
            best = -1
            fewest = n + 1
            for r in range(n):
                if rowf[r]:
                    count = 0
                    for c in range(n):
                        if allowed[r, c] and colf[c] and d1f[r - c + n - 1] and d2f[r + c]:
                            count += 1
                    if count < fewest:
                        fewest, best = count, r
            row[e] = best
            t = 0
            for c in range(n):
                if allowed[best, c] and colf[c] and d1f[best - c + n - 1] and d2f[best + c]:
                    q = t  # insertion by key
                    while q > 0 and key[best, cand[e, q - 1]] > key[best, c]:
                        cand[e, q] = cand[e, q - 1]
                        q -= 1
                    cand[e, q] = c
                    t += 1
            ncand[e] = t
            pos[e] = 0
            opened = True
        if pos[e] < ncand[e] and nodes < budget:
            r = row[e]
            c = cand[e, pos[e]]
            pos[e] += 1
            nodes += 1
            out[r] = c
            rowf[r] = 0
            colf[c] = 0
            d1f[r - c + n - 1] = 0
            d2f[r + c] = 0
            if e + 1 == free:
                _undo(row, out, e + 1, rowf, colf, d1f, d2f, keep=np.True_)
                return True
            e += 1
            opened = False
            continue
        if e == 0 or nodes >= budget:
            _undo(row, out, e, rowf, colf, d1f, d2f, keep=np.False_)
            return False
        e -= 1  # take back the queen of depth e, try its next square
        r = row[e]
        c = out[r]
        rowf[r] = 1
        colf[c] = 1
        d1f[r - c + n - 1] = 1
        d2f[r + c] = 1
        out[r] = -1


@njit(cache=True, nogil=True)
def _undo(row: np.ndarray, out: np.ndarray, depth: int, rowf: np.ndarray, colf: np.ndarray,
          d1f: np.ndarray, d2f: np.ndarray, keep: bool) -> None:
    """Free the lines of the queens of depths below ``depth`` (their columns stay in
    ``out`` with ``keep``, else -1)."""
    n = out.shape[0]
    for e in range(depth):
        r = row[e]
        c = out[r]
        if c < 0:
            continue
        rowf[r] = 1
        colf[c] = 1
        d1f[r - c + n - 1] = 1
        d2f[r + c] = 1
        if not keep:
            out[r] = -1


@njit(cache=True, nogil=True)
def dive_to(allowed: np.ndarray, key: np.ndarray, w: np.ndarray, need: float,
            rowf: np.ndarray, colf: np.ndarray, d1f: np.ndarray, d2f: np.ndarray,
            budget: int, out: np.ndarray) -> bool:
    """:func:`dive` that does not stop at a completion worth less than ``need`` (by the
    weights ``w``, n x n): its first completion is the dive's, then it goes on within the
    budget for better ones, skipping a square whose queen cannot beat the best so far (the
    queens so far, and each row still free its best allowed square), and ends at the first
    completion worth ``need``, else with the best it met. True with ``out`` complete (the
    best), False when it met none."""
    n = allowed.shape[0]
    free = 0
    acc = 0.0  # the queens' weights: the board's, then the dive's
    rowbest = np.zeros(n)
    rest = 0.0  # the best allowed square of each row the dive has still to fill
    for r in range(n):
        if rowf[r]:
            free += 1
            top = -1e300
            for c in range(n):
                if allowed[r, c] and w[r, c] > top:
                    top = w[r, c]
            rowbest[r] = top
            rest += top
        else:
            acc += w[r, out[r]]
    if free == 0:
        return True
    best = out.copy()
    best_value = -1e300
    cand = np.empty((free, n), np.int64)
    ncand = np.zeros(free, np.int64)
    pos = np.zeros(free, np.int64)
    row = np.empty(free, np.int64)
    nodes = 0
    e = INT0
    opened = False
    while True:
        if not opened:
            pick = -1
            fewest = n + 1
            for r in range(n):
                if rowf[r]:
                    count = 0
                    for c in range(n):
                        if allowed[r, c] and colf[c] and d1f[r - c + n - 1] and d2f[r + c]:
                            count += 1
                    if count < fewest:
                        fewest, pick = count, r
            row[e] = pick
            t = 0
            for c in range(n):
                if allowed[pick, c] and colf[c] and d1f[pick - c + n - 1] and d2f[pick + c]:
                    q = t
                    while q > 0 and key[pick, cand[e, q - 1]] > key[pick, c]:
                        cand[e, q] = cand[e, q - 1]
                        q -= 1
                    cand[e, q] = c
                    t += 1
            ncand[e] = t
            pos[e] = 0
            opened = True
        r = row[e]
        if pos[e] < ncand[e] and nodes < budget:
            c = cand[e, pos[e]]
            pos[e] += 1
            nodes += 1
            if acc + w[r, c] + rest - rowbest[r] <= best_value + 1e-9:
                continue
            out[r] = c
            acc += w[r, c]
            rest -= rowbest[r]
            rowf[r] = 0
            colf[c] = 0
            d1f[r - c + n - 1] = 0
            d2f[r + c] = 0
            if e + 1 < free:
                e += 1
                opened = False
                continue
            if acc > best_value:
                best_value = acc
                best[:] = out
            if acc >= need:
                _undo(row, out, e + 1, rowf, colf, d1f, d2f, keep=np.True_)
                return True
            e += 1  # the leaf taken back below, as a failed depth
        if e == 0 or nodes >= budget:
            _undo(row, out, e, rowf, colf, d1f, d2f, keep=np.False_)
            if best_value > -1e300:
                out[:] = best
                return True
            return False
        e -= 1
        r = row[e]
        c = out[r]
        acc -= w[r, c]
        rest += rowbest[r]
        rowf[r] = 1
        colf[c] = 1
        d1f[r - c + n - 1] = 1
        d2f[r + c] = 1
        out[r] = -1
