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
                   params: Mapping[str, Any] | None = None) -> None:
    """:class:`~nqmip.capacity.CapacityError` when a run of ``spec`` on an n-board (dense
    weights or not; ``free`` rows left by fixed queens) with the heuristic's own
    ``params`` (checked) would not fit in this machine's memory: the one judgement of
    :func:`nqmip.solve` and of ``nqmip-compare`` before its sweep."""
    search_copy = dense and spec.kind != "exact"
    extra = BYTES_PER_SEARCH_WEIGHT * n * n if search_copy else 0
    own = 0
    if spec.kind == "heuristic" and params:
        from nqmip.heuristics.params import own_bytes

        own = own_bytes(spec.name, n, params)
    why = " and ".join(what for what, size in (("its copy of the weights", extra),
                                              ("its own parameters", own)) if size)
    check_fits(n, dense_weights=dense, exact_model=spec.kind == "exact", method=spec.name,
               model_rows=free, extra=extra + own, extra_for=why)
