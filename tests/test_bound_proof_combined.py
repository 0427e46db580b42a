"""``bound_proof=True`` is honoured with the options it combines with: ``strengthen=False``
and a warm start dropped it without a word (HiGHS at chess n = 20: the plan ('highs',),
the solver's proof, where alone it was ('colour proof',)). Generated from the method
table: every exact method that honours bound_proof, with each of those options it honours."""

from __future__ import annotations

import pytest

import nqmip
from nqmip.construct import explicit_solution
from nqmip.methods import METHODS

from .conftest import backend_params

PROVING = tuple(name for name, spec in METHODS.items()
                if spec.kind == "exact" and spec.honour("bound_proof"))
WITH = {"strengthen": False, "warm_start": tuple(int(c) for c in explicit_solution(20))}


@pytest.mark.parametrize("option", list(WITH))
@pytest.mark.parametrize("method", backend_params(PROVING))
def test_the_colour_proof_runs_beside_another_option(method: str, option: str) -> None:
    if not METHODS[method].honour(option):
        pytest.skip(f"{method} does not take {option} (refused: tests/test_contract.py)")
    result = nqmip.solve(20, "chess", method=method, bound_proof=True,
                         **{option: WITH[option]})  # type: ignore[arg-type]
    assert result.provenance.plan[0] == "colour proof", result.provenance  # before a model
    assert result.status is nqmip.Status.OPTIMAL and result.objective == result.bound, result
