"""Minimisation on top of a package that maximises: costs ``c`` become weights ``K - c``.

Every placement holds exactly n queens (fixed ones included), so for any constant ``K``
the cheapest placement under ``c`` is the heaviest under ``K - c``, and
``min sum c = n K - max sum (K - c)``. With ``K`` the largest cost the weights stay
non-negative, and costs constant per colour stay constant per colour, so the colour bound
and its proof apply to minimisation too. Every method, bound and warm start thus works
unchanged on the maximisation; :func:`from_maximisation` turns its result back (the bound
becomes a lower bound) and the verifier re-checks it against the user's costs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import numpy as np

from nqmip.budget import Deadline
from nqmip.instance import ColourWeights, Instance
from nqmip.result import Result
from nqmip.weights import kernel_layout, row_blocks


class FlipOutOfTime(RuntimeError):
    """The deadline ended while a dense matrix of costs was turned into weights."""


def to_maximisation(instance: Instance,
                    deadline: Deadline | None = None) -> tuple[Instance, float]:
    """The maximisation equivalent of a minimisation and the offset ``n K``; a dense matrix
    is flipped a block of rows at a time, :class:`FlipOutOfTime` when ``deadline`` ends
    between two (random costs at n = 25,000: 12 s of an 8 s limit went here, and the
    method then started with no time left)."""
    if instance.sense != "min" or instance.is_feasibility:
        return instance, 0.0
    if instance.colours is not None and instance.dense is None:
        given = instance.colours
        top = max(given.black, given.white)
        flipped = ColourWeights(top - given.black, top - given.white)
        return replace(instance, colours=flipped, sense="max"), instance.n * top
    dense, n = instance.dense, instance.n
    assert dense is not None

    def blocks(doing: str) -> Iterator[slice]:
        return row_blocks(n, n, deadline, lambda done: FlipOutOfTime(
            f"the time limit ended while the {n} x {n} costs were turned into weights "
            f"({done:,} rows {doing})"))

    top = max(float(dense[rows].max()) for rows in blocks("read for the largest"))
    weights = kernel_layout(n)  # as the kernels read it (nqmip.weights)
    for rows in blocks("flipped"):
        np.subtract(top, dense[rows], out=weights[rows])
    weights.setflags(write=False)
    colours: ColourWeights | None = None
    if instance.colours is not None:
        colours = ColourWeights(top - instance.colours.black, top - instance.colours.white)
    return replace(instance, dense=np.asarray(weights), colours=colours,
                   sense="max"), instance.n * top


def gap_for_maximisation(instance: Instance, offset: float, mip_gap: float) -> float:
    """The relative gap to solve the maximisation of the minimisation ``instance`` to, so
    that the costs' own gap stays within ``mip_gap``. A gap g on a cost c is g·c in
    absolute terms, and the maximisation's objective is ``offset`` − c, so g' = g·L /
    (``offset`` − L) holds for every placement, L the least cost one can have (each row's
    cheapest square); with L ≤ 0 no relative gap of the maximisation does, and it is solved
    to its proof (0). Given as it was, bnb's mip_gap=0.1 at random n = 12, costs, stopped
    at 28 / 21 (25 %): its margin was a tenth of the maximisation's objective."""
    if mip_gap <= 0.0:
        return mip_gap
    if instance.dense is not None:
        least = float(instance.dense.min(axis=1).sum())
    elif instance.colours is not None:
        least = instance.n * min(instance.colours.black, instance.colours.white)
    else:
        return mip_gap
    if least <= 0.0:
        return 0.0
    if offset <= least:  # every placement costs the same
        return mip_gap
    return mip_gap * least / (offset - least)


#: Statistics of ``Result.extra`` that are values of the objective (a method's root bound):
#: turned into costs with the objective.
BOUNDS_IN_EXTRA = ("root_bound",)


def from_maximisation(result: Result, offset: float) -> Result:
    """A result of the maximisation, in the minimisation's terms: the objective, the bound
    (now a lower bound), the target, the warm start's value, every point of the trajectory
    and the bounds among the statistics (``BOUNDS_IN_EXTRA``) become costs."""
    def back(value: float | None) -> float | None:
        # + 0.0: weights of -0.0 (offset -0.0) gave "-0.0" to a reader
        return None if value is None else offset - value + 0.0

    provenance = result.provenance.with_(start_objective=back(result.provenance.start_objective))
    trajectory = tuple(replace(p, incumbent=back(p.incumbent), bound=back(p.bound))
                       for p in result.trajectory)
    extra = {**result.extra, **{key: back(result.extra[key]) for key in BOUNDS_IN_EXTRA
                                if isinstance(result.extra.get(key), (int, float))}}
    return result.with_(objective=back(result.objective), bound=back(result.bound),
                        target=back(result.target), provenance=provenance,
                        trajectory=trajectory, sense="min", extra=extra)
