"""Proof by the colour bound: optimal placements for weights constant per colour.

With weights ``a`` on black squares ((i + j) even) and ``b`` on white ones, the objective is
``n*b + (a - b) * #black``, so the problem is the extreme number of black queens. The
black-queen bound ``B`` of :func:`nqmip.formulation.colour_bound.black_queen_range` is proven
for every placement; this module turns it into proofs of optimality without a MIP:

1. Look for a placement with exactly ``B`` black queens
   (:func:`nqmip.colour.search.search_black_count`). Reaching the bound is a
   proof.
2. If none turns up, try to *refute* ``B``
   (:func:`nqmip.colour.lines.refute_black_count`: every line set at ``B`` is
   enumerated and none has an exact cover). A refuted count lowers the proven bound to the
   next count of the right parity (``#black = n mod 2``), and the search goes on there.
3. Otherwise try the next counts as a heuristic: the result is feasible, with the bound
   and the gap.

:func:`proof_by_bound` and :func:`with_colour_bound` turn a proof into a verified
:class:`~nqmip.result.Result` (the exact pipeline and ``auto`` use them).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nqmip.budget import Deadline
from nqmip.instance import ColourWeights, Instance
from nqmip.outcome import make_result
from nqmip.result import Counters, Provenance, Result, Status, Termination, Timing
from nqmip.verify import verified

#: Share of the budget the search at the bound may use (before lower counts are tried);
#: the first ``QUICK_SEARCH`` seconds of it come before the refutation, which gets at most
#: ``REFUTE_SECONDS``. A count below the bound gets ``LOWER_TARGET_SHARE`` of the budget
#: (at least ``LOWER_TARGET_SECONDS``).
BOUND_SEARCH_SHARE = 0.6
QUICK_SEARCH = 4.0
REFUTE_SECONDS = 20.0
LOWER_TARGET_SHARE = 0.1
LOWER_TARGET_SECONDS = 0.5
#: Counts tried below the bound (B, B - 2, …) before giving up.
MAX_TARGETS = 8
#: Below this many seconds left a step is not started.
MIN_STEP_SECONDS = 0.05


@dataclass(frozen=True)
class ColourProof:
    """Outcome of :func:`colour_proof`."""

    placement: tuple[int, ...] | None
    objective: float | None
    bound: float  # proven objective bound (the colour bound, lowered by refutations)
    black: int | None  # black queens of the placement
    black_bound: int  # proven bound on the black count (upper, or lower if white pays more)
    refuted: tuple[int, ...] = ()  # black counts refuted (line sets, or the listing)
    seconds: float = 0.0

    @property
    def proven(self) -> bool:
        return self.placement is not None and self.black == self.black_bound


@dataclass(frozen=True)
class _Direction:
    """Which way the colour proof goes for an instance's colour weights."""

    colours: ColourWeights
    maximise: bool  # black worth more: the most black queens, else the fewest
    step: int  # from a black count to the next best one (the count keeps n's parity)
    symmetric_min_n: int | None  # the symmetric line sets first from this n (None: default)


def _direction(instance: Instance) -> _Direction | None:
    """None unless the weights are constant per colour, the two colours worth differently."""
    from nqmip.colour import search

    colours = None if instance.is_feasibility else instance.colours
    if colours is None or colours.black == colours.white:
        return None
    maximise = colours.black > colours.white
    return _Direction(colours=colours, maximise=maximise, step=2 if maximise else -2,
                      symmetric_min_n=None if maximise else search.FEWEST_SYMMETRIC_MIN_N)


