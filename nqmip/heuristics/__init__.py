"""Heuristics on the permutation encoding (queen of row i in column p[i]).

Each method lives in its own module and exposes ``solve_<name>(instance, *, seed,
time_limit, on_progress, **params) -> Result``; the method table (:mod:`nqmip.methods`)
names them and :func:`run_heuristic` dispatches by name. Every one reports its best between
chunks to ``on_progress`` (the call's trajectory hears it). Hot loops are numba-compiled in
:mod:`nqmip.heuristics.kernels` (imported lazily: numba is slow to load).
"""

from __future__ import annotations

import inspect
import time
from functools import partial
from typing import Any

from nqmip.budget import Deadline
from nqmip.heuristics.exhaustive import settled_small
from nqmip.heuristics.kinds import mark_loaded
from nqmip.instance import Instance
from nqmip.methods import HEURISTIC_METHODS, METHODS, resolve
from nqmip.outcome import settled_by_fixed
from nqmip.progress import ProgressCallback, load_kernels
from nqmip.result import Counters, Result
from nqmip.watchdog import loading

__all__ = ["HEURISTIC_METHODS", "run_heuristic"]


def run_heuristic(
    method: str, instance: Instance, *, seed: int | None, time_limit: float | Deadline | None,
    on_progress: ProgressCallback | None = None, **params: Any,
) -> Result:
    """Run the heuristic ``method`` within ``time_limit`` (seconds from now, compile
    included, or the call's Deadline)."""
    spec = METHODS.get(method)
    if spec is None or spec.kind != "heuristic":
        raise ValueError(
            f"unknown heuristic {method!r}: choose from {', '.join(HEURISTIC_METHODS)}"
        ) from None
    settled = settled_by_fixed(instance, method, "nqmip", seed, time.perf_counter())
    if settled is not None:  # nothing to search (and no two free rows to swap): no work
        return settled.with_(counters=Counters(iterations=0, evaluations=0, improvements=0),
                             timing=settled.timing.with_(compile=0.0))
    small = settled_small(instance, method, seed, time.perf_counter(),
                          Deadline.of(time_limit))
    if small is not None:  # a small board with no placement or one: every one looked at
        return small
    loaded = 0.0  # its kernels first, said to on_progress: a first run's compile shows
    with loading():  # its watchdog answers at the limit: nothing of its own yet
        entry = resolve(spec.entry)
        if spec.warm_up is not None:  # for this instance's kind of weights where it can
            warm_up = resolve(spec.warm_up)
            if "like" in inspect.signature(warm_up).parameters:
                warm_up = partial(warm_up, like=instance)
            loaded = load_kernels(warm_up, method, method, on_progress)
            mark_loaded(spec.warm_up, instance)  # a later first run is not taken for one
    result: Result = entry(instance, seed=seed, time_limit=time_limit,
                           on_progress=on_progress, **params)
    if loaded:
        result = result.with_(timing=result.timing.with_(
            compile=(result.timing.compile or 0.0) + loaded))
    return result
