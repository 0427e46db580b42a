"""Min-conflicts swaps on the heaviest squares: dense weights where the bound is in reach.

For a dense weight matrix, only the squares worth at least ``t`` are allowed, ``t``
starting at the largest weight. A permutation on allowed squares is a perfect matching of
rows to columns in the allowed squares (Hopcroft-Karp, scipy); it has no column conflict,
and min-conflicts swaps repair its diagonals while keeping every queen on an allowed
square: pick an attacked row ``i``, draw rows ``k`` allowed in column ``p[i]`` (the
column's list) for which ``(i, p[k])`` is allowed too, and make the swap that removes the
most attacking pairs (sideways allowed, a random allowed swap with probability
``noise``). A board with no attack is worth at least ``t · n``, and with every queen on
its row's largest weight it reaches the bound ``Σ row maxima``: optimal. When the matching
is not perfect, or a stage stalls, ``t`` drops to the next weight.

Why: with random weights 1..9 a placement on 9s alone almost surely exists from n ≈ 70,
which permutation searches over all squares do not find: the GA reached 147,566 at
n = 20,000 in 120 s (bound 180,000; docs/anytime.md). Moves are O(1) with the diagonal
counters; memory is the allowed squares in CSR and CSC form (int32, about 2 · n²/9
entries for weights 1..9) beside the weights.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from nqmip.budget import Deadline
from nqmip.chunks import run_chunks, stopped
from nqmip.heuristics.common import (
    Bound,
    checked,
    chunk_progress,
    heuristic_result,
    kernel_seed,
    make_rng,
    stop_clock,
    timed_compile,
)
from nqmip.heuristics.exhaustive import heaviest_squares
from nqmip.heuristics.kernels import apply_swap, queen_conflicts, swap_delta
from nqmip.heuristics.localsearch import counters_for
from nqmip.instance import Instance, make_instance
from nqmip.numba_cache import njit
from nqmip.progress import ProgressCallback
from nqmip.result import Result, Termination

METHOD = "topsquares"
CHUNK = 1 << 15  # moves per kernel call between clock checks

# int64 state slots
TOTAL = 0  # attacking pairs now
MOVES = 1
EVALS = 2
SLOTS = 3


@njit(cache=True, nogil=True)
def _allowed_at(indptr: np.ndarray, indices: np.ndarray, row: int, col: int) -> bool:
    """Is ``col`` in the sorted list of ``row``? (binary search)"""
    lo = indptr[row]
    hi = indptr[row + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        v = indices[mid]
        if v == col:
            return True
        if v < col:
            lo = mid + 1
        else:
            hi = mid
    return False


@njit(cache=True, nogil=True)
def topsquares_chunk(perm: np.ndarray, diag: np.ndarray, anti: np.ndarray,
                     movable: np.ndarray, row_ptr: np.ndarray, row_cols: np.ndarray,
                     col_ptr: np.ndarray, col_rows: np.ndarray, attacked: np.ndarray,
                     samples: int, noise: float, state: np.ndarray, seed: int,
                     budget: int) -> bool:
    """At most ``budget`` repair moves; True when no queen is attacked."""
    np.random.seed(seed)
    n = perm.size
    size = 0
    stop = state[MOVES] + budget
    while state[MOVES] < stop:
        if state[TOTAL] == 0:
            return True
        if size == 0:
            for row in range(n):
                if movable[row] and queen_conflicts(perm, diag, anti, row) > 0:
                    attacked[size] = row
                    size += 1
            if size == 0:
                return False  # only fixed queens are attacked
        slot = np.random.randint(0, size)
        i = attacked[slot]
        if queen_conflicts(perm, diag, anti, i) == 0:
            attacked[slot] = attacked[size - 1]
            size -= 1
            continue
        col = perm[i]
        lo = col_ptr[col]
        count = col_ptr[col + 1] - lo
        best_k = -1
        best = 1 << 40
        ties = 0
        random_move = np.random.random() < noise
        for _ in range(samples):
            k = col_rows[lo + np.random.randint(0, count)]
            if k == i or not movable[k]:
                continue
            if not _allowed_at(row_ptr, row_cols, i, perm[k]):
                continue
            delta = swap_delta(perm, diag, anti, i, k)
            state[EVALS] += 1
            if random_move:
                best_k, best = k, delta
                break
            if delta < best:
                best_k, best, ties = k, delta, 1
            elif delta == best:
                ties += 1
                if np.random.randint(0, ties) == 0:
                    best_k = k
        state[MOVES] += 1
        if best_k < 0 or (best > 0 and not random_move):
            continue
        apply_swap(perm, diag, anti, i, best_k)
        state[TOTAL] += best
    return state[TOTAL] == 0


def _allowed(weights: np.ndarray, threshold: float, fixed: dict[int, int],
             stop: Callable[[], bool] | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """CSR (``indptr``, sorted ``indices``) of the squares worth at least ``threshold``; a
    fixed row holds its own square only. Built a block of rows at a time (no n x n boolean
    array is held); None when ``stop()`` turns true between blocks (0.5 s in all at
    n = 10^4, a limit is not overrun by that much)."""
    n = weights.shape[0]
    counts = np.zeros(n, dtype=np.int64)
    chunks = []
    block = max(1, (1 << 22) // max(n, 1))
    for lo in range(0, n, block):
        if stop is not None and stop():
            return None
        hi = min(lo + block, n)
        allowed = weights[lo:hi] >= threshold
        for row, col in fixed.items():
            if lo <= row < hi:
                allowed[row - lo] = False
                allowed[row - lo, col] = True
        rows, cols = np.nonzero(allowed)
        counts[lo:hi] = np.bincount(rows, minlength=hi - lo)
        chunks.append(cols.astype(np.int32))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    indices = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int32)
    return indptr, indices


def _levels_down(weights: np.ndarray, stop: Callable[[], bool]) -> Iterator[float]:
    """The distinct weights from the largest down, each found when asked: the largest below
    the last, a block of rows at a time (no copy of the matrix), ending early when
    ``stop()`` turns true between blocks (0.15 s a level at n = 10^4). Sorting every
    distinct weight first took 1.77 s at random n = 10^4, where the top weight alone is
    needed."""
    n = weights.shape[0]
    block = max(1, (1 << 22) // max(n, 1))
    threshold = np.inf
    while True:
        below = -np.inf
        for lo in range(0, n, block):
            if stop():
                return
            part = weights[lo : lo + block]
            part = part[part < threshold]
            if part.size:
                below = max(below, float(part.max()))
        if below == -np.inf:
            return
        threshold = below
        yield threshold


def _matching(n: int, indptr: np.ndarray, indices: np.ndarray) -> np.ndarray | None:
    """A perfect matching of rows to columns on the allowed squares, or None."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    graph = csr_matrix((np.ones(indices.size, dtype=np.int8), indices, indptr), shape=(n, n))
    match = maximum_bipartite_matching(graph, perm_type="column")
    if np.any(match < 0):
        return None
    return match.astype(np.int32)


