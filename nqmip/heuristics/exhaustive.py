"""Small boards, settled by looking at every placement: the one rule of every heuristic there.

On a board of at most ``EXHAUSTIVE_MAX_FREE`` free rows (and ``EXHAUSTIVE_MAX_N`` queens)
every placement keeping the fixed queens is listed (numpy bitboards, row by row: 12
queens' 14,200 placements in about 0.1 s) and scored once per instance. A heuristic then

- does not search where no placement exists (n = 2, 3, fixed queens with no completion):
  it answers infeasible at once (:func:`settled_small`, from
  :func:`nqmip.heuristics.run_heuristic`): the annealing searched n = 3 for 2-5 s, the
  search on the heaviest squares 17-55 s; nor where one alone exists (n = 1), which it
  answers, optimal;
- knows the optimum as its bound (:func:`small_bound`, read by
  :class:`~nqmip.heuristics.common.KnownBound` and
  :func:`~nqmip.heuristics.common.heuristic_result`): it stops when it reaches it, and its
  answer is proven (bound source ``"exhaustive"``). The GA, tabu and the annealing ran
  their whole budgets (0.1-2.4 s) at random n = 4..12 holding the optimum, status
  feasible. The search on the heaviest squares, whose levels are known here, answers the
  best placement of the highest level at once (:func:`heaviest_squares`): its levels with
  no placement spent 10^6 moves each, 13-26 s at random n = 6..10.

Beyond ``EXHAUSTIVE_MAX_FREE`` free rows nothing changes: the heuristics keep their cheap
bounds and their budgets.
"""

from __future__ import annotations

import weakref

import numpy as np

from nqmip.budget import Deadline
from nqmip.instance import Instance, free_rows
from nqmip.result import Counters, Provenance, Result, Termination, Timing

#: Most free rows listed: 0.001 s at n = 8, 0.01-0.03 s at n = 10 (724 placements), 0.1 s
#: at n = 12 (14,200; 0.4 s on a loaded machine), 4 s at 13: the boards of auto's plan
#: "small" (nqmip.auto.policy.FAST_EXACT_MAX_N), where a proof takes hundredths.
EXHAUSTIVE_MAX_FREE = 12
#: The listing's masks are int64 bitboards: boards up to this n (fixed queens filling the rest).
EXHAUSTIVE_MAX_N = 62

#: Up to this many free rows the listing is always made (0.03 s at most); from one more
#: up to ``EXHAUSTIVE_MAX_FREE`` only without a time limit or with at least
#: ``LIST_MIN_SECONDS`` left (sa at n = 12 under a 0.1 s limit answered at 0.26-0.35 s,
#: the listing's time, with the construction).
ALWAYS_FREE = 10
LIST_MIN_SECONDS = 1.0

#: Every placement of each instance alive (None: more free rows than listed).
_LISTED: weakref.WeakKeyDictionary[Instance, np.ndarray | None] = weakref.WeakKeyDictionary()


def small(instance: Instance) -> bool:
    """Whether the instance is listed whole (at most ``EXHAUSTIVE_MAX_FREE`` free rows)."""
    return free_rows(instance) <= EXHAUSTIVE_MAX_FREE and instance.n <= EXHAUSTIVE_MAX_N


def every_placement(instance: Instance, deadline: Deadline | None = None, *,
                    cached: bool = False) -> np.ndarray | None:
    """Every placement keeping the fixed queens (one row of columns each, int64), or None
    beyond ``EXHAUSTIVE_MAX_FREE`` free rows; listed once per instance. None too where
    ``deadline`` leaves too little time for it (``ALWAYS_FREE``, ``LIST_MIN_SECONDS``),
    and with ``cached`` unless it was listed already (a search's answer does not list)."""
    if instance in _LISTED:
        return _LISTED[instance]
    if cached:
        return None
    if not small(instance):
        _LISTED[instance] = None
        return None
    if free_rows(instance) > ALWAYS_FREE and deadline is not None and deadline.limited \
            and deadline.remaining() < LIST_MIN_SECONDS:
        return None
    found = _LISTED[instance] = _listed(instance.n, instance.fixed_map)
    return found


