"""Reliability branching for the LP search's lines (:mod:`nqmip.bnb.lpsearch`), after
SCIP's on variables: a square's pseudo-cost is the mean of how far its child's LP fell
below its estimate (the parent's value less the square's reduced cost), over the children
opened or tried. Until a square has been seen ``RELIABLE`` times (and, with ``PROBE``, when
its pseudo-cost predicts its child below the incumbent) its child's LP is tried at the node
by the dual simplex from the parent's basis with at most ``ITERATIONS`` iterations, whose
dual objective is then still a bound on the child; while the trials have taken fewer than
``SHARE`` of the node LPs' iterations. A trial that shows a child cannot reach
the incumbent rules its square out for the node's subtree, as reduced-cost fixing does, a
line with no child left closes the node, and a tried child's bound is its trial's.

Of the ``CANDIDATES`` lines with the fewest live squares (first fail) the branching line is
the one with the fewest children predicted to reach the incumbent (a tried child by its
trial, the others by their estimate less their pseudo-cost), ties by the sum of their
predicted margins. Comparing lines so took more nodes than the first-fail line (below), so
by default one line is looked at: its children are tried, no line compared.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from nqmip.bnb.lp import NodeLP, NodeSolution

#: A square's pseudo-cost is trusted after this many children (opened or tried). N = 28,
#: seeds 2 and 123456789 (nodes, CPU s): 4: 1,067 / 2.0 and 6,669 / 10.9; 8: 973 / 1.8 and
#: 6,367 / 10.0; 16: 820 / 1.9 and 5,264 / 10.8; every child tried: 779 / 2.3 and
#: 4,439 / 15.6 (with ``CANDIDATES`` 1, ``PROBE`` off).
RELIABLE = 8
#: Dual simplex iterations of one trial: a trial costs half a node's LP (1.1 ms against
#: 2.3 ms at N = 28, 18 iterations); 10: too weak (2,444 and 10,051 nodes at N = 28).
ITERATIONS = 20
#: Lines scored at a node, those with the fewest live squares: 1, the first-fail line as
#: without reliability branching (its children tried, no line compared). N = 28, seeds 2
#: and 123456789, ``RELIABLE`` 4: 1 line 1,067 and 6,669 nodes; 2: 1,991 and 7,562; 4:
#: 2,571 and (not run); 8: 2,197 (of 2 lines by their squares left after the trials: 1,934
#: and 7,785).
CANDIDATES = 1
#: Also try the reliable squares whose pseudo-cost predicts their child below the
#: incumbent (a trial is half a node and may rule the square out of the subtree): N = 28,
#: seeds 2 and 123456789, 825 / 1.8 and 4,730 / 9.6 against 973 / 1.8 and 6,367 / 10.0.
PROBE = True
#: The trials' dual simplex iterations at most this share of the node LPs' (None: no cap),
#: as SCIP caps its strong branching's iterations at half its LPs'.
SHARE: float | None = 0.3
#: A trial stopped by its iteration limit bounds the child up to HiGHS's cost perturbation
#: (the cut-off by ``objective_bound`` is checked on the exact costs): a relative margin.
SLACK = 1e-5


def estimates(sol: NodeSolution) -> np.ndarray:
    """Each square's estimate at the node: its child's bound before any trial, the node's
    value less the square's reduced cost."""
    return sol.value - np.maximum(sol.rc, 0.0)


