"""A local search for a placement with a *given* number of black queens.

Why it exists: with weights constant per colour, the black-queen bound of
:mod:`nqmip.formulation.strengthen` is the proven optimum for every n the frontier sweep
closed, so the whole difficulty left for the exact solvers is primal: finding one placement
that reaches the bound (HiGHS 1.12 with the bound row stalls at n = 36 for 60 s with its
dual bound already optimal). A placement that reaches the bound is its own proof.

The search never leaves the set of permutations with exactly ``target`` black queens: a
queen's colour is the parity of row + column, so swapping the columns of two rows of the
same parity, or of two columns of the same parity, keeps the number of black queens; those
swaps connect every permutation with that count. Inside that set it minimises the number of
attacking diagonal pairs by a min-conflicts walk with a small random-walk probability
(numba, O(1) per move). Fixed queens never move.
"""

from __future__ import annotations

import time

import numpy as np

from nqmip.instance import Instance


def start_permutation(
    n: int, target_black: int, fixed: tuple[tuple[int, int], ...], rng: np.random.Generator
) -> np.ndarray | None:
    """A random permutation with exactly ``target_black`` black queens keeping ``fixed``.

    Rows and columns split by parity into R0, R1, C0, C1; the count of rows of R0 sent to C0
    fixes every other class count, and #black = #(R0->C0) + #(R1->C1). None if impossible.
    """
    p = np.full(n, -1, dtype=np.int64)
    used = np.zeros(n, dtype=bool)
    black_fixed = 0
    for r, c in fixed:
        p[r] = c
        used[c] = True
        black_fixed += (r + c) % 2 == 0
    free_rows = [np.array([r for r in range(n) if p[r] < 0 and r % 2 == k]) for k in (0, 1)]
    free_cols = [np.array([c for c in range(n) if not used[c] and c % 2 == k]) for k in (0, 1)]
    r0, r1 = (len(x) for x in free_rows)
    c0, c1 = (len(x) for x in free_cols)
    need = target_black - black_fixed
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


def search_black_count(
    instance: Instance,
    target_black: int,
    *,
    seed: int | None = 0,
    time_limit: float = 5.0,
) -> tuple[int, ...] | None:
    """A placement of ``instance`` with exactly ``target_black`` black queens, or None.

    Restarts from a fresh random start every ``50 n`` non-improving moves, until
    ``time_limit`` seconds have passed.
    """
    from nqmip.heuristics.colour_kernels import walk

    n = instance.n
    rng = np.random.default_rng(seed)
    movable = np.ones(n, dtype=np.bool_)
    for r, _ in instance.fixed:
        movable[r] = False
    deadline = time.perf_counter() + time_limit
    attempt = 0
    while time.perf_counter() < deadline:
        p = start_permutation(n, target_black, instance.fixed, rng)
        if p is None:
            return None
        steps = max(20_000, 200 * n)
        ok = walk(p, movable, steps, int(rng.integers(2**31)), 0.02)
        attempt += 1
        if ok:
            return tuple(int(c) for c in p)
    return None
