"""Numba kernels that count the classes of N-Queens solutions under the 8 symmetries
of the square at once (Takaken's method); the masks are those of
:mod:`nqmip.enumeration.count_kernels` (int64 words, n <= ``MAX_N``).

A class of solutions under the 8 symmetries of the square is counted once, at its member
that is smallest when a row's queen reads as a bit (the queen of row 0 in the lowest
column, then row 1, ...), and weighed by its size: 8, 4 (the class is unchanged by a half
turn) or 2 (by a quarter turn). Two kinds of search:

* corner: row 0's queen in column 0. No solution with a corner queen is symmetric (the
  corner's diagonal would need a second queen), so each counts 8; the smallest member has
  row 1's queen in column ``bound1`` >= 2 and no queen in column 1 above row ``bound1``
  (else its reflection in the main diagonal is smaller).
* side: row 0's queen in column ``bound1`` (1 <= bound1 < n/2 - ...), no queen in a corner.
  Rows above ``bound1`` and below ``bound2 = n - 1 - bound1`` keep off the two side
  columns, and the last row off the squares ``lastmask`` (their images would be smaller);
  a complete board is compared with its quarter-, half- and three-quarter-turn images
  (:func:`takaken_check`).

``board[y]`` holds the bit of row y's queen.

The module imports numba at import time; :mod:`nqmip.enumeration.count` imports it lazily.
"""

from __future__ import annotations

import numpy as np

from nqmip.numba_cache import njit
from nqmip.numba_consts import INT1, INT2


@njit(cache=True, nogil=True)
def takaken_check(board: np.ndarray, n: int, topbit: int, endbit: int, bound1: int,
                  bound2: int) -> int:
    """The size of the class of a complete side-search board (8, 4 or 2), or 0 when one of
    its rotations is smaller (the class is counted at that member)."""
    last = n - 1
    if board[bound2] == 1:  # a quarter turn
        own = 1
        ptn = 2
        while own <= last:
            bit = 1
            you = last
            while board[you] != ptn and board[own] >= bit:
                bit <<= 1
                you -= 1
            if board[own] > bit:
                return 0
            if board[own] < bit:
                break
            own += 1
            ptn <<= 1
        if own > last:
            return 2
    if board[last] == endbit:  # a half turn
        own = 1
        you = last - 1
        while own <= last:
            bit = 1
            ptn = topbit
            while ptn != board[you] and board[own] >= bit:
                bit <<= 1
                ptn >>= 1
            if board[own] > bit:
                return 0
            if board[own] < bit:
                break
            own += 1
            you -= 1
        if own > last:
            return 4
    if board[bound1] == topbit:  # a three-quarter turn
        own = 1
        ptn = topbit >> 1
        while own <= last:
            bit = 1
            you = 0
            while board[you] != ptn and board[own] >= bit:
                bit <<= 1
                you += 1
            if board[own] > bit:
                return 0
            if board[own] < bit:
                break
            own += 1
            ptn >>= 1
    return 8


@njit(cache=True, nogil=True)
def takaken_row_mask(n: int, corner: bool, bound1: int, row: int, down: int,
                     sidemask: int) -> int:
    """The columns the smallest member of a class may use in ``row`` (< n - 1), given the
    columns taken above (``down``); 0 prunes the whole sub-tree."""
    full = (1 << n) - 1
    if corner:
        return full & ~2 if row < bound1 else full
    if row < bound1:
        return full & ~sidemask
    if row == n - 1 - bound1:
        side = down & sidemask
        if side == 0:
            return 0
        if side != sidemask:
            return sidemask
    return full


