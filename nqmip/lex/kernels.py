"""Numba kernels of the lexicographically first solution (OEIS A141843).

The board state of one search level is, for every row, the bitset of the columns it may
still take (``avail[level, row, word]``, ``words = ceil(n / 64)`` uint64 words, so any n
works), the number of those columns per row (``row_count``) and, per free column, the
number of unassigned rows that may still take it (``col_count``), and the column of every
assigned row (``queen``, -1 when free).

Placing a queen (:func:`_assign`) clears, in every unassigned row, its column and its two
diagonals, and keeps the counts; a row or a free column left with no square ends the branch
at once (the forward check plain backtracking lacks), and a row or a column left with one
square places that queen too (unit propagation, to a fixpoint). Propagation only removes
squares no completion can use, so a depth-first search that branches on the lowest
unassigned row, columns ascending, still meets the solutions in lexicographic order: its
first solution is the first one.

The prefix oracle (:func:`_feasible`), the idea of Fischetti and Salvagnin (arXiv
1907.08246) with a search in place of their integer program: from row ``oracle_from`` on,
before the lexicographic search enters a node it asks whether that node can be completed at
all, by a first-fail search (branch on the row or column with fewest squares) that refutes a
hopeless prefix in far fewer nodes than the row-ordered search would take to exhaust it. An
oracle search that needs more than ``oracle_cap`` nodes answers "unknown" and the node is
searched as usual, so the oracle never makes the search wrong, only faster. A node the
oracle proves completable fixes the leading rows of the answer (everything smaller is
exhausted): that is the *proven prefix* an interrupted search reports.
"""

from __future__ import annotations

import numpy as np

from nqmip.numba_cache import njit
from nqmip.numba_consts import INT0, INT1

# meta fields: the search's state between two kernel calls
LEVEL, NODES, ORACLE_NODES, STATUS, PROVEN_ROWS, ORACLE_CALLS, ORACLE_CUTS = range(7)
META_SIZE = 7
# STATUS values
RUNNING, FOUND, EXHAUSTED, BLOCKED = 0, 1, 2, 3

ONE = np.uint64(1)


@njit(cache=True, nogil=True, inline="always")
def _has(avail: np.ndarray, lv: int, row: int, col: int) -> bool:
    return (avail[lv, row, col >> 6] >> np.uint64(col & 63)) & ONE != np.uint64(0)


@njit(cache=True, nogil=True)
def _copy(avail: np.ndarray, row_count: np.ndarray, col_count: np.ndarray,
          queen: np.ndarray, src: int, dst: int) -> None:
    # element by element: a row assigned whole compiles numba's shape-mismatch error (its
    # message formatting, a second of compile) for a check that cannot fail here
    for r in range(avail.shape[1]):
        for w in range(avail.shape[2]):
            avail[dst, r, w] = avail[src, r, w]
    for r in range(row_count.shape[1]):
        row_count[dst, r] = row_count[src, r]
    for c in range(col_count.shape[1]):
        col_count[dst, c] = col_count[src, c]
    for r in range(queen.shape[1]):
        queen[dst, r] = queen[src, r]


@njit(cache=True, nogil=True)
def _clear(avail: np.ndarray, row_count: np.ndarray, col_count: np.ndarray, lv: int,
           row: int, col: int, queue: np.ndarray, tail: int) -> int:
    """Clear square (row, col) if set; push a row or column left with one square. Returns
    the new queue tail, or -1 when a row or column is left with none."""
    word = col >> 6
    bit = ONE << np.uint64(col & 63)
    if avail[lv, row, word] & bit == np.uint64(0):
        return tail
    avail[lv, row, word] &= ~bit
    row_count[lv, row] -= 1
    col_count[lv, col] -= 1
    if row_count[lv, row] == 0 or col_count[lv, col] == 0:
        return -1
    if row_count[lv, row] == 1:
        queue[tail, 0] = row
        queue[tail, 1] = -1
        tail += 1
    if col_count[lv, col] == 1:
        queue[tail, 0] = -1
        queue[tail, 1] = col
        tail += 1
    return tail


@njit(cache=True, nogil=True)
def _assign(avail: np.ndarray, row_count: np.ndarray, col_count: np.ndarray,
            queen: np.ndarray, lv: int, row: int, col: int, queue: np.ndarray) -> bool:
    """Place a queen on (row, col) at level ``lv`` and propagate to a fixpoint; False when
    the level is left without a completion (a line with no square, or two forced queens
    in conflict)."""
    queue[0, 0] = row
    queue[0, 1] = col
    return _propagate(avail, row_count, col_count, queen, lv, queue, INT1)


