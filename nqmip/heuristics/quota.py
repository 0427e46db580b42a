"""Colour quota search: weights constant per colour at any size, black count raised stage by
stage.

With ``a`` on black squares ((i + j) even) and ``b`` on white, the objective is
``n·b + (a - b)·#black``: the best placement has the most black queens (or the fewest, when
white pays more). This search fixes the count first: a random permutation with exactly
``K`` black queens (rows and columns split by parity, as in the colour proof's start), then
min-conflicts over colour-preserving swaps (rows of the same parity, or columns of the same
parity, keep the count) with ``samples`` partners drawn per move and a lazy list of attacked
rows, O(1) per evaluated swap. A stage that solves raises ``K`` by ``step`` (at least 2, the
parity), one that stalls lowers the step; the best solved board is kept until the deadline.

Why: the GA and annealing reach 1.64-1.66 n at chess n = 10^4 in 60 s, while the colour
bound allows 1.789 n; fixing the count makes every move keep the colour, so the search only
has to remove conflicts (docs/anytime.md).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numba import njit

from nqmip.budget import Deadline
from nqmip.heuristics.common import (
    check_float,
    check_int,
    heuristic_result,
    kernel_seed,
    make_rng,
    seconds_left,
    timed_compile,
)
from nqmip.heuristics.kernels import apply_swap, queen_conflicts, swap_delta
from nqmip.heuristics.localsearch import counters_for
from nqmip.instance import Instance
from nqmip.result import Result, Termination

METHOD = "quota"
CHUNK = 1 << 15

TOTAL = 0
MOVES = 1
EVALS = 2
SLOTS = 3


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
def quota_chunk(perm: np.ndarray, diag: np.ndarray, anti: np.ndarray, free: np.ndarray,
                attacked: np.ndarray, samples: int, noise: float, state: np.ndarray,
                seed: int, budget: int) -> bool:
    """At most ``budget`` colour-preserving min-conflicts moves; True when no attack."""
    np.random.seed(seed)
    nfree = free.size
    size = 0
    stop = state[MOVES] + budget
    while state[MOVES] < stop:
        if state[TOTAL] == 0:
            return True
        if size == 0:
            for idx in range(nfree):
                row = free[idx]
                if queen_conflicts(perm, diag, anti, row) > 0:
                    attacked[size] = row
                    size += 1
            if size == 0:
                return False
        slot = np.random.randint(0, size)
        i = attacked[slot]
        if queen_conflicts(perm, diag, anti, i) == 0:
            attacked[slot] = attacked[size - 1]
            size -= 1
            continue
        random_move = np.random.random() < noise
        best_k = -1
        best = 1 << 40
        ties = 0
        for _ in range(samples):
            k = free[np.random.randint(0, nfree)]
            if k == i or ((i - k) % 2 != 0 and (perm[i] - perm[k]) % 2 != 0):
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


def solve_quota(
    instance: Instance,
    *,
    seed: int | None = None,
    time_limit: float | Deadline | None = None,
    start_fraction: float = 0.70,
    samples: int = 32,
    noise: float = 0.01,
    stage_moves: int | None = None,
    max_stages: int | None = None,
) -> Result:
    """Colour quota search; see the module docstring.

    Parameters (defaults): ``start_fraction`` (0.70) of n as the first black count on the
    better colour; ``samples`` (32) partners per move; ``noise`` (0.01); ``stage_moves``
    (20·n + 10^5) moves before a stage counts as stalled; ``max_stages`` (with a time
    limit none, else 12).
    """
    colours = instance.colours
    if colours is None or instance.is_feasibility or colours.black == colours.white:
        raise ValueError("quota needs weights constant per colour with two different values "
                         "(chess, --black/--white): use sa or topsquares otherwise")
    start_fraction = check_float("start_fraction", start_fraction, 0.0, 1.0)
    samples = check_int("samples", samples, 1)
    noise = check_float("noise", noise, 0.0, 1.0)
    n = instance.n
    stage_moves = check_int("stage_moves", 20 * n + 10**5 if stage_moves is None
                            else stage_moves, 1)
    limited = time_limit is not None
    stages_left = check_int("max_stages", max_stages if max_stages is not None
                            else (2**62 if limited else 12), 1)
    compile_time = timed_compile(_warm_up)
    limit = seconds_left(time_limit)
    start = time.perf_counter()
    rng = make_rng(seed)
    maximise = colours.black > colours.white
    fixed_rows = {r for r, _ in instance.fixed}
    free = np.array([r for r in range(n) if r not in fixed_rows], dtype=np.int64)
    attacked = np.empty(max(n, 1), dtype=np.int64)
    parity = n % 2
    # the count on the better colour: black when black pays more, else white
    good = int(start_fraction * n)
    good -= (good - parity) % 2 if maximise else 0
    step = max(2, (n // 50) & ~1)
    best: np.ndarray | None = None
    best_good = -1
    stages: list[dict[str, Any]] = []
    outcome = "iterations"
    while stages_left > 0 and 0 <= good <= n:
        stages_left -= 1
        if limit is not None and time.perf_counter() - start >= limit:
            outcome = "time"
            break
        black = good if maximise else n - good
        if (black - parity) % 2:
            black -= 1 if maximise else -1
        perm = count_permutation(n, black, instance.fixed, rng)
        if perm is None:
            stages.append({"black": black, "result": "no such permutation"})
            break
        diag, anti = counters_for(perm, np.int64)
        state = np.zeros(SLOTS, dtype=np.int64)
        state[TOTAL] = int(((diag * (diag - 1)) // 2).sum() + ((anti * (anti - 1)) // 2).sum())
        solved = state[TOTAL] == 0
        try:
            while not solved and state[MOVES] < stage_moves:
                if limit is not None and time.perf_counter() - start >= limit:
                    outcome = "time"
                    break
                solved = bool(quota_chunk(perm, diag, anti, free, attacked, samples, noise,
                                          state, kernel_seed(rng), CHUNK))
        except KeyboardInterrupt:
            outcome = "interrupted"
        stages.append({"black": black, "moves": int(state[MOVES]), "solved": solved,
                       "attacking_pairs": int(state[TOTAL])})
        if solved and good > best_good:
            best, best_good = perm.astype(np.int32), good
        if outcome in ("time", "interrupted"):
            break
        if solved:
            good += step
        elif best_good < 0:
            good -= step  # not even the first count: start lower
        elif step > 2:
            step = max(2, (step // 2) & ~1)  # overshot: a smaller step above the best
            good = best_good + step
        # a stalled stage at the smallest step is tried again from a fresh start
    termination = {"time": Termination.TIME_LIMIT,
                   "interrupted": Termination.INTERRUPTED}.get(outcome,
                                                              Termination.ITERATION_LIMIT)
    return heuristic_result(
        instance, METHOD, best, wall_time=time.perf_counter() - start, seed=seed,
        termination=termination, compile_time=compile_time,
        iterations=sum(int(s.get("moves", 0)) for s in stages),
        extra={"samples": samples, "noise": noise, "stage_moves": stage_moves,
               "stages": stages[-20:]},
    )


def _warm_up() -> None:
    """Compile (or load from the cache) the kernel on a tiny board."""
    n = 8
    perm = np.arange(n, dtype=np.int64)
    diag, anti = counters_for(perm, np.int64)
    state = np.zeros(SLOTS, dtype=np.int64)
    state[TOTAL] = 1
    quota_chunk(perm, diag, anti, np.arange(n, dtype=np.int64), np.empty(n, dtype=np.int64),
                4, 0.1, state, 1, 50)
