"""Numba kernels of the lexicographic descent's prefix oracle: one *complete* first-fail
search, resumable between chunks.

A query is a board: queens already placed (the fixed ones and the proven rows) and,
optionally, one row restricted to the columns left of a limit. :func:`setup` builds it at
level 0 with the propagation of :mod:`nqmip.lex.kernels` (forward checking, rows and columns
with one square placed at once); :func:`run` searches it depth first, branching on the row
or column with fewest squares (:func:`nqmip.lex.kernels._tightest`), for at most ``budget``
nodes per call, until it finds a completion (``FOUND``, the board at ``meta[LEVEL]``) or
exhausts the tree (``EXHAUSTED``: the query has no completion). Unlike the capped oracle of
:mod:`nqmip.lex.kernels` it never gives up: a caller stops it only by not calling again.
"""

from __future__ import annotations

import numpy as np

from nqmip.lex.kernels import (
    EXHAUSTED,
    FOUND,
    ONE,
    RUNNING,
    _assign,
    _clear,
    _copy,
    _has,
    _propagate,
    _tightest,
)
from nqmip.numba_cache import njit
from nqmip.numba_consts import INT0

# meta fields
TOP, NODES, STATUS, LEVEL, ROW_FIRST = range(5)
META_SIZE = 5

__all__ = ["EXHAUSTED", "FOUND", "LEVEL", "META_SIZE", "NODES", "RUNNING", "STATUS", "TOP",
           "run", "setup"]


@njit(cache=True, nogil=True)
def _or_shifted(mask: np.ndarray, base: int, src: np.ndarray, shift: int) -> None:
    """``mask[base:] |= src << shift`` on bitsets of uint64 words."""
    for i in range(src.shape[0]):
        w = src[i]
        if w == np.uint64(0):
            continue
        at = i * 64 + shift
        j = base + (at >> 6)
        b = at & 63
        mask[j] |= w << np.uint64(b)
        if b:
            mask[j + 1] |= w >> np.uint64(64 - b)


@njit(cache=True, nogil=True)
def _extreme_sums(mask: np.ndarray, base: int, lines: int, k: int) -> tuple[int, int, int]:
    """The sums of the indices of the k lowest and of the k highest bits of
    ``mask[base:]`` among the first ``lines``, and how many bits are set (at most k)."""
    low = 0
    got = 0
    for i in range(lines):
        if got == k:
            break
        if (mask[base + (i >> 6)] >> np.uint64(i & 63)) & ONE:
            low += i
            got += 1
    high = 0
    seen = 0
    for i in range(lines - 1, -1, -1):
        if seen == k:
            break
        if (mask[base + (i >> 6)] >> np.uint64(i & 63)) & ONE:
            high += i
            seen += 1
    return low, high, got


@njit(cache=True, nogil=True)
def _sums_fit(avail: np.ndarray, col_count: np.ndarray, queen: np.ndarray, lv: int,
              mark: np.ndarray) -> bool:
    """The diagonal sums: on a full board the queens' ``c - r`` add up to
    ``sum(columns) - sum(rows) = 0`` and their ``r + c`` to ``sum(rows) + sum(columns)``, so
    the k free queens' diagonals add up to ``sum(free columns) - sum(free rows)`` and their
    anti-diagonals to ``sum(free rows) + sum(free columns)``. They stand on k distinct open
    diagonals (anti-diagonals): False when that sum lies outside the sums of the k smallest
    and of the k largest open ones, which proves the level has no completion. The open
    lines are gathered as bitsets (row r's squares shifted by r, or by n - 1 - r), O(n)
    words per node."""
    n = queen.shape[1]
    lines = 2 * n - 1
    half = mark.shape[0] // 2
    mark[:] = 0
    k = INT0  # not a literal 0: that would compile _extreme_sums for it too
    rows = 0
    for r in range(n):
        if queen[lv, r] >= 0:
            continue
        k += 1
        rows += r
        _or_shifted(mark, INT0, avail[lv, r], n - 1 - r)  # bit c - r + n - 1
        _or_shifted(mark, half, avail[lv, r], r)       # bit r + c
    cols = 0
    for c in range(n):
        if col_count[lv, c] >= 0:
            cols += c
    low, high, got = _extreme_sums(mark, INT0, lines, k)
    target = cols - rows + k * (n - 1)
    if got < k or target < low or target > high:
        return False
    low, high, got = _extreme_sums(mark, half, lines, k)
    target = rows + cols
    return got == k and low <= target <= high