@njit(cache=True, nogil=True)
def _propagate(avail: np.ndarray, row_count: np.ndarray, col_count: np.ndarray,
               queen: np.ndarray, lv: int, queue: np.ndarray, tail: int) -> bool:
    """Place the queens of ``queue[:tail]`` (a row ``r`` left with one square as (r, -1),
    a column ``c`` with one row as (-1, c), a queen as (r, c)) and propagate to a fixpoint;
    False when level ``lv`` is left without a completion."""
    n = queen.shape[1]
    head = 0
    while head < tail:
        r = queue[head, 0]
        c = queue[head, 1]
        head += 1
        if c < 0:  # row r has one square left: find it
            if queen[lv, r] >= 0:
                continue
            c = -1
            for x in range(n):
                if _has(avail, lv, r, x):
                    c = x
                    break
            if c < 0:
                return False
        elif r < 0:  # column c has one row left: find it
            if col_count[lv, c] < 0:  # already taken
                continue
            for k in range(n):
                if queen[lv, k] < 0 and _has(avail, lv, k, c):
                    r = k
                    break
            if r < 0:
                return False
        if queen[lv, r] >= 0:
            if queen[lv, r] == c:
                continue
            return False
        if not _has(avail, lv, r, c):
            return False
        queen[lv, r] = c
        # row r leaves: its other squares no longer support their columns
        for x in range(n):
            if x != c and _has(avail, lv, r, x):
                col_count[lv, x] -= 1
                if col_count[lv, x] == 0:
                    return False
                if col_count[lv, x] == 1:
                    queue[tail, 0] = -1
                    queue[tail, 1] = x
                    tail += 1
        avail[lv, r, :] = 0
        row_count[lv, r] = 0
        col_count[lv, c] = -1  # taken: never counted again
        for k in range(n):
            if queen[lv, k] >= 0:
                continue
            d = k - r if k > r else r - k
            # column c: clear without counting the (taken) column
            word = c >> 6
            bit = ONE << np.uint64(c & 63)
            if avail[lv, k, word] & bit != np.uint64(0):
                avail[lv, k, word] &= ~bit
                row_count[lv, k] -= 1
                if row_count[lv, k] == 0:
                    return False
                if row_count[lv, k] == 1:
                    queue[tail, 0] = k
                    queue[tail, 1] = -1
                    tail += 1
            if c - d >= 0:
                tail = _clear(avail, row_count, col_count, lv, k, c - d, queue, tail)
                if tail < 0:
                    return False
            if c + d < n:
                tail = _clear(avail, row_count, col_count, lv, k, c + d, queue, tail)
                if tail < 0:
                    return False
        if tail > queue.shape[0] - 8 * n:  # compact the queue (never overflows)
            m = tail - head
            for i in range(m):
                queue[i, 0] = queue[head + i, 0]
                queue[i, 1] = queue[head + i, 1]
            head = 0
            tail = m
    return True


@njit(cache=True, nogil=True)
def _first_free(queen: np.ndarray, lv: int) -> int:
    n = queen.shape[1]
    for r in range(n):
        if queen[lv, r] < 0:
            return r
    return -1


@njit(cache=True, nogil=True)
def _tightest(row_count: np.ndarray, col_count: np.ndarray, queen: np.ndarray,
              lv: int) -> int:
    """The line with fewest squares: a row ``r`` as r, a column ``c`` as n + c; -1 when
    every row is assigned."""
    n = queen.shape[1]
    best = n + 1
    line = -1
    for r in range(n):
        if queen[lv, r] < 0 and row_count[lv, r] < best:
            best = row_count[lv, r]
            line = r
    if best <= 2:
        return line
    for c in range(n):
        if col_count[lv, c] >= 0 and col_count[lv, c] < best:
            best = col_count[lv, c]
            line = n + c
    return line


@njit(cache=True, nogil=True)
def _feasible(avail: np.ndarray, row_count: np.ndarray, col_count: np.ndarray,
              queen: np.ndarray, base: int, cap: int, queue: np.ndarray,
              line: np.ndarray, pos: np.ndarray, meta: np.ndarray, best: np.ndarray) -> int:
    """Can level ``base`` be completed? First-fail search on the levels above it: 1 yes
    (the completion is copied to ``best`` if it is lexicographically smaller), 0 no, -1
    unknown (more than ``cap`` nodes)."""
    n = queen.shape[1]
    top = base
    line[top] = _tightest(row_count, col_count, queen, top)
    if line[top] < 0:
        _keep_smaller(queen, top, best)
        return 1
    pos[top] = 0
    nodes = 0
    while top >= base:
        ln = line[top]
        # next square of the line, from pos[top]
        r = -1
        c = -1
        p = pos[top]
        while p < n:
            if ln < n:
                if _has(avail, top, ln, p):
                    r = ln
                    c = p
                    break
            else:
                if queen[top, p] < 0 and _has(avail, top, p, ln - n):
                    r = p
                    c = ln - n
                    break
            p += 1
        if r < 0:
            top -= 1
            continue
        pos[top] = p + 1
        nodes += 1
        if nodes > cap:
            meta[ORACLE_NODES] += nodes
            return -1
        nxt = top + 1
        _copy(avail, row_count, col_count, queen, top, nxt)
        if not _assign(avail, row_count, col_count, queen, nxt, r, c, queue):
            continue
        line[nxt] = _tightest(row_count, col_count, queen, nxt)
        if line[nxt] < 0:
            _keep_smaller(queen, nxt, best)
            meta[ORACLE_NODES] += nodes
            return 1
        pos[nxt] = 0
        top = nxt
    meta[ORACLE_NODES] += nodes
    return 0


