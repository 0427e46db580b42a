"""Numba kernel of the complete search on a free board (the completion problem).

The board is the :class:`~nqmip.board.FreeBoard` renumbered: F free rows and F free
columns (0 .. F-1, F <= :data:`nqmip.enumeration.completion.MAX_FREE`), and for each row
an int64 mask of the columns it may still take. Every row and every column must receive
exactly one queen, so at each node the search branches on the *line* (row or column) with
the fewest squares left (a line with none ends the branch at once): the first-fail rule
over both families of lines, which is what makes excluded-diagonals instances small
(CSPLib prob079, n = 21: thousands of nodes where a row-by-row search visits millions).
Placing a queen on (r, c) clears column c in every row and the squares of its two
diagonals (``attack[r * F + c, row]``, built once).

The state lives in arrays so that a search can stop after ``budget`` nodes and go on from
where it stopped on the next call (the caller checks its deadline in between). Branching on
a line lists every way to fill it, so each solution is reached exactly once: the same
kernel counts completions (``first=False``).
"""

from __future__ import annotations

import numpy as np

from nqmip.numba_cache import njit

DEPTH, FOUND, NODES, DONE = 0, 1, 2, 3


@njit(cache=True, nogil=True, inline="always")
def _popcount(x: int) -> int:
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@njit(cache=True, nogil=True)
def _branch(e: int, avail: np.ndarray, rows: int, cols: int, cand_r: np.ndarray,
            cand_c: np.ndarray, ncand: np.ndarray, idx: np.ndarray) -> None:
    """Fill the candidates of depth ``e``: the squares of the tightest row or column."""
    f = avail.shape[1]
    best = f + 1
    line = -1
    is_row = True
    for r in range(f):
        if (rows >> r) & 1:
            cnt = _popcount(avail[e, r])
            if cnt < best:
                best, line, is_row = cnt, r, True
    if best > 1:
        for c in range(f):
            if (cols >> c) & 1:
                cnt = 0
                for r in range(f):
                    if (rows >> r) & 1 and (avail[e, r] >> c) & 1:
                        cnt += 1
                if cnt < best:
                    best, line, is_row = cnt, c, False
                    if cnt == 0:
                        break
    idx[e] = 0
    ncand[e] = 0
    if best == 0 or line < 0:
        return
    k = 0
    if is_row:
        mask = avail[e, line]
        for c in range(f):
            if (mask >> c) & 1:
                cand_r[e, k] = line
                cand_c[e, k] = c
                k += 1
    else:
        for r in range(f):
            if (rows >> r) & 1 and (avail[e, r] >> line) & 1:
                cand_r[e, k] = r
                cand_c[e, k] = line
                k += 1
    ncand[e] = k


@njit(cache=True, nogil=True)
def start(avail: np.ndarray, rows_st: np.ndarray, cols_st: np.ndarray, cand_r: np.ndarray,
          cand_c: np.ndarray, ncand: np.ndarray, idx: np.ndarray, meta: np.ndarray) -> None:
    """Set up depth 0 (``avail[0]`` holds each row's columns on entry)."""
    f = avail.shape[1]
    full = (1 << f) - 1
    rows_st[0] = full
    cols_st[0] = full
    _branch(0, avail, full, full, cand_r, cand_c, ncand, idx)
    meta[DEPTH] = 0
    meta[FOUND] = 0
    meta[NODES] = 0
    meta[DONE] = 0


@njit(cache=True, nogil=True)
def run(attack: np.ndarray, avail: np.ndarray, rows_st: np.ndarray, cols_st: np.ndarray,
        cand_r: np.ndarray, cand_c: np.ndarray, ncand: np.ndarray, idx: np.ndarray,
        meta: np.ndarray, budget: int, first: bool) -> int:
    """Search on for at most ``budget`` nodes: 1 when a solution was found with ``first``
    (it is ``cand[d, idx[d] - 1]`` for d = 0 .. meta[DEPTH]), 2 when the tree is exhausted
    (``meta[FOUND]`` solutions), 0 when the budget ran out (call again to go on)."""
    f = avail.shape[1]
    d = meta[DEPTH]
    nodes = 0
    while d >= 0:
        if nodes >= budget:
            meta[DEPTH] = d
            meta[NODES] += nodes
            return 0
        if idx[d] >= ncand[d]:
            d -= 1
            continue
        r = cand_r[d, idx[d]]
        c = cand_c[d, idx[d]]
        idx[d] += 1
        nodes += 1
        rows = rows_st[d] & ~(1 << r)
        cols = cols_st[d] & ~(1 << c)
        if rows == 0:
            meta[FOUND] += 1
            if first:
                meta[DEPTH] = d
                meta[NODES] += nodes
                return 1
            continue
        e = d + 1
        keep = ~(1 << c)
        hit = attack[r * f + c]
        for r2 in range(f):
            if (rows >> r2) & 1:
                avail[e, r2] = avail[d, r2] & keep & ~hit[r2]
        rows_st[e] = rows
        cols_st[e] = cols
        _branch(e, avail, rows, cols, cand_r, cand_c, ncand, idx)
        d = e
    meta[DEPTH] = -1
    meta[NODES] += nodes
    meta[DONE] = 1
    return 2
