"""Large n: a QS4-style greedy placement and min-conflicts swap repair (Sosic and Gu).

1. **Greedy.** The free columns are shuffled once into a pool. Row by row (free rows
   only), draw positions in the unused part of the pool until the column there stands on
   an empty diagonal and anti-diagonal, and swap it into place (a Fisher-Yates step).
   Occupancy is one bit per line here and the first draws of a row look only at a window
   of the pool (see :func:`~nqmip.heuristics.minconflicts_kernels.greedy_chunk` for
   why). A row whose ``greedy_attempts`` draws fail is deferred; the last ``tail`` rows
   are not placed greedily.
2. **Strict repair.** Every conflict now involves a deferred or tail queen (greedy queens
   do not attack one another nor a fixed queen). For each attacked one draw random partner
   rows until a swap leaves *both* moved queens unattacked; such a swap removes all the
   queen's conflicts and adds none, so once every listed queen is unattacked the board is
   solved — no O(n) scan needed. With half the lines empty a draw succeeds with
   probability about 1/16, so this costs O(listed queens) swaps.
3. **Fallback** (small boards, or when strict repair runs out of tries): min-conflicts —
   pick an attacked queen, try ``samples`` random partners, apply the best swap if it does
   not add conflicts (sideways moves allowed), else the best with probability ``noise``.

Each phase is linear in n in practice: the greedy makes about 3.4 draws per row whatever
n, the repair touches only the listed rows. Memory for 10^8 queens: the permutation
(int32, 0.4 GB), two 25 MB bitsets, then uint8 line counters (2 x 0.2 GB). Weights are
not optimised: on a weighted instance the first conflict-free placement is returned (use
tabu or sa to optimise weights).

The kernels are in :mod:`nqmip.heuristics.minconflicts_kernels`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqmip.budget import Deadline
from nqmip.chunks import budgeted, run_chunks
from nqmip.heuristics.common import (
    Bound,
    checked,
    chunk_progress,
    fixed_queens_clash,
    heuristic_result,
    kernel_seed,
    make_rng,
    stop_clock,
    timed_compile,
)
from nqmip.heuristics.kinds import SMALL_COUNTERS_FROM
from nqmip.heuristics.localsearch import (
    CONFLICTS,
    EVALUATIONS,
    IMPROVEMENTS,
    ITERATIONS,
    LIST_SIZE,
    RESTARTS,
    STATE_SLOTS,
    sorted_start,
)
from nqmip.heuristics.minconflicts_kernels import (
    bits_to_counts,
    greedy_chunk,
    min_conflicts_chunk,
    place_rows,
    strict_repair_pass,
)
from nqmip.instance import Instance, make_instance
from nqmip.progress import ProgressCallback
from nqmip.result import Result, Termination

METHOD = "minconflicts"
#: Rows per kernel call between clock checks: about 0.03 s at 10^6 queens and 0.05 s at
#: 10^7, so a cancel is heard at once (2^21 rows took 0.4 s at 10^7).
GREEDY_CHUNK = 1 << 18
REPAIR_CHUNK = 1 << 20  # evaluations per kernel call in the repair phases
COUNTER_CAP_UINT8 = 255
#: Rows the greedy may defer before it stops and leaves the rest to the repair.
DEFERRED_CAPACITY = 1 << 16



#: The min-conflicts search's own numeric parameters (checked here and before a run).
BOUNDS: dict[str, Bound] = {
    "tail": Bound(0), "greedy_attempts": Bound(1), "window": Bound(1),
    "repair_tries": Bound(1), "samples": Bound(1), "noise": Bound(0.0, 1.0, whole=False),
    "max_evaluations": Bound(1)}


def minconflicts_placement(
    instance: Instance,
    *,
    seed: int | None = None,
    time_limit: float | Deadline | None = None,
    max_evaluations: int | None = None,
    tail: int = 64,
    greedy_attempts: int = 256,
    window: int = 1 << 16,
    repair_tries: int = 4096,
    samples: int = 16,
    noise: float = 0.05,
    on_progress: ProgressCallback | None = None,
) -> tuple[np.ndarray | None, dict[str, object]]:
    """The search itself, returning the permutation as an int32 array (or None) and the
    run's statistics; :func:`solve_minconflicts` wraps it into a :class:`Result`. Kept apart
    so that huge boards can be solved and checked without building a tuple of n ints.
    ``time_limit`` counts from this call (the compile included); ``on_progress`` hears the
    attacking pairs left between the repair's chunks."""
    begin = time.perf_counter()
    deadline = stop_clock(time_limit)
    tail = checked(BOUNDS, "tail", tail)
    greedy_attempts = checked(BOUNDS, "greedy_attempts", greedy_attempts)
    window = checked(BOUNDS, "window", window)
    repair_tries = checked(BOUNDS, "repair_tries", repair_tries)
    samples = checked(BOUNDS, "samples", samples)
    noise = checked(BOUNDS, "noise", noise)
    if max_evaluations is not None:
        max_evaluations = checked(BOUNDS, "max_evaluations", max_evaluations)
    n = instance.n
    budget = max_evaluations if max_evaluations is not None else 64 * n + 10_000_000
    compile_time = timed_compile(lambda: warm_up(instance))  # the counters it will use
    params = _Params(budget=budget, tail=tail, greedy_attempts=greedy_attempts, window=window,
                     repair_tries=repair_tries, samples=samples, noise=noise,
                     small_from=SMALL_COUNTERS_FROM)
    perm, stats = _search(instance, seed=seed, deadline=deadline, params=params,
                          on_progress=on_progress)
    stats["compile_time"] = compile_time
    stats["wall_time"] = time.perf_counter() - begin
    return perm, stats


