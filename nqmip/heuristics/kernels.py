"""numba primitives on the permutation encoding, shared by every heuristic.

A placement is a permutation ``perm``: the queen of row ``i`` stands in column ``perm[i]``,
so rows and columns never clash and only diagonals count. Two occupancy counters hold how
many queens stand on each line:

* ``diag[i - perm[i] + n - 1]`` — the diagonals (``i - j`` constant), indices ``0 .. 2n-2``;
* ``anti[i + perm[i]]`` — the anti-diagonals (``i + j`` constant), indices ``0 .. 2n-2``.

The cost of a placement is the number of attacking pairs, ``Σ k(k-1)/2`` over all lines.
Every move below reads or updates O(1) counter cells: nothing recounts the board. The
counters may be any integer dtype (int32 by default; the large-n solver uses uint8 to keep
10^8 queens in memory); arithmetic is done in int64 so small dtypes cannot wrap.

All functions are ``@njit(cache=True, nogil=True)``: call them from other kernels, or from
Python for tests (each call from Python pays numba's dispatch overhead, about a
microsecond). Every kernel of the package releases the GIL, so auto runs the annealing in a
thread beside a proof or a solver.
"""

from __future__ import annotations

import numpy as np

from nqmip.numba_cache import njit


@njit(cache=True, nogil=True)
def copy_into(dst: np.ndarray, src: np.ndarray) -> None:
    """``dst[:] = src`` for 1-D arrays of one length, element by element: an array assigned
    whole compiles numba's shape-mismatch error with its message formatting (about 2 s of a
    kernel group's compile) for a check that cannot fail here."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True, nogil=True)
def init_counters(perm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``init_counters(perm) -> (diag, anti)``: int32 occupancy counts of the 2n-1 lines each.

    O(n); called once per start, never inside a search loop.
    """
    n = perm.size
    diag = np.zeros(max(2 * n - 1, 1), dtype=np.int32)
    anti = np.zeros(max(2 * n - 1, 1), dtype=np.int32)
    fill_counters(perm, diag, anti)
    return diag, anti


@njit(cache=True, nogil=True)
def total_conflicts(diag: np.ndarray, anti: np.ndarray) -> int:
    """``total_conflicts(diag, anti) -> int``: attacking pairs, ``Σ k(k-1)/2`` over all lines."""
    total = 0
    for line in range(diag.size):
        k = int(diag[line])
        total += k * (k - 1) // 2
    for line in range(anti.size):
        k = int(anti[line])
        total += k * (k - 1) // 2
    return total


@njit(cache=True, nogil=True)
def fill_counters(perm: np.ndarray, diag: np.ndarray, anti: np.ndarray) -> int:
    """``fill_counters(perm, diag, anti) -> int``: refill the given counters (any integer
    dtype, 2n-1 cells each) from scratch and return the attacking pairs. O(n)."""
    n = perm.size
    diag[:] = 0
    anti[:] = 0
    for i in range(n):
        diag[i - perm[i] + n - 1] += 1
        anti[i + perm[i]] += 1
    return total_conflicts(diag, anti)


@njit(cache=True, nogil=True)
def queen_conflicts(perm: np.ndarray, diag: np.ndarray, anti: np.ndarray, i: int) -> int:
    """``queen_conflicts(perm, diag, anti, i) -> int``: queens attacking the queen of row i."""
    n = perm.size
    return (int(diag[i - perm[i] + n - 1]) - 1) + (int(anti[i + perm[i]]) - 1)


@njit(cache=True, nogil=True)
def _line_delta(counts: np.ndarray, old_i: int, old_k: int, new_i: int, new_k: int) -> int:
    """Change in attacking pairs on one family of lines when two queens leave ``old_i`` and
    ``old_k`` and land on ``new_i`` and ``new_k``; read-only, exact when lines coincide."""
    # Removing a queen from a line holding c queens frees c - 1 pairs; when both queens
    # leave the same line the second removal sees c - 1 queens left.
    c_i = np.int64(counts[old_i])
    same_line = old_i == old_k
    removed = 2 * c_i - 3 if same_line else (c_i - 1) + (np.int64(counts[old_k]) - 1)
    # Adding a queen to a line holding c queens makes c new pairs; the counts seen are those
    # after both removals (and after the first addition, for the second queen).
    after_i = np.int64(counts[new_i])
    if new_i == old_i:
        after_i -= 1
    if new_i == old_k:
        after_i -= 1
    after_k = np.int64(counts[new_k])
    if new_k == old_i:
        after_k -= 1
    if new_k == old_k:
        after_k -= 1
    if new_k == new_i:
        after_k += 1
    return int(after_i + after_k - removed)


