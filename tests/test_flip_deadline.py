"""Costs on a dense board are flipped into weights by the call's deadline: when it ends
first, the call answers at once with the stand-in on the caller's costs. Before, the flip
ran to its end whatever the limit (random costs at n = 25,000: 12 s of an 8 s limit), then
the method started with no time left: auto, ga, tabu, sa, minconflicts, topsquares and lns
answered after 21.5 to 26.3 s."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import nqmip
from nqmip.methods import METHODS

N = 3000  # three blocks of rows to flip: the deadline is looked at between them
#: The methods that take a dense board of this size (the exact ones refuse it up front).
TAKERS = [m.name for m in METHODS.values() if m.kind != "exact" and "dense" in m.weights]


@pytest.fixture(scope="module")
def costs() -> np.ndarray:
    return (np.arange(N * N, dtype=float).reshape(N, N) % 7) + 1


@pytest.mark.parametrize("method", TAKERS)
def test_a_limit_that_ends_in_the_flip_is_answered_at_once_on_the_costs(
        method: str, costs: np.ndarray) -> None:
    instance = nqmip.make_instance(None, costs, sense="min")
    begin = time.perf_counter()
    result = nqmip.solve(instance, method=method, time_limit=0.001)
    assert time.perf_counter() - begin < 2.0  # one block of rows past the limit, not all
    assert result.placement is not None and result.termination.value == "time_limit"
    assert result.objective == pytest.approx(instance.objective(result.placement))
    assert result.provenance.incumbent_source == "explicit"
    assert "turned into weights" in result.message and result.bound is None


def test_the_command_answers_the_stand_in_too(costs: np.ndarray, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from nqmip.cli.solve import solve_weighted_main

    path = tmp_path / "costs.npy"
    np.save(path, costs)
    # the command's least limit, 0.5 s, counted from a start it has nearly used up
    status = solve_weighted_main(["--costs", str(path), "--method", "sa", "--json",
                                  "--time-limit", "0.5"], started=time.perf_counter() - 0.49)
    answer = json.loads(capsys.readouterr().out)
    assert status == 0 and answer["status"] == "feasible"
    assert "turned into weights" in answer["message"]


def test_a_flip_in_time_is_the_maximisation_as_before(costs: np.ndarray) -> None:
    from nqmip.budget import Deadline
    from nqmip.sense import to_maximisation

    instance = nqmip.make_instance(None, costs, sense="min")
    maximised, offset = to_maximisation(instance, Deadline(60))
    assert offset == N * 7.0
    np.testing.assert_array_equal(maximised.dense, 7.0 - costs)
