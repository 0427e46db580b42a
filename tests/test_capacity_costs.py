"""A search on dense weights is charged a second matrix only for costs: weights to maximise
reach its kernels as they are (nqmip.weights.kernel_layout), costs as the maximisation's
flipped copy (nqmip.sense). Before, every search was charged the copy, so random n = 40,000
(12.8 GB) was refused on a 24 GiB machine for "needing 24.1 GB", where sa at n = 25,000
peaked at 1.0 times its matrix. Here the machine is made small enough that the matrix fits
once and not twice, at every door that judges it."""

from __future__ import annotations

import pytest

import nqmip
from nqmip import capacity
from nqmip.capacity import BASE_BYTES, BYTES_PER_QUEEN, USABLE_SHARE, CapacityError
from nqmip.compare.checks import check_capacity as compare_check
from nqmip.fits import check_capacity
from nqmip.methods import METHODS

N = 2000
MATRIX = 8 * N * N
SEARCHES = [m.name for m in METHODS.values() if m.kind == "heuristic" and "dense" in m.weights]


@pytest.fixture
def small_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Memory for the interpreter and one and a half matrices."""
    have = int((BASE_BYTES + BYTES_PER_QUEEN * N + 1.5 * MATRIX) / USABLE_SHARE)
    monkeypatch.setattr(capacity, "available_bytes", lambda: have)


@pytest.mark.parametrize("method", SEARCHES)
def test_weights_to_maximise_are_charged_once_and_costs_twice(method: str,
                                                               small_machine: None) -> None:
    check_capacity(METHODS[method], N, dense=True, costs=False)
    with pytest.raises(CapacityError, match="its copy of the weights"):
        check_capacity(METHODS[method], N, dense=True, costs=True)
    compare_check([N], [method], "random", (), costs=False)
    with pytest.raises(Exception, match="its copy of the weights"):
        compare_check([N], [method], "random", (), costs=True)


def test_the_api_runs_weights_and_refuses_costs_before_the_draw(small_machine: None) -> None:
    result = nqmip.solve(N, "random", method="sa", time_limit=2, seed=0)
    assert result.placement is not None
    with pytest.raises(CapacityError, match="its copy of the weights"):
        nqmip.solve(N, "random", method="sa", sense="min", time_limit=2, seed=0)
