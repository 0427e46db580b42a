"""Search for a placement with a *given* number of black queens.

Why it exists: with weights constant per colour, the black-queen bound of
:mod:`nqmip.formulation.colour_bound` is the proven optimum for almost every n the frontier
sweep closed, so the difficulty left is primal: finding one placement that reaches the
bound (HiGHS 1.12 with the bound row stalls at n = 36 for 60 s with its dual bound already
optimal). A placement that reaches the bound is its own proof.

Two searches, after the symmetric line sets of :func:`search_symmetric` (n from 65, or 41
for the fewest black queens; no fixed queens: placements unchanged by the half turn, for
odd n also those completed by a corner queen and, for n and the count 1 mod 4, those
unchanged by the quarter turn):

- **Line sets** (n in ``LINE_SEARCH_MIN_N..LINE_SEARCH_MAX_N``, tried first): sample the
  anti-diagonals and diagonals a placement with that count could use from the line model
  (:mod:`nqmip.colour.lines`), then look for queens on exactly those lines by a
  restarted exact-cover search (:mod:`nqmip.colour.exact_cover`); a new line set
  every ``LINE_SET_SECONDS``. At the bound the identities of the line model leave few
  choices, which the permutation walk below does not see: it found 28 black queens at
  n = 36 in none of 3 runs of 20 s, the line sets in 0.12 s (docs/benchmarks-colour.md).
- **Colour walk** (elsewhere, and with whatever time the line sets leave): the walk never
  leaves the permutations with exactly ``target`` black queens: a queen's colour is the
  parity of row + column, so swapping the columns of two rows of the same parity, or of
  two columns of the same parity, keeps the number of black queens; those swaps connect
  every permutation with that count. Inside that set it minimises the number of attacking
  diagonal pairs by a min-conflicts walk with a small random-walk probability (numba,
  O(1) per move). Fixed queens never move.
"""

from __future__ import annotations

import numpy as np

from nqmip.budget import MIN_SOLVER_SECONDS, Deadline
from nqmip.formulation.line_model import COLOUR_PROOF_MAX_N
from nqmip.instance import Instance


def start_permutation(
    n: int, target_black: int, fixed: tuple[tuple[int, int], ...], rng: np.random.Generator
) -> np.ndarray | None:
    """A random permutation with exactly ``target_black`` black queens keeping ``fixed``, or
    None if impossible: :func:`nqmip.heuristics.quota.count_permutation` (one home)."""
    from nqmip.heuristics.quota import count_permutation

    return count_permutation(n, target_black, fixed, rng)


#: Sizes for which the line-set search runs first (below, the walk is instant; above, the
#: line model and the cover grow quadratically and the walk's lower targets are easier):
#: the colour proof's range.
LINE_SEARCH_MIN_N = 8
LINE_SEARCH_MAX_N = COLOUR_PROOF_MAX_N
#: Seconds spent on one line set before sampling another, and nodes per restart of the
#: exact-cover search (measured on chess n = 36..64, benchmarks/bench_colour.py).
LINE_SET_SECONDS = 3.0
COVER_NODE_LIMIT = 1500
#: Default seconds of :func:`search_black_count` and its two searches when called alone.
SEARCH_SECONDS = 5.0


def search_black_count(
    instance: Instance,
    target_black: int,
    *,
    seed: int | None = 0,
    time_limit: float | Deadline | None = SEARCH_SECONDS,
    symmetric_min_n: int | None = None,
    symmetric_share: float | None = None,
) -> tuple[int, ...] | None:
    """A placement of ``instance`` with exactly ``target_black`` black queens, or None.

    The half-turn-symmetric line sets first (n >= ``symmetric_min_n``, by default
    ``SYMMETRIC_MIN_N``, no fixed queens;
    ``symmetric_share`` of the time, by default ``SYMMETRIC_SHARE``;
    ``UNLIMITED_SYMMETRIC_SECONDS`` without a limit), the
    line-set search next (see the module docstring), then the colour walk with the time
    left; None when none found one within ``time_limit`` (seconds or a
    :class:`~nqmip.budget.Deadline`; None: search until found, which may never end when no
    placement has that count), or when the line model proves that none has it.
    """
    deadline = Deadline.of(time_limit)
    low = SYMMETRIC_MIN_N if symmetric_min_n is None else symmetric_min_n
    if low <= instance.n <= LINE_SEARCH_MAX_N and not instance.fixed:
        if symmetric_share is None:
            symmetric_share = SYMMETRIC_SHARE
        share = (deadline.sub(share=symmetric_share) if deadline.limited
                 else deadline.sub(UNLIMITED_SYMMETRIC_SECONDS))
        found = search_symmetric(instance.n, target_black, seed=seed, time_limit=share)
        if found:
            return found
    if LINE_SEARCH_MIN_N <= instance.n <= LINE_SEARCH_MAX_N:
        found = search_line_sets(instance, target_black, seed=seed, time_limit=deadline)
        if found is not None:
            return found if found else None  # () = the line model has no solution
    if deadline.expired():
        return None
    return search_walk(instance, target_black, seed=seed, time_limit=deadline)