def colour_proof(
    instance: Instance, *, time_limit: float | Deadline | None = None, seed: int | None = None,
    on_refuted: Callable[[int], object] | None = None,
) -> ColourProof | None:
    """Search, refute and search again within ``time_limit`` (see the module docstring).
    ``on_refuted(count)`` is told each black count as soon as it is refuted (a second
    search beside this one moves to the next count).

    None when the weights are not constant per colour (or both colours are worth the
    same). ``time_limit`` (seconds or a :class:`~nqmip.budget.Deadline`) is this call's
    whole budget; None means no limit: the search at the bound then runs until it finds a
    placement, which never happens when the bound is not reached and not refuted, so a
    caller that needs an answer gives a limit (``auto`` and ``bound_proof`` do).
    """
    from nqmip.colour import search
    from nqmip.colour.lines import refute_black_count
    from nqmip.formulation.colour_bound import black_count, black_queen_bound

    deadline = Deadline.of(time_limit)
    begin = time.perf_counter()
    way = _direction(instance)
    if way is None:
        return None
    colours = way.colours
    best = black_queen_bound(instance.n, instance.fixed, maximise=way.maximise)
    if best is None:
        return None
    listed = _listed_proof(instance, way, best, deadline, begin)
    if listed is not None:
        return listed
    budget = deadline.remaining()  # inf without a limit
    step, symmetric_min_n = way.step, way.symmetric_min_n
    n = instance.n

    def objective_of(black: int) -> float:
        return n * colours.white + (colours.black - colours.white) * black

    black_bound = best
    refuted: list[int] = []
    target = black_bound
    for _ in range(MAX_TARGETS):
        if deadline.remaining() <= MIN_STEP_SECONDS or not 0 <= target <= n:
            break
        at_bound = target == black_bound
        # At the bound: a quick search first (it succeeds within seconds where the bound is
        # reached), then the refutation, then the rest of the share.
        share = (min(QUICK_SEARCH, BOUND_SEARCH_SHARE * budget) if at_bound
                 else max(LOWER_TARGET_SHARE * budget, LOWER_TARGET_SECONDS))
        placement = search.search_black_count(
            instance, target, seed=seed, time_limit=deadline.sub(share),
            symmetric_min_n=symmetric_min_n)
        # Each bound is refuted at most once: when that fails the target moves below it.
        if placement is None and at_bound and deadline.remaining() > MIN_STEP_SECONDS:
            outcome = refute_black_count(n, target, instance.fixed,
                                         time_limit=deadline.sub(REFUTE_SECONDS))
            placement = outcome.placement
            if outcome.refuted:
                refuted.append(target)
                black_bound = target = target - step
                if on_refuted is not None:
                    on_refuted(refuted[-1])
                continue
            if placement is None:
                more = BOUND_SEARCH_SHARE * budget - (time.perf_counter() - begin)
                if more > MIN_STEP_SECONDS:
                    placement = search.search_black_count(
                        instance, target, seed=seed, time_limit=deadline.sub(more),
                        symmetric_min_n=symmetric_min_n)
        if placement is not None:
            return ColourProof(
                placement=placement, objective=instance.objective(placement),
                bound=objective_of(black_bound), black=black_count(placement),
                black_bound=black_bound, refuted=tuple(refuted),
                seconds=time.perf_counter() - begin)
        target -= step
    return ColourProof(placement=None, objective=None, bound=objective_of(black_bound),
                       black=None, black_bound=black_bound, refuted=tuple(refuted),
                       seconds=time.perf_counter() - begin)


def _listed_proof(instance: Instance, way: _Direction, best: int, deadline: Deadline,
                  begin: float) -> ColourProof | None:
    """The proof on a small board, from every placement (the heuristics' listing,
    :mod:`nqmip.heuristics.exhaustive`: at most 12 free rows, 0.1 s): the extreme black
    count reached is the bound, each count between it and ``best`` refuted by the listing.
    The walk spent its 4 s quick search at an unreachable count before the line sets
    refuted it (chess n = 6, queen (1, 3): 4.8 s). None beyond the listing's boards, or
    where no placement keeps the fixed queens (the solver answers infeasible)."""
    import numpy as np

    from nqmip.heuristics.exhaustive import every_placement

    every = every_placement(instance, deadline)
    if every is None or not len(every):
        return None
    n = instance.n
    counts = np.count_nonzero((np.arange(n) + every) % 2 == 0, axis=1)
    pick = int(np.argmax(counts) if way.maximise else np.argmin(counts))
    black = int(counts[pick])
    placement = tuple(int(c) for c in every[pick])
    colours = way.colours
    objective = n * colours.white + (colours.black - colours.white) * black
    return ColourProof(
        placement=placement, objective=instance.objective(placement), bound=objective,
        black=black, black_bound=black, refuted=tuple(range(best, black, -way.step)),
        seconds=time.perf_counter() - begin)