@dataclass(frozen=True)
class _Params:
    budget: int  # evaluations in all
    tail: int
    greedy_attempts: int
    window: int
    repair_tries: int
    samples: int
    noise: float
    small_from: int  # uint8 line counters from this n on


#: A phase that ends by itself (greedy rows placed, strict passes no longer freeing queens)
#: reports this: the next phase goes on.
PHASE_DONE = Termination.SOLUTION_FOUND


@dataclass
class _Board:
    """The arrays the three phases share."""

    perm: np.ndarray
    free_rows: np.ndarray  # the free rows (empty: every row is free)
    free_count: int
    state: np.ndarray
    rng: np.random.Generator
    diag: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int32))
    anti: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int32))
    deferred: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int32))
    progress: Callable[[], None] | None = None  # the chunk loop's report (conflicts left)


def _start(instance: Instance, rng: np.random.Generator) -> _Board:
    """The pool of unused columns in random order on the free rows (fixed queens kept)."""
    n = instance.n
    if instance.fixed:
        perm, free_rows = sorted_start(instance)
        perm[free_rows] = rng.permutation(perm[free_rows])  # in place: no int64 temporary
    else:
        # Every row is free: no free-row array at all (4n bytes saved, and the int64
        # temporaries of building one); the kernels read an empty array as the identity.
        perm = np.arange(n, dtype=np.int32)
        free_rows = np.empty(0, dtype=np.int32)
        rng.shuffle(perm)
    return _Board(perm, free_rows, n - len(instance.fixed),
                  np.zeros(STATE_SLOTS, dtype=np.int64), rng)


def _greedy(instance: Instance, board: _Board, params: _Params,
            deadline: Deadline) -> tuple[Termination, np.ndarray, np.ndarray, int]:
    """Phase 1: the termination, the occupancy bits of both line families, and the free
    rows placed (deferred ones included)."""
    n = instance.n
    words = (max(2 * n - 1, 1) + 63) // 64
    diag_bits = np.zeros(words, dtype=np.uint64)
    anti_bits = np.zeros(words, dtype=np.uint64)
    for row, col in instance.fixed:
        diag_bits[(row - col + n - 1) >> 6] |= np.uint64(1) << np.uint64((row - col + n - 1) & 63)
        anti_bits[(row + col) >> 6] |= np.uint64(1) << np.uint64((row + col) & 63)
    greedy_end = max(board.free_count - params.tail, 0)
    deferred = board.deferred = np.empty(DEFERRED_CAPACITY, dtype=np.int32)
    reached = [0]
    state = board.state

    def chunk() -> Termination | None:
        if state[EVALUATIONS] >= params.budget:
            return Termination.ITERATION_LIMIT
        stop = min(reached[0] + GREEDY_CHUNK, greedy_end)
        reached[0] = int(greedy_chunk(board.perm, diag_bits, anti_bits, board.free_rows,
                                      reached[0], stop, board.free_count, params.window,
                                      params.greedy_attempts, deferred,
                                      kernel_seed(board.rng), state))
        # done, or stopped early: the deferred list is full, the repair takes the rest
        return PHASE_DONE if reached[0] < stop or reached[0] >= greedy_end else None

    # Ctrl-C here ends the run with status unknown: no conflict-free placement exists yet
    # (the later phases run only after a finished greedy).
    termination = run_chunks(chunk, deadline) if greedy_end > 0 else PHASE_DONE
    return termination, diag_bits, anti_bits, reached[0]


