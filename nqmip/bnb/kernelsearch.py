"""The branch and bound over rows with the kernel's Lagrangian bound (maximisation): its
state, its chunks between looks at the deadline, and what it returns.

The search itself is in :mod:`nqmip.bnb.kernels`. Here: the board with its fixed queens
turned into free lines, the start (a placement from a heuristic or the explicit solution
becomes the incumbent), the root's long run of subgradient steps, then chunks of
``CHUNK_NODES`` nodes through the one chunk loop (:func:`nqmip.chunks.run_chunks`) until
the search is complete or the deadline passes or is cancelled.
The global bound when it stops early is the best among the untried children on the stack.
Its own module (not :mod:`nqmip.bnb.search`) so that the LP search's neighbourhood step
(:mod:`nqmip.bnb.rins`) can run it on a small free board.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from nqmip.bnb import kernels as k
from nqmip.bnb.common import Outcome, bnb_weights, global_bound, need_step
from nqmip.budget import Deadline
from nqmip.chunks import run_chunks
from nqmip.instance import Instance
from nqmip.result import Termination

#: Subgradient steps at the root (from zero multipliers) and at every other node (from its
#: parent's multipliers).
ROOT_ITERS = 400
NODE_ITERS = 3
#: The first step's scale (Polyak's rule, halved after 20 steps without progress).
THETA = 1.0
#: Nodes per call of the kernel: well under 0.1 s at n = 48, so a cancel is heard fast.
CHUNK_NODES = 200



def kernel_search(instance: Instance, deadline: Deadline, start: tuple[int, ...] | None,
                   mip_gap: float, root_iters: int, node_iters: int,
                   report: Callable[[float | None, float | None], None] | None,
                   incumbent: Callable[[], tuple[float, tuple[int, ...]] | None] | None,
                   node_limit: int | None, blocked: np.ndarray | None = None) -> Outcome:
    """:func:`nqmip.bnb.search.branch_and_bound` with the kernel's Lagrangian bound, on one
    thread; ``blocked`` (n x n, 1: no queen there) rules squares out of the whole search."""
    n = instance.n
    w = bnb_weights(instance)
    m = 2 * n - 1
    rowf = np.ones(n, np.int8)
    colf = np.ones(n, np.int8)
    d1f = np.ones(m, np.int8)
    d2f = np.ones(m, np.int8)
    qcol = np.full(n, -1, np.int64)
    values = np.zeros(n + 2)
    for r, c in instance.fixed:
        if not (rowf[r] and colf[c] and d1f[r - c + n - 1] and d2f[r + c]):
            return Outcome(Termination.INFEASIBLE, None, None, None, 0, None)
        k._place(r, c, 1, rowf, colf, d1f, d2f, qcol)
        values[0] += w[r, c]
    fs = np.zeros(2)
    st = np.zeros(4, np.int64)
    st[k.NODE_ITERS] = node_iters
    best = np.full(n, -1, np.int64)
    if start is not None:
        fs[k.INCUMBENT] = float(sum(w[r, c] for r, c in enumerate(start)))
        st[k.HAVE_INCUMBENT] = 1
        best[:] = start
    fs[k.NEED_STEP] = base = need_step(instance)
    lam1 = np.zeros((n + 1, m))
    lam2 = np.zeros((n + 1, m))
    U = np.zeros((n + 1, n))
    V = np.zeros((n + 1, n))
    RM = np.full((n + 1, n), -1, np.int64)
    BLK = np.zeros((n + 1, n, n), np.int8)
    if blocked is not None:
        BLK[0] = blocked
    brow = np.zeros(n + 1, np.int64)
    cand = np.zeros((n + 1, n), np.int64)
    est = np.zeros((n + 1, n))
    ncand = np.zeros(n + 1, np.int64)
    pos = np.zeros(n + 1, np.int64)
    work = np.zeros((9 + n + 1, 2 * n + 1))
    iwork = np.zeros((8, 2 * n + 1), np.int64)

    def set_gap() -> None:
        if mip_gap > 0.0 and st[k.HAVE_INCUMBENT]:
            # the gap of this incumbent, not the largest met: with costs an incumbent
            # improves towards 0 and kept its first gap's step (bnb mip_gap=0.1 at random
            # n = 12, costs: 28 / 21, 25 %); a node pruned under an older incumbent lay
            # below its edge, which is below this one's (x + max(base, g|x|) grows with x)
            fs[k.NEED_STEP] = max(base, mip_gap * abs(fs[k.INCUMBENT]))

    set_gap()
    root = k.expand(w, rowf, colf, d1f, d2f, qcol, best, values[0], 0, lam1, lam2, U, V,
                    RM, BLK, cand, est, ncand, pos, fs, st, root_iters, THETA, work, iwork)
    root_bound = None if root == -k.INF else instance.rounded_bound(float(root))
    last = [time.perf_counter()]

    def chunk() -> Termination | None:
        if incumbent is not None:
            _take(incumbent(), fs, st, best)
        set_gap()
        nodes = CHUNK_NODES  # a node_limit (work_limit) ends the search deterministically
        if node_limit is not None:
            nodes = min(nodes, node_limit - int(st[k.NODES]))
            if nodes <= 0:
                return Termination.ITERATION_LIMIT
        done = k.run(w, rowf, colf, d1f, d2f, qcol, best, values, lam1, lam2, U, V, RM, BLK,
                     brow, cand, est, ncand, pos, fs, st, THETA, nodes, work, iwork)
        return Termination.OPTIMAL if done else None

    def global_bound() -> float | None:
        return _global_bound(k.open_bound(est, ncand, pos, int(st[k.DEPTH])), fs, st,
                             instance, mip_gap)

    def progress() -> None:
        if report is not None and time.perf_counter() - last[0] >= 0.2:
            last[0] = time.perf_counter()
            report(_incumbent(fs, st), global_bound())

    why = run_chunks(chunk, deadline, progress=progress)
    nodes = int(st[k.NODES])
    placement = tuple(int(c) for c in best) if st[k.HAVE_INCUMBENT] else None
    objective = _incumbent(fs, st)
    bound = global_bound()
    if why is Termination.OPTIMAL:  # nothing left open
        if placement is None:
            return Outcome(Termination.INFEASIBLE, None, None, None, nodes, root_bound)
        return Outcome(Termination.OPTIMAL, placement, objective, bound, nodes, root_bound)
    if root_bound is not None:
        bound = root_bound if bound is None else min(bound, root_bound)
    return Outcome(why, placement, objective, bound, nodes, root_bound)


def _take(offer: tuple[float, tuple[int, ...]] | None, fs: np.ndarray, st: np.ndarray,
          best: np.ndarray) -> None:
    """A placement from elsewhere as the incumbent, if it is better."""
    if offer is None:
        return
    value, placement = offer
    if st[k.HAVE_INCUMBENT] and value <= fs[k.INCUMBENT] + 1e-9:
        return
    fs[k.INCUMBENT] = value
    st[k.HAVE_INCUMBENT] = 1
    best[:] = placement


def _incumbent(fs: np.ndarray, st: np.ndarray) -> float | None:
    return float(fs[k.INCUMBENT]) if st[k.HAVE_INCUMBENT] else None


def _global_bound(top: float, fs: np.ndarray, st: np.ndarray, instance: Instance,
                  mip_gap: float) -> float | None:
    """:func:`nqmip.bnb.common.global_bound` of the kernel's state."""
    return global_bound(top, _incumbent(fs, st), float(fs[k.NEED_STEP]), instance, mip_gap)