def warm_up(n: int | None = None) -> None:
    """Compile (or load from numba's cache) the proof's kernels on tiny problems: the exact
    cover (:mod:`nqmip.colour.exact_cover`) and the colour walk, with the argument types
    the proof gives them. ``n``: only the kernel a proof at that size starts with (the
    line sets' exact cover in their range, else the walk; the other compiles when it is
    first called: chess n = 40 cold, 2.1 s of compile instead of 4.0 s)."""
    import numpy as np

    from nqmip.colour.search import LINE_SEARCH_MAX_N, LINE_SEARCH_MIN_N

    lines = n is None or LINE_SEARCH_MIN_N <= n <= LINE_SEARCH_MAX_N
    if lines:
        from nqmip.colour.exact_cover import find_exact_cover

        find_exact_cover(np.array([[0, 1], [2, 3], [0, 2], [1, 3]]), 4)
    if n is None or not lines:
        from nqmip.colour.walk_kernels import walk

        walk(np.arange(8, dtype=np.int64), np.ones(8, dtype=np.bool_), 10, 0, 0.02)


def proof_by_bound(
    instance: Instance, method: str, solver: str, seed: int | None, begin: float,
    colour: ColourProof,
) -> Result:
    """Optimal without running the solver: the placement reaches the colour bound.

    With weights constant per colour the black-queen bound (lowered by the counts the line
    sets refuted) is a proven objective bound, and a placement reaching it is optimal. The
    backend ``solver`` is then never called (``provenance.proof == "colour_bound"``).
    """
    message = "optimal by the colour bound: the solver was not needed"
    if colour.refuted:
        message += (f" (no placement has {', '.join(map(str, colour.refuted))} black queens:"
                    " refuted by the line sets, or every placement listed on a small board)")
    return make_result(
        instance, method, colour.placement, Termination.OPTIMAL, solver="colour proof",
        proven=True, bound=colour.bound, seed=seed, message=message,
        timing=Timing(wall=time.perf_counter() - begin), counters=Counters(nodes=0),
        provenance=provenance_of(colour, plan=("colour proof",)),
        extra={"black_queens": colour.black, "backend_not_run": solver})


def provenance_of(colour: ColourProof, plan: tuple[str, ...]) -> Provenance:
    """The provenance of a placement found by the colour proof."""
    return Provenance(plan=plan, proof="colour_bound" if colour.proven else None,
                      bound_source="colour_bound", refuted_black_counts=colour.refuted,
                      incumbent_source="colour_search")


def with_colour_bound(instance: Instance, result: Result, colour: ColourProof) -> Result:
    """Tighten a solver's bound with the colour proof's (refuted counts lower it)."""
    if result.status == Status.INFEASIBLE:
        return result
    if result.bound is not None and result.bound <= colour.bound:
        return result
    tol = 1e-6 * max(1.0, abs(colour.bound))
    proven = result.objective is not None and result.objective >= colour.bound - tol
    provenance = result.provenance.with_(
        bound_source="colour_bound", refuted_black_counts=colour.refuted,
        proof="colour_bound" if proven else result.provenance.proof)
    return verified(instance, result.with_(
        bound=colour.bound,
        status=Status.OPTIMAL if proven else result.status,
        termination=Termination.OPTIMAL if proven else result.termination,
        provenance=provenance,
    ))


def proof_result(
    instance: Instance, *, seed: int | None, time_limit: float | Deadline | None,
    on_refuted: Callable[[int], object] | None = None,
) -> Result | None:
    """:func:`colour_proof` (search at the bound B, refute B with the line sets, then
    B - 2, …) as a verified ``auto`` result; None when it found no placement."""
    begin = time.perf_counter()
    found = colour_proof(instance, time_limit=time_limit, seed=seed, on_refuted=on_refuted)
    if found is None or found.placement is None:
        return None
    proven = found.proven
    return make_result(
        instance, "auto", found.placement,
        Termination.OPTIMAL if proven else Termination.TIME_LIMIT, solver="colour proof",
        proven=proven, bound=found.bound, seed=seed,
        timing=Timing(wall=time.perf_counter() - begin),
        message=("optimal: the placement reaches the colour bound" if proven else
                 f"{found.black} black queens; the bound allows {found.black_bound}"),
        provenance=provenance_of(found, plan=("colour proof",)),
        extra={"black_queens": found.black})


