"""The branch and bound over rows for any weights (maximisation): its state, its chunks
between looks at the deadline, and what it returns.

The search itself is in :mod:`nqmip.bnb.kernels`. Here: the board with its fixed queens
turned into free lines, the start (a placement from a heuristic or the explicit solution
becomes the incumbent), the root's long run of subgradient steps, then chunks of
``CHUNK_NODES`` nodes through the one chunk loop (:func:`nqmip.chunks.run_chunks`) until
the search is complete or the deadline passes or is cancelled.
The global bound when it stops early is the best among the untried children on the stack.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from nqmip.bnb import kernels as k
from nqmip.bnb.common import LP_MIN_FREE, Outcome, global_bound, need_step
from nqmip.budget import Deadline
from nqmip.chunks import run_chunks
from nqmip.instance import Instance, free_rows
from nqmip.result import Termination

#: Subgradient steps at the root (from zero multipliers) and at every other node (from its
#: parent's multipliers).
ROOT_ITERS = 400
NODE_ITERS = 3
#: The first step's scale (Polyak's rule, halved after 20 steps without progress).
THETA = 1.0
#: Nodes per call of the kernel: well under 0.1 s at n = 48, so a cancel is heard fast.
CHUNK_NODES = 200


def branch_and_bound(instance: Instance, deadline: Deadline,
                     start: tuple[int, ...] | None = None, *, mip_gap: float = 0.0,
                     root_iters: int = ROOT_ITERS, node_iters: int = NODE_ITERS,
                     report: Callable[[float | None, float | None], None] | None = None,
                     incumbent: Callable[[], tuple[float, tuple[int, ...]] | None] | None = None,
                     engine: str = "auto", threads: int = 1,
                     node_limit: int | None = None, workers: int | None = None,
                     scheduler: Any = None, stats: dict[str, Any] | None = None,
                     record: str | Path | None = None) -> Outcome:
    """Solve ``instance`` (maximised) to optimality or until ``deadline``.

    ``start``: a complete placement (fixed queens included) whose value is the first
    incumbent. ``mip_gap``: stop once the bound is within this relative gap of the
    incumbent. ``report(incumbent, bound)`` is called between chunks. ``incumbent()``, also
    called between chunks, may return a better placement found elsewhere (auto's other
    part) with its value: it becomes the incumbent, and prunes from the next node on.
    ``engine``: "kernel" (the Lagrangian bound), "lp" (:mod:`nqmip.bnb.lpsearch`) or
    "auto" (the LP from ``LP_MIN_FREE`` free rows on). ``threads``: the LP search's
    workers (the kernel runs on one). ``node_limit``: stop after this many nodes
    (``iteration_limit``), the same search on any machine: the kernel's search on one
    thread whatever ``engine`` says (the LP search's workers share a tree, so their node
    counts depend on the machine). ``workers`` (a local cluster of that many one-thread
    processes) or ``scheduler`` (a Dask scheduler's address or Client): the LP search on
    that Dask cluster, whatever the board (:mod:`nqmip.bnb.distributed`; ``stats`` gets
    its tasks' count and times), its state kept in the file ``record``, which a run
    given the same file continues (:mod:`nqmip.bnb.record`).
    """
    if workers is not None or scheduler is not None:
        return _on_cluster(instance, deadline, start, mip_gap, report, incumbent, workers,
                           scheduler, {} if stats is None else stats,
                           None if record is None else Path(record))
    lp = engine == "lp" or (engine == "auto" and free_rows(instance) >= LP_MIN_FREE)
    if lp and node_limit is None:
        from nqmip.bnb.lpsearch import lp_branch_and_bound

        return lp_branch_and_bound(instance, deadline, start, mip_gap=mip_gap, report=report,
                                   incumbent=incumbent, threads=threads)
    return _kernel_search(instance, deadline, start, mip_gap, root_iters, node_iters,
                          report, incumbent, node_limit)


def _on_cluster(instance: Instance, deadline: Deadline, start: tuple[int, ...] | None,
                mip_gap: float, report: Callable[[float | None, float | None], None] | None,
                incumbent: Callable[[], tuple[float, tuple[int, ...]] | None] | None,
                workers: int | None, scheduler: Any, stats: dict[str, Any],
                record: Path | None) -> Outcome:
    """:func:`branch_and_bound`'s LP search on a Dask cluster, from ``record``'s state
    where it holds one (its incumbent the start if better)."""
    from nqmip.bnb import record as rec
    from nqmip.bnb.distributed import cluster_engine, weights_of
    from nqmip.bnb.lpsearch import lp_branch_and_bound
    from nqmip.cluster import open_cluster

    w = weights_of(instance)
    state: dict[str, Any] = {}
    if record is not None:
        snap = rec.read(record, rec.job_key(w, instance.fixed, mip_gap))
        if snap is not None:
            state.update(snap.round or {})
            stats["resumed"] = len(snap.open)
            mine = None if start is None else float(w[np.arange(instance.n), list(start)].sum())
            if snap.incumbent is not None and (mine is None or snap.incumbent[0] > mine):
                start = snap.incumbent[1]
    with open_cluster(scheduler, workers) as cluster:
        stats["workers"] = cluster.slots
        return lp_branch_and_bound(
            instance, deadline, start, mip_gap=mip_gap, report=report, incumbent=incumbent,
            state=state, spread=lambda w, root: cluster_engine(
                instance, w, cluster, deadline, mip_gap, root, incumbent, stats, record,
                state))


def _kernel_search(instance: Instance, deadline: Deadline, start: tuple[int, ...] | None,
                   mip_gap: float, root_iters: int, node_iters: int,
                   report: Callable[[float | None, float | None], None] | None,
                   incumbent: Callable[[], tuple[float, tuple[int, ...]] | None] | None,
                   node_limit: int | None) -> Outcome:
    """:func:`branch_and_bound` with the kernel's Lagrangian bound, on one thread."""
    n = instance.n
    w = np.ascontiguousarray(instance.weights if not instance.is_feasibility
                             else np.ones((n, n)), dtype=np.float64)
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
    fs[k.NEED_STEP] = need_step(instance)
    lam1 = np.zeros((n + 1, m))
    lam2 = np.zeros((n + 1, m))
    U = np.zeros((n + 1, n))
    V = np.zeros((n + 1, n))
    RM = np.full((n + 1, n), -1, np.int64)
    BLK = np.zeros((n + 1, n, n), np.int8)
    brow = np.zeros(n + 1, np.int64)
    cand = np.zeros((n + 1, n), np.int64)
    est = np.zeros((n + 1, n))
    ncand = np.zeros(n + 1, np.int64)
    pos = np.zeros(n + 1, np.int64)
    work = np.zeros((9 + n + 1, 2 * n + 1))
    iwork = np.zeros((8, 2 * n + 1), np.int64)

    def set_gap() -> None:
        if mip_gap > 0.0 and st[k.HAVE_INCUMBENT]:
            fs[k.NEED_STEP] = max(fs[k.NEED_STEP], mip_gap * abs(fs[k.INCUMBENT]))

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


_WARM: list[bool] = []


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernels on a tiny board, once a process."""
    if _WARM:
        return
    from nqmip.instance import make_instance

    branch_and_bound(make_instance(5, "random", weights_seed=0), Deadline(None))
    # and the LP search's dive (nqmip.bnb.dive), on a board where its root is fractional
    branch_and_bound(make_instance(8, "random", weights_seed=0), Deadline(None), engine="lp")
    _WARM.append(True)
