"""Numba bitboard kernels that count and list N-Queens solutions.

The search goes row by row. Three bit masks hold the columns already taken (``cols``) and
the squares of the current row attacked along the two diagonals (``ld``, shifted left one
place per row, and ``rd``, shifted right); ``allowed[row]`` holds the columns a row may use
(every column, or the one column of a fixed queen). The free squares of a row are
``allowed[row] & ~(cols | ld | rd)`` and are tried lowest bit first (``free & -free``), so
solutions come out in lexicographic order of their column tuples. No recursion: the masks
of the rows above live in small arrays used as an explicit stack.

Masks are int64 words. A queen's bit sits below bit n and moves one place per row, so for
n <= 32 no diagonal mask ever reaches the sign bit: that capacity is
:data:`nqmip.enumeration.count.MAX_N`, spelled there, in the module without numba, so that
checking a board against it does not import numba (about a second).

Takaken's class counting is in :mod:`nqmip.enumeration.takaken_kernels`. The module
imports numba at import time; :mod:`nqmip.enumeration.count` imports it lazily.
"""

from __future__ import annotations

import numpy as np

from nqmip.numba_cache import njit


@njit(cache=True, nogil=True)
def count_subtree(n: int, row0: int, cols0: int, ld0: int, rd0: int,
                  allowed: np.ndarray) -> int:
    """The number of ways to complete rows ``row0 .. n-1`` given the masks of rows above.

    The last row is never entered: once rows up to n - 2 hold queens, a single column is
    left, and the completion exists when that square is free.
    """
    if row0 >= n:
        return 1
    last = n - 1
    if row0 == last:
        free = allowed[last] & ~(cols0 | ld0 | rd0)
        return 1 if free != 0 else 0
    fs = np.empty(n, np.int64)
    cs = np.empty(n, np.int64)
    ls = np.empty(n, np.int64)
    rs = np.empty(n, np.int64)
    row = row0
    cols = cols0
    ld = ld0
    rd = rd0
    free = allowed[row] & ~(cols | ld | rd)
    total = 0
    while True:
        if free != 0:
            bit = free & -free
            free ^= bit
            ncols = cols | bit
            nld = (ld | bit) << 1
            nrd = (rd | bit) >> 1
            if row == last - 1:
                if allowed[last] & ~(ncols | nld | nrd):
                    total += 1
            else:
                fs[row] = free
                cs[row] = cols
                ls[row] = ld
                rs[row] = rd
                cols = ncols
                ld = nld
                rd = nrd
                row += 1
                free = allowed[row] & ~(cols | ld | rd)
        else:
            row -= 1
            if row < row0:
                break
            free = fs[row]
            cols = cs[row]
            ld = ls[row]
            rd = rs[row]
    return total


@njit(cache=True, nogil=True)
def count_free_subtree(n: int, row0: int, cols0: int, ld0: int, rd0: int) -> int:
    """:func:`count_subtree` when rows ``row0 .. n-1`` may use every column: the hot loop of
    the plain count, with the full-row mask in a register instead of a per-row load."""
    if row0 >= n:
        return 1
    full = (1 << n) - 1
    last = n - 1
    if row0 == last:
        return 1 if full & ~(cols0 | ld0 | rd0) else 0
    fs = np.empty(n, np.int64)
    cs = np.empty(n, np.int64)
    ls = np.empty(n, np.int64)
    rs = np.empty(n, np.int64)
    row = row0
    cols = cols0
    ld = ld0
    rd = rd0
    free = full & ~(cols | ld | rd)
    total = 0
    while True:
        if free != 0:
            bit = free & -free
            free ^= bit
            ncols = cols | bit
            nld = (ld | bit) << 1
            nrd = (rd | bit) >> 1
            if row == last - 1:
                if full & ~(ncols | nld | nrd):
                    total += 1
            else:
                fs[row] = free
                cs[row] = cols
                ls[row] = ld
                rs[row] = rd
                cols = ncols
                ld = nld
                rd = nrd
                row += 1
                free = full & ~(cols | ld | rd)
        else:
            row -= 1
            if row < row0:
                break
            free = fs[row]
            cols = cs[row]
            ld = ls[row]
            rd = rs[row]
    return total


