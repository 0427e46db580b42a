"""Numba kernels that count N-Queens solutions from border constellations.

Every solution has exactly one queen on each border line of the board: the first and last
row and the first and last column (a corner queen serves two). Those (up to four) queens
form the solution's *constellation*, written ``(top, bottom, left, right)``: the column of
row 0's queen, the column of row n - 1's, the row of column 0's and the row of column n -
1's. The 8 symmetries of the square map border queens to border queens, so the solutions
with constellation ``s`` and those with its image ``g(s)`` are in bijection: the plain count
is the sum, over one constellation of each symmetry orbit, of the orbit's size times the
number of completions of that constellation. No leaf is ever compared with its rotations.

A completion fills the inner rows (1 .. n - 2 without the left and right queens' rows) on
the inner columns. The four border queens are placed before the search starts, so their
diagonals prune from the first row on; the search jumps over their rows (a per-row step)
and counts the free squares of its last row instead of entering it.

Masks are int64 words with column ``c`` at bit ``c + OFFSET`` (``OFFSET = n - 2``): a
border queen below the search row reaches it along a diagonal that, read at the first
search row, may lie left of column 0. The right-going diagonal mask starts at bit
``3n - 5`` at most, below the sign bit for ``n <= MAX_N``; past that the class counts of
:mod:`.count_kernels` (Takaken's method) count alone.

The module imports numba at import time; :mod:`nqmip.enumeration.count` imports it lazily.
"""

from __future__ import annotations

import numpy as np

from nqmip.numba_cache import njit
from nqmip.numba_consts import INT0, INT1

#: The largest board counted by constellations (the right-going mask stays below bit 63).
MAX_N = 22
#: The smallest: below it the boards are too small to gain from the border.
MIN_N = 6


@njit(cache=True, nogil=True)
def _image(n: int, t: int, rows: np.ndarray, cols: np.ndarray, k: int) -> int:
    """The constellation code ``((top * n + bottom) * n + left) * n + right`` of the image
    of the ``k`` border queens ``(rows[i], cols[i])`` under symmetry ``t`` (0 = identity,
    1 .. 3 the quarter turns, 4 .. 7 the mirrors and diagonal reflections)."""
    m = n - 1
    top = bottom = left = right = 0
    for i in range(k):
        r = rows[i]
        c = cols[i]
        if t == 1:
            r, c = c, m - r
        elif t == 2:
            r, c = m - r, m - c
        elif t == 3:
            r, c = m - c, r
        elif t == 4:
            c = m - c
        elif t == 5:
            r = m - r
        elif t == 6:
            r, c = c, r
        elif t == 7:
            r, c = m - c, m - r
        if r == 0:
            top = c
        if r == m:
            bottom = c
        if c == 0:
            left = r
        if c == m:
            right = r
    return ((top * n + bottom) * n + left) * n + right


