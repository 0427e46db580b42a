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
from nqmip.numba_consts import INT0, INT1

# meta fields
TOP, NODES, STATUS, LEVEL, ROW_FIRST = range(5)
META_SIZE = 5

PROBE_FIXPOINT = False

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
def _augment(avail: np.ndarray, queen: np.ndarray, lv: int, work: np.ndarray, anti: bool,
             d0: int) -> bool:
    """Match diagonal ``d0`` (anti-diagonal with ``anti``) to a free row by an augmenting
    path (breadth first) in the graph of the free rows and the open lines of the family,
    the other matched lines staying matched; False when none exists (then no matching of
    the free rows covers the matched lines and ``d0``)."""
    n = queen.shape[1]
    lines = 2 * n - 1
    match_row = work[0:n]
    match_line = work[n:n + lines]
    from_line = work[n + lines:2 * n + lines]
    seen = work[2 * n + lines:3 * n + lines]
    fifo = work[3 * n + lines:3 * n + 2 * lines]
    stamp = work[3 * n + 2 * lines] + 1
    work[3 * n + 2 * lines] = stamp
    head = 0
    tail = 1
    fifo[0] = d0
    while head < tail:
        d = fifo[head]
        head += 1
        if anti:
            lo = max(0, d - n + 1)
            hi = min(n - 1, d)
        else:
            lo = max(0, n - 1 - d)
            hi = min(n - 1, 2 * n - 2 - d)
        for r in range(lo, hi + 1):
            if queen[lv, r] >= 0 or seen[r] == stamp:
                continue
            c = d - r if anti else r + d - n + 1
            if not _has(avail, lv, r, c):
                continue
            seen[r] = stamp
            from_line[r] = d
            if match_row[r] < 0:
                while True:  # flip the path back to d0
                    line = from_line[r]
                    prev = match_line[line]
                    match_line[line] = r
                    match_row[r] = line
                    if line == d0:
                        return True
                    r = prev
            fifo[tail] = match_row[r]
            tail += 1
    return False


@njit(cache=True, nogil=True)
def _greedy_sum(avail: np.ndarray, queen: np.ndarray, lv: int, work: np.ndarray,
                anti: bool, down: bool, k: int) -> int:
    """The smallest (``down``: largest) sum of k open lines of a family that the k free
    rows can be matched to, one line each: the lines taken in order while an augmenting
    path reaches one (the matchable sets of lines are a transversal matroid, so the
    greedy basis is optimal); -1 when the rows have no such matching at all."""
    n = queen.shape[1]
    lines = 2 * n - 1
    for i in range(n):
        work[i] = -1
    for i in range(lines):
        work[n + i] = -1
    total = 0
    got = 0
    for i in range(lines):
        if got == k:
            break
        d = lines - 1 - i if down else i
        if _augment(avail, queen, lv, work, anti, d):
            total += d
            got += 1
    return total if got == k else -1


@njit(cache=True, nogil=True)
def _matching_fits(avail: np.ndarray, queen: np.ndarray, lv: int, work: np.ndarray,
                   anti: bool, k: int, target: int) -> bool:
    """The diagonal sums with the bound of the matchings: ``target`` between the least and
    the greatest sum of k lines the free rows can be matched to."""
    low = _greedy_sum(avail, queen, lv, work, anti, False, k)
    if low < 0 or target < low:
        return False
    return target <= _greedy_sum(avail, queen, lv, work, anti, True, k)


@njit(cache=True, nogil=True)
def _extremes(mask: np.ndarray, base: int, lines: int,
              k: int) -> tuple[int, int, int, int, int, int, int]:
    """As :func:`_extreme_sums`, with the k-th lowest and k-th highest set bits and the
    lowest and highest: (low sum, high sum, count, k-th lowest, k-th highest, lowest,
    highest)."""
    low = 0
    got = 0
    kth_low = -1
    first = -1
    for i in range(lines):
        if (mask[base + (i >> 6)] >> np.uint64(i & 63)) & ONE:
            if first < 0:
                first = i
            if got < k:
                low += i
                got += 1
                kth_low = i
            else:
                break
    high = 0
    seen = 0
    kth_high = -1
    last = -1
    for i in range(lines - 1, -1, -1):
        if (mask[base + (i >> 6)] >> np.uint64(i & 63)) & ONE:
            if last < 0:
                last = i
            if seen < k:
                high += i
                seen += 1
                kth_high = i
            else:
                break
    return low, high, got, kth_low, kth_high, first, last


