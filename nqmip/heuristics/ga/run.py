"""Genetic algorithm on the permutation encoding: the run (the driver on the Python side).

The package follows pymoo's one idea per file: the operator base (:mod:`.base`) apart from
the concrete operators (:mod:`.operators`: the operators of seeds 000, 001 and 004, and
ours), the parameters and presets (:mod:`.config`), the integer codes shared with numba
(:mod:`.codes`), the operators' numba code (:mod:`.operator_kernels`), the numba driver
:func:`nqmip.heuristics.ga.kernels.ga_chunk` (the hot loop never returns to Python), and
this run, which feeds the driver to the shared chunk loop (:mod:`nqmip.chunks`).

Counting (documented in docs/genetic-algorithm.md): every candidate board whose cost is
computed is one *evaluation* — each initial individual, each child, and each swap tried by
the local improvement. ``iterations`` counts steady-state iterations (one mating) or
generations; ``improvements`` counts the swaps the local improvement applied.

Usage::

    solve_ga(instance, seed=1, time_limit=None)                  # our default
    solve_ga(instance, seed=1, time_limit=None, preset="crossfill-ea")  # document 001's EA
    solve_ga(instance, seed=1, time_limit=None, preset="chu-beasley", population=50)
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from nqmip.budget import Deadline
from nqmip.chunks import run_chunks
from nqmip.heuristics.common import (
    KnownBound,
    Reading,
    chunk_progress,
    default_budget,
    fixed_queens_clash,
    free_rows_and_columns,
    heuristic_result,
    kernel_seed,
    make_rng,
    random_permutation,
    stop_clock,
    timed_compile,
    weight_bound,
)
from nqmip.heuristics.ga import codes
from nqmip.heuristics.ga.config import GAConfig
from nqmip.heuristics.ga.operators import IMPROVE_UNCAPPED_M
from nqmip.instance import Instance, make_instance
from nqmip.progress import ProgressCallback
from nqmip.result import Result, Termination

# The numba module is imported lazily (see _kernels): `import nqmip` must not load numba.


def _kernels() -> Any:
    from nqmip.heuristics.ga import kernels as ga_kernels

    return ga_kernels


#: Evaluations per kernel call: the clock is read between calls. The schedule depends
#: only on evaluation counts (and m), so a seed gives the same run with or without a time
#: limit. An early evaluation costs about m^1.2 (chess n = 10^5: 0.5 ms, so the second call
#: of 4096 ran 2.3 s and a 2 s limit ended at 3.16 s): from m = ``IMPROVE_UNCAPPED_M`` on
#: both sizes shrink by (IMPROVE_UNCAPPED_M / m)^2.
CHUNK_FIRST = 2_048
CHUNK_MAX = 65_536


def chunk_sizes(m: int) -> tuple[int, int]:
    """The first and largest evaluations per kernel call on m free rows."""
    if m <= IMPROVE_UNCAPPED_M:
        return CHUNK_FIRST, CHUNK_MAX
    scale = (IMPROVE_UNCAPPED_M / m) ** 2
    return max(16, int(CHUNK_FIRST * scale)), max(16, int(CHUNK_MAX * scale))


def warm_up(like: Instance | None = None) -> None:
    """Compile (or load from numba's cache) the driver with the exact argument types
    (``like``: only for that instance's kind of weights, a third of the compile)."""
    from nqmip.heuristics.localsearch import weight_kind  # numba: not at import

    config = GAConfig.build("default", population=2, max_evaluations=50)
    # feasibility, colour weights (a strided view) and a dense matrix: each kernel type
    tiny = {"none": Instance(n=4), "colour": make_instance(6, "chess"),
            "dense": make_instance(6, "random", weights_seed=0)}
    for kind, instance in tiny.items():
        if like is None or kind == weight_kind(like):
            _run_kernel(instance, config, make_rng(0), Deadline(None))


def _run_kernel(
    instance: Instance, config: GAConfig, rng: np.random.Generator, deadline: Deadline,
    known: KnownBound | None = None, on_progress: ProgressCallback | None = None,
) -> tuple[dict[str, Any], float]:
    k = _kernels()
    start = time.perf_counter()
    n = instance.n
    rows, _ = free_rows_and_columns(instance)
    free = np.ascontiguousarray(rows, dtype=np.int64)
    weighted = not instance.is_feasibility
    weights = instance.kernel_weights()
    def bound_now() -> float:  # the colour bound arrives beside the search
        if not weighted:
            return float(n)
        return known.get()[0] if known is not None else weight_bound(instance)

    icfg, fcfg = config.arrays(free.size, weighted, bound_now())
    size = config.population
    pop = np.empty((size, n), dtype=np.int32)
    for i in range(size):
        pop[i] = random_permutation(instance, rng)
    cost = np.zeros(size, dtype=np.int64)
    weight = np.zeros(size, dtype=np.float64)
    hashes = np.zeros(size, dtype=np.int64)
    counters = np.zeros(codes.N_COUNTERS, dtype=np.int64)
    counters[codes.C_BEST_COST] = np.iinfo(np.int64).max
    counters[codes.C_SOLVED_AT] = -1
    best = np.zeros(n, dtype=np.int32)
    best_weight = np.zeros(1, dtype=np.float64)
    chunk, chunk_max = chunk_sizes(free.size)
    per_call = [chunk]

    def step() -> Termination | None:
        code = k.ga_chunk(pop, cost, weight, hashes, free, weights, icfg, fcfg, counters,
                          best, best_weight, int(counters[codes.C_EVALS]) + per_call[0],
                          kernel_seed(rng))
        if code == codes.RUN_SOLVED:
            return Termination.SOLUTION_FOUND
        if code == codes.RUN_BUDGET:
            return Termination.ITERATION_LIMIT
        per_call[0] = min(2 * per_call[0], chunk_max)
        return None

    def read() -> Reading:
        if not counters[codes.C_FOUND]:
            return None, None, int(counters[codes.C_BEST_COST])
        return float(best_weight[0]) if weighted else float(n), float(fcfg[codes.F_BOUND]), None

    def refresh() -> None:
        fcfg[codes.F_BOUND] = bound_now()

    termination = run_chunks(step, deadline, before=refresh, progress=chunk_progress(
        "ga", on_progress, read, best=lambda: best if counters[codes.C_FOUND] else None))
    wall = time.perf_counter() - start
    out = {
        "placement": best.copy() if counters[codes.C_FOUND] else None,
        "termination": termination,
        "evaluations": int(counters[codes.C_EVALS]),
        "iterations": int(counters[codes.C_ITERS]),
        "improvements": int(counters[codes.C_IMPROVES]),
        "best_conflicts": int(min(counters[codes.C_BEST_COST], cost.min())),
        "solved_at_evaluation": int(counters[codes.C_SOLVED_AT]),
        "found_in_initial": bool(counters[codes.C_FOUND_IN_INIT]),
    }
    return out, wall


def solve_ga(
    instance: Instance,
    *,
    seed: int | None = None,
    time_limit: float | Deadline | None = None,
    preset: str = "default",
    on_progress: ProgressCallback | None = None,
    **params: Any,
) -> Result:
    """Run the genetic algorithm and return a :class:`~nqmip.result.Result`.

    ``preset`` is ``"default"`` (ours), ``"chu-beasley"``, ``"crossfill-ea"`` or
    ``"roulette-generational"`` (the reference documents 000, 001, 004; those numbers are
    accepted too); ``params``
    override any entry of :data:`DEFAULTS` (operators by name: ``selection``,
    ``crossover``, ``mutation``, ``replacement``, ``improve``). Feasibility instances stop
    at the first conflict-free placement; weighted ones keep improving the best
    conflict-free placement until the evaluation budget, the time limit, or the weight
    bound it knows (:func:`~nqmip.heuristics.common.known_bound`). A run that finds no
    conflict-free placement returns status ``unknown`` with ``extra["best_conflicts"]``.
    ``on_progress`` hears its best between chunks.
    """
    begin = time.perf_counter()
    clock = stop_clock(time_limit)  # one clock: the compile counts
    limited = (time_limit.limited if isinstance(time_limit, Deadline)
               else time_limit is not None)
    if limited and "max_evaluations" not in params and "max_iterations" not in params:
        # Anytime: under a time limit the GA evolves until the deadline (or the bound).
        params["max_evaluations"] = default_budget(time_limit, 0)
    config = GAConfig.build(preset, **params)
    rng = make_rng(seed)
    compile_time = timed_compile(lambda: warm_up(instance))  # its kind of weights only
    if fixed_queens_clash(instance):
        # No placement can keep them all: nothing to search (and no permutation exists
        # when two share a column).
        result = heuristic_result(
            instance, "ga", None, wall_time=0.0, seed=seed,
            termination=Termination.INFEASIBLE, evaluations=0, iterations=0,
            improvements=0, compile_time=compile_time,
            extra={"config": config.describe(), "reason": "fixed queens attack each other"},
        )
        return result
    known = KnownBound(instance, clock)
    out, _ = _run_kernel(instance, config, rng, clock, known=known, on_progress=on_progress)
    wall = time.perf_counter() - begin
    extra = {
        "config": config.describe(),
        "solved_at_evaluation": out["solved_at_evaluation"],
        "found_in_initial": out["found_in_initial"],
    }
    return heuristic_result(
        instance,
        "ga",
        out["placement"],
        wall_time=wall,
        seed=seed,
        termination=out["termination"],
        evaluations=out["evaluations"],
        iterations=out["iterations"],
        improvements=out["improvements"],
        compile_time=compile_time,
        best_conflicts=out["best_conflicts"],
        extra=extra,
        bound=known.final(clock),
    )