#: A weight level's moves before the threshold drops (``stage_moves``'s default): this
#: many per queen, plus ``STAGE_MOVES``. The constant was 10^6: every level with no
#: placement on its squares (most of them below n ~ 1000) spent 10^6 moves, 1-8 s,
#: random n = 10, 20, 50 took 13-18 s and n = 3 (no placement at all) 17-55 s; a level
#: that has one was solved in 13 to 66,443 moves (n = 10 to 1000; 22,256 at n = 1000).
STAGE_MOVES_PER_QUEEN = 100
STAGE_MOVES = 10**5

#: The top-squares search's own numeric parameters (checked here and before a run).
BOUNDS: dict[str, Bound] = {
    "samples": Bound(1), "noise": Bound(0.0, 1.0, whole=False), "stage_moves": Bound(1)}


def solve_topsquares(
    instance: Instance,
    *,
    seed: int | None = None,
    time_limit: float | Deadline | None = None,
    samples: int = 64,
    noise: float = 0.01,
    stage_moves: int | None = None,
    on_progress: ProgressCallback | None = None,
) -> Result:
    """Min-conflicts swaps on the heaviest squares; see the module docstring.

    Parameters (defaults): ``samples`` (64) partner rows drawn per move; ``noise`` (0.01)
    probability of a random allowed swap; ``stage_moves``
    (``STAGE_MOVES_PER_QUEEN``·n + ``STAGE_MOVES``) moves before the threshold drops to the
    next weight. On a small board (:mod:`nqmip.heuristics.exhaustive`) every placement is
    looked at instead: the answer is the best placement at the highest level that has one
    (what the levels' search looks for), at once. Needs a dense weight matrix (random or
    given weights): for colour weights use ``sa`` or ``quota``, for feasibility
    ``minconflicts``.
    ``on_progress`` hears the attacking pairs left at the current weight between chunks.
    """
    start = time.perf_counter()
    clock = stop_clock(time_limit)  # one clock: the compile counts
    samples = checked(BOUNDS, "samples", samples)
    noise = checked(BOUNDS, "noise", noise)
    n = instance.n
    if stage_moves is None:
        stage_moves = STAGE_MOVES_PER_QUEEN * n + STAGE_MOVES
    stage_moves = checked(BOUNDS, "stage_moves", stage_moves)
    if instance.dense is None:
        raise ValueError("topsquares needs a dense weight matrix (random or given weights): "
                         "use sa or quota for colour weights and minconflicts for feasibility")
    compile_time = timed_compile(warm_up)
    rng = make_rng(seed)
    movable = np.ones(n, dtype=np.bool_)
    for row in instance.fixed_map:
        movable[row] = False
    termination = Termination.ITERATION_LIMIT
    found: np.ndarray | None = None
    stages: list[dict[str, Any]] = []
    listed = heaviest_squares(instance, clock)  # a small board: its levels are known
    if listed is not None:
        termination, found = Termination.SOLUTION_FOUND, listed[1].astype(np.int32)
        stages.append({"threshold": listed[0], "result": "every placement looked at"})
    levels = () if listed is not None else _levels_down(
        instance.dense, lambda: stopped(clock) is not None)
    for threshold in levels:
        termination, found = _level(instance, float(threshold), movable, stages, rng, clock,
                                    samples, noise, stage_moves, on_progress)
        if termination is not Termination.ITERATION_LIMIT:
            break
    else:  # every weight tried, or the deadline came while the next was looked for
        termination = stopped(clock) or termination
    return heuristic_result(
        instance, METHOD, found, wall_time=time.perf_counter() - start, seed=seed,
        termination=termination, compile_time=compile_time,
        iterations=sum(int(s.get("moves", 0)) for s in stages),
        extra={"samples": samples, "noise": noise, "stage_moves": stage_moves,
               "stages": stages},
    )


