"""nqmip's branch and bound over rows (method "bnb"): optimal against brute force in both
senses, with fixed queens and real weights; its bound is an upper bound at every stop; the
search resumed chunk after chunk is the search run in one go."""

from __future__ import annotations

import numpy as np
import pytest

import nqmip
from nqmip.bnb import kernelsearch, search
from nqmip.budget import Deadline
from nqmip.instance import make_instance
from nqmip.instances.families import toulbar2_tutorial
from tests.oracle import best_value


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_weights_match_brute_force(n: int, seed: int) -> None:
    w = np.random.default_rng(seed).integers(1, 10, (n, n)).astype(float)
    r = nqmip.solve(n, w, method="bnb")
    assert r.status == "optimal" and nqmip.is_solution(r.placement)
    assert r.objective == best_value(n, w) == r.bound


@pytest.mark.parametrize("n", [6, 8])
def test_real_weights_and_costs(n: int) -> None:
    w = np.random.default_rng(n).random((n, n))
    r = nqmip.solve(n, w, method="bnb")
    assert r.objective == pytest.approx(best_value(n, w))
    low = nqmip.solve(n, w, method="bnb", sense="min")
    assert low.objective == pytest.approx(-best_value(n, -w))  # type: ignore[operator]


@pytest.mark.parametrize("fixed", [{0: 2}, {1: 3, 4: 1}, {0: 0, 1: 2}])
def test_fixed_queens(fixed: dict[int, int]) -> None:
    n = 8
    w = np.random.default_rng(5).integers(1, 10, (n, n)).astype(float)
    expected = best_value(n, w, fixed)
    r = nqmip.solve(n, w, fixed=fixed, method="bnb")
    if expected is None:
        assert r.status == "infeasible" and r.placement is None
    else:
        assert r.status == "optimal" and r.objective == expected
        assert all(r.placement[row] == col for row, col in fixed.items())


def test_no_placement_is_infeasible() -> None:
    assert nqmip.solve(3, method="bnb").status == "infeasible"


def test_a_stopped_search_keeps_a_valid_bound() -> None:
    # the toulbar2 family at N = 20 (optimum 69 in costs): stopped after a few chunks, the
    # lower bound is at most the optimum and the placement costs at least it
    inst = toulbar2_tutorial(20)
    full = nqmip.solve(inst, method="bnb")
    assert full.status == "optimal" and full.objective == 69
    stopped = nqmip.solve(inst, method="bnb", time_limit=0.05, warm_start=False)
    if stopped.status != "optimal":
        assert stopped.bound is not None and stopped.bound <= 69
        assert stopped.objective is None or stopped.objective >= 69


def test_resumed_in_chunks_is_the_same_search(monkeypatch: pytest.MonkeyPatch) -> None:
    inst = make_instance(12, "random", weights_seed=3)
    whole = search.branch_and_bound(inst, Deadline(None))
    # where the search reads it (nqmip.bnb.search only re-exports it: patched there, the
    # "chunked" run was the whole one again and this test could not fail)
    monkeypatch.setattr(kernelsearch, "CHUNK_NODES", 1)
    chunked = search.branch_and_bound(inst, Deadline(None))
    assert whole.termination == chunked.termination == nqmip.Termination.OPTIMAL
    assert (whole.placement, whole.objective, whole.nodes) == (
        chunked.placement, chunked.objective, chunked.nodes)
    assert whole.nodes > 10  # a real tree, not a root solve


def test_the_root_bound_is_the_lp_bound() -> None:
    # the Lagrangian dual of the diagonal rows over the assignment polytope is the LP
    # relaxation: 55.003 at N = 20 (HiGHS), so the cost bound is 56 after rounding up
    inst = toulbar2_tutorial(20)
    r = nqmip.solve(inst, method="bnb")
    assert r.extra["root_bound"] in (55.0, 56.0)  # in costs, as the objective


def test_a_placement_from_elsewhere_prunes_the_search() -> None:
    # auto's other part hands its best placement over between chunks: with the optimum
    # given from the start the search opens fewer nodes and proves the same value
    inst = make_instance(14, "random", weights_seed=1)
    alone = search.branch_and_bound(inst, Deadline(None))
    assert alone.placement is not None and alone.objective is not None
    told = search.branch_and_bound(inst, Deadline(None),
                                   incumbent=lambda: (alone.objective, alone.placement))
    assert told.termination == nqmip.Termination.OPTIMAL
    assert told.objective == alone.objective and told.nodes < alone.nodes


def test_a_stopped_search_with_a_gap_keeps_a_valid_bound() -> None:
    # with mip_gap the nodes within the gap are pruned: a search stopped early counts them
    # in its bound as the complete search does (stopped here after a few chunks by the
    # between-chunks callback); its bound stays above the optimum, its placement below
    inst = make_instance(14, "random", weights_seed=2)
    optimum = search.branch_and_bound(inst, Deadline(None)).objective
    assert optimum is not None
    for chunks in (1, 3, 10):
        deadline = Deadline(None)

        def stop_after(limit: int = chunks, d: Deadline = deadline,
                       calls: list[int] = [0]) -> None:  # noqa: B006 (one list per loop)
            calls[0] += 1
            if calls[0] >= limit:
                d.cancel()

        stopped = search.branch_and_bound(inst, deadline, mip_gap=0.05,
                                          incumbent=lambda f=stop_after: f())
        assert stopped.bound is not None and stopped.bound >= optimum
        assert stopped.objective is None or stopped.objective <= optimum
