"""Clique rows for the node LP (:mod:`nqmip.bnb.lp`): sets of squares that attack one
another pairwise, off the lines, whose queens sum to at most one.

The LP's rows are the lines (rows and columns ``= 1``, diagonals ``<= 1``), the cliques of
the queens' graph that lie on one line. Its other maximal cliques (enumerated on boards up
to 12 by Bron-Kerbosch: no other shape) are, for every distance ``d >= 1``:

- the **plus**: a square and the four at distance ``d`` along its row and column
  (``(i, j)``, ``(i +- d, j)``, ``(i, j +- d)``): two arms on a line with the centre,
  an arm of the row and one of the column on a diagonal;
- the **cross**: a square and the four at distance ``d`` along its diagonals (the corners
  of a square of side ``2d`` and its centre);
- the **square** of odd side ``d``: ``(i, j)``, ``(i, j + d)``, ``(i + d, j)``,
  ``(i + d, j + d)`` (an even side has a centre, and is part of a cross).

A plus or cross cut by the board's edge (its centre on the board, three or four of its
five squares) is a clique too. None is implied by the lines: the LP may put 1/2 on both
squares of each of two diagonals through a 2 x 2 block, a sum of 2. There are about
``1.1 n^3`` of them (24,822 at n = 28, 73,060 at n = 40), so they are separated: only
those the LP's solution violates are added (:func:`violated`, a few dozen at the root);
:func:`every` lists them all (tests).
"""

from __future__ import annotations

import numpy as np

from nqmip.numba_cache import njit

#: A clique is added when the LP's solution sums to more than 1 + ``MIN_VIOLATION`` on it.
MIN_VIOLATION = 1e-3
#: Rounds of separation at the root (each: the violated cliques added, the LP solved again).
ROOT_ROUNDS = 10
#: At most this many cliques a round, the most violated (a node's LP grows by as many rows).
MAX_ROUND = 64

#: The squares of each shape at distance ``d``, as multiples of ``d`` from its centre (the
#: square's: from its top-left corner): the plus, the cross, the square (odd ``d`` only).
_PLUS = np.array([(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)], np.int64)
_CROSS = np.array([(0, 0), (-1, -1), (-1, 1), (1, -1), (1, 1)], np.int64)
_SQUARE = np.array([(0, 0), (0, 1), (1, 0), (1, 1)], np.int64)


def _cells(n: int, i: int, j: int, shape: np.ndarray, d: int) -> list[int]:
    """The squares (``r * n + c``) of ``shape`` at distance ``d`` from ``(i, j)`` that are
    on the board."""
    return [(i + a * d) * n + j + b * d for a, b in shape.tolist()
            if 0 <= i + a * d < n and 0 <= j + b * d < n]


@njit(cache=True, nogil=True)
def _scan(x: np.ndarray, tol: float, cells: np.ndarray, sums: np.ndarray) -> int:
    """The cliques on which ``x`` (n x n) sums to more than ``1 + tol``: their squares
    into ``cells`` (five a row, -1 past the last), their sums into ``sums``; how many
    (those past ``len(sums)`` counted, not kept). A violated clique has a square above
    1/5 (five squares at most): the cliques through each such square are summed, and one
    is kept from its leader (its largest value, then its first square) only."""
    n = x.shape[0]
    pad = np.zeros((3 * n, 3 * n))
    for i in range(n):  # element by element: a slice assignment compiles numba's
        for j in range(n):  # shape-mismatch message (4 s of CPU cold, docs/compile.md)
            pad[n + i, n + j] = x[i, j]
    found = 0
    shapes = (_PLUS, _CROSS, _SQUARE)
    for p in range(n * n):
        pi, pj = p // n, p % n
        if x[pi, pj] <= 0.2:
            continue
        for d in range(1, n):
            for kind in range(3):
                if kind == 2 and d % 2 == 0:
                    continue
                shape = shapes[kind]
                size = shape.shape[0]
                for a in range(size):  # the clique with p as its a-th square
                    ci = pi - shape[a, 0] * d
                    cj = pj - shape[a, 1] * d
                    if kind == 2:
                        if ci < 0 or cj < 0 or ci + d >= n or cj + d >= n:
                            continue
                    elif ci < 0 or cj < 0 or ci >= n or cj >= n:
                        continue
                    total = 0.0
                    leader = True
                    for k in range(size):
                        r = ci + shape[k, 0] * d
                        c = cj + shape[k, 1] * d
                        v = pad[n + r, n + c]
                        total += v
                        if k != a and (v > x[pi, pj] or (v == x[pi, pj] and r * n + c < p)):
                            leader = False
                    if leader and total > 1.0 + tol:
                        if found < sums.size:
                            sums[found] = total
                            m = 0
                            for k in range(5):
                                cells[found, k] = -1
                            for k in range(size):
                                r = ci + shape[k, 0] * d
                                c = cj + shape[k, 1] * d
                                if 0 <= r < n and 0 <= c < n:
                                    cells[found, m] = r * n + c
                                    m += 1
                        found += 1
    return found


def violated(n: int, x: np.ndarray, tol: float = MIN_VIOLATION,
             most: int = MAX_ROUND) -> list[np.ndarray]:
    """The cliques (their squares, ``r * n + c``) on which ``x`` (one value a square)
    sums to more than ``1 + tol``, the most violated first, at most ``most``."""
    board = np.ascontiguousarray(np.asarray(x, dtype=np.float64).reshape(n, n))
    room = 4 * most
    while True:
        cells = np.empty((room, 5), np.int64)
        sums = np.empty(room)
        found = _scan(board, tol, cells, sums)
        if found <= room:
            break
        room = found
    order = np.argsort(-sums[:found], kind="stable")[:most]
    return [row[row >= 0].astype(np.int32) for row in cells[order]]


def every(n: int) -> list[np.ndarray]:
    """Every clique of :func:`violated`'s shapes on the board: three squares or more, not
    all on one line, each once (for tests)."""
    seen: set[tuple[int, ...]] = set()
    for d in range(1, n):
        for kind, shape in enumerate((_PLUS, _CROSS, _SQUARE)):
            if kind == 2 and d % 2 == 0:
                continue
            for i in range(n):
                for j in range(n):
                    cells = _cells(n, i, j, shape, d)
                    if len(cells) < len(shape) and kind == 2:
                        continue
                    r, c = np.divmod(np.asarray(cells), n)
                    if len(cells) >= 3 and min(len(set(r)), len(set(c)), len(set(r - c)),
                                               len(set(r + c))) > 1:
                        seen.add(tuple(sorted(cells)))
    return [np.asarray(key, dtype=np.int32) for key in sorted(seen)]
