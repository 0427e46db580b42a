"""Tabu on weights holds a conflict-free board of its own and climbs from it.

Before, a weighted run started from a random permutation and took any queen half of the
time while conflicts remained, whose swaps traded attacks for weight: at random n = 1000
and 3000 with 5 s it never held a conflict-free board, and answered the explicit
construction (5022, 14710). It now starts from min-conflicts' placement (as sa does),
takes an attacked queen while conflicts remain, and on a conflict-free board prefers a swap
that keeps it so. A work limit makes the runs the same on any machine."""

from __future__ import annotations

import pytest

import nqmip
from nqmip.construct import explicit_solution

CASES = [(1000, "random"), (1000, "chess"), (300, "random")]


@pytest.mark.parametrize(("n", "weights"), CASES)
def test_tabu_on_weights_climbs_past_the_construction(n: int, weights: str) -> None:
    instance = nqmip.make_instance(n, weights, weights_seed=1 if weights == "random" else None)
    result = nqmip.solve(instance, method="tabu", work_limit=200_000, seed=0)
    assert result.provenance.incumbent_source == "tabu", result.message
    assert result.objective > instance.objective(explicit_solution(n))


def test_tabu_with_fixed_queens_on_weights_keeps_them() -> None:
    instance = nqmip.make_instance(500, "random", {0: 7, 250: 3}, weights_seed=2)
    result = nqmip.solve(instance, method="tabu", work_limit=100_000, seed=1)
    assert result.provenance.incumbent_source == "tabu"
    assert result.placement[0] == 7 and result.placement[250] == 3


def test_tabu_feasibility_is_unchanged_by_the_weighted_start() -> None:
    """Without weights the run starts at random, as the reference's: solved all the same."""
    result = nqmip.solve(2000, method="tabu", work_limit=2_000_000, seed=0)
    assert result.status.value == "optimal" and result.extra.get("restarts") is not None
