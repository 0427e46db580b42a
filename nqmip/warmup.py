"""Every kernel compiled at once, on the cores there are: the command's ``--warm-up``.

numba's compile holds the GIL, so threads would take turns: each group of kernels (a
method's warm-up, :func:`nqmip.methods.warm_up_targets`) is compiled in its own worker
*process*, as many at a time as there are cores, the slowest groups first; each writes
numba's cache (:mod:`nqmip.numba_cache`), which every later run then loads. With one core
(or one group) the groups run in this process, one after another.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

#: The slowest groups to compile cold, first (seconds measured by
#: benchmarks/bench_compile.py); the others follow in the table's order.
SLOWEST_FIRST = (
    "nqmip.bnb.search:warm_up",
    "nqmip.heuristics.ga.run:warm_up",
    "nqmip.lex.search:warm_up",
    "nqmip.heuristics.lns:warm_up",
    "nqmip.enumeration.count:warm_up",
)


@dataclass(frozen=True)
class Group:
    """One warm-up: its target, the seconds it took (wall clock, and this process's CPU:
    the compile's cost whatever else the machine runs), and how many kernels numba compiled
    for it (0: all loaded from the cache)."""

    target: str
    seconds: float
    compiles: int
    cpu: float = 0.0


def run_group(target: str) -> Group:
    """Run one warm-up target (in a worker process, or here); what it took."""
    from nqmip import numba_cache
    from nqmip.methods import resolve

    function = resolve(target)
    before = numba_cache.compiles()
    begin, cpu = time.perf_counter(), time.process_time()
    function()
    return Group(target, time.perf_counter() - begin, numba_cache.compiles() - before,
                 time.process_time() - cpu)


def cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return max(os.cpu_count() or 1, 1)


def warm_up_every(processes: int | None = None,
                  on_group: Callable[[Group], None] | None = None) -> list[Group]:
    """Compile (or load) every kernel group, ``processes`` at a time (default: the cores),
    telling ``on_group`` as each ends; the groups in the order they ended."""
    from nqmip.methods import warm_up_targets

    targets = warm_up_targets()
    rank = {target: i for i, target in enumerate(SLOWEST_FIRST)}
    targets.sort(key=lambda t: rank.get(t, len(rank)))
    workers = min(cores() if processes is None else processes, len(targets))
    done: list[Group] = []
    if workers <= 1:
        for target in targets:
            done.append(run_group(target))
            if on_group is not None:
                on_group(done[-1])
        return done
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: no forked locks
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = [pool.submit(run_group, target) for target in targets]
        for future in as_completed(futures):
            done.append(future.result())
            if on_group is not None:
                on_group(done[-1])
    return done
