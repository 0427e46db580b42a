"""The branch and bound over rows for any weights (maximisation): its state, its chunks
between looks at the deadline, and what it returns.

Which search: the kernel's (:mod:`nqmip.bnb.kernelsearch`, over :mod:`nqmip.bnb.kernels`)
below ``LP_MIN_FREE`` free rows, the LP search (:mod:`nqmip.bnb.lpsearch`) from there on.
"""

from __future__ import annotations

from collections.abc import Callable

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
                     node_limit: int | None = None) -> Outcome:
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
    counts depend on the machine).
    """
    lp = engine == "lp" or (engine == "auto" and free_rows(instance) >= LP_MIN_FREE)
    if lp and node_limit is None:
        from nqmip.bnb.lpsearch import lp_branch_and_bound

        return lp_branch_and_bound(instance, deadline, start, mip_gap=mip_gap, report=report,
                                   incumbent=incumbent, threads=threads)
    return kernel_search(instance, deadline, start, mip_gap, root_iters, node_iters,
                          report, incumbent, node_limit)


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