def _counters(n: int, board: _Board, diag_bits: np.ndarray, anti_bits: np.ndarray,
              repair_rows: np.ndarray, small_from: int) -> None:
    """Line counters for the repair, with the deferred and tail rows on them.

    A line holds at most one greedy or fixed queen plus the repair rows on it: uint8 on huge
    boards (0.2 GB per family at 10^8), unless a line would saturate, which place_rows
    reports; then int32."""
    size = max(2 * n - 1, 1)
    for dtype, cap in ((np.uint8, COUNTER_CAP_UINT8), (np.int32, 2**31 - 1)):
        if dtype is np.uint8 and n < small_from:
            continue
        board.diag = np.empty(size, dtype=dtype)
        bits_to_counts(diag_bits, board.diag)
        board.anti = np.empty(size, dtype=dtype)
        bits_to_counts(anti_bits, board.anti)
        added = place_rows(board.perm, board.diag, board.anti, repair_rows, cap)
        if added >= 0:
            board.state[CONFLICTS] = added
            return


def _strict_repair(board: _Board, repair_rows: np.ndarray, params: _Params,
                   deadline: Deadline) -> tuple[Termination, int]:
    """Phase 2: passes over the deferred and tail rows while each still frees queens; the
    termination and the passes made."""
    state = board.state
    passes = [0]
    left = [repair_rows.size]

    def chunk() -> Termination | None:
        if state[CONFLICTS] == 0 or state[EVALUATIONS] >= params.budget:
            return PHASE_DONE
        passes[0] += 1
        now_left = strict_repair_pass(board.perm, board.diag, board.anti, board.free_rows,
                                      board.free_count, repair_rows, params.repair_tries,
                                      kernel_seed(board.rng), state)
        if now_left == 0 or now_left >= left[0]:
            return PHASE_DONE
        left[0] = now_left
        return None

    if state[CONFLICTS] == 0:
        return PHASE_DONE, 0
    return run_chunks(chunk, deadline, progress=board.progress), passes[0]


def _fallback(instance: Instance, board: _Board, params: _Params,
              deadline: Deadline) -> Termination:
    """Phase 3: min-conflicts steps until no conflict is left or the budget is spent."""
    n = instance.n
    if board.diag.dtype != np.int32:  # noise may pile queens up on a line
        board.diag, board.anti = board.diag.astype(np.int32), board.anti.astype(np.int32)
    free_rows = board.free_rows if instance.fixed else np.arange(n, dtype=np.int32)
    conflicted = np.empty(max(board.free_count, 1), dtype=np.int32)
    in_list = np.zeros(n, dtype=np.uint8)
    board.state[LIST_SIZE] = 0

    def kernel(kseed: int, units: int) -> bool:
        return bool(min_conflicts_chunk(board.perm, board.diag, board.anti, free_rows,
                                        conflicted, in_list, board.state, params.samples,
                                        params.noise, kseed, units))

    return run_chunks(budgeted(kernel, board.rng, board.state, EVALUATIONS, params.budget,
                               REPAIR_CHUNK), deadline, progress=board.progress)


