"""What both searches of :mod:`nqmip.bnb` share: the outcome they return and the bound of
a search that stopped (or ended), in the maximisation's terms."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nqmip.instance import Instance
from nqmip.result import Termination

#: From this many free rows on, :func:`nqmip.bnb.search.branch_and_bound` runs the search
#: with the LP at every node (:mod:`nqmip.bnb.lpsearch`); below, the kernel's Lagrangian
#: bound (:mod:`nqmip.bnb.kernels`), whose nodes cost a tenth (docs/bnb.md).
LP_MIN_FREE = 30
#: A bound of no node (nothing open).
NONE_OPEN = -1e300
#: The LP's rounding on whole weights: a bound this far under a whole value still reaches it
#: (:func:`need_step`, the floor of a round of :mod:`nqmip.bnb.rounds`).
HAIR = 1e-6


@dataclass
class Outcome:
    """What the search ended with, in the maximisation's terms."""

    termination: Termination
    placement: tuple[int, ...] | None
    objective: float | None
    bound: float | None
    nodes: int
    root_bound: float | None


def need_step(instance: Instance) -> float:
    """What a node's bound must beat the incumbent by to be worth opening: a whole unit on
    whole weights (less a hair for rounding), a hair otherwise."""
    return 1.0 - HAIR if instance.integral else 1e-9


def global_bound(top: float, incumbent: float | None, step: float, instance: Instance,
                 mip_gap: float) -> float | None:
    """The bound of the whole search, stopped or complete: the best untried child
    (``top``, ``NONE_OPEN`` if none), and what was pruned. Every pruned node's bound was
    below the incumbent plus ``step`` (the margin): with no gap that is the incumbent
    itself; with ``mip_gap`` the margin is that gap, and the bound is the incumbent plus
    it."""
    pruned = incumbent
    if incumbent is not None and mip_gap > 0.0:
        edge = float(incumbent + step)  # every pruned node's bound lay below it (strictly)
        # on whole weights, the largest whole value below it: rounded_bound made the
        # incumbent plus a step of 1 - HAIR (no more than the gap's own margin) one more
        # than the incumbent, so bnb's mip_gap=0.01 at random n = 8 answered 52 / 53
        # (gap 1.9 %, 'gap') where its search had proven 52
        below = float(np.ceil(edge - HAIR)) - 1.0 if instance.integral else edge
        pruned = max(incumbent, below)
    if top <= NONE_OPEN:
        return pruned
    bound = instance.rounded_bound(float(top))
    return bound if pruned is None else max(bound, pruned)


def bnb_weights(instance: Instance) -> np.ndarray:
    """The weights as the kernels take them (n x n, float64, C order, read-only): one numba
    type for every instance. A feasibility board's ones were a writable array, a type apart
    from the read-only weights the warm-up compiles for: its first search compiled every
    kernel again (about 13 s of CPU)."""
    n = instance.n
    w = np.ascontiguousarray(instance.weights if not instance.is_feasibility
                             else np.ones((n, n)), dtype=np.float64)
    if w.flags.writeable:
        w = w.copy()  # never the caller's array: made read-only here
        w.setflags(write=False)
    return w