#: From this n (below it, the table of docs/frontier.md was measured without it) the
#: half-turn-symmetric search runs first, with this share of the time
#: (all of it is given back when no symmetric line set has the count). Its line sets
#: and covers are half the size: chess n = 90 reached B = 70 in 0.8 s (seed 0), where the
#: plain line sets did not in 60 s (docs/frontier.md).
SYMMETRIC_MIN_N = 65
#: The same from this n when the count sought is the fewest black queens (white worth
#: more, measured after the chess table). At n = 61 the plain line sets found the 13 black
#: queens of the bound in 22 s for one seed of three and not in 60 s for the others, the
#: symmetric ones alone in 2.3-12.3 s for all three. Over n = 41..64 (seeds 0-2) it
#: proved every size in every seed within 60 s, slowest n = 54 (33 s) and 59 (31 s; 3.2 s
#: without); with a quarter of the time (not three quarters) to the symmetric sets n = 61
#: failed in one seed (docs/colour-weights.md).
FEWEST_SYMMETRIC_MIN_N = 41
SYMMETRIC_SHARE = 0.75
UNLIMITED_SYMMETRIC_SECONDS = 20.0
#: Seconds on one symmetric line set (chess n = 118: covers found in 0.9 and 1.4 s).
SYMMETRIC_SET_SECONDS = 2.0
#: (n, black, quarter turn) proven to have no symmetric line set
_NO_SYMMETRIC: set[tuple[int, int, bool]] = set()


def search_symmetric(
    n: int,
    target_black: int,
    *,
    seed: int | None = 0,
    time_limit: float | Deadline | None = SEARCH_SECONDS,
    corner: bool = True,
) -> tuple[int, ...] | tuple[()] | None:
    """A placement with ``target_black`` black queens from half-turn-symmetric line sets
    (:func:`nqmip.colour.lines.sample_symmetric_line_set`) and the exact cover of square
    pairs (no fixed queens); ``()`` when no symmetric line set has the count (which proves
    nothing about the other placements), None when time ran out.

    For odd ``n`` (and ``corner``) the line sets alternate with those of the *corner*
    construction (:func:`corner_possible`): a symmetric placement of ``n - 1`` queens with
    one black queen fewer, completed by a queen on the corner ``(n-1, n-1)``. For
    ``n`` and the count both 1 mod 4, with quarter-turn-symmetric line sets too
    (:func:`nqmip.colour.lines.quarter_realisation_options`: the centre queen and orbits of
    four queens of one colour, so only such counts).
    """
    rng = np.random.default_rng(seed)
    deadline = Deadline.of(time_limit)
    # (board, black count, quarter turn) of the symmetric line sets drawn, in turn
    pools = [(n, target_black, False)]
    if corner and n % 2 and target_black >= 1:
        pools.insert(0, (n - 1, target_black - 1, False))
    if n % 4 == 1 and target_black % 4 == 1:
        pools.insert(0, (n, target_black, True))
    pools = [pool for pool in pools if pool not in _NO_SYMMETRIC]
    corner_checked = False
    # each call (the proof and the second stream call again in slices) starts at a random
    # pool: always starting at the same one starved the others in short slices
    turn = int(rng.integers(len(pools))) if pools else 0
    while pools:
        pool = pools[turn % len(pools)]
        if pool[0] != n and not corner_checked:
            corner_checked = True
            if not corner_possible(n, target_black, deadline):
                pools.remove(pool)
                continue
        found = _symmetric_attempt(*pool, rng, deadline)
        if found is None:
            return None
        if found == ():
            _NO_SYMMETRIC.add(pool)
            pools.remove(pool)
            continue
        if isinstance(found, tuple):
            return found if pool[0] == n else (*found, n - 1)
        turn += 1
    return ()


#: Seconds the line model gets to tell whether a queen on the corner is possible (it
#: proves the impossible cases in under 0.6 s at chess n = 65..127, odd).
CORNER_CHECK_SECONDS = 1.0
#: (n, black): False when no placement with the count uses the corner, True when the line
#: model did not say so within CORNER_CHECK_SECONDS (checked once)
_CORNER: dict[tuple[int, int], bool] = {}


def clear_caches() -> None:
    """Forget the counts found to have no symmetric line set or no corner queen (each run
    of a benchmark pays for its own)."""
    _NO_SYMMETRIC.clear()
    _CORNER.clear()


