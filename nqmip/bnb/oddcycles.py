"""Odd-cycle rows for the root's LP (:mod:`nqmip.bnb.lp`): on a cycle of ``k`` squares (k
odd), each attacking the next, at most ``(k - 1) / 2`` queens.

Why: after the lines and the cliques (:mod:`nqmip.bnb.cliques`) SCIP's root still closes
more of the gap with its {0,1/2}-cuts (toulbar2 N = 40, seed 123456789: its root 103.9 in
costs against 101.14 with the cliques). An odd cycle of the queens' graph is the simplest
{0,1/2}-cut: half the sum of its ``k`` edges' rows (each pair on a line holds one queen at
most), rounded down. Separated exactly by Grötschel, Lovász and Schrijver's shortest
paths: on the squares the LP uses, an edge between two squares that attack each other
weighs ``1 - x_i - x_j`` (at least 0: they share a line), and a closed walk of odd length
below 1 is a violated cycle (its violation is ``(1 - length) / 2``); the walks are the
shortest paths from a square to its copy in the bipartite double of the graph.

Measured (toulbar2, docs/bnb.md, Part 12): after the cliques the root's bound rises by
0.4 to 1.4 more (N = 40 seed 123456789: 101.14 to 102.40), but the proofs given the
optimum took more nodes on four boards of five (N = 28 and 32: 16,251 against 14,656) and
1.25 times the CPU; so the root's LP gets them only with ``nqmip.bnb.lp.ODD_CYCLES``.
"""

from __future__ import annotations

import numpy as np

#: A cycle is added when the LP's solution exceeds its right side by more than this.
MIN_VIOLATION = 1e-3
#: At most this many cycles a round, the most violated.
MAX_ROUND = 64
#: The squares the LP uses (above this value) are the graph's vertices.
SUPPORT = 1e-6


def violated(n: int, x: np.ndarray, tol: float = MIN_VIOLATION,
             most: int = MAX_ROUND) -> list[tuple[np.ndarray, float]]:
    """The odd cycles (their squares, ``r * n + c``, and the right side ``(k - 1) / 2``)
    of five squares or more that ``x`` (one value a square, within the lines' rows)
    violates by more than ``tol``, the most violated first, at most ``most``; each
    cycle once."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    values = np.asarray(x, dtype=np.float64).ravel()
    support = np.flatnonzero(values > SUPPORT)
    m = support.size
    if m < 5:
        return []
    r, c = np.divmod(support, n)
    attack = (r[:, None] == r[None]) | (c[:, None] == c[None]) | \
        ((r - c)[:, None] == (r - c)[None]) | ((r + c)[:, None] == (r + c)[None])
    np.fill_diagonal(attack, False)
    i, j = np.nonzero(attack)
    v = values[support]
    weight = np.maximum(1.0 - v[i] - v[j], 0.0) + 1e-9  # no zero: csgraph drops them
    graph = csr_matrix((np.concatenate([weight, weight]),
                        (np.concatenate([i, i + m]), np.concatenate([j + m, j]))),
                       shape=(2 * m, 2 * m))
    dist, pred = dijkstra(graph, indices=np.arange(m), return_predecessors=True)
    found: dict[tuple[int, ...], tuple[float, np.ndarray, float]] = {}
    for s in np.flatnonzero(dist[np.arange(m), np.arange(m) + m] < 1.0 - 2 * tol):
        walk = []
        at = int(s) + m
        while at != s and at >= 0:
            walk.append(at % m)
            at = int(pred[s, at])
        if len(walk) < 5 or len(walk) % 2 == 0 or len(set(walk)) != len(walk):
            continue  # a walk through a square twice holds a shorter cycle, found from it
        squares = np.sort(support[walk]).astype(np.int32)
        rhs = (len(walk) - 1) / 2
        excess = float(values[squares].sum()) - rhs
        if excess > tol:
            found.setdefault(tuple(squares.tolist()), (excess, squares, rhs))
    ranked = sorted(found.values(), key=lambda item: -item[0])[:most]
    return [(squares, rhs) for _, squares, rhs in ranked]