@njit(cache=True, nogil=True)
def count_all(n: int) -> int:
    """Every solution of the empty n x n board (OEIS A000170), by the first row's mirror
    symmetry: each first-row queen in the left half stands for its mirror image too, the
    middle column of an odd board is counted once."""
    total = 0
    for col in range(n // 2):
        bit = 1 << col
        total += 2 * count_free_subtree(n, 1, bit, bit << 1, bit >> 1)
    if n % 2 == 1:
        bit = 1 << (n // 2)
        total += count_free_subtree(n, 1, bit, bit << 1, bit >> 1)
    return total


@njit(cache=True, nogil=True)
def bit_index(bit: int) -> int:
    """The position of the single set bit of ``bit`` (0 for bit = 1)."""
    k = 0
    if bit >> 32:
        bit >>= 32
        k += 32
    if bit >> 16:
        bit >>= 16
        k += 16
    if bit >> 8:
        bit >>= 8
        k += 8
    if bit >> 4:
        bit >>= 4
        k += 4
    if bit >> 2:
        bit >>= 2
        k += 2
    if bit >> 1:
        k += 1
    return k


@njit(cache=True, nogil=True)
def orbit_size(p: np.ndarray, tmp: np.ndarray) -> int:
    """0 unless ``p`` is the lexicographically smallest of its images under the 8 symmetries
    of the square; then the number of distinct placements in its class (8, 4 or 2).

    Images of the queen (i, p[i]) of an n x n board: the three rotations, the two mirrors
    and the two diagonal reflections, each written into ``tmp`` and compared with ``p``.
    """
    n = p.shape[0]
    m = n - 1
    fixed_by = 1  # the identity
    for t in range(7):
        for i in range(n):
            j = p[i]
            if t == 0:  # quarter turn: (i, j) -> (j, m - i)
                tmp[j] = m - i
            elif t == 1:  # half turn
                tmp[m - i] = m - j
            elif t == 2:  # three-quarter turn: (i, j) -> (m - j, i)
                tmp[m - j] = i
            elif t == 3:  # mirror left-right
                tmp[i] = m - j
            elif t == 4:  # mirror top-bottom
                tmp[m - i] = j
            elif t == 5:  # main diagonal: (i, j) -> (j, i)
                tmp[j] = i
            else:  # anti-diagonal: (i, j) -> (m - j, m - i)
                tmp[m - j] = m - i
        order = 0
        for i in range(n):
            if tmp[i] != p[i]:
                order = -1 if tmp[i] < p[i] else 1
                break
        if order < 0:
            return 0
        if order == 0:
            fixed_by += 1
    return 8 // fixed_by


@njit(cache=True, nogil=True)
def enumerate_into(n: int, row0: int, allowed: np.ndarray, fs: np.ndarray, cs: np.ndarray,
                   ls: np.ndarray, rs: np.ndarray, pos: np.ndarray, state: np.ndarray,
                   out: np.ndarray, sizes: np.ndarray, canonical: bool) -> int:
    """Fill ``out`` (K x n) with the next solutions of the subtree below row ``row0``; return
    how many. Resumable: the search state lives in the arrays, so the next call goes on.

    The caller sets ``pos[:row0]`` (the columns above) and ``cs/ls/rs[row0]`` (their masks),
    and ``state = [row0, 0]``. ``state[1]`` becomes 1 once the subtree is exhausted. With
    ``canonical`` only the smallest placement of each symmetry class is kept and ``sizes``
    receives its class size (else 1).
    """
    k = 0
    if state[1] == 1:
        return 0
    limit = out.shape[0]
    tmp = np.empty(n, np.int64)
    row = state[0]
    if row == row0 and state[1] == 0:
        fs[row0] = allowed[row0] & ~(cs[row0] | ls[row0] | rs[row0])
        state[1] = 2
    while k < limit:
        free = fs[row]
        if free != 0:
            bit = free & -free
            fs[row] = free ^ bit
            pos[row] = bit_index(bit)
            if row == n - 1:
                size = 1
                if canonical:
                    size = orbit_size(pos, tmp)
                if size > 0:
                    for i in range(n):
                        out[k, i] = pos[i]
                    sizes[k] = size
                    k += 1
            else:
                cs[row + 1] = cs[row] | bit
                ls[row + 1] = (ls[row] | bit) << 1
                rs[row + 1] = (rs[row] | bit) >> 1
                row += 1
                fs[row] = allowed[row] & ~(cs[row] | ls[row] | rs[row])
        else:
            row -= 1
            if row < row0:
                state[1] = 1
                row = row0
                break
    state[0] = row
    return k


@njit(cache=True, nogil=True)
def count_canonical_subtree(n: int, row0: int, prefix: np.ndarray, cols0: int, ld0: int,
                            rd0: int, allowed: np.ndarray) -> tuple[int, int]:
    """``(classes, solutions)`` below row ``row0``: the solutions that are the smallest of
    their symmetry class, and the sum of those classes' sizes (every solution whose class's
    smallest member lies in this subtree)."""
    fs = np.empty(n, np.int64)
    cs = np.empty(n, np.int64)
    ls = np.empty(n, np.int64)
    rs = np.empty(n, np.int64)
    pos = np.zeros(n, np.int64)
    tmp = np.empty(n, np.int64)
    for i in range(row0):
        pos[i] = prefix[i]
    if row0 >= n:
        size = orbit_size(pos, tmp)
        return (1 if size > 0 else 0), size
    classes = 0
    solutions = 0
    row = row0
    cs[row] = cols0
    ls[row] = ld0
    rs[row] = rd0
    fs[row] = allowed[row] & ~(cols0 | ld0 | rd0)
    while True:
        free = fs[row]
        if free != 0:
            bit = free & -free
            fs[row] = free ^ bit
            pos[row] = bit_index(bit)
            if row == n - 1:
                size = orbit_size(pos, tmp)
                if size > 0:
                    classes += 1
                    solutions += size
            else:
                cs[row + 1] = cs[row] | bit
                ls[row + 1] = (ls[row] | bit) << 1
                rs[row + 1] = (rs[row] | bit) >> 1
                row += 1
                fs[row] = allowed[row] & ~(cs[row] | ls[row] | rs[row])
        else:
            row -= 1
            if row < row0:
                break
    return classes, solutions
