"""Large-neighbourhood search: windows of rows re-optimised exactly, on conflict-free boards.

The board is always a solution. Each step frees the queens of ``window`` rows and puts them
back on the columns they held, by a depth-first branch and bound that finds the heaviest
reassignment: every square of the window must be clear of the other queens' diagonals and
of the window's own, and a branch is cut when its weight plus each remaining row's heaviest
clear square cannot beat the best so far. The window's rows are drawn so that a better
square becomes reachable: a queen below its row's top weight, a heavier column of its row,
and the queens that block that square (its column's queen and the queens on its two
diagonals, found through per-diagonal row indices); the rest of the window is uniform.
A reassignment as heavy as the old one is taken too (sideways), so the board drifts along
plateaus; a lighter one never is, so the weight never drops. Each step is O(window²) to set
up plus the nodes of its search (at most ``node_limit``).

Why: the annealing's two-queen swaps stall a few units below the optimum where a gain
needs several queens to move at once (random 1..9 weights, n = 100: 889-890 in 20 s, while
placements using only 9s exist, 900; docs/anytime.md).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from nqmip.budget import Deadline
from nqmip.chunks import run_chunks, stopped
from nqmip.heuristics.common import (
    Bound,
    KnownBound,
    ParameterError,
    checked,
    checked_start,
    chunk_progress,
    heuristic_result,
    kernel_seed,
    make_rng,
    stop_clock,
    timed_compile,
)
from nqmip.heuristics.kernels import copy_into
from nqmip.heuristics.localsearch import counters_for
from nqmip.heuristics.minconflicts import minconflicts_placement
from nqmip.heuristics.minconflicts import warm_up as minconflicts_warm_up
from nqmip.instance import Instance, make_instance
from nqmip.numba_cache import njit
from nqmip.numba_consts import INT0
from nqmip.progress import ProgressCallback
from nqmip.result import Result, Termination

METHOD = "lns"
NODES_PER_CALL = 1_000_000  # search nodes per kernel call at most, between clock checks
#: The window grows by one row after a kernel call in which fewer than CUT_RATE[0] of the
#: searches hit the node limit, and shrinks by one above CUT_RATE[1] (random 1..9, n = 100,
#: 20 s, node limit 20,000: windows of 20 and 24 rows end 892-898, 28 rows 786-788, as
#: nearly every search is cut).
START_WINDOW = 12
CUT_RATE = (0.01, 0.05)
TARGET_DRAWS = 16
#: Without a time limit or ``max_steps`` the run ends ``PATIENCE_NODES`` search nodes after
#: its last gain, or at ``NODE_CAP`` nodes in all (about 1.5-4 M nodes a second). The
#: former default, 200·n + 10^4 windows of up to 20,000 nodes each, ran random n = 13
#: 103-110 s (12,600 windows; the optimum held after 50 of them) and n = 100 for some
#: 25 min, where sa, tabu, ga and minconflicts end in 0.01-4.4 s at n = 13-300.
PATIENCE_NODES = 4_000_000
NODE_CAP = 16_000_000


# int64 state slots
STEPS_DONE = 0
IMPROVED = 1
SIDEWAYS = 2
NODES = 3
CUT = 4  # searches stopped at the node limit
SLOTS = 5


@njit(cache=True, nogil=True)
def _add(perm: np.ndarray, diag: np.ndarray, anti: np.ndarray, diag_row: np.ndarray,
         anti_row: np.ndarray, inv: np.ndarray, row: int, col: int) -> None:
    n = perm.size
    perm[row] = col
    inv[col] = row
    diag[row - col + n - 1] += 1
    anti[row + col] += 1
    diag_row[row - col + n - 1] = row
    anti_row[row + col] = row


@njit(cache=True, nogil=True)
def _remove(perm: np.ndarray, diag: np.ndarray, anti: np.ndarray, diag_row: np.ndarray,
            anti_row: np.ndarray, row: int) -> None:
    n = perm.size
    col = perm[row]
    diag[row - col + n - 1] -= 1
    anti[row + col] -= 1
    diag_row[row - col + n - 1] = -1
    anti_row[row + col] = -1


@njit(cache=True, nogil=True)
def _take(row: int, movable: np.ndarray, chosen: np.ndarray, window: np.ndarray,
          size: int) -> int:
    """Add ``row`` to the window if it can move and is not in it yet; the new size."""
    if row >= 0 and movable[row] and not chosen[row] and size < window.size:
        chosen[row] = True
        window[size] = row
        size += 1
    return size


@njit(cache=True, nogil=True)
def lns_chunk(perm: np.ndarray, inv: np.ndarray, diag: np.ndarray, anti: np.ndarray,
              diag_row: np.ndarray, anti_row: np.ndarray, movable: np.ndarray,
              free_rows: np.ndarray, weights: np.ndarray, row_top: np.ndarray,
              window_size: int, node_limit: int, state: np.ndarray, fstate: np.ndarray,
              bound: float, seed: int, steps: int) -> bool:
    """At most ``steps`` window steps; True when the board weighs the bound."""
    np.random.seed(seed)
    n = perm.size
    nfree = free_rows.size
    k = min(window_size, nfree)
    window = np.empty(k, np.int64)
    chosen = np.zeros(n, np.bool_)
    cols = np.empty(k, np.int64)
    order = np.empty(k, np.int64)
    ok = np.zeros((k, k), np.bool_)
    top = np.empty(k, np.float64)
    suffix = np.empty(k + 1, np.float64)
    pick = np.full(k, -1, np.int64)  # column index per depth, in the search
    start = np.empty(k, np.int64)
    tried = np.empty(k, np.int64)
    used = np.zeros(k, np.bool_)
    best = np.empty(k, np.int64)
    value = np.zeros(k + 1, np.float64)
    for _ in range(steps):
        if fstate[0] >= bound - 1e-9 or k < 2:
            return fstate[0] >= bound - 1e-9
        state[STEPS_DONE] += 1
        # --- the window: a targeted part, then uniform rows ---
        size = INT0  # not a literal 0: numba would compile _take for it too
        attempts = 0
        while size < k // 2 and attempts < 4:
            attempts += 1
            row = free_rows[np.random.randint(0, nfree)]
            for _d in range(TARGET_DRAWS):
                if weights[row, perm[row]] < row_top[row]:
                    break
                row = free_rows[np.random.randint(0, nfree)]
            here = weights[row, perm[row]]
            col = -1
            for _d in range(TARGET_DRAWS):
                c = np.random.randint(0, n)
                if weights[row, c] > here and movable[inv[c]]:
                    col = c
                    break
            size = _take(row, movable, chosen, window, size)
            if col >= 0:
                size = _take(inv[col], movable, chosen, window, size)
                size = _take(diag_row[row - col + n - 1], movable, chosen, window, size)
                size = _take(anti_row[row + col], movable, chosen, window, size)
        while size < k:
            size = _take(free_rows[np.random.randint(0, nfree)], movable, chosen, window, size)
        # --- free the window ---
        old = 0.0
        for a in range(k):
            r = window[a]
            cols[a] = perm[r]
            old += weights[r, perm[r]]
            _remove(perm, diag, anti, diag_row, anti_row, r)
        # squares clear of the other queens; rows ordered by fewest clear squares
        counts = np.zeros(k, np.int64)
        for a in range(k):
            r = window[a]
            top[a] = -1e300
            for b in range(k):
                c = cols[b]
                clear = diag[r - c + n - 1] == 0 and anti[r + c] == 0
                ok[a, b] = clear
                if clear:
                    counts[a] += 1
                    if weights[r, c] > top[a]:
                        top[a] = weights[r, c]
        copy_into(order, np.argsort(counts, kind="mergesort"))
        suffix[k] = 0.0
        for t in range(k - 1, -1, -1):
            suffix[t] = suffix[t + 1] + top[order[t]]
        # --- branch and bound over the window's rows in that order ---
        target = old - 1e-9  # at least as heavy as before (sideways allowed)
        found = False
        cut = False
        nodes = 0
        depth = 0
        used[:] = False
        start[0] = np.random.randint(0, k)
        tried[0] = 0
        pick[0] = -1
        value[0] = 0.0
        if suffix[0] < target:
            depth = -1  # nothing can be as heavy: the old assignment stays
        while depth >= 0:
            a = order[depth]
            r = window[a]
            if pick[depth] >= 0:  # undo this depth's queen
                c = cols[pick[depth]]
                diag[r - c + n - 1] -= 1
                anti[r + c] -= 1
                used[pick[depth]] = False
                pick[depth] = -1
            if nodes >= node_limit:
                cut = True
                depth -= 1
                continue
            advanced = False
            while tried[depth] < k:
                b = (start[depth] + tried[depth]) % k
                tried[depth] += 1
                if used[b] or not ok[a, b]:
                    continue
                c = cols[b]
                if diag[r - c + n - 1] != 0 or anti[r + c] != 0:
                    continue
                v = value[depth] + weights[r, c]
                if v + suffix[depth + 1] <= target:
                    continue
                nodes += 1
                used[b] = True
                pick[depth] = b
                diag[r - c + n - 1] += 1
                anti[r + c] += 1
                if depth == k - 1:  # a full reassignment: keep it, look for heavier
                    target = v
                    found = True
                    for t in range(k):
                        best[t] = pick[t]
                    diag[r - c + n - 1] -= 1
                    anti[r + c] -= 1
                    used[b] = False
                    pick[depth] = -1
                    continue
                value[depth + 1] = v
                depth += 1
                start[depth] = np.random.randint(0, k)
                tried[depth] = 0
                pick[depth] = -1
                advanced = True
                break
            if not advanced:
                depth -= 1
        state[NODES] += nodes
        state[CUT] += cut
        # --- put the window back: the best reassignment, or the old one ---
        if found:
            if target > old + 1e-9:
                state[IMPROVED] += 1
            else:
                state[SIDEWAYS] += 1
            fstate[0] += target - old
            for t in range(k):
                _add(perm, diag, anti, diag_row, anti_row, inv, window[order[t]], cols[best[t]])
        else:
            for a in range(k):
                _add(perm, diag, anti, diag_row, anti_row, inv, window[a], cols[a])
        for a in range(k):
            chosen[window[a]] = False
    return fstate[0] >= bound - 1e-9


def long_run_steps(n: int) -> int:
    """The step cap without a time limit (200·n + 10^4 windows): the whole run where the
    caller gives it as ``max_steps`` (auto's second search: :mod:`nqmip.auto.plans`)."""
    return 200 * n + 10**4


#: The large-neighbourhood search's own numeric parameters (checked here and before a run).
BOUNDS: dict[str, Bound] = {"window": Bound(2), "node_limit": Bound(1), "max_steps": Bound(1)}


def solve_lns(
    instance: Instance,
    *,
    seed: int | None = None,
    time_limit: float | Deadline | None = None,
    window: int | None = None,
    node_limit: int = 20_000,
    max_steps: int | None = None,
    start: np.ndarray | None = None,
    on_progress: ProgressCallback | None = None,
) -> Result:
    """Large-neighbourhood search; see the module docstring.

    Parameters (defaults): ``window`` rows re-optimised per step (by default it starts at
    ``START_WINDOW`` and adapts: see ``CUT_RATE``); ``node_limit``
    (20,000) nodes per step's search; ``max_steps`` (with a time limit none; without one
    200·n + 10^4, and the run ends ``PATIENCE_NODES`` nodes after its last gain or at
    ``NODE_CAP`` nodes: a caller wanting the long run gives ``max_steps``); ``start``: a
    conflict-free placement keeping the fixed queens (e.g. another search's best), else a
    min-conflicts solution. ``on_progress`` hears its weight between chunks.
    """
    begin = time.perf_counter()
    clock = stop_clock(time_limit)  # one clock: the compile counts
    if instance.is_feasibility:
        raise ValueError("lns improves the weight of a solution: use minconflicts for "
                         "feasibility")
    n = instance.n
    if window is not None:
        window = checked(BOUNDS, "window", window)
    node_limit = checked(BOUNDS, "node_limit", node_limit)
    max_steps, patient = _steps(n, max_steps, time_limit)
    compile_time = timed_compile(lambda: warm_up(instance))  # its layout of weights only
    rng = make_rng(seed)
    perm = _start(instance, start, seed, clock)
    if perm is None:
        return heuristic_result(instance, METHOD, None, wall_time=time.perf_counter() - begin,
                                seed=seed, termination=stopped(clock) or Termination.TIME_LIMIT,
                                compile_time=compile_time)
    diag, anti, inv, diag_row, anti_row = _board(perm)
    weights = instance.kernel_weights()
    row_top = _row_tops(instance, weights)
    rows = np.arange(n)
    movable = np.ones(n, np.bool_)
    for r, _c in instance.fixed:
        movable[r] = False
    free_rows = rows[movable].astype(np.int64)
    state = np.zeros(SLOTS, np.int64)
    fstate = np.array([float(instance.objective(perm))])
    # its goal: the row tops' sum, or the heuristics' known bound where lower (a small
    # board's optimum: n = 11, 12 ran 77-87 s holding it; the colour bound, from a thread)
    known = KnownBound(instance, clock)
    row_sum = float(row_top.sum())
    steps = max(1, NODES_PER_CALL // node_limit)
    adapt = window is None
    width = [START_WINDOW if window is None else window]
    sizes: list[int] = []
    whole = [False]  # a window of every free row searched to its end: the optimum
    gained = [0, 0, 0]  # improvements seen; the window and node counts at the last one

    def chunk() -> Termination | None:
        stalled = _stalled(state, gained)  # and the last gain noted, for the answer
        if state[STEPS_DONE] >= max_steps or (patient and stalled):
            return Termination.ITERATION_LIMIT
        done, cut = int(state[STEPS_DONE]), int(state[CUT])
        every_row = width[0] >= free_rows.size
        if lns_chunk(perm, inv, diag, anti, diag_row, anti_row, movable, free_rows,
                     weights, row_top, width[0], node_limit, state, fstate,
                     min(row_sum, known.get()[0]), kernel_seed(rng),
                     int(min(steps, max_steps - state[STEPS_DONE]))):
            return Termination.OPTIMAL
        if every_row and int(state[CUT]) == cut and int(state[STEPS_DONE]) > done:
            # nothing left to gain: the search over every free row ended within its node
            # limit (random n = 13 ran its 12,600 windows, 103 s, without a limit)
            whole[0] = True
            return Termination.OPTIMAL
        if adapt:
            # The largest window whose searches still end within the node limit.
            rate = (int(state[CUT]) - cut) / max(1, int(state[STEPS_DONE]) - done)
            if rate < CUT_RATE[0]:
                width[0] = min(width[0] + 1, free_rows.size)
            elif rate > CUT_RATE[1]:
                width[0] = max(2, width[0] - 1)
            sizes.append(width[0])
        return None

    outcome = run_chunks(chunk, clock, progress=chunk_progress(
        METHOD, on_progress, lambda: (float(fstate[0]), min(row_sum, known.get()[0]), None),
        best=lambda: perm))
    size = width[0]
    return heuristic_result(
        instance, METHOD, perm.astype(np.int32), wall_time=time.perf_counter() - begin,
        seed=seed, termination=outcome, compile_time=compile_time,
        bound=(float(instance.objective(perm)), "exhaustive") if whole[0]
        else known.final(clock),
        iterations=int(state[STEPS_DONE]), improvements=int(state[IMPROVED]),
        extra={"window": size, "window_median": int(np.median(sizes)) if sizes else size,
               "node_limit": node_limit, "sideways": int(state[SIDEWAYS]),
               "last_gain_window": gained[1],
               "nodes": int(state[NODES]), "cut_searches": int(state[CUT])},
    )


def _steps(n: int, max_steps: int | None,
           time_limit: float | Deadline | None) -> tuple[int, bool]:
    """The step cap (checked), and whether the run ends on its own once it stalls
    (``PATIENCE_NODES``, ``NODE_CAP``): without a time limit or ``max_steps`` only."""
    limited = (time_limit.limited if isinstance(time_limit, Deadline)
               else time_limit is not None)
    steps = checked(BOUNDS, "max_steps", max_steps if max_steps is not None
                    else (2**62 if limited else long_run_steps(n)))
    return steps, not limited and max_steps is None


def _stalled(state: np.ndarray, gained: list[int]) -> bool:
    """Whether ``PATIENCE_NODES`` nodes passed since the last gain, or ``NODE_CAP`` in all;
    ``gained`` (improvements, window and nodes at the last gain) is brought up to date."""
    if int(state[IMPROVED]) > gained[0]:
        gained[:] = [int(state[IMPROVED]), int(state[STEPS_DONE]), int(state[NODES])]
    return bool(state[NODES] - gained[2] >= PATIENCE_NODES or state[NODES] >= NODE_CAP)


def _start(instance: Instance, start: np.ndarray | None, seed: int | None,
           clock: Deadline) -> np.ndarray | None:
    """The caller's conflict-free ``start`` (checked), else a min-conflicts solution within
    half of the time left (None if it found none)."""
    if start is not None:
        perm = checked_start(instance, start)
    else:
        found, _ = minconflicts_placement(instance, seed=seed, time_limit=clock.sub(share=0.5))
        if found is None:
            return None
        perm = found.astype(np.int64)
    diag, anti = counters_for(perm, np.int64)
    if diag.max(initial=0) > 1 or anti.max(initial=0) > 1:
        raise ParameterError("start must be conflict-free")
    return perm


def _row_tops(instance: Instance, weights: np.ndarray) -> np.ndarray:
    """Each row's heaviest square among the columns it may take (fixed rows: their queen),
    from the kernel's ``weights`` (``instance.kernel_weights()``)."""
    n = instance.n
    if instance.colours is not None:
        tops = np.full(n, float(max(instance.colours.black, instance.colours.white)))
    else:
        tops = weights.max(axis=1).astype(np.float64)
    for r, c in instance.fixed:
        tops[r] = float(weights[r, c])
    return tops


def warm_up(like: Instance | None = None) -> None:
    """Compile (or load from the cache) the kernel, and the start's, on tiny boards: one per
    layout of the weights (a dense matrix, the strided view of colour weights; ``like``:
    only that instance's)."""
    minconflicts_warm_up(like)
    if like is None or like.colours is None:
        _run_tiny(make_instance(8, np.arange(64, dtype=np.float64).reshape(8, 8) % 5))
    if like is None or like.colours is not None:
        _run_tiny(make_instance(8, "chess"))


def _board(perm: np.ndarray) -> tuple[np.ndarray, ...]:
    """The kernel's view of a placement: diagonal counters, the row of each column, and
    the row on each diagonal (-1 where none; meaningful on conflict-free boards)."""
    n = perm.size
    diag, anti = counters_for(perm, np.int64)
    rows = np.arange(n)
    inv = np.empty(n, np.int64)
    inv[perm] = rows
    diag_row = np.full(2 * n - 1, -1, np.int64)
    anti_row = np.full(2 * n - 1, -1, np.int64)
    diag_row[rows - perm + n - 1] = rows
    anti_row[rows + perm] = rows
    return diag, anti, inv, diag_row, anti_row


def _run_tiny(instance: Instance) -> dict[str, Any]:
    perm = np.array([0, 4, 7, 5, 2, 6, 1, 3], dtype=np.int64)
    n = 8
    diag, anti, inv, diag_row, anti_row = _board(perm)
    rows = np.arange(n)
    state = np.zeros(SLOTS, np.int64)
    fstate = np.array([float(instance.objective(perm))])
    weights = instance.kernel_weights()
    lns_chunk(perm, inv, diag, anti, diag_row, anti_row, np.ones(n, np.bool_),
              rows.astype(np.int64), weights, _row_tops(instance, weights), 4, 50,
              state, fstate, 1e9, 1, 4)
    return {"perm": perm, "weight": fstate[0]}
