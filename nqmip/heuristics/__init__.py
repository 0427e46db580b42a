"""Heuristics on the permutation encoding (queen of row i in column p[i]).

Each method lives in its own module and exposes ``solve_<name>(instance, *, seed,
time_limit, **params) -> Result``; :func:`run_heuristic` dispatches by name. Those in
``REPORTS_PROGRESS`` also take ``on_progress`` and report their best between chunks. Hot loops are
numba-compiled in :mod:`nqmip.heuristics.kernels` (imported lazily: numba is slow to load).
"""

from __future__ import annotations

import importlib
from typing import Any

from nqmip.backends.base import ProgressCallback
from nqmip.budget import Deadline
from nqmip.instance import Instance
from nqmip.result import Result

_REGISTRY: dict[str, str] = {
    "ga": "nqmip.heuristics.ga.run:solve_ga",
    "tabu": "nqmip.heuristics.tabu:solve_tabu",
    "sa": "nqmip.heuristics.anneal:solve_sa",
    "minconflicts": "nqmip.heuristics.minconflicts:solve_minconflicts",
    "topsquares": "nqmip.heuristics.topsquares:solve_topsquares",
    "quota": "nqmip.heuristics.quota:solve_quota",
    "lns": "nqmip.heuristics.lns:solve_lns",
}

HEURISTIC_METHODS: tuple[str, ...] = tuple(_REGISTRY)
#: The heuristics that report live progress (``on_progress``) from the chunk loop.
REPORTS_PROGRESS: frozenset[str] = frozenset({"sa", "tabu"})


def run_heuristic(
    method: str, instance: Instance, *, seed: int | None, time_limit: float | Deadline | None,
    on_progress: ProgressCallback | None = None, **params: Any,
) -> Result:
    """Run the heuristic ``method``; ``on_progress`` reaches those in ``REPORTS_PROGRESS``
    (the others run without a live report)."""
    if on_progress is not None and method in REPORTS_PROGRESS:
        params["on_progress"] = on_progress
    try:
        target = _REGISTRY[method]
    except KeyError:
        raise ValueError(
            f"unknown heuristic {method!r}: choose from {', '.join(HEURISTIC_METHODS)}"
        ) from None
    module_name, func_name = target.split(":")
    func = getattr(importlib.import_module(module_name), func_name)
    return func(instance, seed=seed, time_limit=time_limit, **params)