def _listed(n: int, fixed: dict[int, int]) -> np.ndarray:
    """The placements, extended one row at a time as bitboards (per partial placement its
    columns and the diagonals its queens attack in the next row; the fixed queens' squares
    of each row blocked from the start)."""
    blocked = [0] * n  # the squares the fixed queens attack (or hold), per row
    for r0, c0 in fixed.items():
        for row in range(n):
            d = abs(row - r0)
            for col in (c0 - d, c0, c0 + d):
                if 0 <= col < n and row != r0:
                    blocked[row] |= 1 << col
    if any(blocked[row] >> col & 1 for row, col in fixed.items()):
        return np.zeros((0, n), dtype=np.int64)  # fixed queens attack each other
    taken = sum(1 << col for col in fixed.values())
    full = (1 << n) - 1
    partial = np.zeros((1, 0), dtype=np.int64)
    cols = np.array([taken], dtype=np.int64)
    left = np.zeros(1, dtype=np.int64)  # diagonals going down-left, in this row
    right = np.zeros(1, dtype=np.int64)
    shifts = np.arange(n, dtype=np.int64)[None, :]
    for row in range(n):
        if row in fixed:
            held = np.full(len(partial), fixed[row], dtype=np.int64)
            partial = np.column_stack([partial, held])
            bit = np.int64(1) << held
            left, right = ((left | bit) << 1) & full, (right | bit) >> 1
            continue
        free = ~(cols | left | right | blocked[row]) & full
        which, placed = np.nonzero((free[:, None] >> shifts) & 1)
        if not len(which):
            return np.zeros((0, n), dtype=np.int64)
        bit = np.int64(1) << placed
        partial = np.column_stack([partial[which], placed])
        cols = cols[which] | bit
        left = ((left[which] | bit) << 1) & full
        right = (right[which] | bit) >> 1
    return partial


def small_bound(instance: Instance, deadline: Deadline | None = None, *,
                cached: bool = False) -> float | None:
    """The optimum of a listed instance, in its own terms (the most, or the least for
    costs; n without weights); None where no placement exists or it is not listed
    (:func:`every_placement`'s ``deadline`` and ``cached``)."""
    every = every_placement(instance, deadline, cached=cached)
    if every is None or not len(every):
        return None
    if instance.is_feasibility:
        return float(instance.n)
    best = every[_best_row(instance, every)]
    return float(instance.weight_matrix()[np.arange(instance.n), best].sum())


def best_listed(instance: Instance) -> tuple[np.ndarray | None, bool] | None:
    """A stopped search's answer on a board of at most ``ALWAYS_FREE`` free rows (a few ms,
    no kernel to compile): its best placement (any one without weights) and whether none
    exists; None on a larger board. The lns on random n = 8, costs, its kernels compiling
    past a 10 s limit, answered the explicit construction's 48 where the optimum is 23."""
    if free_rows(instance) > ALWAYS_FREE or instance.n > EXHAUSTIVE_MAX_N:
        return None
    every = every_placement(instance)
    if every is None or not len(every):
        return None, True
    if instance.is_feasibility:
        return every[0].copy(), False
    return every[_best_row(instance, every)].copy(), False


def _best_row(instance: Instance, every: np.ndarray) -> int:
    """The index of the best of the listed placements ``every`` (one row each): the least
    total weight for costs, else the most."""
    values = instance.weight_matrix()[np.arange(instance.n), every].sum(axis=1)
    return int(values.argmin() if instance.sense == "min" else values.argmax())


def heaviest_squares(instance: Instance, deadline: Deadline | None = None,
                     ) -> tuple[float, np.ndarray] | None:
    """What the search on the heaviest squares looks for, on a listed board: the largest
    weight ``t`` such that some placement keeps every queen on a square worth at least
    ``t``, and the best such placement; None if not listed (or none, or no weights)."""
    every = every_placement(instance, deadline)
    if every is None or not len(every) or instance.is_feasibility:
        return None
    weights = instance.weight_matrix()
    chosen = weights[np.arange(instance.n), every]
    lowest = chosen.min(axis=1)
    level = lowest.max()
    at_level = np.flatnonzero(lowest == level)
    best = at_level[np.argmax(chosen[at_level].sum(axis=1))]
    return float(level), every[best].copy()


def settled_small(instance: Instance, method: str, seed: int | None, begin: float,
                  deadline: Deadline | None = None) -> Result | None:
    """The answer of every heuristic on a listed instance with no placement (infeasible)
    or exactly one (optimal), proven by the listing (``provenance.proof ==
    "exhaustive"``), no search run; None otherwise. The one placement of n = 1: the colour
    quota search, which moves queens two at a time, answered none (status unknown)."""
    every = every_placement(instance, deadline)
    if every is None or len(every) > 1:
        return None
    import time

    from nqmip.outcome import make_result

    placement = every[0] if len(every) else None
    message = ("" if placement is not None else
               f"no placement: every placement of the {free_rows(instance)} free rows was "
               "looked at")
    return make_result(
        instance, method, placement,
        Termination.OPTIMAL if placement is not None else Termination.INFEASIBLE,
        proven=True, seed=seed, timing=Timing(wall=time.perf_counter() - begin, compile=0.0),
        counters=Counters(iterations=0, evaluations=0, improvements=0), message=message,
        provenance=Provenance(plan=(method,), proof="exhaustive",
                              incumbent_source="exhaustive" if placement is not None
                              else None))