@njit(cache=True, nogil=True)
def starts(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(constellations, weights)``: one ``(top, bottom, left, right)`` row per symmetry
    orbit of border placements that do not attack each other (the orbit's smallest code),
    and the orbit's size (1, 2, 4 or 8)."""
    m = n - 1
    cap = n * n * n * n // 2 + 8
    found = np.empty((cap, 4), np.int64)
    weights = np.empty(cap, np.int64)
    rows = np.empty(4, np.int64)
    cols = np.empty(4, np.int64)
    codes = np.empty(8, np.int64)
    count = 0
    for top in range(n):
        for bottom in range(n):
            if bottom == top:
                continue
            for left in range(n):
                if (top == 0) != (left == 0) or (bottom == 0) != (left == m):
                    continue
                for right in range(n):
                    if right == left:
                        continue
                    if (top == m) != (right == 0) or (bottom == m) != (right == m):
                        continue
                    k = INT0  # not a literal 0 (numba: a compile of _image for it)
                    for r, c in ((0, top), (m, bottom), (left, 0), (right, m)):
                        seen = False
                        for i in range(k):
                            if rows[i] == r and cols[i] == c:
                                seen = True
                        if not seen:
                            rows[k] = r
                            cols[k] = c
                            k += 1
                    clash = False
                    for i in range(k):
                        for j in range(i + 1, k):
                            if (rows[i] == rows[j] or cols[i] == cols[j]
                                    or abs(rows[i] - rows[j]) == abs(cols[i] - cols[j])):
                                clash = True
                    if clash:
                        continue
                    own = ((top * n + bottom) * n + left) * n + right
                    smallest = True
                    for t in range(8):
                        codes[t] = _image(n, t, rows, cols, k)
                        if codes[t] < own:
                            smallest = False
                            break
                    if not smallest:
                        continue
                    distinct = 0
                    for t in range(8):
                        new = True
                        for u in range(t):
                            if codes[u] == codes[t]:
                                new = False
                        if new:
                            distinct += 1
                    # Search the orbit's member whose bottom queen is nearest the right
                    # corner (then whose top queen is nearest the middle): its diagonals
                    # prune the most rows (n = 15: 0.22 s against 0.36 s as found).
                    best = -1
                    pick = own
                    for t in range(8):
                        code = codes[t]
                        b = (code // (n * n)) % n
                        a = code // (n * n * n)
                        score = b * 2 * n - abs(2 * a - m)
                        if score > best:
                            best = score
                            pick = code
                    found[count, 0] = pick // (n * n * n)
                    found[count, 1] = (pick // (n * n)) % n
                    found[count, 2] = (pick // n) % n
                    found[count, 3] = pick % n
                    weights[count] = distinct
                    count += 1
    return found[:count].copy(), weights[:count].copy()


@njit(cache=True, nogil=True)
def _popcount(x: int) -> int:
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True, nogil=True)
def completions(n: int, top: int, bottom: int, left: int, right: int, steps: np.ndarray,
                fs: np.ndarray, bs: np.ndarray) -> int:
    """The number of ways to fill the inner rows of a constellation (its queens do not
    attack each other). ``steps`` and the stack arrays ``fs`` (the squares left to try)
    and ``bs`` (the queen placed) are scratch space of length n. The stack keeps two words
    a row: a row's masks come back from its child's by undoing the shift, which loses only
    bits outside the inner columns (6 % faster than keeping all four masks). The arrays
    hold 32 words and are indexed ``j & 31`` (j < n - 2 <= 20): a provably non-negative
    index spares numba's negative-index fix-up in the hot loop (12 % faster at n = 15).
    Looking one row further ahead before a descent measured 5 % slower."""
    m = n - 1
    off = n - 2
    # The search rows and the distance from each to the next.
    first = -1
    prev = -1
    depth = 0
    for row in range(1, m):
        if row in (left, right):
            continue
        if prev < 0:
            first = row
        else:
            steps[depth - 1] = row - prev
        prev = row
        depth += 1
    if depth == 0:
        return 1
    inner = ((1 << (n - 2)) - 1) << (off + 1)
    cols = ~inner  # every column outside the inner ones counts as taken
    ld = 0
    rd = 0
    for r, c in ((0, top), (m, bottom), (left, 0), (right, m)):
        cols |= 1 << (c + off)
        ld |= 1 << (c - r + first + off)  # col - row is constant along it
        rd |= 1 << (c + r - first + off)  # col + row is constant along it
    free = ~(cols | ld | rd)
    if depth == 1:
        return _popcount(free)
    last = depth - 1
    j = 0
    total = 0
    while True:
        if free:
            bit = free & -free
            free ^= bit
            step = steps[j & 31]
            ncols = cols | bit
            nld = (ld | bit) << step
            nrd = (rd | bit) >> step
            nfree = ~(ncols | nld | nrd)
            if j + 1 == last:
                while nfree:
                    nfree &= nfree - 1
                    total += 1
            elif nfree:
                fs[j & 31] = free
                bs[j & 31] = bit
                j += 1
                cols = ncols
                ld = nld
                rd = nrd
                free = nfree
        else:
            if j == 0:
                break
            j -= 1
            free = fs[j & 31]
            bit = bs[j & 31]
            step = steps[j & 31]
            cols ^= bit
            ld = (ld >> step) ^ bit
            rd = (rd << step) ^ bit
    return total


@njit(cache=True, nogil=True)
def count_starts(n: int, found: np.ndarray, weights: np.ndarray, first: int, stride: int
                 ) -> int:
    """The weighted completions of constellations ``first, first + stride, ...``."""
    steps = np.zeros(32, np.int64)
    fs = np.zeros(32, np.int64)
    bs = np.zeros(32, np.int64)
    total = 0
    for i in range(first, found.shape[0], stride):
        total += weights[i] * completions(n, found[i, 0], found[i, 1], found[i, 2],
                                          found[i, 3], steps, fs, bs)
    return total


@njit(cache=True, nogil=True)
def count_all(n: int) -> int:
    """Every solution of the empty n x n board (OEIS A000170), MIN_N <= n <= MAX_N."""
    found, weights = starts(n)
    # int64, not literals: the workers' count_starts (count_tasks) loads this signature
    return count_starts(n, found, weights, INT0, INT1)