def search_at_bound(
    instance: Instance, *, seed: int | None, time_limit: float | Deadline | None,
    refuted: Callable[[], Sequence[int]] | None = None,
    attempts: Callable[[Deadline], object] | None = None,
) -> Result | None:
    """The search at the colour bound alone, as a second stream beside :func:`colour_proof`
    (``auto`` runs it on the other core, n in 65..128): the proof's search
    (:func:`nqmip.colour.search.search_black_count`) from another seed, with
    ``SECOND_SYMMETRIC_SHARE`` of the time for the symmetric line sets, at the black bound
    as it stands: the colour bound, moved past the counts ``refuted()`` returns (``auto``
    passes those the proof beside it has refuted, in order). Each attempt runs until
    ``time_limit``; ``attempts(d)`` is given its :class:`~nqmip.budget.Deadline`, which the
    caller cancels when the bound moves (then the next attempt starts at the new bound).
    A verified optimal result when a placement reaches the bound, its provenance naming
    the refuted counts, else None (the stream proves nothing else: the proof refutes).

    Why: at the bound the search is a lottery of line sets. Chess n = 100, B = 78: the
    symmetric search alone found it in 1.9-17.1 s over seeds 0-5, so a second seed beside
    the proof's shortens the wait; n = 127 (B = 99): in 2 of 4 seeds within 40 s.
    """
    from nqmip.colour import search
    from nqmip.formulation.colour_bound import black_count, black_queen_bound

    way = _direction(instance)
    if way is None:
        return None
    begin = time.perf_counter()
    deadline = Deadline.of(time_limit)
    rng_seed = 0 if seed is None else seed

    def bound_now() -> tuple[tuple[int, ...], int | None]:
        counts = tuple(refuted()) if refuted is not None else ()
        return counts, (counts[-1] - way.step if counts else black_queen_bound(
            instance.n, instance.fixed, maximise=way.maximise))

    while not deadline.expired():
        counts, target = bound_now()
        if target is None:
            return None
        attempt = deadline.sub()
        if attempts is not None:
            attempts(attempt)
            if bound_now()[0] != counts:  # the bound moved before the caller could cancel
                continue
        placement = search.search_black_count(
            instance, target, seed=rng_seed, time_limit=attempt,
            symmetric_min_n=way.symmetric_min_n, symmetric_share=SECOND_SYMMETRIC_SHARE)
        rng_seed += 1_000_003  # the next attempt draws other line sets
        if placement is None:
            if attempt.expired():
                continue  # the deadline, or the bound moved
            return None  # the line model has no line set at the bound: nothing to search
        if black_count(placement) != target:  # a cover of a line set at the bound cannot
            raise RuntimeError(f"the search at {target} black queens returned another count")
        objective = instance.objective(placement)
        proof = ColourProof(placement=placement, objective=objective, bound=objective,
                            black=target, black_bound=target, refuted=counts,
                            seconds=time.perf_counter() - begin)
        message = "optimal: the placement reaches the colour bound (search, second stream)"
        if counts:
            message += (f"; no placement has {', '.join(map(str, counts))} black queens"
                        " (refuted by the proof's line sets)")
        return proof_by_bound(instance, "auto", "colour proof", seed, begin, proof).with_(
            message=message, extra={"black_queens": target})
    return None


#: Share of the second stream's time for the symmetric line sets (the proof gives them
#: ``search.SYMMETRIC_SHARE``; the plain line sets have the rest). Chess n = 82 (B = 64)
#: has symmetric line sets at B, but no cover of one turned up in 150 s, while the plain
#: line sets alone found a placement within 64 s in 6 of 6 seeds (median 13 s).
SECOND_SYMMETRIC_SHARE = 0.5
#: Beyond the MIP's range (n > ``hybrid.AUTO_COLOUR_EXACT_MAX_N``) with at least
#: ``SECOND_STREAM_MIN_SECONDS`` of budget, ``auto`` runs :func:`search_at_bound` on the
#: other core for this share of it before the annealing. Most of it: past 0.6 of the
#: budget the proof itself moves to the lower counts (which give the placement when the
#: bound is not reached). Without a limit it has the proof's seconds: a share of no limit
#: is no limit, and where the bound is not reached auto then never returned (n = 93).
SECOND_STREAM_SHARE = 0.85
SECOND_STREAM_MIN_SECONDS = 10.0
