"""Whether a run of a method fits this machine's memory, judged before anything is
allocated: :mod:`nqmip.capacity`'s estimate for the method's kind (an exact method's
model, a search's copy of dense weights) and what a heuristic's own parameters make it
hold (the GA's population). :func:`nqmip.solve` and ``nqmip-compare`` (before its sweep)
ask it the same question, so a board is refused the same way at either door."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nqmip.capacity import BYTES_PER_SEARCH_WEIGHT, check_fits

if TYPE_CHECKING:
    from nqmip.methods import Method


def check_capacity(spec: Method, n: int, *, dense: bool, free: int | None = None,
                   params: Mapping[str, Any] | None = None, held: bool = False,
                   costs: bool = True) -> None:
    """:class:`~nqmip.capacity.CapacityError` when a run of ``spec`` on an n-board (dense
    weights or not; ``free`` rows left by fixed queens) with the heuristic's own
    ``params`` (checked) would not fit in this machine's memory: the one judgement of
    :func:`nqmip.solve` and of ``nqmip-compare`` before its sweep. ``held``: the dense
    weights are already in memory (no longer in what the kernel calls available), so they
    are not counted again (a 30,000-board of random weights was drawn, 7.2 GB, then
    refused for needing them twice). ``costs``: the weights are costs (``sense="min"``),
    which a search reads as a maximisation's copy (:func:`nqmip.sense.to_maximisation`);
    weights to maximise reach its kernels as they are (:func:`nqmip.weights.kernel_layout`:
    sa at random n = 25,000 peaked at 5.07 GB, the matrix 5.0 GB)."""
    search_copy = dense and costs and spec.kind != "exact"
    extra = BYTES_PER_SEARCH_WEIGHT * n * n if search_copy else 0
    own = 0
    if spec.kind == "heuristic" and params:
        from nqmip.heuristics.params import own_bytes

        own = own_bytes(spec.name, n, params)
    why = " and ".join(what for what, size in (("its copy of the weights", extra),
                                              ("its own parameters", own)) if size)
    check_fits(n, dense_weights=dense and not held, exact_model=spec.kind == "exact",
               method=spec.name, model_rows=free, pair_tables=spec.pair_tables,
               extra=extra + own, extra_for=why)


def check_random(spec: Method, n: int, seed: int | None,
                 params: Mapping[str, Any] | None = None, *, costs: bool = True) -> None:
    """Before random weights are drawn (7.2 GB, 5 to 10 s at n = 30,000): the memory of
    the run (:func:`check_capacity`) and, for a method that takes no weight matrix, the
    kind of the weights, read from their first two rows (the same numbers): a matrix
    constant per colour is so in them. ``quota`` was refused after the draw, 8 s on."""
    check_capacity(spec, n, dense=True, params=params, costs=costs)
    if "dense" in spec.weights or n < 2:
        return
    import numpy as np

    from nqmip.instance import random_preset
    from nqmip.methods import check_weights

    head = random_preset(n, seed, rows=2)
    i, j = np.indices(head.shape)
    black, white = head[(i + j) % 2 == 0], head[(i + j) % 2 == 1]
    if np.ptp(black) or np.ptp(white):  # not constant per colour: the draw is a matrix
        check_weights(spec, feasibility=False, colours=False, dense=True, uniform=False)