def _search(
    instance: Instance, *, seed: int | None, deadline: Deadline, params: _Params,
    on_progress: ProgressCallback | None = None,
) -> tuple[np.ndarray | None, dict[str, object]]:
    n = instance.n
    start = time.perf_counter()
    stats: dict[str, object] = {}
    if fixed_queens_clash(instance):
        stats.update(wall_time=time.perf_counter() - start, termination=Termination.INFEASIBLE)
        return None, stats
    board = _start(instance, make_rng(seed))
    board.progress = chunk_progress(METHOD, on_progress,
                                    lambda: (None, None, int(board.state[CONFLICTS])))
    termination, diag_bits, anti_bits, reached = _greedy(instance, board, params, deadline)
    greedy_time = time.perf_counter() - start
    state = board.state
    stats["greedy_rows"] = reached - int(state[LIST_SIZE])
    stats["deferred_rows"] = int(state[LIST_SIZE])
    passes = 0
    if termination is PHASE_DONE:  # a stopped greedy needs no repair rows nor counters
        tail_rows = (board.free_rows[reached:] if instance.fixed
                     else np.arange(reached, n, dtype=np.int32))
        repair_rows = np.concatenate([board.deferred[: state[LIST_SIZE]], tail_rows])
        state[LIST_SIZE] = 0
        _counters(n, board, diag_bits, anti_bits, repair_rows, params.small_from)
        del diag_bits, anti_bits
        termination, passes = _strict_repair(board, repair_rows, params, deadline)
    stats["strict_passes"] = passes
    if termination is PHASE_DONE and state[CONFLICTS] > 0:
        stats["fallback"] = True
        termination = _fallback(instance, board, params, deadline)
    solved = int(state[CONFLICTS]) == 0 and termination is Termination.SOLUTION_FOUND
    stats.update(
        wall_time=time.perf_counter() - start,
        greedy_time=greedy_time,
        termination=termination,
        evaluations=int(state[EVALUATIONS]),
        iterations=int(state[ITERATIONS]),
        improvements=int(state[IMPROVEMENTS]),
        noise_steps=int(state[RESTARTS]),
        conflicts=int(state[CONFLICTS]) if board.diag.size else None,
        counter_dtype=str(board.diag.dtype),
    )
    return board.perm if solved else None, stats


def solve_minconflicts(
    instance: Instance,
    *,
    seed: int | None = None,
    time_limit: float | Deadline | None = None,
    on_progress: ProgressCallback | None = None,
    **params: Any,
) -> Result:
    """QS4-style greedy placement plus min-conflicts repair; see the module docstring.

    ``params`` are those of :func:`minconflicts_placement` (an unknown one is a
    TypeError), with their defaults: ``max_evaluations`` (64·n + 10^7) candidate checks in
    all; ``tail`` (64) rows left to the repair; ``greedy_attempts`` (256) column draws per
    greedy row; ``window`` (65536) pool slots the first 64 draws of a row look at;
    ``repair_tries`` (4096) partners per tail queen and pass; ``samples`` (16)
    partners per min-conflicts step; ``noise`` (0.05) probability of an uphill step.
    """
    perm, stats = minconflicts_placement(instance, seed=seed, time_limit=time_limit,
                                         on_progress=on_progress, **params)
    return _to_result(instance, perm, stats, seed)


def _to_result(
    instance: Instance, perm: np.ndarray | None, stats: dict[str, object], seed: int | None
) -> Result:
    compile_time = float(stats["compile_time"])  # type: ignore[arg-type]
    wall = float(stats["wall_time"])  # type: ignore[arg-type]
    termination = Termination(str(stats["termination"]))
    if termination is Termination.INFEASIBLE:
        return heuristic_result(
            instance, METHOD, None, wall_time=wall, seed=seed,
            termination=termination, compile_time=compile_time,
        ).with_(message="two fixed queens attack each other")
    extra = {k: v for k, v in stats.items()
             if k not in ("compile_time", "wall_time", "termination", "evaluations",
                          "iterations", "improvements", "conflicts")}
    return heuristic_result(
        instance, METHOD, perm, wall_time=wall, seed=seed, termination=termination,
        evaluations=int(stats["evaluations"]),  # type: ignore[call-overload]
        iterations=int(stats["iterations"]),  # type: ignore[call-overload]
        improvements=int(stats["improvements"]),  # type: ignore[call-overload]
        compile_time=compile_time,
        best_conflicts=(None if stats["conflicts"] is None
                        else int(stats["conflicts"])),  # type: ignore[call-overload]
        extra=extra,
    )


def warm_up(like: Instance | None = None) -> None:
    """Compile (or load from numba's cache) every kernel on tiny boards: with and without
    fixed queens, int32 and uint8 counters, and the min-conflicts fallback (n = 8).
    ``like``: only the counters a board of its size uses (uint8 from
    ``SMALL_COUNTERS_FROM`` queens on, int32 always)."""
    small = like is None or like.n >= SMALL_COUNTERS_FROM
    for instance, small_from in ((make_instance(12, fixed={0: 1}), SMALL_COUNTERS_FROM),
                                 *([(make_instance(12), 1)] if small else []),
                                 (make_instance(8), SMALL_COUNTERS_FROM),
                                 (make_instance(8, fixed={0: 1}), SMALL_COUNTERS_FROM)):
        _search(instance, seed=0, deadline=Deadline(None),
                params=_Params(budget=10_000, tail=4, greedy_attempts=64, window=4,
                               repair_tries=16, samples=4, noise=0.1, small_from=small_from))
