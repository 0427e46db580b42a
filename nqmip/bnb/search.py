"""The branch and bound over rows for any weights (maximisation): its state, its chunks
between looks at the deadline, and what it returns.

Which search: the kernel's (:mod:`nqmip.bnb.kernelsearch`, over :mod:`nqmip.bnb.kernels`)
below ``LP_MIN_FREE`` free rows, the LP search (:mod:`nqmip.bnb.lpsearch`) from there on.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np

from nqmip.bnb.common import LP_MIN_FREE, Outcome
from nqmip.bnb.kernelsearch import CHUNK_NODES, NODE_ITERS, ROOT_ITERS, THETA, kernel_search
from nqmip.budget import Deadline
from nqmip.instance import Instance, free_rows

__all__ = ["CHUNK_NODES", "NODE_ITERS", "ROOT_ITERS", "THETA", "branch_and_bound", "warm_up"]


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
    return kernel_search(instance, deadline, start, mip_gap, root_iters, node_iters,
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
    from nqmip.cluster import ClusterStartError, open_cluster

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
    with ExitStack() as opened:
        try:
            cluster = opened.enter_context(open_cluster(scheduler, workers))
        except ClusterStartError as exc:  # started twice, failed twice: on without it
            stats["workers"], stats["cluster_error"] = 0, str(exc)
            print(f"nqmip: {exc}; the branch and bound goes on in this process",
                  file=sys.stderr, flush=True)
            return lp_branch_and_bound(instance, deadline, start, mip_gap=mip_gap,
                                       report=report, incumbent=incumbent, state=state)
        stats["workers"] = cluster.slots
        return lp_branch_and_bound(
            instance, deadline, start, mip_gap=mip_gap, report=report, incumbent=incumbent,
            state=state, spread=lambda w, root: cluster_engine(
                instance, w, cluster, deadline, mip_gap, root, incumbent, stats, record,
                state))


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
