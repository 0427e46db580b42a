"""Seams of the API found by a hunt over its doors, each case generated from the method
table: a start given as a numpy array (every exact method but auto raised 'The truth
value of an array ... is ambiguous'), a target's early stop whose bound was looser than
the row and column maxima (and changed from one call to the next), and the order of a
refusal's reasons (a fractional work limit of a method that takes none)."""

from __future__ import annotations

import numpy as np
import pytest

import nqmip
from nqmip.heuristics.common import weight_bound
from nqmip.methods import METHODS
from tests.conftest import backend_params

STARTERS = tuple(name for name, spec in METHODS.items()
                 if spec.kind == "exact" and spec.honour("warm_start"))
TARGETED = tuple(name for name, spec in METHODS.items()
                 if spec.kind == "exact" and spec.honour("target"))
#: A solution of the 8-board (as placements come from numpy code, and from the package
#: itself at n >= 10^6).
START = np.array([0, 4, 7, 5, 2, 6, 1, 3])


@pytest.mark.parametrize("form", ["int64", "int32", "list", "result"])
@pytest.mark.parametrize("method", [*backend_params(tuple(m for m in STARTERS
                                                          if m != "auto")), "auto"])
def test_a_start_of_any_form_is_taken(method: str, form: str) -> None:
    start: object = {"int64": START, "int32": START.astype(np.int32),
                     "list": START.tolist()}.get(form)
    if form == "result":  # a Result whose placement is an array
        start = nqmip.solve(8, "chess", method="sa", seed=1).with_(placement=START)
    r = nqmip.solve(8, "chess", method=method, warm_start=start, time_limit=30)
    assert r.status.value == "optimal" and r.objective == 12, r


@pytest.mark.parametrize("sense", ["max", "min"])
@pytest.mark.parametrize("method", backend_params(TARGETED))
def test_a_target_reached_at_once_keeps_the_tightest_bound(method: str, sense: str) -> None:
    """A target the start meets stops the solver before it has a bound of its own worth
    the name: the answer's bound is never looser than the row and column maxima (HiGHS
    said 131 or 61 from one call to the next where they say 68), and never missing (every
    exact method said 'bound -' where the heuristics carried the maxima's)."""
    weights = nqmip.random_weights(8, seed=5)
    inst = nqmip.make_instance(8, weights, sense=sense)
    target = 0.0 if sense == "max" else 1e9
    r = nqmip.solve(inst, method=method, target=target, time_limit=10)
    assert r.objective is not None, r
    assert r.bound is not None, r
    cheap = weight_bound(inst) if sense == "max" else None
    if sense == "max":
        assert r.bound <= cheap + 1e-9, (r.bound, cheap)
    else:  # the costs' least: each row's cheapest square
        least = float(np.asarray(weights).min(axis=1).sum())
        assert r.bound >= least - 1e-9, (r.bound, least)


def test_a_method_that_takes_no_work_limit_says_so_for_any_value() -> None:
    takers = [name for name, spec in METHODS.items() if not spec.honour("work_limit")]
    assert takers
    for name in takers:
        for value in (1, 1.5):
            with pytest.raises(ValueError, match="does not take work_limit"):
                nqmip.solve(7, "random", method=name, work_limit=value)


def test_an_empty_array_is_not_told_to_give_n_0() -> None:
    with pytest.raises(nqmip.InstanceError) as refused:
        nqmip.solve(5, np.zeros((0, 0)))
    assert "give n=" not in str(refused.value)
