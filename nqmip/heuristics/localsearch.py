"""Ground shared by the swap local searches (min-conflicts, tabu, simulated annealing).

* the starting state: a permutation that keeps the fixed queens, the free rows, and the
  occupancy counters, built with numpy only (no Python loop over n, so 10^8 queens fit);
* a conflicted-row list kept lazily in numba (see :func:`pick_conflicted`);
* the run of a tabu or annealing search through the shared chunk loop
  (:mod:`nqmip.chunks`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from nqmip.budget import Deadline
from nqmip.chunks import budgeted, run_chunks
from nqmip.heuristics.common import (
    REPORT_PLACEMENT_MAX_N,
    KnownBound,
    fixed_queens_clash,
    kernel_seed,
    make_rng,
    stop_clock,
    timed_compile,
    weight_bound,
)
from nqmip.heuristics.kernels import queen_conflicts
from nqmip.instance import Instance, make_instance
from nqmip.numba_cache import njit
from nqmip.numba_consts import as_int64
from nqmip.outcome import make_result
from nqmip.progress import ProgressCallback, ProgressReporter
from nqmip.result import Result, Termination, as_placement

# Slots of the int64 state array the kernels share with the driver.
ITERATIONS = 0  # moves applied (or rows placed, for the greedy phase)
EVALUATIONS = 1  # swap deltas computed: every candidate board whose cost is looked at
IMPROVEMENTS = 2  # times the best cost (or best feasible weight) improved
CONFLICTS = 3  # current number of attacking pairs, kept by the deltas
LIST_SIZE = 4  # entries in the conflicted-row list
RESTARTS = 5  # perturbations / reheats when stuck
BEST_CONFLICTS = 6  # fewest attacking pairs seen
LAST_IMPROVEMENT = 7  # iteration of the last improvement of the best
STATE_SLOTS = 8


@dataclass
class SearchState:
    """Arrays of one local search; the kernels update them in place."""

    perm: np.ndarray  # int32 column of each row's queen
    free_rows: np.ndarray  # int32 rows that may move
    diag: np.ndarray  # occupancy of the diagonals i - perm[i] + n - 1
    anti: np.ndarray  # occupancy of the anti-diagonals i + perm[i]
    counters: np.ndarray  # int64[STATE_SLOTS], see the slot names above


def free_rows_and_columns_fast(instance: Instance) -> tuple[np.ndarray, np.ndarray]:
    """Like :func:`common.free_rows_and_columns` (same result) but vectorised, for huge n."""
    n = instance.n
    row_free = np.ones(n, dtype=np.bool_)
    col_free = np.ones(n, dtype=np.bool_)
    for row, col in instance.fixed:
        row_free[row] = False
        col_free[col] = False
    return (
        np.flatnonzero(row_free).astype(np.int32),
        np.flatnonzero(col_free).astype(np.int32),
    )


def sorted_start(instance: Instance) -> tuple[np.ndarray, np.ndarray]:
    """A permutation with the fixed queens in place and the free columns in sorted order
    on the free rows (the kernels shuffle it), and the free rows."""
    perm = np.empty(instance.n, dtype=np.int32)
    free_rows, free_cols = free_rows_and_columns_fast(instance)
    for row, col in instance.fixed:
        perm[row] = col
    perm[free_rows] = free_cols
    return perm, free_rows


def counters_for(perm: np.ndarray, dtype: type = np.int32) -> tuple[np.ndarray, np.ndarray]:
    """Occupancy counters of a permutation, computed with numpy (O(n))."""
    n = perm.size
    rows = np.arange(n, dtype=np.int64)
    size = max(2 * n - 1, 1)
    diag: np.ndarray = np.bincount(rows - perm + (n - 1), minlength=size).astype(dtype)
    anti: np.ndarray = np.bincount(rows + perm, minlength=size).astype(dtype)
    return diag, anti


@njit(cache=True, nogil=True)
def scan_conflicted(
    perm: np.ndarray,
    diag: np.ndarray,
    anti: np.ndarray,
    free_rows: np.ndarray,
    conflicted: np.ndarray,
    in_list: np.ndarray,
) -> int:
    """Fill ``conflicted`` with every attacked free row (O(n)); return how many."""
    size = 0
    in_list[:] = 0
    for idx in range(free_rows.size):
        row = as_int64(free_rows[idx])  # int64 rows: one signature per callee
        if queen_conflicts(perm, diag, anti, row) > 0:
            conflicted[size] = row
            in_list[row] = 1
            size += 1
    return size


@njit(cache=True, nogil=True)
def pick_conflicted(
    perm: np.ndarray,
    diag: np.ndarray,
    anti: np.ndarray,
    free_rows: np.ndarray,
    conflicted: np.ndarray,
    in_list: np.ndarray,
    state: np.ndarray,
) -> int:
    """A random attacked free row, or -1 when no free queen is attacked.

    The list is kept lazily: rows found no longer attacked are dropped when drawn, a row
    that becomes attacked by a move of its own is pushed by :func:`note_row`, and a queen
    that becomes attacked because *another* queen landed on its line (finding it would
    need a walk along the line) is picked up by a full rescan when the list runs dry
    while conflicts remain. Rescans are rare: each follows the list emptying.
    """
    while True:
        size = state[LIST_SIZE]
        if size == 0:
            if state[CONFLICTS] == 0:
                return -1
            size = scan_conflicted(perm, diag, anti, free_rows, conflicted, in_list)
            state[LIST_SIZE] = size
            if size == 0:
                return -1  # only fixed queens are attacked: nothing can move
        slot = np.random.randint(0, size)
        row = as_int64(conflicted[slot])
        if queen_conflicts(perm, diag, anti, row) > 0:
            return row
        conflicted[slot] = conflicted[size - 1]
        state[LIST_SIZE] = size - 1
        in_list[row] = 0


@njit(cache=True, nogil=True)
def note_row(
    perm: np.ndarray,
    diag: np.ndarray,
    anti: np.ndarray,
    row: int,
    conflicted: np.ndarray,
    in_list: np.ndarray,
    state: np.ndarray,
) -> None:
    """Push ``row`` on the conflicted list if it is attacked and not listed yet."""
    if in_list[row] == 0 and queen_conflicts(perm, diag, anti, row) > 0:
        conflicted[state[LIST_SIZE]] = row
        in_list[row] = 1
        state[LIST_SIZE] += 1


# Slots of the float64 state array of the swap searches.
WEIGHT = 0  # Σ weights[r, perm[r]] of the current placement
BEST_WEIGHT = 1  # best weight of a conflict-free placement seen (-inf before the first)
TEMPERATURE = 2  # simulated annealing only
FLOAT_SLOTS = 3


@njit(cache=True, nogil=True)
def record_best(
    perm: np.ndarray, best_perm: np.ndarray, state: np.ndarray, fstate: np.ndarray,
    weighted: bool,
) -> None:
    """Note a new best: fewest conflicts, or (weighted) the heaviest conflict-free board.

    Copying the board is O(n), but only on an improvement of the best weight, which
    happens a bounded number of times (weighted instances are small: n x n weights)."""
    conflicts_now = state[CONFLICTS]
    if conflicts_now < state[BEST_CONFLICTS]:
        state[BEST_CONFLICTS] = conflicts_now
        state[LAST_IMPROVEMENT] = state[ITERATIONS]
        if not weighted:
            state[IMPROVEMENTS] += 1
    if weighted and conflicts_now == 0 and fstate[WEIGHT] > fstate[BEST_WEIGHT] + 1e-9:
        fstate[BEST_WEIGHT] = fstate[WEIGHT]
        # element by element: ``best_perm[:] = perm`` compiles numba's shape-mismatch
        # error, with its str() of the shapes (2.2 s of a cold run's 10 s, chess n = 40)
        for r in range(perm.shape[0]):
            best_perm[r] = perm[r]
        state[IMPROVEMENTS] += 1
        state[LAST_IMPROVEMENT] = state[ITERATIONS]


@njit(cache=True, nogil=True)
def goal_reached(state: np.ndarray, fstate: np.ndarray, weighted: bool, bound: float) -> bool:
    """The goal of a tabu or annealing run: no conflict, or (weighted) a conflict-free board
    as heavy as the bound."""
    if weighted:
        return fstate[BEST_WEIGHT] >= bound - 1e-9
    return state[CONFLICTS] == 0


@dataclass
class SwapSearch:
    """Everything a tabu or annealing kernel reads and updates, built once per run."""

    perm: np.ndarray
    diag: np.ndarray
    anti: np.ndarray
    free_rows: np.ndarray
    conflicted: np.ndarray
    in_list: np.ndarray
    state: np.ndarray
    fstate: np.ndarray
    best_perm: np.ndarray
    weights: np.ndarray
    weighted: bool
    penalty: float
    bound: float

    def kernel_args(self) -> tuple[object, ...]:
        return (self.perm, self.diag, self.anti, self.free_rows, self.conflicted,
                self.in_list, self.state, self.fstate, self.best_perm, self.weights,
                self.weighted, self.penalty, self.bound)


def conflict_penalty(instance: Instance) -> float:
    """Cost of one attacking pair in a weighted search, in weight units.

    A swap changes the weight by at most 2·(max - min); a penalty above that makes
    every conflict-removing move better than any weight gain, so the search settles on
    conflict-free boards and leaves them only through tabu or annealing moves."""
    if instance.is_feasibility:
        return 1.0
    low, high = instance.weight_range()
    return 2.0 * (high - low) + 1.0


def new_swap_search(
    instance: Instance, rng: np.random.Generator, bound: float, penalty: float | None = None,
    start: np.ndarray | None = None,
) -> SwapSearch:
    """A random start (fixed queens kept), or the permutation ``start``, with its counters
    and an empty best (the start itself, if conflict-free).

    Memory is O(n) whatever the weights: colour weights are read through the strided view of
    :meth:`Instance.kernel_weights`, a dense matrix where it lies."""
    from nqmip.heuristics.common import random_permutation  # small n: Python loop is fine

    n = instance.n
    perm = (random_permutation(instance, rng) if start is None
            else np.ascontiguousarray(start, dtype=np.int32).copy())
    diag, anti = counters_for(perm)
    free_rows, _ = free_rows_and_columns_fast(instance)
    weighted = not instance.is_feasibility
    weights = instance.kernel_weights()
    state = np.zeros(STATE_SLOTS, dtype=np.int64)
    rows = np.arange(n, dtype=np.int64)
    state[CONFLICTS] = _pairs(diag) + _pairs(anti)
    state[BEST_CONFLICTS] = state[CONFLICTS]
    fstate = np.zeros(FLOAT_SLOTS, dtype=np.float64)
    fstate[WEIGHT] = float(weights[rows, perm].sum()) if weighted else float(n)
    fstate[BEST_WEIGHT] = -np.inf
    best_perm = perm.copy()
    search = SwapSearch(
        perm=perm, diag=diag, anti=anti, free_rows=free_rows,
        conflicted=np.empty(max(free_rows.size, 1), dtype=np.int32),
        in_list=np.zeros(n, dtype=np.uint8), state=state, fstate=fstate,
        best_perm=best_perm, weights=weights, weighted=weighted,
        penalty=conflict_penalty(instance) if penalty is None else penalty, bound=bound,
    )
    record_best(perm, best_perm, state, fstate, weighted)
    return search


def _pairs(counts: np.ndarray) -> int:
    """Attacking pairs on one family of lines, Σ k(k-1)/2, in int64 (no Python loop)."""
    k = counts.astype(np.int64)
    return int((k * (k - 1) // 2).sum())


def swap_search_result(
    instance: Instance,
    method: str,
    search: SwapSearch,
    termination: Termination,
    *,
    wall_time: float,
    seed: int | None,
    compile_time: float,
    extra: dict[str, object],
    bound: tuple[float, str] | None = None,
) -> Result:
    """The :class:`Result` of a tabu or annealing run: the conflict-free board found (the
    heaviest one, when weighted), or status unknown with the fewest conflicts seen."""
    from nqmip.heuristics.common import heuristic_result

    state = search.state
    if search.weighted:
        placement = search.best_perm if np.isfinite(search.fstate[BEST_WEIGHT]) else None
    else:
        placement = search.perm if state[CONFLICTS] == 0 else None
    extra = dict(extra)
    extra["restarts"] = int(state[RESTARTS])
    return heuristic_result(
        instance, method, placement, wall_time=wall_time, seed=seed, termination=termination,
        evaluations=int(state[EVALUATIONS]), iterations=int(state[ITERATIONS]),
        improvements=int(state[IMPROVEMENTS]), compile_time=compile_time,
        best_conflicts=int(state[BEST_CONFLICTS]), extra=extra, bound=bound,
    )


def infeasible_result(instance: Instance, method: str, seed: int | None) -> Result:
    """Two fixed queens attack each other: proven infeasible without a search."""
    return make_result(instance, method, None, Termination.INFEASIBLE, proven=True,
                       seed=seed, message="two fixed queens attack each other")


#: A chunk step: ``step(kernel_seed, budget) -> goal reached``.
Step = Callable[[int, int], bool]


def run_swap_search(
    instance: Instance,
    method: str,
    *,
    seed: int | None,
    time_limit: float | Deadline | None,
    max_iterations: int,
    chunk: int,
    warm_up: Callable[[Instance | None], None],
    prepare: Callable[[SwapSearch, Deadline], Step],
    extra: Callable[[SwapSearch], dict[str, object]],
    penalty: float | None = None,
    first: Callable[[Deadline], np.ndarray | None] | None = None,
    on_progress: ProgressCallback | None = None,
) -> Result:
    """The run of a tabu or annealing search, once its parameters are checked.

    Infeasible fixed queens end it at once; otherwise the kernel is compiled
    (``warm_up(instance)``, for this instance's kind of weights), the start is built
    (``first(deadline)`` if given and not None, e.g. a conflict-free placement, else a
    random permutation), ``prepare(search, deadline)`` returns the kernel ``step(seed,
    units)`` the shared chunk loop (:func:`nqmip.chunks.run_chunks`) calls, and
    ``extra(search)``, read after the run, joins the result. The deadline is the caller's (a
    :class:`Deadline`) or starts now (a number of seconds): the compile counts. The search's
    goal is the best bound it knows (:func:`~nqmip.heuristics.common.known_bound`: the
    colour bound for two colour values): reaching it proves the placement optimal.
    ``on_progress`` hears the best conflict-free weight (or the fewest conflicts) between
    chunks.
    """
    start = time.perf_counter()
    deadline = stop_clock(time_limit)  # the caller's (it may be cancelled), or from now
    if fixed_queens_clash(instance):
        return infeasible_result(instance, method, seed)
    compile_time = timed_compile(lambda: warm_up(instance))  # this instance's kernel type
    rng = make_rng(seed)
    known = KnownBound(instance, deadline)  # the colour bound arrives beside the search
    begin = first(deadline) if first is not None else None
    search = new_swap_search(instance, rng, known.get()[0], penalty, begin)
    step = prepare(search, deadline)

    def refresh() -> None:
        search.bound = known.get()[0]

    termination = run_chunks(budgeted(step, rng, search.state, ITERATIONS, max_iterations,
                                      chunk), deadline, before=refresh,
                             progress=_reporter(method, search, on_progress))
    wall = time.perf_counter() - start
    return swap_search_result(
        instance, method, search, termination, wall_time=wall, seed=seed,
        compile_time=compile_time, extra=extra(search), bound=known.final(deadline),
    )


def _reporter(method: str, search: SwapSearch,
              on_progress: ProgressCallback | None) -> Callable[[], None] | None:
    """The chunk loop's ``progress``: the best conflict-free weight so far when weighted
    (none before the first), else the fewest attacking pairs seen."""
    if on_progress is None:
        return None
    report = ProgressReporter(method, on_progress)
    small = search.perm.size <= REPORT_PLACEMENT_MAX_N  # the best board goes with the report

    def progress() -> None:
        best = float(search.fstate[BEST_WEIGHT])
        if search.weighted and np.isfinite(best):
            report(incumbent=best, bound=search.bound,
                   placement=(lambda: as_placement(search.best_perm)) if small else None)
        elif not search.weighted and search.state[CONFLICTS] == 0:
            report(incumbent=float(search.perm.size), bound=search.bound,
                   placement=(lambda: as_placement(search.perm)) if small else None)
        else:
            report(conflicts=int(search.state[BEST_CONFLICTS]))

    return progress


def weight_kind(instance: Instance) -> str:
    """Which kernel type a swap search reads for ``instance``: ``"none"`` (feasibility),
    ``"colour"`` (the strided view of colour weights) or ``"dense"``."""
    if instance.is_feasibility:
        return "none"
    return "colour" if instance.colours is not None else "dense"


def warm_up_swap_search(run: Callable[[SwapSearch, int], object],
                        like: Instance | None = None) -> None:
    """Compile (or load from the cache) a swap-search kernel for both objectives on tiny
    boards: ``run(search, kernel_seed)`` calls it once on each. ``like``: only for the
    weights of this instance (a run compiles what it reads: chess n = 40 cold, the
    annealing's kernels in 3.2 s instead of 5.8 s)."""
    # feasibility, colour weights (a strided view) and a dense matrix: each kernel type
    tiny = {"none": make_instance(8, fixed={0: 0}), "colour": make_instance(6, "chess"),
            "dense": make_instance(6, "random", weights_seed=0)}
    for kind, instance in tiny.items():
        if like is not None and kind != weight_kind(like):
            continue
        rng = make_rng(0)
        search = new_swap_search(instance, rng, weight_bound(instance))
        run(search, kernel_seed(rng))
