"""A swap search in plain numpy: what a first run searches with before numba has compiled a
kernel.

A tabu search over the exchanges of two rows' columns (the placement stays a permutation),
every pair scored at once (O(n^2) numpy per step, so it is for the sizes of the colour
proof, n <= 128, and a little beyond). A step takes the best pair by its weight gain less
``PENALTY`` times the attacks it adds (in units of the weights' spread: a swap may pass
through a placement with attacking queens), ties at random, and leaves its two rows alone
for ``TENURE`` steps (plus 0 to 2) unless the swap gives a conflict-free placement better
than the best; the best conflict-free placement is kept. It stops at the deadline, or after
``STALL_STEPS`` steps per queen without a new best.

It replaced a climb by conflict-free swaps (best gain first, then plateau moves), which
stopped at chess n = 100's 168 whatever the seed; this one reaches 172 to 174 from the
explicit construction's 150 within 0.2 to 0.8 s (seeds 0-2, a loaded machine), where the
numba annealing's 5 s reach 172 to 174.
"""

from __future__ import annotations

import time

import numpy as np

from nqmip.budget import Deadline
from nqmip.instance import Instance
from nqmip.result import Result, Termination

#: An added attack costs this many times the weights' spread (largest less smallest).
PENALTY = 1.1
#: Steps a swapped row is left alone (plus 0 to 2 at random).
TENURE = 5
#: Steps per queen without a new best before the search stops.
STALL_STEPS = 20
#: Largest n it runs at (n (n - 1) / 2 pairs a step).
MAX_N = 512


def _added(count: np.ndarray, old_i: np.ndarray, old_k: np.ndarray, new_i: np.ndarray,
           new_k: np.ndarray) -> np.ndarray:
    """Attacking pairs added on one family of lines when each pair's two queens leave lines
    ``old_i``, ``old_k`` for ``new_i``, ``new_k`` (``count``: queens per line)."""
    added = (1 - count[old_i]) + (1 - count[old_k] + (old_k == old_i))
    added += count[new_i] - (new_i == old_i) - (new_i == old_k)
    return added + (count[new_k] - (new_k == old_i) - (new_k == old_k) + (new_k == new_i))


