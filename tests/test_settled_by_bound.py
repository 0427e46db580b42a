"""An exact method's incumbent that meets a bound is optimal, whatever stopped the solver:
its own bound, or the best square of each row and column (``proof == "bound"``), as a
heuristic's is; and SCIP's infinity is no bound.

Found by a sweep of colour weights (eight black/white pairs, one value on every square
among them) x n = 4..9 x fixed queens x both senses x every method, with the optimum as
the target: on weights of one value on every square the target stopped the exact methods
before their proof, and 79 of 3,456 runs said feasible with the optimum in hand: bnb with
its bound equal to the objective (24 = 24), HiGHS and auto with a bound of 54 where the
rows' best squares give 24, Gurobi and CP-SAT with none, SCIP with its infinity 1e20 as
the bound (a gap of 4e20 %).
"""

from __future__ import annotations

import pytest

import nqmip
from nqmip.methods import METHODS
from nqmip.result import Status, Termination
from tests.conftest import backend_params

TARGETED = tuple(name for name, spec in METHODS.items()
                 if spec.kind == "exact" and spec.honour("target"))
#: the fast lane's sample: the three answers seen (the solver's bound met, a loose bound,
#: SCIP's infinity)
SAMPLE = ("bnb", "highs", "scip")


@pytest.mark.parametrize("method", backend_params(SAMPLE))
def test_a_target_at_a_bound_is_optimal(method: str) -> None:
    check(method, 3.0, "max")


@pytest.mark.parametrize("sense", ["max", "min"])
@pytest.mark.parametrize("value", [3.0, 0.0, -2.0])
@pytest.mark.parametrize("method", backend_params(TARGETED))
def test_every_targeted_method_at_a_bound_is_optimal(method: str, value: float,
                                                     sense: str) -> None:
    check(method, value, sense)


def check(method: str, value: float, sense: str) -> None:
    n = 8
    result = nqmip.solve(n, "chess", black=value, white=value, sense=sense, method=method,
                         target=n * value, time_limit=30)
    assert result.placement is not None and nqmip.is_solution(result.placement)
    assert (result.status, result.termination) == (Status.OPTIMAL, Termination.OPTIMAL), (
        result, result.message)
    assert result.objective == result.bound == n * value
    if result.provenance.proof == "bound":  # not the solver's word for its stop
        assert result.message == "", result.message