@njit(cache=True, nogil=True)
def _keep_smaller(queen: np.ndarray, lv: int, best: np.ndarray) -> None:
    """Keep the complete assignment at ``lv`` in ``best`` if it is lexicographically
    smaller (``best[0] < 0``: none kept yet)."""
    n = queen.shape[1]
    smaller = best[0] < 0
    if not smaller:
        for r in range(n):
            if queen[lv, r] != best[r]:
                smaller = queen[lv, r] < best[r]
                break
    if smaller:
        for r in range(n):
            best[r] = queen[lv, r]


@njit(cache=True, nogil=True)
def start(avail: np.ndarray, row_count: np.ndarray, col_count: np.ndarray,
          queen: np.ndarray, fixed: np.ndarray, queue: np.ndarray, branch_row: np.ndarray,
          next_col: np.ndarray, meta: np.ndarray) -> None:
    """Set level 0 to the empty board, place the ``fixed`` queens (rows of (row, col)) and
    propagate; meta[STATUS] is BLOCKED when they leave no completion."""
    n = queen.shape[1]
    avail[0] = 0
    for r in range(n):
        for c in range(n):
            avail[0, r, c >> 6] |= ONE << np.uint64(c & 63)
    row_count[0] = n
    col_count[0] = n
    queen[0] = -1
    meta[:] = 0
    for i in range(fixed.shape[0]):
        if not _assign(avail, row_count, col_count, queen, INT0, fixed[i, 0], fixed[i, 1],
                       queue):
            meta[STATUS] = BLOCKED
            return
    branch_row[0] = _first_free(queen, INT0)
    next_col[0] = 0
    meta[LEVEL] = 0
    meta[STATUS] = RUNNING


@njit(cache=True, nogil=True)
def run(avail: np.ndarray, row_count: np.ndarray, col_count: np.ndarray, queen: np.ndarray,
        queue: np.ndarray, branch_row: np.ndarray, next_col: np.ndarray, line: np.ndarray,
        pos: np.ndarray, meta: np.ndarray, best: np.ndarray, budget: int, oracle_from: int,
        oracle_cap: int) -> int:
    """Search on for about ``budget`` nodes (oracle nodes included). Returns meta[STATUS]:
    FOUND (the first solution is ``queen[meta[LEVEL]]``), EXHAUSTED (no solution), or
    RUNNING (budget spent: call again to go on)."""
    n = queen.shape[1]
    lv = meta[LEVEL]
    spent = 0
    if branch_row[0] < 0:  # the fixed queens fill the board
        meta[STATUS] = FOUND
        return FOUND
    while lv >= 0:
        if spent >= budget:
            meta[LEVEL] = lv
            return RUNNING
        r = branch_row[lv]
        c = next_col[lv]
        while c < n and not _has(avail, lv, r, c):
            c += 1
        if c >= n:
            lv -= 1
            continue
        next_col[lv] = c + 1
        meta[NODES] += 1
        spent += 1
        nxt = lv + 1
        _copy(avail, row_count, col_count, queen, lv, nxt)
        if not _assign(avail, row_count, col_count, queen, nxt, r, c, queue):
            continue
        first = _first_free(queen, nxt)
        if first < 0:
            meta[LEVEL] = nxt
            meta[STATUS] = FOUND
            meta[PROVEN_ROWS] = n
            return FOUND
        if 0 <= oracle_from <= first and meta[PROVEN_ROWS] < n:
            before = meta[ORACLE_NODES]
            meta[ORACLE_CALLS] += 1
            answer = _feasible(avail, row_count, col_count, queen, nxt, oracle_cap, queue,
                               line, pos, meta, best)
            spent += meta[ORACLE_NODES] - before
            if answer == 0:
                meta[ORACLE_CUTS] += 1
                continue
            if answer == 1 and first > meta[PROVEN_ROWS]:
                meta[PROVEN_ROWS] = first
        branch_row[nxt] = first
        next_col[nxt] = 0
        lv = nxt
    meta[LEVEL] = -1
    meta[STATUS] = EXHAUSTED
    return EXHAUSTED
