"""Colour quota search: weights constant per colour at any size, the count of queens on
the better colour raised two at a time, each board repaired by an annealing over conflicts.

With ``a`` on black squares ((i + j) even) and ``b`` on white, the objective is
``n·b + (a - b)·#black``: the best placement has the most black queens (or the fewest, when
white pays more). The search fixes the count and removes conflicts, then raises the count:

* **the start**: a random permutation with a fixed count (``start_fraction`` of n on the
  better colour: rows and columns split by parity, as in the colour proof), or a
  conflict-free placement passed as ``start``;
* **the repair**: simulated annealing at a fixed temperature over colour-preserving swaps
  (rows of the same parity, or columns of the same parity, keep the count). A conflicted
  row is drawn from a list that holds every attacked queen: a queen landing on a line with
  one queen adds that queen, whose row each line's row sum gives, so the list is exact
  without scans. O(1) per move;
* **the raise**: once the board is conflict-free it is kept as the best, and a batch of
  swaps of two queens on the worse colour (rows of different parity) each turns both to
  the better colour, the pair chosen among ``samples`` drawn as the one adding the fewest
  conflicts. The batch doubles after a repair of one chunk and halves after a long one; a
  repair that fails within ``stage_moves`` goes back to the best board.

Why: the min-conflicts repair this replaced stalled at 1.707 n at chess n = 10^4 (a count
with lines near their capacity); the annealing's uphill moves repair far denser boards
(1.765 n in 60 s, 1.789 n allowed by the colour bound; docs/anytime.md).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from nqmip.budget import Deadline
from nqmip.chunks import run_chunks
from nqmip.heuristics.common import (
    Bound,
    KnownBound,
    Reading,
    checked,
    checked_start,
    chunk_progress,
    heuristic_result,
    kernel_seed,
    make_rng,
    stop_clock,
    timed_compile,
)
from nqmip.heuristics.kernels import apply_swap, queen_conflicts, swap_delta, total_conflicts
from nqmip.heuristics.localsearch import counters_for
from nqmip.instance import Instance
from nqmip.numba_cache import njit
from nqmip.progress import ProgressCallback
from nqmip.result import Result, Termination

METHOD = "quota"
CHUNK = 1 << 14

# Slots of the int64 state array the kernels share with the driver.
TOTAL = 0  # attacking pairs on the board
MOVES = 1  # annealing moves tried
EVALS = 2  # swap deltas computed
GOOD = 3  # queens on the better colour
LISTED = 4  # entries in the attacked-row list
SLOTS = 5


def count_permutation(n: int, black: int, fixed: tuple[tuple[int, int], ...],
                      rng: np.random.Generator) -> np.ndarray | None:
    """A random permutation with exactly ``black`` black queens keeping ``fixed``, or None.

    Rows and columns split by parity into R0, R1, C0, C1; the number of rows of R0 sent to
    C0 fixes every other class count, and #black = #(R0->C0) + #(R1->C1)."""
    p = np.full(n, -1, dtype=np.int64)
    used = np.zeros(n, dtype=bool)
    black_fixed = 0
    for r, c in fixed:
        p[r] = c
        used[c] = True
        black_fixed += (r + c) % 2 == 0
    index = np.arange(n)
    free_rows = [index[(p < 0) & (index % 2 == k)] for k in (0, 1)]
    free_cols = [index[(~used) & (index % 2 == k)] for k in (0, 1)]
    r0, r1 = (x.size for x in free_rows)
    c0, c1 = (x.size for x in free_cols)
    need = black - black_fixed
    # x00 + x11 = need, x00 + x01 = r0, x00 + x10 = c0, x10 + x11 = r1.
    twice = need - r1 + c0
    if twice % 2:
        return None
    x00 = twice // 2
    x01, x10 = r0 - x00, c0 - x00
    x11 = r1 - x10
    if min(x00, x01, x10, x11) < 0 or x01 > c1 or x11 > c1:
        return None
    rows0, rows1 = (rng.permutation(x) for x in free_rows)
    cols0, cols1 = (rng.permutation(x) for x in free_cols)
    p[rows0[:x00]] = cols0[:x00]
    p[rows0[x00:]] = cols1[:x01]
    p[rows1[:x10]] = cols0[x00:]
    p[rows1[x10:]] = cols1[x01:]
    return p


