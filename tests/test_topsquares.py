"""topsquares: min-conflicts swaps on the heaviest squares."""

from __future__ import annotations

import numpy as np
import pytest

import nqmip
from nqmip import Status
from nqmip.verify import conflicts


def test_reaches_the_bound_where_the_top_weight_fits_everywhere() -> None:
    # random 1..9 at n = 1000: a placement on 9s exists, and 9n is the row-maxima bound
    r = nqmip.solve(1000, "random", weights_seed=0, method="topsquares", seed=0)
    assert r.status == Status.OPTIMAL and r.objective == 9000 == r.bound
    assert conflicts(r.placement) == 0


def test_keeps_fixed_queens_and_drops_the_threshold_when_it_must() -> None:
    n = 300
    w = nqmip.random_weights(n, seed=5)
    base = nqmip.solve(n, w, method="topsquares", seed=1)
    assert base.placement is not None
    fixed = {r: int(base.placement[r]) for r in range(0, n, 37)}
    r = nqmip.solve(n, w, fixed=fixed, method="topsquares", seed=2)
    assert r.placement is not None and conflicts(r.placement) == 0
    assert all(r.placement[row] == col for row, col in fixed.items())
    # every queen sits on a square at least as heavy as the last threshold tried
    last = r.extra["stages"][-1]["threshold"]
    free = [row for row in range(n) if row not in fixed]
    assert np.all(w[free, np.asarray(r.placement)[free]] >= last)


def test_same_seed_same_answer() -> None:
    a = nqmip.solve(400, "random", weights_seed=3, method="topsquares", seed=7)
    b = nqmip.solve(400, "random", weights_seed=3, method="topsquares", seed=7)
    assert a.placement == b.placement


@pytest.mark.parametrize("weights", ["chess", None])
def test_needs_a_dense_matrix(weights: str | None) -> None:
    with pytest.raises(ValueError, match="takes a weight matrix"):
        nqmip.solve(50, weights, method="topsquares", seed=0)