def _level(instance: Instance, threshold: float, movable: np.ndarray,
           stages: list[dict[str, Any]], rng: np.random.Generator, clock: Deadline,
           samples: int, noise: float, stage_moves: int,
           on_progress: ProgressCallback | None = None,
           ) -> tuple[Termination, np.ndarray | None]:
    """The search on the squares worth at least ``threshold``: ``solution_found`` with the
    placement, ``iteration_limit`` (go on to the next weight), or the deadline's reason."""
    n = instance.n
    weights = instance.dense
    assert weights is not None
    fixed = instance.fixed_map

    def out_of_time() -> bool:
        return stopped(clock) is not None

    if out_of_time():
        return stopped(clock) or Termination.TIME_LIMIT, None
    # the setup steps are O(n^2) each (0.5 s at n = 10^4): the clock is read between
    # them and between the blocks of rows they go through
    rows = _allowed(weights, threshold, fixed, out_of_time)
    if rows is None or out_of_time():
        return stopped(clock) or Termination.TIME_LIMIT, None
    row_ptr, row_cols = rows
    perm = _matching(n, row_ptr, row_cols) if np.all(np.diff(row_ptr) > 0) else None
    if perm is None:
        stages.append({"threshold": threshold, "result": "no perfect matching"})
        return Termination.ITERATION_LIMIT, None
    # columns' lists of allowed rows (CSC, from the transpose's view: no copy), for drawing
    # swap partners; a fixed queen's column lists its row alone (the clock is read before
    # its first block)
    cols = _allowed(weights.T, threshold, {col: row for row, col in fixed.items()},
                    out_of_time)
    if cols is None:
        return stopped(clock) or Termination.TIME_LIMIT, None
    col_ptr, col_rows = cols
    diag, anti = counters_for(perm, np.int64)
    state = np.zeros(SLOTS, dtype=np.int64)
    state[TOTAL] = int(((diag * (diag - 1)) // 2).sum() + ((anti * (anti - 1)) // 2).sum())
    attacked = np.empty(n, dtype=np.int64)

    def chunk() -> Termination | None:
        if state[MOVES] >= stage_moves:
            return Termination.ITERATION_LIMIT
        if topsquares_chunk(perm, diag, anti, movable, row_ptr, row_cols, col_ptr, col_rows,
                            attacked, samples, noise, state, kernel_seed(rng), CHUNK):
            return Termination.SOLUTION_FOUND
        return None

    report = chunk_progress(METHOD, on_progress, lambda: (None, None, int(state[TOTAL])))
    termination = (Termination.SOLUTION_FOUND if state[TOTAL] == 0
                   else run_chunks(chunk, clock, progress=report))
    solved = termination is Termination.SOLUTION_FOUND
    stages.append({"threshold": threshold, "moves": int(state[MOVES]),
                   "attacking_pairs": int(state[TOTAL]), "solved": solved})
    return termination, perm if solved else None


def warm_up() -> None:
    """Compile (or load from the cache) the kernel on a tiny board."""
    n = 6
    instance = make_instance(n, "random", weights_seed=0)
    allowed = _allowed(instance.weight_matrix(), 1.0, {})
    assert allowed is not None
    row_ptr, row_cols = allowed
    perm = np.arange(n, dtype=np.int32)
    diag, anti = counters_for(perm, np.int64)
    state = np.zeros(SLOTS, dtype=np.int64)
    state[TOTAL] = 1
    topsquares_chunk(perm, diag, anti, np.ones(n, dtype=np.bool_), row_ptr, row_cols,
                     row_ptr, row_cols, np.empty(n, dtype=np.int64), 4, 0.1, state, 1, 50)
