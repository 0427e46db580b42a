"""The order of a node's children and of its dive's squares in the LP search
(:mod:`nqmip.bnb.lpsearch`): switches for the measurements of docs/bnb.md, Part 13.

The default (0 for both) is the search's order: a node's children best bound first (the
node's LP value less the square's reduced cost, the trials' bound for the squares tried),
ties by the square's LP value; its dive along the reduced costs, ties by the LP value.
"""

from __future__ import annotations

import numpy as np

from nqmip.bnb.lp import NodeSolution

#: A node's children: 0 best bound first (ties: LP value); 1 best estimate first (the
#: bound less the square's mean loss by the pseudo-costs, the mean of all squares where it
#: has none); 2 the LP value first (ties: the bound).
CHILD_ORDER = 0
#: A dive's squares: 0 least reduced cost first (ties: LP value); 1 the LP value first
#: (ties: the reduced cost); 2 least pseudo-cost estimate loss first (the reduced cost plus
#: the square's mean loss).
DIVE_KEY = 0


def sorted_by_bound() -> bool:
    """Whether the children come best bound first (the rest of a level cannot reach a
    need its current child misses)."""
    return CHILD_ORDER == 0


def _loss(pseudo: np.ndarray | None, size: int) -> np.ndarray:
    if pseudo is None:
        return np.zeros(size)
    total, count = pseudo
    mean = total.sum() / max(count.sum(), 1.0)
    return np.where(count > 0, total / np.maximum(count, 1.0), mean)


def children(sol: NodeSolution, squares: np.ndarray, bounds: np.ndarray,
             pseudo: np.ndarray | None) -> np.ndarray:
    """The order (indices into ``squares``) in which a node's children are tried."""
    x = sol.x[squares]
    if CHILD_ORDER == 1:
        return np.lexsort((-x, -(bounds - _loss(pseudo, sol.x.size)[squares])))
    if CHILD_ORDER == 2:
        return np.lexsort((-bounds, -x))
    return np.lexsort((-x, -bounds))


def dive_key(sol: NodeSolution, pseudo: np.ndarray | None) -> np.ndarray:
    """Per square, the dive's key (least first)."""
    rc = np.maximum(sol.rc, 0.0)
    if DIVE_KEY == 1:
        return -sol.x + 1e-3 * rc
    if DIVE_KEY == 2:
        return rc + _loss(pseudo, sol.x.size) - 1e-3 * sol.x
    return rc - 1e-3 * sol.x