@njit(cache=True, nogil=True)
def line_rows(perm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sum of the rows of the queens on each diagonal and anti-diagonal: on a line with one
    queen, that queen's row."""
    n = perm.size
    diag_rows = np.zeros(max(2 * n - 1, 1), dtype=np.int64)
    anti_rows = np.zeros(max(2 * n - 1, 1), dtype=np.int64)
    for r in range(n):
        diag_rows[r - perm[r] + n - 1] += r
        anti_rows[r + perm[r]] += r
    return diag_rows, anti_rows


@njit(cache=True, nogil=True)
def list_attacked(perm: np.ndarray, diag: np.ndarray, anti: np.ndarray, free: np.ndarray,
                  attacked: np.ndarray, state: np.ndarray) -> None:
    """Fill the attacked-row list with every attacked queen of the free rows."""
    state[LISTED] = 0
    for idx in range(free.size):
        row = free[idx]
        if queen_conflicts(perm, diag, anti, row) > 0:
            attacked[state[LISTED]] = row
            state[LISTED] += 1


@njit(cache=True, nogil=True)
def _land(counts: np.ndarray, rows: np.ndarray, line: int, row: int, attacked: np.ndarray,
          state: np.ndarray) -> None:
    """Queen ``row`` has landed on ``line`` (counted already): list the queen it attacks
    there if that one was alone."""
    rows[line] += row
    if counts[line] == 2:
        attacked[state[LISTED]] = rows[line] - row
        state[LISTED] += 1


@njit(cache=True, nogil=True)
def _swap(perm: np.ndarray, diag: np.ndarray, anti: np.ndarray, diag_rows: np.ndarray,
          anti_rows: np.ndarray, free: np.ndarray, attacked: np.ndarray,
          state: np.ndarray, i: int, k: int) -> None:
    """Exchange the columns of rows i and k, keeping the counters, the line row sums and
    the attacked-row list (a full list is rebuilt, O(n): the list holds at most 2n + 16
    rows and a rebuild at most n)."""
    n = perm.size
    col_i = perm[i]
    col_k = perm[k]
    diag_rows[i - col_i + n - 1] -= i
    diag_rows[k - col_k + n - 1] -= k
    anti_rows[i + col_i] -= i
    anti_rows[k + col_k] -= k
    apply_swap(perm, diag, anti, i, k)
    if state[LISTED] + 6 > attacked.size:
        list_attacked(perm, diag, anti, free, attacked, state)
    _land(diag, diag_rows, i - col_k + n - 1, i, attacked, state)
    _land(diag, diag_rows, k - col_i + n - 1, k, attacked, state)
    _land(anti, anti_rows, i + col_k, i, attacked, state)
    _land(anti, anti_rows, k + col_i, k, attacked, state)
    for row in (i, k):
        if queen_conflicts(perm, diag, anti, row) > 0:
            attacked[state[LISTED]] = row
            state[LISTED] += 1


@njit(cache=True, nogil=True)
def repair_chunk(perm: np.ndarray, diag: np.ndarray, anti: np.ndarray,
                 diag_rows: np.ndarray, anti_rows: np.ndarray, free: np.ndarray,
                 movable: np.ndarray, attacked: np.ndarray, temperature: float,
                 state: np.ndarray, seed: int, budget: int) -> bool:
    """At most ``budget`` annealing moves over colour-preserving swaps at ``temperature``;
    True when no queen is attacked. ``attacked`` holds every attacked free queen (and
    maybe rows no longer attacked, or fixed: dropped when drawn)."""
    np.random.seed(seed)
    nfree = free.size
    stop = state[MOVES] + budget
    while state[MOVES] < stop:
        if state[TOTAL] == 0:
            return True
        if state[LISTED] == 0:
            return False  # only fixed queens attack each other
        slot = np.random.randint(0, state[LISTED])
        i = attacked[slot]
        if not movable[i] or queen_conflicts(perm, diag, anti, i) == 0:
            state[LISTED] -= 1
            attacked[slot] = attacked[state[LISTED]]
            continue
        k = free[np.random.randint(0, nfree)]
        state[MOVES] += 1
        if k == i or ((i - k) % 2 != 0 and (perm[i] - perm[k]) % 2 != 0):
            continue
        delta = swap_delta(perm, diag, anti, i, k)
        state[EVALS] += 1
        if delta <= 0 or np.random.random() < np.exp(-delta / temperature):
            _swap(perm, diag, anti, diag_rows, anti_rows, free, attacked, state, i, k)
            state[TOTAL] += delta
    return state[TOTAL] == 0


@njit(cache=True, nogil=True)
def raise_pairs(perm: np.ndarray, diag: np.ndarray, anti: np.ndarray, diag_rows: np.ndarray,
                anti_rows: np.ndarray, free: np.ndarray, attacked: np.ndarray, good: int,
                pairs: int, samples: int, state: np.ndarray, seed: int) -> int:
    """Up to ``pairs`` swaps that each turn two queens of the worse colour to the better one
    (parity ``good`` of i + column), each the one adding the fewest conflicts among
    ``samples`` such pairs (drawn among at most 64·samples pairs of rows); returns the
    swaps made."""
    np.random.seed(seed)
    nfree = free.size
    made = 0
    for _ in range(pairs):
        best_i = -1
        best_k = -1
        best = 1 << 40
        found = 0
        for _ in range(64 * samples):
            i = free[np.random.randint(0, nfree)]
            k = free[np.random.randint(0, nfree)]
            # both on the worse colour, rows of different parity: both change colour
            if (i + perm[i]) % 2 == good or (k + perm[k]) % 2 == good or (i - k) % 2 == 0:
                continue
            delta = swap_delta(perm, diag, anti, i, k)
            state[EVALS] += 1
            found += 1
            if delta < best:
                best_i, best_k, best = i, k, delta
            if found == samples:
                break
        if best_i < 0:
            break
        _swap(perm, diag, anti, diag_rows, anti_rows, free, attacked, state, best_i, best_k)
        state[TOTAL] += best
        state[GOOD] += 2
        made += 1
    return made


class _Board:
    """A permutation with its counters, line row sums and attacked-row list (of the rows
    in ``free``), for the kernels."""

    def __init__(self, perm: np.ndarray, good: int, free: np.ndarray) -> None:
        n = perm.size
        self.perm = perm
        self.free = free
        self.movable = np.zeros(n, dtype=np.bool_)
        self.movable[free] = True
        self.diag, self.anti = counters_for(perm, np.int64)
        self.diag_rows, self.anti_rows = line_rows(perm)
        self.attacked = np.empty(2 * n + 16, dtype=np.int64)
        self.state = np.zeros(SLOTS, dtype=np.int64)
        list_attacked(perm, self.diag, self.anti, free, self.attacked, self.state)
        self.state[TOTAL] = total_conflicts(self.diag, self.anti)
        self.state[GOOD] = int(np.count_nonzero((np.arange(n) + perm) % 2 == good))

    def repair(self, temperature: float, seed: int, budget: int) -> bool:
        return bool(repair_chunk(self.perm, self.diag, self.anti, self.diag_rows,
                                 self.anti_rows, self.free, self.movable, self.attacked,
                                 temperature, self.state, seed, budget))

    def raise_pairs(self, good: int, pairs: int, samples: int, seed: int) -> int:
        return int(raise_pairs(self.perm, self.diag, self.anti, self.diag_rows,
                               self.anti_rows, self.free, self.attacked, good, pairs,
                               samples, self.state, seed))


@dataclass(frozen=True)
class _Settings:
    temperature: float
    samples: int
    stage_moves: int
    limited: bool  # under a time limit: no stop after failed repairs


class _QuotaRun:
    """One run's stages: a start, repairs of one chunk each, and raises; :meth:`chunk` is
    the step of the shared chunk loop."""

    def __init__(self, instance: Instance, settings: _Settings, rng: np.random.Generator,
                 start: np.ndarray | None, start_fraction: float, stages: int) -> None:
        colours = instance.colours
        assert colours is not None
        n = instance.n
        self.instance, self.settings, self.rng = instance, settings, rng
        self.good_parity = 0 if colours.black > colours.white else 1
        fixed_rows = {r for r, _ in instance.fixed}
        self.free = np.array([r for r in range(n) if r not in fixed_rows], dtype=np.int64)
        self.start = start
        self.step = max(2, (n // 50) & ~1)
        self.good = int(start_fraction * n)
        self.stages_left = stages
        self.board: _Board | None = None
        self.best: np.ndarray | None = None
        self.best_good = -1
        self.moves = self.evals = 0
        self.stages: deque[dict[str, Any]] = deque(maxlen=20)  # the last repairs, reported
        self.stage_count = 0
        self.batch, self.since_raise, self.failed_in_a_row = 1, 0, 0

    def _new_board(self) -> _Board | None:
        """A start: the caller's, or a random one at the count (None: no such board)."""
        n = self.instance.n
        if self.start is not None:
            return _Board(self.start, self.good_parity, self.free)
        if not 0 <= self.good <= n:
            return None
        black = self.good if self.good_parity == 0 else n - self.good
        black -= (black - n) % 2
        made = count_permutation(n, black, self.instance.fixed, self.rng)
        if made is None:
            self.stages.append({"black": black, "result": "no such permutation"})
            return None
        return _Board(made, self.good_parity, self.free)

    def _count_moves(self, board: _Board) -> None:
        self.moves += int(board.state[MOVES])
        self.evals += int(board.state[EVALS])

    def chunk(self) -> Termination | None:
        """One repair chunk, and at the end of a stage the raise (or the way back)."""
        if self.stages_left <= 0:
            return Termination.ITERATION_LIMIT
        board = self.board
        if board is None:
            board = self.board = self._new_board()
            if board is None:
                return Termination.ITERATION_LIMIT
            self.since_raise = 0
        settings = self.settings
        solved = board.repair(settings.temperature, kernel_seed(self.rng), CHUNK)
        self.since_raise += CHUNK
        if not solved and self.since_raise < settings.stage_moves:
            return None
        return self._end_stage(board, solved)

    def _end_stage(self, board: _Board, solved: bool) -> Termination | None:
        self.stages_left -= 1
        self.stage_count += 1
        count = int(board.state[GOOD])
        since = self.since_raise
        self.stages.append({"good": count, "moves": since, "solved": solved,
                            "attacking_pairs": int(board.state[TOTAL])})
        if solved:
            self.failed_in_a_row = 0
            if count > self.best_good:
                self.best, self.best_good = board.perm.astype(np.int32), count
            batch = self.batch
            self.batch = (min(2 * batch, max(1, self.instance.n // 500)) if since <= CHUNK
                          else batch if since <= 8 * CHUNK else max(1, batch // 2))
        elif self.best is None:  # not even the start: a lower count, afresh
            self._count_moves(board)
            self.board, self.start, self.good = None, None, self.good - self.step
            return None
        else:  # the raise could not be repaired: back to the best board
            self.failed_in_a_row = self.failed_in_a_row + 1 if self.batch == 1 else 0
            if not self.settings.limited and self.failed_in_a_row >= 3:
                return Termination.ITERATION_LIMIT
            self._count_moves(board)
            board = self.board = _Board(self.best.astype(np.int64), self.good_parity,
                                        self.free)
            self.batch = max(1, self.batch // 2)
        self.since_raise = 0
        if board.raise_pairs(self.good_parity, self.batch, self.settings.samples,
                             kernel_seed(self.rng)) == 0:
            return Termination.ITERATION_LIMIT  # no pair left on the worse colour
        return None


#: The quota search's own numeric parameters (checked here and before a run).
BOUNDS: dict[str, Bound] = {
    "temperature": Bound(1e-3, 100.0, whole=False), "samples": Bound(1),
    "stage_moves": Bound(1), "start_fraction": Bound(0.0, 1.0, whole=False),
    "max_stages": Bound(1)}


def solve_quota(
    instance: Instance,
    *,
    seed: int | None = None,
    time_limit: float | Deadline | None = None,
    start: np.ndarray | None = None,
    start_fraction: float = 0.70,
    temperature: float = 0.065,
    samples: int = 256,
    stage_moves: int | None = None,
    max_stages: int | None = None,
    on_progress: ProgressCallback | None = None,
) -> Result:
    """Colour quota search; see the module docstring.

    Parameters (defaults): ``start``, a conflict-free placement keeping the fixed queens
    (else a random one with ``start_fraction`` (0.70) of n on the better colour);
    ``temperature`` (0.065) of the repair; ``samples`` (256) pairs drawn per raise;
    ``stage_moves`` (1000·n + 10^6) moves before a repair counts as failed; ``max_stages``
    repairs (with a time limit none; without one the run also ends after 3 failed repairs
    in a row at a batch of one swap). ``on_progress`` hears its best between chunks.
    """
    begin = time.perf_counter()
    clock = stop_clock(time_limit)  # one clock: the compile counts
    colours = instance.colours
    if colours is None or instance.is_feasibility or colours.black == colours.white:
        raise ValueError("quota needs weights constant per colour with two different values "
                         "(chess, --black/--white): use sa or topsquares otherwise")
    n = instance.n
    settings = _Settings(
        temperature=checked(BOUNDS, "temperature", temperature),
        samples=checked(BOUNDS, "samples", samples),
        stage_moves=checked(BOUNDS, "stage_moves", 1000 * n + 10**6 if stage_moves is None
                            else stage_moves),
        limited=(time_limit.limited if isinstance(time_limit, Deadline)
                 else time_limit is not None))
    start_fraction = checked(BOUNDS, "start_fraction", start_fraction)
    stages = checked(BOUNDS, "max_stages", max_stages if max_stages is not None else 2**62)
    compile_time = timed_compile(warm_up)
    known = KnownBound(instance, clock)  # the colour bound arrives beside the search
    run = _QuotaRun(instance, settings, make_rng(seed),
                    None if start is None else checked_start(instance, start),
                    start_fraction, stages)

    seen: list[Any] = [None, None]  # the best board read last, and its objective

    def read() -> Reading:
        if run.best is not None and run.best is not seen[0]:  # O(n) once per new best
            seen[:] = [run.best, instance.objective(run.best)]
        return seen[1], known.get()[0], None

    def proven() -> bool:  # the best meets the bound it knows: nothing better exists
        value = read()[0]
        return value is not None and value >= known.get()[0] - 1e-9

    termination = run_chunks(run.chunk, clock, stop=proven,
                             progress=chunk_progress(METHOD, on_progress, read,
                                                     best=lambda: run.best))
    if run.board is not None:
        run._count_moves(run.board)
    return heuristic_result(
        instance, METHOD, run.best, wall_time=time.perf_counter() - begin, seed=seed,
        termination=termination, compile_time=compile_time, iterations=run.moves,
        evaluations=run.evals, bound=known.final(clock),
        extra={"temperature": settings.temperature, "samples": settings.samples,
               "stage_moves": settings.stage_moves, "stage_count": run.stage_count,
               "best_good": run.best_good, "stages": list(run.stages)},
    )


def warm_up() -> None:
    """Compile (or load from the cache) the kernels on a tiny board."""
    n = 8
    board = _Board(np.arange(n, dtype=np.int64), 0, np.arange(n, dtype=np.int64))
    board.raise_pairs(1, 1, 4, 1)
    board.repair(0.1, 1, 50)