def choose(lp: NodeLP, sol: NodeSolution, est: np.ndarray, lower: np.ndarray,
           upper: np.ndarray, live: np.ndarray, rows: np.ndarray, cols: np.ndarray,
           need: float, pseudo: np.ndarray,
           learn: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The branching line's squares that may reach ``need`` and their bounds (a tried
    square's bound is its trial's value if lower than its estimate, ``est``:
    :func:`estimates`). ``live`` (n x n) is the node's live squares; ``upper`` loses the
    squares a trial ruled out (in place); ``pseudo`` (2 x n^2: the sum and count of
    losses) gains the trials; ``learn(square)`` is called after a trial that rules
    ``square`` out, while the LP is still that trial's (conflict learning)."""
    n = live.shape[0]
    bound = est.copy()
    alive = (live.ravel() & (est >= need))
    tried = np.zeros(n * n, bool)
    best: tuple[tuple[int, float], np.ndarray] | None = None
    for kind, index in _candidates(alive.reshape(n, n), sol.x.reshape(n, n), rows, cols):
        squares = _squares(n, kind, index)
        squares = squares[alive[squares]]
        if best is None and squares.size <= 1:
            return squares, bound[squares]  # forced, or no child: nothing to compare
        count = pseudo[1, squares]
        doomed = est[squares] - pseudo[0, squares] / np.maximum(count, 1.0) < need
        unsure = squares[((count < RELIABLE) | (doomed & bool(PROBE))) & ~tried[squares]]
        if SHARE is not None and lp.iterations[1] > SHARE * lp.iterations[0]:
            unsure = unsure[:0]  # the trials have had their share of the iterations
        if unsure.size:
            _trials(lp, sol, lower, upper, unsure, est, need, pseudo, bound, learn)
            tried[unsure] = True
            alive[unsure] &= bound[unsure] >= need
            squares = squares[alive[squares]]
        if squares.size == 0:
            return squares, bound[squares]  # the line has no child left: the node is closed
        mean = pseudo[0].sum() / max(pseudo[1].sum(), 1.0)
        loss = np.where(pseudo[1, squares] > 0,
                        pseudo[0, squares] / np.maximum(pseudo[1, squares], 1.0), mean)
        predicted = np.where(tried[squares], bound[squares], est[squares] - loss)
        kept = predicted >= need
        score = (int(kept.sum()), float((predicted[kept] - need).sum()))
        if best is None or score < best[0]:
            best = (score, squares)
    assert best is not None
    squares = best[1][alive[best[1]]]
    return squares, bound[squares]


def _candidates(alive: np.ndarray, xs: np.ndarray, rows: np.ndarray,
                cols: np.ndarray) -> list[tuple[int, int]]:
    """The ``CANDIDATES`` free rows (kind 0) and columns (kind 1) with the fewest ``alive``
    squares (n x n), ties to the least largest LP value ``xs``, then rows first, then by
    index, as (kind, index)."""
    keys = np.concatenate((alive[rows].sum(axis=1) + 0.5 * xs[rows].max(axis=1),
                           alive[:, cols].sum(axis=0) + 0.5 * xs[:, cols].max(axis=0)))
    kinds = np.concatenate((np.zeros(rows.size, np.int64), np.ones(cols.size, np.int64)))
    indices = np.concatenate((rows, cols))
    order = np.lexsort((indices, kinds, keys))[:CANDIDATES]
    return [(int(kinds[i]), int(indices[i])) for i in order]


def _squares(n: int, kind: int, index: int) -> np.ndarray:
    """The squares of row (kind 0) or column (kind 1) ``index``."""
    if kind == 0:
        return index * n + np.arange(n)
    return np.arange(n) * n + index


def _trials(lp: NodeLP, sol: NodeSolution, lower: np.ndarray, upper: np.ndarray,
            squares: np.ndarray, est: np.ndarray, need: float, pseudo: np.ndarray,
            bound: np.ndarray, learn: Callable[[int], None] | None = None) -> None:
    """Each square's child tried (``ITERATIONS`` at most, from the node's basis): its
    bound lowered to the trial's, its loss counted; a child shown below ``need`` is ruled
    out of ``upper``."""
    lp.limit(ITERATIONS)
    try:
        for square in squares:
            child = lower.copy()
            child[square] = 1
            value = lp.trial(child, upper, sol.basis, need)
            if value is not None and value == float("inf"):
                continue  # nothing learnt
            if value is not None:  # where the simplex stopped its costs may be perturbed
                value = min(value + SLACK * (1.0 + abs(value)), float(est[square]))
            else:
                value = need - 1.0
            pseudo[0, square] += max(float(est[square]) - max(value, need), 0.0)
            pseudo[1, square] += 1
            bound[square] = value
            if value < need:
                upper[square] = 0
                if learn is not None:
                    learn(int(square))
    finally:
        lp.limit(None)
