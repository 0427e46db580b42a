"""Proof by the colour bound: optimal placements for weights constant per colour.

With weights ``a`` on black squares ((i + j) even) and ``b`` on white ones, the objective is
``n*b + (a - b) * #black``, so the problem is the extreme number of black queens. The
black-queen bound ``B`` of :func:`nqmip.formulation.strengthen.black_queen_range` is proven
for every placement; this module turns it into proofs of optimality without a MIP:

1. Look for a placement with exactly ``B`` black queens
   (:func:`nqmip.heuristics.colour_search.search_black_count`). Reaching the bound is a
   proof.
2. If none turns up, try to *refute* ``B``
   (:func:`nqmip.formulation.lines.refute_black_count`: every line set at ``B`` is
   enumerated and none has an exact cover). A refuted count lowers the proven bound to the
   next count of the right parity (``#black = n mod 2``), and the search goes on there.
3. Otherwise try the next counts as a heuristic: the result is feasible, with the bound
   and the gap.

Every placement returned here is re-checked by the caller with the independent verifier.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from nqmip.instance import Instance

#: Share of the time limit the colour proof may use before an exact backend gets the rest,
#: and its budget in seconds when there is no time limit.
PROOF_SEARCH_SHARE = 0.75
PROOF_SEARCH_CAP = 60.0
#: Share of the budget the search at the bound may use (before lower counts are tried);
#: the first ``QUICK_SEARCH`` seconds of it come before the refutation, which gets at most
#: ``REFUTE_SECONDS``.
BOUND_SEARCH_SHARE = 0.6
QUICK_SEARCH = 4.0
REFUTE_SECONDS = 20.0
#: Counts tried below the bound (B, B - 2, …) before giving up.
MAX_TARGETS = 8


@dataclass(frozen=True)
class ColourProof:
    """Outcome of :func:`colour_proof`."""

    placement: tuple[int, ...] | None
    objective: float | None
    bound: float  # proven objective bound (the colour bound, lowered by refutations)
    black: int | None  # black queens of the placement
    black_bound: int  # proven bound on the black count (upper, or lower if white pays more)
    refuted: tuple[int, ...] = ()  # black counts refuted by the line sets
    seconds: float = 0.0

    @property
    def proven(self) -> bool:
        return self.placement is not None and self.black == self.black_bound


def colour_proof(
    instance: Instance, *, time_limit: float | None = None, seed: int | None = None
) -> ColourProof | None:
    """Search, refute and search again within ``time_limit`` (see the module docstring).

    None when the weights are not constant per colour (or both colours are worth the
    same). ``time_limit`` is this call's whole budget; None means ``PROOF_SEARCH_CAP``.
    """
    from nqmip.formulation.lines import black_count, refute_black_count
    from nqmip.formulation.strengthen import colour_weights, plan
    from nqmip.heuristics.colour_search import search_black_count

    begin = time.perf_counter()
    s = plan(instance)
    colours = colour_weights(instance)
    if s.objective_bound is None or s.black_target is None or colours is None:
        return None
    budget = PROOF_SEARCH_CAP if time_limit is None else time_limit
    step = 2 if colours.black > colours.white else -2  # towards the next best black count
    n = instance.n

    def left() -> float:
        return budget - (time.perf_counter() - begin)

    def objective_of(black: int) -> float:
        return n * colours.white + (colours.black - colours.white) * black

    black_bound = s.black_target
    refuted: list[int] = []
    target = black_bound
    for _ in range(MAX_TARGETS):
        if left() <= 0.05 or not 0 <= target <= n:
            break
        at_bound = target == black_bound
        # At the bound: a quick search first (it succeeds within seconds where the bound is
        # reached), then the refutation, then the rest of the share.
        share = (min(QUICK_SEARCH, BOUND_SEARCH_SHARE * budget) if at_bound
                 else max(0.1 * budget, 0.5))
        placement = search_black_count(instance, target, seed=seed,
                                       time_limit=min(share, left()))
        # Each bound is refuted at most once: when that fails the target moves below it.
        if placement is None and at_bound and left() > 0.05:
            outcome = refute_black_count(n, target, instance.fixed,
                                         time_limit=min(left(), REFUTE_SECONDS))
            placement = outcome.placement
            if outcome.refuted:
                refuted.append(target)
                black_bound = target = target - step
                continue
            if placement is None:
                more = BOUND_SEARCH_SHARE * budget - (time.perf_counter() - begin)
                if more > 0.05:
                    placement = search_black_count(instance, target, seed=seed,
                                                   time_limit=min(more, left()))
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
