"""The odd-cycle rows of the root's LP (:mod:`nqmip.bnb.oddcycles`): every one found holds
on every placement (brute force, n = 7 to 9) and is violated by the LP solution it was
separated from; the LP search with them proves the brute-force optimum, and on toulbar2
boards the optimum it proves without them, with a lower root bound (costs)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import nqmip
from nqmip.bnb import lp, lpsearch, oddcycles
from nqmip.bnb.lp import NodeLP, root_cliques
from nqmip.budget import Deadline
from nqmip.construct import explicit_solution
from nqmip.instance import make_instance
from nqmip.instances.families import toulbar2_tutorial
from nqmip.sense import to_maximisation
from tests.oracle import best_value, solutions
from tests.test_bnb_cliques import lp_points
from tests.test_bnb_lp import assert_proves_brute_force


def _most(n: int, cells: np.ndarray) -> int:
    """The most queens any placement puts on ``cells``."""
    boards = np.zeros((len(solutions(n)), n * n), np.int8)
    boards[np.arange(len(boards))[:, None], np.arange(n) * n + solutions(n)] = 1
    return int(boards[:, cells].sum(axis=1).max())


@pytest.mark.parametrize("n", [7, 8, 9])
def test_every_cycle_found_holds_on_every_placement_and_is_violated(n: int) -> None:
    found = 0
    for x in lp_points(n, 30):
        for cells, rhs in oddcycles.violated(n, x, most=10 ** 6):
            assert cells.size % 2 == 1 and cells.size >= 5 and rhs == (cells.size - 1) / 2
            assert float(x[cells].sum()) > rhs + oddcycles.MIN_VIOLATION
            assert _most(n, cells) <= rhs
            found += 1
    assert found > 0


@pytest.mark.parametrize(("n", "seed"), [(6, 0), (7, 1), (8, 2)])
@pytest.mark.parametrize("threads", [1, 2])
def test_with_odd_cycles_the_search_proves_the_brute_force_optimum(
        n: int, seed: int, threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cliques and odd cycles on: the brute-force optimum, values maximised and costs
    minimised, with and without fixed queens, in rounds or not, one thread or two."""
    monkeypatch.setattr(lpsearch, "CLIQUES", True)
    monkeypatch.setattr(lp, "ODD_CYCLES", True)
    w = np.random.default_rng(900 + seed).integers(1, 40, (n, n)).astype(float)
    for sense, fixed in itertools.product(("max", "min"), ({}, {1: 3}, {0: 0, 3: 2})):
        sign = 1.0 if sense == "max" else -1.0
        expected = best_value(n, sign * w, fixed)
        inst, offset = to_maximisation(make_instance(n, w, sense=sense, fixed=fixed))
        for rounds_on in (True, False):
            out = lpsearch.lp_branch_and_bound(inst, Deadline(None), rounds=rounds_on,
                                               threads=threads, neighbourhood=False)
            assert_proves_brute_force(out, expected, w, sense, fixed, offset)


@pytest.mark.parametrize("n", [12, 14])
def test_with_odd_cycles_the_search_proves_what_it_proves_without(
        n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Toulbar2 boards: the same optimum with the root's odd cycles as without, and the
    cycles added bring the root's bound below the cliques' alone (the rows kept)."""
    monkeypatch.setattr(lpsearch, "CLIQUES", True)
    start = tuple(int(c) for c in explicit_solution(n))
    for seed in (1, 2):
        inst = to_maximisation(toulbar2_tutorial(n, seed))[0]
        w = inst.weights.astype(np.float64)
        got = {}
        for on in (False, True):
            monkeypatch.setattr(lp, "ODD_CYCLES", on)
            stats: dict[str, Any] = {}
            out = lpsearch.lp_branch_and_bound(inst, Deadline(None), start,
                                               neighbourhood=False, stats=stats)
            assert out.termination is nqmip.Termination.OPTIMAL
            assert out.objective == out.bound
            lower, upper = np.zeros(n * n, np.int8), np.ones(n * n, np.int8)
            node_lp = NodeLP(w)
            plain = node_lp.solve(lower, upper, None, None)
            assert plain is not None
            cut = root_cliques([node_lp], lower, plain, lambda: None)
            assert cut is not None
            again = node_lp.solve(lower, upper, None, None)  # the rows stay
            assert again is not None and again.value == pytest.approx(cut.value)
            got[on] = (out.objective, cut.value, node_lp.cycles)
        assert got[True][0] == got[False][0]
        assert got[False][2] == 0 < got[True][2]
        assert got[True][1] < got[False][1] - 1e-3