@njit(cache=True, nogil=True)
def takaken_subtree(n: int, corner: bool, bound1: int, row0: int, board: np.ndarray,
                    left0: int, down0: int, right0: int) -> tuple[int, int, int]:
    """``(classes of 8, classes of 4, classes of 2)`` below row ``row0`` of one search
    (``board[:row0]`` and the masks describe the rows above, which obeyed
    :func:`takaken_row_mask`). The last row is never entered: its one free square, if any,
    is checked from row n - 2."""
    last = n - 1
    full = (1 << n) - 1
    topbit = 1 << last
    bound2 = last - bound1
    sidemask = topbit | 1
    lastmask = sidemask
    endbit = topbit >> 1
    for _ in range(1, bound1):
        lastmask |= (lastmask >> 1) | (lastmask << 1)
        endbit >>= 1
    lastmask &= full
    early = full & ~2 if corner else full & ~sidemask
    if corner:
        bound2 = -1  # no such row
        lastmask = 0
    c8 = 0
    c4 = 0
    c2 = 0
    if row0 >= last:  # a complete prefix (tiny boards only)
        free = full & ~(left0 | down0 | right0) & ~lastmask
        if row0 > last or free == 0:
            return 0, 0, 0
        if corner:
            return 1, 0, 0
        board[last] = free
        size = takaken_check(board, n, topbit, endbit, bound1, bound2)
        return (1 if size == 8 else 0), (1 if size == 4 else 0), (1 if size == 2 else 0)
    fs = np.zeros(n, np.int64)
    ls = np.zeros(n, np.int64)
    ds = np.zeros(n, np.int64)
    rs = np.zeros(n, np.int64)
    row = row0
    left = left0
    down = down0
    right = right0
    free = full & ~(left | down | right) & takaken_row_mask(n, corner, bound1, row, down,
                                                              sidemask)
    while True:
        if free != 0:
            bit = free & -free
            free ^= bit
            nleft = (left | bit) << 1
            ndown = down | bit
            nright = (right | bit) >> 1
            if row == last - 1:
                tail = full & ~(nleft | ndown | nright)
                if tail != 0 and tail & lastmask == 0:
                    if corner:
                        c8 += 1
                    else:
                        board[row] = bit
                        board[last] = tail
                        size = takaken_check(board, n, topbit, endbit, bound1, bound2)
                        if size == 8:
                            c8 += 1
                        elif size == 4:
                            c4 += 1
                        elif size == 2:
                            c2 += 1
            else:
                fs[row] = free
                ls[row] = left
                ds[row] = down
                rs[row] = right
                board[row] = bit
                left = nleft
                down = ndown
                right = nright
                row += 1
                free = full & ~(left | down | right)
                if row < bound1:
                    free &= early
                elif row == bound2:
                    side = down & sidemask
                    if side == 0:
                        free = 0
                    elif side != sidemask:
                        free &= sidemask
        else:
            row -= 1
            if row < row0:
                break
            free = fs[row]
            left = ls[row]
            down = ds[row]
            right = rs[row]
    return c8, c4, c2


@njit(cache=True, nogil=True)
def takaken_all(n: int) -> tuple[int, int, int]:
    """``(classes of 8, of 4, of 2)`` of the empty n x n board, n >= 5: the solutions are
    8 c8 + 4 c4 + 2 c2 (A000170), the classes c8 + c4 + c2 (A002562)."""
    board = np.zeros(n, np.int64)
    c8 = 0
    c4 = 0
    c2 = 0
    last = n - 1
    board[0] = 1
    for bound1 in range(2, last):  # corner: row 0 in column 0, row 1 in column bound1
        bit = 1 << bound1
        board[1] = bit
        # numpy scalars, not literals: numba compiles a callee once per literal argument,
        # and the count's tasks call it with plain values (one compile for all)
        a, b, c = takaken_subtree(n, np.True_, bound1, INT2, board, (2 | bit) << 1,
                                  1 | bit, bit >> 1)
        c8 += a
        c4 += b
        c2 += c
    bound1 = INT1  # (as above)
    while bound1 < last - bound1:  # side: row 0 in column bound1
        bit = 1 << bound1
        board[0] = bit
        a, b, c = takaken_subtree(n, np.False_, bound1, INT1, board, bit << 1, bit,
                                  bit >> 1)
        c8 += a
        c4 += b
        c2 += c
        bound1 += 1
    return c8, c4, c2
