"""Running the cells of a sweep: locally (threads, each starting one process per cell) or on
Dask workers (each worker still starting one process per cell). Both take the cells from
a :class:`~nqmip.compare.schedule.Sweep` as they become ready and tell an :class:`Events`
what started and what finished."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict
from typing import Any, Protocol

from nqmip.compare.grid import Cell, UsageError
from nqmip.compare.harness import kill_active, run_cell
from nqmip.compare.schedule import Sweep


def warm_kernels(cells: Sequence[Cell]) -> float:
    """Compile (or load from numba's cache) the kernels of the cells' methods once, in
    this process (the method table's warm-ups, no solve); seconds taken. On a cold cache
    each cell's fresh process would otherwise compile inside its hard limit (ga at n = 8
    was killed at 32 s while two other methods compiled beside it)."""
    from nqmip.methods import METHODS
    from nqmip.warmup import warm_up_all

    names = sorted({c.method for c in cells if c.method in METHODS})
    if "auto" in names:  # auto runs the heuristics and nqmip's own engines
        names = [m.name for m in METHODS.values() if m.warm_up is not None]
    return warm_up_all(names)


class Events(Protocol):
    """What a runner tells as the sweep goes: a cell started, a cell's row came back
    (after the sweep recorded it), and a tick about twice a second."""

    def started(self, cell: Cell) -> None: ...

    def finished(self, cell: Cell, row: dict[str, Any]) -> None: ...

    def tick(self) -> None: ...


def run_local(sweep: Sweep, jobs: int, events: Events) -> None:
    """Run the sweep's cells, ``jobs`` processes at once, each as soon as it is ready."""
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures: dict[Future[dict[str, Any]], int] = {}
        try:
            while not sweep.finished:
                _fill(sweep, events, futures, jobs,
                      lambda ticket, cell: pool.submit(run_cell, cell))
                done, _ = wait(futures, timeout=0.5, return_when=FIRST_COMPLETED)
                _finish(sweep, events, futures, done)
        except BaseException:
            for future in futures:
                future.cancel()
            kill_active()
            raise


def run_dask(sweep: Sweep, scheduler: str | None, workers: int | None,
             events: Events) -> None:
    """Run the sweep's cells on Dask (a scheduler's address, or a local cluster of
    ``workers`` processes: :func:`nqmip.cluster.open_cluster`), as many at once as the
    workers have threads."""
    from nqmip.cluster import ClusterError, open_cluster

    try:
        with open_cluster(scheduler, workers) as cluster:
            _sweep_on(cluster.client, cluster.slots, sweep, events)
    except ClusterError as exc:
        raise UsageError(str(exc)) from None


def _sweep_on(client: Any, slots: int, sweep: Sweep, events: Events) -> None:
    """The sweep's cells on the Dask ``client``, ``slots`` at once."""
    from dask.distributed import wait as dask_wait

    tag = uuid.uuid4().hex[:12]
    futures: dict[Any, int] = {}
    while not sweep.finished:
        _fill(sweep, events, futures, slots,
              lambda ticket, cell: client.submit(run_cell, asdict(cell), pure=False,
                                                 key=f"nqmip-{tag}-{ticket}"))
        try:
            done = dask_wait(list(futures), timeout=0.5, return_when="FIRST_COMPLETED").done
        except TimeoutError:
            done = set()
        _finish(sweep, events, futures, done)


def _fill(sweep: Sweep, events: Events, futures: dict[Any, int], slots: int,
          submit: Callable[[int, Any], Any]) -> None:
    """Start ready cells (``submit(ticket, cell)``: its future) until ``slots`` run."""
    while len(futures) < slots:
        taken = sweep.take(time.perf_counter())
        if taken is None:
            break
        ticket, cell = taken
        events.started(cell)
        futures[submit(ticket, cell)] = ticket
    if not futures:  # nothing runs and nothing is ready: cannot happen
        raise RuntimeError("the sweep is stuck: no cell is ready")


def _finish(sweep: Sweep, events: Events, futures: dict[Any, int], done: Any) -> None:
    """Record the ``done`` futures' rows, then tick the progress."""
    for future in done:
        ticket = futures.pop(future)
        row = future.result()
        events.finished(sweep.finish(ticket, row), row)
    events.tick()
