"""The LP search's neighbourhood step (:mod:`nqmip.bnb.rins`): given an LP solution and an
incumbent, it finds the best placement of the neighbourhood when that is better, and the
LP search with it proves the same optimum as without it."""

from __future__ import annotations

import numpy as np
import pytest

import nqmip
from nqmip.bnb import lpsearch, rins
from nqmip.budget import Deadline
from nqmip.instance import make_instance
from tests.oracle import best_value, solutions


@pytest.mark.parametrize("seed", range(6))
def test_the_step_finds_the_best_placement_of_the_neighbourhood(seed: int) -> None:
    """The LP solution is the optimum (whole); the incumbent differs from it in a few
    rows: the rows where they agree are kept, the others are free, so the optimum is in the
    neighbourhood and the step must return it, verified. No time limit (the node budget
    bounds it): the first case's kernel compiles in the call, and a 10 s limit was eaten by
    the compile on a loaded machine (the step then incomplete)."""
    n = 8
    w = np.random.default_rng(seed).integers(1, 30, (n, n)).astype(float)
    every = solutions(n)
    values = w[np.arange(n), every].sum(axis=1)
    opt = every[int(np.argmax(values))]
    differ = (every != opt).sum(axis=1)
    worse = np.flatnonzero((values < values.max()) & (differ <= 6))
    incumbent = every[worse[np.argmin(differ[worse])]]
    x = np.zeros((n, n))
    x[np.arange(n), opt] = 1.0
    step = rins.improve(w, x.ravel(), tuple(int(c) for c in incumbent), Deadline(None),
                        free=int(differ[worse].min()), nodes=100_000)
    assert step.complete
    assert step.found is not None
    value, placement = step.found
    assert nqmip.is_solution(placement)
    assert value == values.max() == w[np.arange(n), list(placement)].sum()


def test_the_step_keeps_the_rows_the_lp_agrees_with() -> None:
    n = 6
    x = np.zeros((n, n))
    best = (1, 3, 5, 0, 2, 4)
    x[0, 1] = x[2, 5] = 1.0  # whole LP queens on the incumbent's squares of rows 0 and 2
    x[4, 2] = 0.5
    assert rins.neighbourhood(x, best, free=3) == [(0, 1), (2, 5), (4, 2)]


def test_no_better_placement_in_the_neighbourhood_is_none() -> None:
    n = 8
    w = np.random.default_rng(3).integers(1, 10, (n, n)).astype(float)
    every = solutions(n)
    opt = every[int(np.argmax(w[np.arange(n), every].sum(axis=1)))]
    x = np.zeros((n, n))
    x[np.arange(n), opt] = 1.0
    step = rins.improve(w, x.ravel(), tuple(int(c) for c in opt), Deadline(None), free=n)
    assert step.complete and step.found is None


@pytest.mark.parametrize("seed", range(4))
def test_the_lp_search_proves_the_same_optimum_with_the_step(seed: int) -> None:
    n = 9
    w = np.random.default_rng(seed).integers(1, 20, (n, n)).astype(float)
    outs = [lpsearch.lp_branch_and_bound(make_instance(n, w), Deadline(None),
                                         neighbourhood=on) for on in (True, False)]
    for out in outs:
        assert out.termination is nqmip.Termination.OPTIMAL
        assert out.placement is not None and nqmip.is_solution(out.placement)
        assert out.objective == out.bound == best_value(n, w)


def test_the_board_s_fixed_queens_are_always_kept() -> None:
    n = 6
    x = np.zeros((n, n))
    best = (1, 3, 5, 0, 2, 4)
    x[0, 1] = 1.0
    assert rins.neighbourhood(x, best, free=4, fixed=((3, 0),)) == [(0, 1), (3, 0)]
    assert rins.neighbourhood(x, best, free=6, fixed=((3, 0),)) == [(3, 0)]


@pytest.mark.parametrize("fixed", [{0: 2}, {1: 3, 4: 1}, {0: 0, 2: 1, 4: 2}])
def test_the_step_keeps_the_fixed_queens_in_the_lp_search(fixed: dict[int, int]) -> None:
    n = 8
    w = np.random.default_rng(5).integers(1, 10, (n, n)).astype(float)
    out = lpsearch.lp_branch_and_bound(make_instance(n, w, fixed=fixed), Deadline(None),
                                       neighbourhood=True)
    expected = best_value(n, w, fixed)
    if expected is None:
        assert out.placement is None
    else:
        assert out.placement is not None and nqmip.is_solution(out.placement, fixed)
        assert out.objective == expected
