"""Simulated annealing on swaps (seed 003), for boards up to 10^5 queens and weighted
objectives.

Each iteration swaps the queen of a row ``i`` with that of a random free row: ``i`` is an
attacked queen with probability ``conflict_bias`` while conflicts remain (a uniform row
would almost never touch one of the few attacked queens of a large board), else a uniform
free row. A swap of cost change Δ is accepted if Δ ≤ 0, else with probability
``exp(-Δ / (T · penalty))``.

* Cost: the number of attacking pairs; weighted, ``penalty · pairs − weight`` (see
  ``conflict_penalty``) — the temperature is in units of one conflict, so one schedule
  serves both objectives.
* Cooling schedule (geometric): ``T_k = t_start · cooling^k``, ``k`` rising by one every
  ``steps_per_temperature`` iterations (default: the number of free rows, at least 64).
* Reheating: when ``T`` falls below ``t_end`` the search is frozen; ``T`` goes back to
  ``t_start`` (counted in ``extra["restarts"]``) and the cooling begins again from the
  current board.
* Weighted runs (measured in ``docs/anytime.md``): conflicts are priced low (see
  :func:`sa_penalty`), so the walk crosses boards with a few conflicts to reach heavier
  conflict-free ones; the run starts from a conflict-free min-conflicts placement (never
  empty-handed); with a deadline, the schedule is sized to the time left (``cycles``
  cooling cycles); from ``HARD_FROM`` queens on, the walk stays on conflict-free boards
  (``hard``) and draws its rows among queens below the top weight.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from nqmip.budget import Deadline
from nqmip.heuristics.common import (
    UNLIMITED,
    Bound,
    ParameterError,
    check_float,
    checked,
    default_budget,
)
from nqmip.heuristics.kernels import apply_swap, swap_delta, swap_weight_delta
from nqmip.heuristics.localsearch import (
    CONFLICTS,
    EVALUATIONS,
    ITERATIONS,
    RESTARTS,
    TEMPERATURE,
    WEIGHT,
    SwapSearch,
    goal_reached,
    note_row,
    pick_conflicted,
    record_best,
    run_swap_search,
    warm_up_swap_search,
)
from nqmip.heuristics.minconflicts import minconflicts_placement
from nqmip.heuristics.minconflicts import warm_up as minconflicts_warm_up
from nqmip.instance import Instance
from nqmip.numba_cache import njit
from nqmip.progress import ProgressCallback
from nqmip.result import Result

METHOD = "sa"
FOCUS_DRAWS = 8  # hard mode: rows drawn to find a queen below the top weight
PARTNER_FOCUS = 0.5  # hard mode: share of partners drawn the same way (chess n = 10^4, 20 s:
# 0 / 0.5 / 1 gave 17004 / 17050 / 16920)
CHUNK = 1 << 16  # iterations per kernel call between clock checks


@njit(cache=True, nogil=True)
def anneal_chunk(
    perm: np.ndarray,
    diag: np.ndarray,
    anti: np.ndarray,
    free_rows: np.ndarray,
    conflicted: np.ndarray,
    in_list: np.ndarray,
    state: np.ndarray,
    fstate: np.ndarray,
    best_perm: np.ndarray,
    weights: np.ndarray,
    weighted: bool,
    penalty: float,
    bound: float,
    t_start: float,
    t_end: float,
    cooling: float,
    steps_per_temperature: int,
    conflict_bias: float,
    hard: bool,
    top: float,
    partner_focus: float,
    seed: int,
    budget: int,
) -> bool:
    """At most ``budget`` annealing iterations; True when the goal is reached (no conflict,
    or weighted: a board as heavy as the bound)."""
    np.random.seed(seed)
    free_count = free_rows.size
    if free_count < 2:
        return goal_reached(state, fstate, weighted, bound)
    stop = state[ITERATIONS] + budget
    while state[ITERATIONS] < stop:
        if goal_reached(state, fstate, weighted, bound):
            return True
        row = -1
        if state[CONFLICTS] > 0 and np.random.random() < conflict_bias:
            row = pick_conflicted(perm, diag, anti, free_rows, conflicted, in_list, state)
        if row < 0:
            row = free_rows[np.random.randint(0, free_count)]
            if hard:
                # Only a queen below the top weight can gain: draw a few rows for one.
                for _ in range(FOCUS_DRAWS):
                    if weights[row, perm[row]] < top:
                        break
                    row = free_rows[np.random.randint(0, free_count)]
        # int64 as ``row`` is: one compile of note_row and queen_conflicts, not one per type
        partner = np.int64(free_rows[np.random.randint(0, free_count)])
        if hard and np.random.random() < partner_focus:
            for _ in range(FOCUS_DRAWS):
                if weights[partner, perm[partner]] < top:
                    break
                partner = np.int64(free_rows[np.random.randint(0, free_count)])
        state[ITERATIONS] += 1
        if state[ITERATIONS] % steps_per_temperature == 0:
            fstate[TEMPERATURE] *= cooling
            if fstate[TEMPERATURE] < t_end:
                fstate[TEMPERATURE] = t_start  # frozen: reheat
                state[RESTARTS] += 1
        if partner == row:
            continue
        # Pricing and applying the swap repeat tabu_chunk's lines on purpose: moved into
        # shared njit helpers (even inline="always") they cost 5-20 % per evaluation.
        conflict_delta = swap_delta(perm, diag, anti, row, partner)
        state[EVALUATIONS] += 1
        if hard and conflict_delta > 0:
            continue  # conflicts never grow: the walk stays among conflict-free boards
        weight_delta = swap_weight_delta(perm, weights, row, partner) if weighted else 0.0
        cost = penalty * conflict_delta - weight_delta
        if cost > 0 and np.random.random() >= np.exp(-cost / (fstate[TEMPERATURE] * penalty)):
            continue
        apply_swap(perm, diag, anti, row, partner)
        state[CONFLICTS] += conflict_delta
        fstate[WEIGHT] += weight_delta
        note_row(perm, diag, anti, partner, conflicted, in_list, state)
        note_row(perm, diag, anti, row, conflicted, in_list, state)
        record_best(perm, best_perm, state, fstate, weighted)
    return goal_reached(state, fstate, weighted, bound)


def sa_penalty(instance: Instance) -> float:
    """Default cost of one attacking pair in a weighted annealing run, in weight units.

    Low on purpose (measured on random 1..9 weights, n = 100, and chess weights, n = 200;
    see docs/anytime.md): the walk crosses boards with a few conflicts to reach heavier
    conflict-free ones, and the best conflict-free board is what is kept. Dense weights:
    0.1875 of the weight spread (1.5 for 1..9); colour weights: 0.75 of the difference of
    the two colours; feasibility: 1."""
    if instance.is_feasibility:
        return 1.0
    low, high = instance.weight_range()
    spread = high - low
    if spread <= 0:
        return 1.0
    return (0.75 if instance.colours is not None else 0.1875) * spread


#: From this n on, a weighted run keeps its boards conflict-free (``hard``), by kind of
#: weights (measured: chess n = 1000 and random n = 20000 found no conflict-free board
#: in the priced walk; random n = 1000 does better priced, 8985 against 8958 in 30 s).
HARD_FROM = {"colours": 500, "dense": 2000}

#: Weighted runs with a deadline and no schedule given: the annealing is sized to the
#: time, this many cooling cycles (reheats) in the time left after the first chunk.
TIMED_CYCLES = 6
#: ... each cycle at most this many steps a square of the board, more cycles beyond: a
#: 120 s limit made cycles of 20 s at n = 8, and the optimum the listing had proven came at
#: the first cycle's end (23 s, 1.2 s without a limit). From n = 60 or so a cycle of a
#: timed run of a minute is shorter than this.
CYCLE_STEPS_PER_SQUARE = 20_000


#: The annealing's own numeric parameters (checked here and before a run).
BOUNDS: dict[str, Bound] = {
    "cooling": Bound(0.0, 1.0, whole=False, low_open=True, high_open=True),
    "conflict_bias": Bound(0.0, 1.0, whole=False), "cycles": Bound(1),
    "penalty": Bound(0.0, 1e12, whole=False, low_open=True), "max_iterations": Bound(1),
    "steps_per_temperature": Bound(1), "t_start": Bound(0.0, 1e9, whole=False, low_open=True),
    "t_end": Bound(0.0, 1e9, whole=False, low_open=True)}


def solve_sa(
    instance: Instance,
    *,
    seed: int | None = None,
    time_limit: float | Deadline | None = None,
    max_iterations: int | None = None,
    t_start: float | None = None,
    t_end: float | None = None,
    cooling: float = 0.95,
    steps_per_temperature: int | None = None,
    conflict_bias: float = 0.9,
    penalty: float | None = None,
    cycles: int = TIMED_CYCLES,
    start: str | np.ndarray | None = None,
    hard: bool | None = None,
    on_progress: ProgressCallback | None = None,
) -> Result:
    """Simulated annealing on swaps; see the module docstring.

    Parameters (defaults): ``max_iterations`` proposed swaps (with a time limit: none, it
    anneals until the deadline; without: feasibility 10^6 + 500·n, weighted
    10^6 + 5000·n); ``t_start`` (feasibility 0.5; weighted: dense 1.0, colours 0.75,
    hard 0.3) and ``t_end`` (feasibility 0.02, weighted ``t_start / 25``) temperatures in
    units of ``penalty``; ``cooling`` (0.95) factor in (0, 1); ``steps_per_temperature``
    (feasibility: free rows, at least 64; weighted: sized so that the run makes ``cycles``
    (6) cooling cycles, with a deadline from the speed of the first chunk and the time
    left, else from ``max_iterations``); ``conflict_bias`` (0.9) probability of moving an
    attacked queen; ``penalty``: cost of one attacking pair in weight units (see
    :func:`sa_penalty`); ``start``: ``"random"`` or ``"minconflicts"`` (a conflict-free
    placement, kept as the first best; the default when weighted) or a placement (a
    permutation, e.g. another search's best, kept as the first best if conflict-free);
    ``hard``: only swaps that add no conflict (default from n = ``HARD_FROM`` on, weighted
    runs only); ``on_progress``: the best weight so far, live (:func:`run_swap_search`).
    """
    weighted = not instance.is_feasibility
    n = instance.n
    hard, t_start, t_end = _temperatures(instance, hard, t_start, t_end)
    cooling = checked(BOUNDS, "cooling", cooling)  # 1.0 would never cool
    conflict_bias = checked(BOUNDS, "conflict_bias", conflict_bias)
    cycles = checked(BOUNDS, "cycles", cycles)
    # without one, from the weights: as large as they are
    penalty = sa_penalty(instance) if penalty is None else checked(BOUNDS, "penalty", penalty)
    start, given = _start_kind(instance, start)
    free_count = n - len(instance.fixed)
    if max_iterations is None:
        max_iterations = default_budget(
            time_limit, (10**6 + 500 * n) if instance.is_feasibility else (10**6 + 5000 * n))
    max_iterations = checked(BOUNDS, "max_iterations", max_iterations)
    # Temperatures per cooling cycle: t_start · cooling^k reaches t_end after `steps`.
    steps = max(1, math.ceil(math.log(t_end / t_start) / math.log(cooling)))
    timed = False
    if steps_per_temperature is None:
        if not weighted:
            steps_per_temperature = max(64, free_count)
        elif max_iterations < UNLIMITED:
            steps_per_temperature = max(64, max_iterations // (cycles * steps))
        else:
            steps_per_temperature = max(64, free_count)  # until the first chunk is timed
            timed = True
    spt = checked(BOUNDS, "steps_per_temperature", steps_per_temperature)
    schedule = {"spt": spt, "timed": int(timed)}
    top = instance.weight_range()[1] if weighted else 0.0

    def prepare(search: SwapSearch, deadline: Deadline) -> Callable[[int, int], bool]:
        search.fstate[TEMPERATURE] = t_start
        began = time.perf_counter()

        def step(kseed: int, budget: int) -> bool:
            if schedule["timed"] and search.state[ITERATIONS] > 0:
                # Once, after the first chunk: the speed on this board fixes how long a
                # cooling cycle can be to fit `cycles` of them before the deadline.
                schedule["timed"] = 0
                rate = int(search.state[ITERATIONS]) / max(time.perf_counter() - began, 1e-6)
                longest = CYCLE_STEPS_PER_SQUARE * n * n // steps
                schedule["spt"] = max(64, min(int(rate * deadline.remaining()
                                                  / (cycles * steps)), longest))
            # the arguments read at each chunk: the bound may have improved meanwhile
            return bool(anneal_chunk(*search.kernel_args(), t_start, t_end, cooling,
                                     schedule["spt"],
                                     conflict_bias, hard, top, PARTNER_FOCUS, kseed, budget))

        return step

    return run_swap_search(
        instance, METHOD, seed=seed, time_limit=time_limit, max_iterations=max_iterations,
        chunk=CHUNK, warm_up=_warm_up_start if start == "minconflicts" else warm_up,
        prepare=prepare, penalty=penalty, on_progress=on_progress,
        first=(conflict_free_start(instance, seed) if start == "minconflicts"
               else (lambda _deadline: given) if given is not None else None),
        extra=lambda search: {
            "t_start": t_start, "t_end": t_end, "cooling": cooling,
            "steps_per_temperature": schedule["spt"], "penalty": penalty,
            "conflict_bias": conflict_bias, "start": start, "hard": hard,
            "max_iterations": None if max_iterations >= UNLIMITED else max_iterations,
            "final_temperature": float(search.fstate[TEMPERATURE]),
        },
    )


def _temperatures(instance: Instance, hard: bool | None, t_start: float | None,
                  t_end: float | None) -> tuple[bool, float, float]:
    """``hard``, ``t_start`` and ``t_end`` of a run, defaults filled in and checked."""
    weighted = not instance.is_feasibility
    if hard is None:
        hard = weighted and instance.n >= HARD_FROM["colours" if instance.colours is not None
                                                    else "dense"]
    hard = bool(hard)
    if t_start is None:
        t_start = (0.3 if hard else 0.75 if instance.colours is not None else 1.0) \
            if weighted else 0.5
    t_start = checked(BOUNDS, "t_start", t_start)
    if t_end is None:
        t_end = t_start / 25 if weighted else min(0.02, t_start / 2)
    t_end = check_float("t_end", t_end, 0.0, t_start, low_open=True)
    return hard, t_start, t_end


def _start_kind(instance: Instance,
                start: str | np.ndarray | None) -> tuple[str, np.ndarray | None]:
    """The kind of start (``"random"``, ``"minconflicts"``, ``"placement"``) and the
    caller's placement, checked, if one is given."""
    given: np.ndarray | None = None
    if start is not None and not isinstance(start, str):
        given = _start_placement(instance, start)
        start = "placement"
    if start is None:
        start = "minconflicts" if not instance.is_feasibility else "random"
    if start not in ("random", "minconflicts", "placement"):
        raise ParameterError(f"start must be 'random', 'minconflicts' or a placement, "
                             f"got {start!r}")
    return start, given


def _start_placement(instance: Instance, start: object) -> np.ndarray:
    """A caller's start: a permutation of the columns keeping every fixed queen (conflicts
    allowed: the walk repairs them)."""
    perm = np.asarray(start)
    n = instance.n
    if perm.shape != (n,) or not np.issubdtype(perm.dtype, np.integer) \
            or not np.array_equal(np.sort(perm), np.arange(n)):
        raise ParameterError(f"start must be a permutation of 0..{n - 1} (one column per row)")
    for row, col in instance.fixed:
        if perm[row] != col:
            raise ParameterError(f"start moves the fixed queen of row {row}")
    return perm.astype(np.int32)


def conflict_free_start(
    instance: Instance, seed: int | None
) -> Callable[[Deadline], np.ndarray | None]:
    """The start of a ``start="minconflicts"`` run (and of tabu's on weights): a
    conflict-free placement found within a tenth of the deadline, or None (then a random
    start)."""

    def first(deadline: Deadline) -> np.ndarray | None:
        perm, _ = minconflicts_placement(instance, seed=seed,
                                         time_limit=deadline.sub(share=0.1))
        return perm

    return first


def warm_up_run(like: Instance | None = None) -> None:
    """The kernels a run on ``like`` uses, loaded before its clock starts
    (:func:`nqmip.heuristics.run_heuristic`): the annealing's, and the conflict-free
    start's where weights make it the default (every kind when ``like`` is None). Without
    the start's, a weighted run's first call loaded them inside its time limit: a warm
    start of 0.05 s then did no iteration and passed nothing on (``warm_start="sa"``,
    chess n = 10, Gurobi, on a loaded machine: 5 runs of 5)."""
    warm_up(like)
    warm_up_weighted_start(like)


def warm_up_weighted_start(like: Instance | None = None) -> None:
    """The kernels of :func:`conflict_free_start`, where weights make it a run's start
    (sa's default, tabu's): for ``like``'s kind, every kind when None, none without
    weights."""
    if like is None or not like.is_feasibility:
        minconflicts_warm_up(like)


def _warm_up_start(like: Instance | None = None) -> None:
    """The kernels of a ``start="minconflicts"`` run: the annealing and the start's."""
    warm_up(like)
    minconflicts_warm_up(like)


def warm_up(like: Instance | None = None) -> None:
    """Compile (or load from the cache) the kernel for every objective on tiny boards
    (``like``: only for that instance's kind of weights)."""

    def run(search: SwapSearch, kseed: int) -> None:
        search.fstate[TEMPERATURE] = 0.5
        for hard in (False, True):
            anneal_chunk(*search.kernel_args(), 0.5, 0.02, 0.9, 16, 0.9, hard, 1.0, 0.5,
                         kseed, 100)

    warm_up_swap_search(run, like)