@njit(cache=True, nogil=True)
def setup(avail: np.ndarray, row_count: np.ndarray, col_count: np.ndarray,
          queen: np.ndarray, queue: np.ndarray, placed: np.ndarray, row: int, limit: int,
          line: np.ndarray, pos: np.ndarray, meta: np.ndarray, row_first: bool,
          sums: bool, mark: np.ndarray) -> int:
    """Level 0: the empty board, the queens of ``placed`` (rows of (row, col)) and, when
    ``row >= 0``, row ``row`` restricted to the columns below ``limit``; propagated. With
    ``row_first`` the search branches on that row first, columns ascending, so a completion
    it finds has the smallest column the row can take.
    Returns (and keeps in meta[STATUS]) RUNNING, FOUND (the board is complete) or
    EXHAUSTED (propagation alone refutes the query)."""
    n = queen.shape[1]
    avail[0] = 0
    for r in range(n):
        for c in range(n):
            avail[0, r, c >> 6] |= ONE << np.uint64(c & 63)
    row_count[0] = n
    col_count[0] = n
    queen[0] = -1
    meta[:] = 0
    meta[STATUS] = EXHAUSTED
    meta[TOP] = -1
    for i in range(placed.shape[0]):
        if not _assign(avail, row_count, col_count, queen, INT0, placed[i, 0], placed[i, 1],
                       queue):
            return EXHAUSTED
    if row >= 0:
        if queen[0, row] >= 0:
            if queen[0, row] >= limit:
                return EXHAUSTED
        else:
            tail = INT0  # (as k in _sums_fit)
            for c in range(max(limit, 0), n):
                tail = _clear(avail, row_count, col_count, INT0, row, c, queue, tail)
                if tail < 0:
                    return EXHAUSTED
            if tail > 0 and not _propagate(avail, row_count, col_count, queen, INT0, queue,
                                           tail):
                return EXHAUSTED
    if sums and not _sums_fit(avail, col_count, queen, INT0, mark):
        return EXHAUSTED
    line[0] = _tightest(row_count, col_count, queen, INT0)
    if row_first and row >= 0 and queen[0, row] < 0:
        line[0] = row
        meta[ROW_FIRST] = 1
    pos[0] = 0
    if line[0] < 0:
        meta[STATUS] = FOUND
        meta[LEVEL] = 0
        return FOUND
    meta[TOP] = 0
    meta[STATUS] = RUNNING
    return RUNNING


@njit(cache=True, nogil=True)
def run(avail: np.ndarray, row_count: np.ndarray, col_count: np.ndarray, queen: np.ndarray,
        queue: np.ndarray, line: np.ndarray, pos: np.ndarray, meta: np.ndarray,
        budget: int, sums: bool, mark: np.ndarray, descending: bool, offset: int) -> int:
    """Search on for at most ``budget`` nodes. Returns meta[STATUS]: FOUND (a completion
    at level meta[LEVEL]), EXHAUSTED (none), or RUNNING (call again to go on). The squares
    of a line are tried in order (``descending``: from the last), rotated by ``offset``,
    except on the asked row of a ``row_first`` search, always ascending."""
    n = queen.shape[1]
    if meta[STATUS] != RUNNING:
        return meta[STATUS]
    top = meta[TOP]
    nodes = 0
    while top >= 0:
        if nodes >= budget:
            meta[TOP] = top
            meta[NODES] += nodes
            return RUNNING
        ln = line[top]
        r = -1
        c = -1
        p = pos[top]
        down = descending and (top > 0 or not meta[ROW_FIRST])
        shift = offset if top > 0 or not meta[ROW_FIRST] else 0
        while p < n:
            x = n - 1 - p if down else p
            if shift:
                x = (x + shift) % n
            if ln < n:
                if _has(avail, top, ln, x):
                    r = ln
                    c = x
                    break
            elif queen[top, x] < 0 and _has(avail, top, x, ln - n):
                r = x
                c = ln - n
                break
            p += 1
        if r < 0:
            top -= 1
            continue
        pos[top] = p + 1
        nodes += 1
        nxt = top + 1
        _copy(avail, row_count, col_count, queen, top, nxt)
        if not _assign(avail, row_count, col_count, queen, nxt, r, c, queue):
            continue
        if sums and not _sums_fit(avail, col_count, queen, nxt, mark):
            continue
        line[nxt] = _tightest(row_count, col_count, queen, nxt)
        pos[nxt] = 0
        if line[nxt] < 0:
            meta[TOP] = nxt
            meta[LEVEL] = nxt
            meta[NODES] += nodes
            meta[STATUS] = FOUND
            return FOUND
        top = nxt
    meta[TOP] = -1
    meta[NODES] += nodes
    meta[STATUS] = EXHAUSTED
    return EXHAUSTED