def corner_possible(n: int, target_black: int, deadline: Deadline | None = None) -> bool:
    """False when the line model proves that no placement of ``n`` queens with
    ``target_black`` black ones has a queen on the corner ``(n-1, n-1)``.

    The corner construction: a half-turn-symmetric placement of an even number ``n - 1``
    of queens never uses its main diagonal ``i = j`` (the two queens of a pair on it would
    attack each other), so the corner queen, black and alone on its anti-diagonal, attacks
    none of them: an odd ``n`` gains one black queen over ``n - 1``. Chess n = 79, 81, 95,
    97, 99, 101, 109, 115, 117 and 119 reach their colour bound this way (docs/frontier.md).
    Where the line model with the corner queen fixed is infeasible (chess n = 65, 75, 85, 93,
    103, 113, 123 at B) the construction cannot reach the count and is not tried.
    """
    from nqmip.colour.lines import Sample, sample_line_set

    known = _CORNER.get((n, target_black))
    if known is not None:
        return known
    limit = CORNER_CHECK_SECONDS if deadline is None else min(
        CORNER_CHECK_SECONDS, deadline.remaining())
    if limit <= MIN_SOLVER_SECONDS:
        return True  # not checked: the caller's time is out anyway
    outcome = sample_line_set(n, target_black, ((n - 1, n - 1),), time_limit=limit)
    possible = outcome is not Sample.NONE_EXIST
    if limit >= CORNER_CHECK_SECONDS or not possible:
        _CORNER[(n, target_black)] = possible
    return possible


def _symmetric_attempt(
    n: int, target_black: int, quarter: bool, rng: np.random.Generator, deadline: Deadline
) -> tuple[int, ...] | tuple[()] | bool | None:
    """One symmetric line set (under the half turn, or the quarter turn) and its cover: the
    placement; ``()`` when no such line set has the count; False when this set had no
    cover in time; None when time is out."""
    from nqmip.colour.exact_cover import find_exact_cover
    from nqmip.colour.lines import (
        SAMPLE_TIME_LIMIT,
        Sample,
        quarter_placement,
        quarter_realisation_options,
        sample_symmetric_line_set,
        symmetric_placement,
        symmetric_realisation_options,
    )

    left = deadline.remaining()
    if left <= MIN_SOLVER_SECONDS:
        return None
    lines = sample_symmetric_line_set(n, target_black, seed=int(rng.integers(2**31 - 1)),
                                      time_limit=deadline.sub(SAMPLE_TIME_LIMIT), quarter=quarter)
    if lines is Sample.NONE_EXIST:
        return ()
    if lines is Sample.TIME_LIMIT:
        return False
    options = quarter_realisation_options if quarter else symmetric_realisation_options
    cells, opt_items, n_items = options(n, lines)
    outcome = find_exact_cover(opt_items, n_items, seed=int(rng.integers(2**31 - 1)),
                               time_limit=deadline.sub(SYMMETRIC_SET_SECONDS),
                               node_limit=COVER_NODE_LIMIT)
    if outcome.options is None:
        return False
    chosen = cells[outcome.options]
    return quarter_placement(n, chosen) if quarter else symmetric_placement(n, chosen)


def search_line_sets(
    instance: Instance,
    target_black: int,
    *,
    seed: int | None = 0,
    time_limit: float | Deadline | None = SEARCH_SECONDS,
) -> tuple[int, ...] | None:
    """The line-set search alone: a placement, ``()`` if no line set exists, else None."""
    from nqmip.colour.exact_cover import find_exact_cover
    from nqmip.colour.lines import (
        SAMPLE_TIME_LIMIT,
        Sample,
        placement_of,
        realisation_options,
        sample_line_set,
    )

    n = instance.n
    rng = np.random.default_rng(seed)
    deadline = Deadline.of(time_limit)
    while True:
        left = deadline.remaining()
        if left <= MIN_SOLVER_SECONDS:
            return None
        lines = sample_line_set(n, target_black, instance.fixed,
                                seed=int(rng.integers(2**31 - 1)),
                                time_limit=deadline.sub(SAMPLE_TIME_LIMIT))
        if lines is Sample.NONE_EXIST:
            return ()
        if lines is Sample.TIME_LIMIT:
            continue
        cells, opt_items = realisation_options(n, lines, instance.fixed)
        outcome = find_exact_cover(opt_items, 4 * n, seed=int(rng.integers(2**31 - 1)),
                                   time_limit=deadline.sub(LINE_SET_SECONDS),
                                   node_limit=COVER_NODE_LIMIT)
        if outcome.options is not None:
            return placement_of(n, cells[outcome.options])


def search_walk(
    instance: Instance,
    target_black: int,
    *,
    seed: int | None = 0,
    time_limit: float | Deadline | None = SEARCH_SECONDS,
) -> tuple[int, ...] | None:
    """The colour walk alone: a placement with ``target_black`` black queens, or None.

    Restarts from a fresh random start every ``200 n`` moves (at least 20,000), until
    ``time_limit`` seconds have passed.
    """
    from nqmip.colour.walk_kernels import walk

    n = instance.n
    rng = np.random.default_rng(seed)
    movable = np.ones(n, dtype=np.bool_)
    for r, _ in instance.fixed:
        movable[r] = False
    deadline = Deadline.of(time_limit)
    while not deadline.expired():
        p = start_permutation(n, target_black, instance.fixed, rng)
        if p is None:
            return None
        steps = max(20_000, 200 * n)
        ok = walk(p, movable, steps, int(rng.integers(2**31)), 0.02)
        if ok:
            return tuple(int(c) for c in p)
    return None
