"""Short time limits kept at medium boards: every method answers within its limit plus the
watchdog's grace (a generous margin: the machine may be loaded), and every answer without
a placement says why; a heuristic stopped before its first placement answers with the
explicit construction where one exists (no fixed queens), as a method that did not return
does."""

from __future__ import annotations

import time

import pytest

import nqmip
from nqmip.methods import METHODS
from nqmip.result import Status

HEURISTICS = [name for name, spec in METHODS.items() if spec.kind == "heuristic"]


def _accepts_fixed(method: str) -> bool:
    return METHODS[method].honour("fixed")


@pytest.mark.parametrize("method", HEURISTICS)
@pytest.mark.parametrize("fixed", [False, True])
def test_a_heuristic_stopped_before_its_first_placement_says_why(method: str,
                                                                 fixed: bool) -> None:
    if fixed and not _accepts_fixed(method):
        pytest.skip(f"{method} takes no fixed queens")
    sense = "min" if fixed else "max"
    weights = "chess" if "colour" in METHODS[method].weights else "random"
    for n, limit in ((60, 0.01), (30, 0.05)):
        begin = time.perf_counter()
        result = nqmip.solve(n, weights, method=method, time_limit=limit, seed=0,
                             sense=sense, fixed=[(0, 1)] if fixed else None)
        assert time.perf_counter() - begin < limit + 5.0
        if result.placement is None:
            assert result.message, (method, n, result)  # said why there is none
            assert fixed, (method, n, result.status, result.message)
        else:
            assert nqmip.is_solution(result.placement)
        assert result.status is not Status.UNKNOWN or result.message
