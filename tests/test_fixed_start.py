"""Under a time limit an exact solver starts from a placement with fixed queens too: the
completion of a short search (``provenance.warm_start == "completion"``), as it starts from
the climbed construction without them. HiGHS had none there: at n = 36 with the queen
(28, 29), 10 s, it answered that stand-in after its run, 54 against the optimum 62 (with
the start: 60, bound 62). Under a work limit there is none (a timed search is not a
count). Generated from the method table's exact methods (bnb's route with fixed queens is
auto's: its own completion search)."""

from __future__ import annotations

import pytest

import nqmip
from nqmip.methods import METHODS

from .conftest import backend_params

STARTED = tuple(name for name, spec in METHODS.items()
                if spec.kind == "exact" and name != "bnb")
FIXED = {3: 5, 10: 2}


@pytest.mark.parametrize("sense", ["max", "min"])
@pytest.mark.parametrize("method", backend_params(STARTED))
def test_an_exact_solver_under_a_limit_starts_from_a_completion(method: str,
                                                                sense: str) -> None:
    for _attempt in range(2):  # one retry: on a loaded machine the watchdog may answer
        result = nqmip.solve(30, "random", weights_seed=1, method=method, fixed=FIXED,
                             sense=sense, time_limit=2)
        if "did not stop in time" not in result.message:
            break
    assert result.provenance.warm_start == "completion", result.provenance
    assert result.placement is not None and nqmip.is_solution(result.placement)
    assert all(result.placement[r] == c for r, c in FIXED.items())
    if METHODS[method].honour("work_limit"):
        counted = nqmip.solve(30, "random", weights_seed=1, method=method, fixed=FIXED,
                              sense=sense, time_limit=2, work_limit=1)
        assert counted.provenance.warm_start is None, counted.provenance
