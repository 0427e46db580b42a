"""A climb by conflict-free swaps in plain numpy: what a first run searches with before
numba has compiled a kernel.

From a placement with no attacking pair, each step exchanges the columns of two rows when
the two queens land on empty diagonals (the placement stays conflict-free) and the weight
grows, the best such swap first (ties at random); with none left it takes a random swap
that keeps the weight (a plateau move), and stops after ``PLATEAU_STEPS`` of them without a
gain, or at the deadline. Every pair is scored at once (O(n^2) numpy per step), so it is
for the sizes of the colour proof (n <= 128): chess n = 100, the explicit construction's
150 climbs to about 160 in a fraction of a second, with nothing to compile.
"""

from __future__ import annotations

import time

import numpy as np

from nqmip.budget import Deadline
from nqmip.instance import Instance
from nqmip.result import Result, Termination

#: Plateau moves without a gain, per queen, before the climb stops.
PLATEAU_STEPS = 4
#: Largest n it runs at (n (n - 1) / 2 pairs a step).
MAX_N = 512


def swap_climb(instance: Instance, start: np.ndarray, deadline: Deadline,
               seed: int | None = 0) -> tuple[np.ndarray, float, int]:
    """The best placement the climb reached from ``start`` (conflict-free, no fixed
    queens), its weight, and the swaps it made."""
    n = instance.n
    p = np.asarray(start, dtype=np.int64).copy()
    weights = instance.weight_matrix()
    rng = np.random.default_rng(seed)
    diag = np.zeros(2 * n - 1, dtype=bool)
    anti = np.zeros(2 * n - 1, dtype=bool)
    rows = np.arange(n)
    diag[rows - p + n - 1] = True
    anti[rows + p] = True
    first, second = np.triu_indices(n, 1)
    weight = best = float(weights[rows, p].sum())
    best_p, swaps, flat = p.copy(), 0, 0
    while flat < PLATEAU_STEPS * n and not deadline.expired():
        pi, pk = p[first], p[second]
        d_i, d_k = first - pk + n - 1, second - pi + n - 1
        a_i, a_k = first + pk, second + pi
        ok = ~(diag[d_i] | diag[d_k] | anti[a_i] | anti[a_k]) & (d_i != d_k) & (a_i != a_k)
        gain = (weights[first, pk] + weights[second, pi]
                - weights[first, pi] - weights[second, pk])
        moves = np.flatnonzero(ok & (gain > 1e-9))
        if moves.size:
            top = gain[moves].max()
            moves = moves[gain[moves] >= top - 1e-9]
            flat = 0
        else:
            moves = np.flatnonzero(ok & (np.abs(gain) <= 1e-9))
            flat += 1
            if not moves.size:
                break
        move = int(moves[rng.integers(moves.size)])
        i, k = int(first[move]), int(second[move])
        diag[[i - p[i] + n - 1, k - p[k] + n - 1]] = False
        anti[[i + p[i], k + p[k]]] = False
        p[i], p[k] = p[k], p[i]
        diag[[i - p[i] + n - 1, k - p[k] + n - 1]] = True
        anti[[i + p[i], k + p[k]]] = True
        weight += float(gain[move])
        swaps += 1
        if weight > best + 1e-9:
            best, best_p = weight, p.copy()
    return best_p, float(weights[rows, best_p].sum()), swaps


def climb_result(instance: Instance, start: np.ndarray, deadline: Deadline,
                 seed: int | None = 0) -> Result:
    """:func:`swap_climb` as a verified heuristic result (method ``"swap climb"``)."""
    from nqmip.heuristics.common import heuristic_result

    begin = time.perf_counter()
    placement, _, _ = swap_climb(instance, start, deadline, seed)
    return heuristic_result(
        instance, "swap climb", placement.astype(np.int32),
        wall_time=time.perf_counter() - begin, seed=seed,
        termination=Termination.SOLUTION_FOUND, solver="swap climb (numpy)")