@njit(cache=True, nogil=True)
def swap_delta(perm: np.ndarray, diag: np.ndarray, anti: np.ndarray, i: int, k: int) -> int:
    """``swap_delta(perm, diag, anti, i, k) -> int``: change in attacking pairs if rows i and k
    exchange columns. O(1), reads only; correct when the two queens share a line."""
    if i == k:
        return 0
    n = perm.size
    col_i = perm[i]
    col_k = perm[k]
    delta_diag = _line_delta(
        diag, i - col_i + n - 1, k - col_k + n - 1, i - col_k + n - 1, k - col_i + n - 1
    )
    delta_anti = _line_delta(anti, i + col_i, k + col_k, i + col_k, k + col_i)
    return delta_diag + delta_anti


@njit(cache=True, nogil=True)
def apply_swap(perm: np.ndarray, diag: np.ndarray, anti: np.ndarray, i: int, k: int) -> None:
    """``apply_swap(perm, diag, anti, i, k)``: exchange the columns of rows i and k, updating
    the counters in O(1)."""
    if i == k:
        return
    n = perm.size
    col_i = perm[i]
    col_k = perm[k]
    diag[i - col_i + n - 1] -= 1
    diag[k - col_k + n - 1] -= 1
    anti[i + col_i] -= 1
    anti[k + col_k] -= 1
    perm[i] = col_k
    perm[k] = col_i
    diag[i - col_k + n - 1] += 1
    diag[k - col_i + n - 1] += 1
    anti[i + col_k] += 1
    anti[k + col_i] += 1


@njit(cache=True, nogil=True)
def swap_weight_delta(perm: np.ndarray, weights: np.ndarray, i: int, k: int) -> float:
    """``swap_weight_delta(perm, weights, i, k) -> float``: change of Σ weights[r, perm[r]]
    if rows i and k exchange columns. O(1)."""
    col_i = perm[i]
    col_k = perm[k]
    return weights[i, col_k] + weights[k, col_i] - weights[i, col_i] - weights[k, col_k]


@njit(cache=True, nogil=True)
def most_attacked_improvement(
    perm: np.ndarray, diag: np.ndarray, anti: np.ndarray, movable: np.ndarray
) -> int:
    """``most_attacked_improvement(perm, diag, anti, movable) -> evaluations``.

    Seed 000's local improvement: take the most attacked movable queen (the first one in
    row order on ties), try swapping it with every movable queen it clashes with (same
    diagonal or anti-diagonal), and apply the best of those swaps if it lowers the number of
    attacking pairs. ``movable`` is a boolean (or 0/1) array over the rows; fixed queens
    have ``movable[row] == 0`` and never move. Each tried swap counts as one evaluation; the
    number of evaluations is returned (0 when no movable queen is attacked). O(n): a scan
    for the most attacked queen and one for the queens on its two lines.
    """
    n = perm.size
    worst_row = -1
    worst = 0
    for row in range(n):
        if movable[row]:
            attacked = queen_conflicts(perm, diag, anti, row)
            if attacked > worst:
                worst = attacked
                worst_row = row
    if worst_row < 0:
        return 0
    own_diag = worst_row - perm[worst_row]
    own_anti = worst_row + perm[worst_row]
    evaluations = 0
    best_delta = 0
    best_partner = -1
    for row in range(n):
        if row == worst_row or not movable[row]:
            continue
        if row - perm[row] == own_diag or row + perm[row] == own_anti:
            delta = swap_delta(perm, diag, anti, worst_row, row)
            evaluations += 1
            if delta < best_delta:
                best_delta = delta
                best_partner = row
    if best_partner >= 0:
        apply_swap(perm, diag, anti, worst_row, best_partner)
    return evaluations