def swap_climb(instance: Instance, start: np.ndarray, deadline: Deadline,
               seed: int | None = 0) -> tuple[np.ndarray, float, int]:
    """The best conflict-free placement the search reached from ``start`` (a permutation
    holding the instance's fixed queens, whose rows are never swapped; ``start`` itself
    when conflict-free and nothing better was found), its weight, and the swaps it made."""
    n = instance.n
    p = np.asarray(start, dtype=np.int64).copy()
    weights = instance.weight_matrix()
    rng = np.random.default_rng(seed)
    rows = np.arange(n)
    first, second = np.triu_indices(n, 1)
    diag = np.bincount(rows - p + n - 1, minlength=2 * n - 1)
    anti = np.bincount(rows + p, minlength=2 * n - 1)
    attacks = int((diag * (diag - 1) // 2).sum() + (anti * (anti - 1) // 2).sum())
    weight = float(weights[rows, p].sum())
    best = weight if attacks == 0 else -np.inf
    best_p, swaps, since = p.copy(), 0, 0
    penalty = PENALTY * max(float(weights.max() - weights.min()), 1e-9)
    free_after = np.zeros(n, dtype=np.int64)
    movable = np.ones(n, dtype=bool)
    movable[[row for row, _ in instance.fixed]] = False
    movable = movable[first] & movable[second]  # per pair: neither row holds a fixed queen
    while since < STALL_STEPS * n and not deadline.expired():
        pi, pk = p[first], p[second]
        added = (_added(diag, first - pi + n - 1, second - pk + n - 1, first - pk + n - 1,
                        second - pi + n - 1)
                 + _added(anti, first + pi, second + pk, first + pk, second + pi))
        gain = (weights[first, pk] + weights[second, pi]
                - weights[first, pi] - weights[second, pk])
        allowed = movable & (((free_after[first] <= swaps) & (free_after[second] <= swaps))
                             | ((attacks + added == 0) & (weight + gain > best + 1e-9)))
        score = np.where(allowed, gain - penalty * added, -np.inf)
        top = score.max()
        if top == -np.inf:  # every row tabu (a small board: n / 2 swaps ban them all)
            if not (free_after > swaps).any():
                break
            free_after[:] = 0
            since += 1
            continue
        moves = np.flatnonzero(score >= top - 1e-9)
        move = int(moves[rng.integers(moves.size)])
        i, k = int(first[move]), int(second[move])
        np.subtract.at(diag, [i - p[i] + n - 1, k - p[k] + n - 1], 1)
        np.subtract.at(anti, [i + p[i], k + p[k]], 1)
        p[i], p[k] = p[k], p[i]
        np.add.at(diag, [i - p[i] + n - 1, k - p[k] + n - 1], 1)
        np.add.at(anti, [i + p[i], k + p[k]], 1)
        attacks += int(added[move])
        weight += float(gain[move])
        swaps += 1
        since += 1
        free_after[[i, k]] = swaps + TENURE + rng.integers(3)
        if attacks == 0 and weight > best + 1e-9:
            best, best_p, since = weight, p.copy(), 0
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


#: Seconds a stopped search's stand-in is climbed before it is answered
#: (:func:`nqmip.solve.fallback`): random n = 48, the construction's 249 to 389 in 0.1 s
#: (100: 495 to 761), where auto's first run at 4 s on a loaded machine, its kernels
#: loading 3.4 s, and glpsol answered the bare construction.
STAND_IN_SECONDS = 0.1


def climbs(instance: Instance) -> bool:
    """Whether a stand-in on this board is climbed: weights, no fixed queens, 4 to
    ``MAX_N`` queens."""
    return not (instance.is_feasibility or instance.fixed) and 4 <= instance.n <= MAX_N


def stand_in_for(instance: Instance, *,
                 climb: bool = True) -> tuple[np.ndarray | None, str, bool]:
    """A stopped search's stand-in (:func:`nqmip.construct.stand_in`), its source (a key of
    :data:`nqmip.construct.STAND_IN`) and whether no placement exists; with ``climb`` the
    explicit construction climbed by :func:`swap_climb` for ``STAND_IN_SECONDS`` where it
    improves (:func:`climbs`; not under a work limit, whose answer must not depend on the
    clock); with fixed queens beyond the completion search's rows, min-conflicts' repair
    (:func:`repaired`)."""
    from nqmip.construct import stand_in

    placement, none = stand_in(instance.n, instance.fixed)
    if instance.fixed and placement is None and not none:
        placement = repaired(instance)
        return placement, "repaired" if placement is not None else "completion", none
    if instance.fixed or placement is None:
        return placement, "completion" if instance.fixed else "explicit", none
    if not (climb and climbs(instance)):
        return placement, "explicit", none
    better, value, _ = swap_climb(instance, placement, Deadline(STAND_IN_SECONDS))
    if value > instance.objective(placement) + 1e-9 * max(1.0, abs(value)):
        return better, "climbed", none
    return placement, "explicit", none


#: The most seconds :func:`repaired` runs (n = 10^6 with two fixed queens: 0.15 s, the
#: kernels loaded from the cache 0.3 s before it).
REPAIR_SECONDS = 1.0


def repaired(instance: Instance) -> np.ndarray | None:
    """A completion of the fixed queens by min-conflicts (seed 0, its default number of
    evaluations: the same answer on any machine unless ``REPAIR_SECONDS`` end it first),
    where its kernels are in numba's cache (a stand-in compiles nothing); else None.

    Beyond :data:`nqmip.construct.COMPLETION_MAX_ROWS` the short completion search does not
    run, and a search with a random start may hold no conflict-free placement when it is
    stopped: tabu, quota and ga at n = 10^6 with two fixed queens answered no placement
    after 4 s, where min-conflicts completes them in 0.15 s."""
    from nqmip.heuristics.kinds import kind_of
    from nqmip.methods import METHODS
    from nqmip.warmup import is_ready

    target = METHODS["minconflicts"].warm_up
    if target is None or not is_ready(target, kind_of(instance)):
        return None
    from nqmip.heuristics.minconflicts import minconflicts_placement

    placement, _ = minconflicts_placement(instance, seed=0, time_limit=REPAIR_SECONDS)
    return placement