@njit(cache=True, nogil=True)
def _sums_filter(avail: np.ndarray, row_count: np.ndarray, col_count: np.ndarray,
                 queen: np.ndarray, lv: int, queue: np.ndarray, mark: np.ndarray) -> bool:
    """The diagonal sums as a propagator, to a fixpoint: the k free queens stand on k
    distinct open lines of each family adding up to the target T, so a queen on line d
    needs T within d plus the least and the greatest sum of k - 1 other open lines, that
    is d within [T - high + kth_high, T - low + kth_low]; the squares on the lines outside
    are cleared (and the rows, columns left with one square placed). False when the level
    has no completion."""
    n = queen.shape[1]
    lines = 2 * n - 1
    half = mark.shape[0] // 2
    for _ in range(n):
        mark[:] = 0
        k = INT0
        rows = 0
        for r in range(n):
            if queen[lv, r] >= 0:
                continue
            k += 1
            rows += r
            _or_shifted(mark, INT0, avail[lv, r], n - 1 - r)
            _or_shifted(mark, half, avail[lv, r], r)
        if k == 0:
            return True
        cols = 0
        for c in range(n):
            if col_count[lv, c] >= 0:
                cols += c
        low, high, got, a, b, first, last = _extremes(mark, INT0, lines, k)
        target = cols - rows + k * (n - 1)
        if got < k or target < low or target > high:
            return False
        min0 = target - high + b
        max0 = target - low + a
        cut0 = min0 > first or max0 < last
        low, high, got, a, b, first, last = _extremes(mark, half, lines, k)
        target = rows + cols
        if got < k or target < low or target > high:
            return False
        min1 = target - high + b
        max1 = target - low + a
        if not (cut0 or min1 > first or max1 < last):
            return True
        tail = INT0
        for r in range(n):
            if queen[lv, r] >= 0:
                continue
            for c in range(n):
                d0 = c - r + n - 1
                d1 = r + c
                if min0 <= d0 <= max0 and min1 <= d1 <= max1:
                    continue
                if not _has(avail, lv, r, c):
                    continue
                tail = _clear(avail, row_count, col_count, lv, r, c, queue, tail)
                if tail < 0:
                    return False
        if tail > 0 and not _propagate(avail, row_count, col_count, queen, lv, queue,
                                       tail):
            return False
    return True


@njit(cache=True, nogil=True)
def _sums_fit(avail: np.ndarray, col_count: np.ndarray, queen: np.ndarray, lv: int,
              mark: np.ndarray, level: int, work: np.ndarray) -> bool:
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
    anti_target = rows + cols
    if got < k or anti_target < low or anti_target > high:
        return False
    if level < 2:
        return True
    return (_matching_fits(avail, queen, lv, work, False, k, target)
            and _matching_fits(avail, queen, lv, work, True, k, anti_target))


@njit(cache=True, nogil=True)
def _probe_level(avail: np.ndarray, row_count: np.ndarray, col_count: np.ndarray,
                 queen: np.ndarray, lv: int, queue: np.ndarray, mark: np.ndarray,
                 work: np.ndarray) -> bool:
    """Failed-literal probing with the diagonal sums, to a fixpoint: each open square
    placed on a scratch level (lv + 1), propagated and the sums checked; a square that
    fails is cleared at level lv (and propagated). False when lv has no completion."""
    n = queen.shape[1]
    scratch = lv + 1
    changed = True
    while changed:
        changed = False
        for r in range(n):
            if queen[lv, r] >= 0:
                continue
            for c in range(n):
                if queen[lv, r] >= 0:
                    break
                if not _has(avail, lv, r, c):
                    continue
                _copy(avail, row_count, col_count, queen, lv, scratch)
                if _assign(avail, row_count, col_count, queen, scratch, r, c, queue) and \
                        _sums_fit(avail, col_count, queen, scratch, mark, INT1, work):
                    continue
                tail = _clear(avail, row_count, col_count, lv, r, c, queue, INT0)
                if tail < 0:
                    return False
                if tail > 0 and not _propagate(avail, row_count, col_count, queen, lv,
                                               queue, tail):
                    return False
                if not _sums_fit(avail, col_count, queen, lv, mark, INT1, work):
                    return False
                changed = PROBE_FIXPOINT
    return True


@njit(cache=True, nogil=True)
def setup(avail: np.ndarray, row_count: np.ndarray, col_count: np.ndarray,
          queen: np.ndarray, queue: np.ndarray, placed: np.ndarray, row: int, limit: int,
          line: np.ndarray, pos: np.ndarray, meta: np.ndarray, row_first: bool,
          sums: int, mark: np.ndarray, work: np.ndarray) -> int:
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
    if sums >= 3:
        if not _sums_filter(avail, row_count, col_count, queen, INT0, queue, mark):
            return EXHAUSTED
    elif sums and not _sums_fit(avail, col_count, queen, INT0, mark, min(sums, 2), work):
        return EXHAUSTED
    if sums >= 10 and not _probe_level(avail, row_count, col_count, queen, INT0, queue,
                                       mark, work):
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
        budget: int, sums: int, mark: np.ndarray, descending: bool, offset: int,
        work: np.ndarray) -> int:
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
        if sums >= 3:
            if not _sums_filter(avail, row_count, col_count, queen, nxt, queue, mark):
                continue
        elif sums and not _sums_fit(avail, col_count, queen, nxt, mark, min(sums, 2),
                                    work):
            continue
        if sums >= 10 and nxt <= sums - 10 and not _probe_level(
                avail, row_count, col_count, queen, nxt, queue, mark, work):
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
