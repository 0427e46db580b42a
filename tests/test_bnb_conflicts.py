"""Conflict learning in the LP search (:mod:`nqmip.bnb.conflicts`): the brute-force optimum
with it, nogoods learnt that rule children out, every nogood's value a bound on the LP
of its queens alone, and the store's counts as queens come and go."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import nqmip
from nqmip.bnb import conflicts, lpsearch
from nqmip.bnb.lp import NodeLP
from nqmip.budget import Deadline
from nqmip.instance import Instance, make_instance
from nqmip.instances.families import toulbar2_tutorial
from nqmip.sense import to_maximisation
from tests.oracle import best_value


def _solve(inst: Instance, monkeypatch: pytest.MonkeyPatch, trials: bool,
           threads: int = 1, shallow: bool = False,
           exact: bool = False) -> tuple[Any, list[conflicts.Nogoods]]:
    monkeypatch.setattr(lpsearch, "CONFLICTS", True)
    # the lines' LP: the nogoods price the lines only, which beside the cliques' rows
    # prove little (tests/test_bnb_cliques.py runs both)
    monkeypatch.setattr(lpsearch, "CLIQUES", False)
    monkeypatch.setattr(conflicts, "EXACT", exact)
    monkeypatch.setattr(conflicts, "TRIALS", trials)
    monkeypatch.setattr(conflicts, "SHALLOW_FIRST", shallow)
    stats: dict[str, Any] = {}
    out = lpsearch.lp_branch_and_bound(inst, Deadline(None), neighbourhood=False,
                                       threads=threads, stats=stats)
    return out, stats["nogoods"]


@pytest.mark.parametrize("seed", range(12))
def test_conflict_learning_keeps_the_brute_force_optimum(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The LP search forced onto boards of N = 7 (as the reduced-cost fixing test), with
    nogoods from the pruned nodes, from the trials' children too, the queens dropped
    shallowest first, and dropped by solving the LP again: the brute-force optimum."""
    n = 7
    w = np.random.default_rng(100 + seed).integers(1, 40, (n, n)).astype(float)
    for trials, shallow, exact in ((False, False, False), (True, False, False),
                                   (False, True, False), (True, False, True)):
        out, stores = _solve(make_instance(n, w), monkeypatch, trials, shallow=shallow,
                             exact=exact)
        assert len(stores) == 1
        assert out.termination is nqmip.Termination.OPTIMAL
        assert out.placement is not None and nqmip.is_solution(out.placement)
        assert out.objective == out.bound == best_value(n, w)


@pytest.mark.parametrize("fixed", [{}, {1: 3, 4: 1}, {0: 0, 2: 1, 4: 2}])
def test_two_workers_and_fixed_queens_keep_the_optimum(
        fixed: dict[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    n = 8
    w = np.random.default_rng(5).integers(1, 10, (n, n)).astype(float)
    expected = best_value(n, w, fixed)
    out, stores = _solve(make_instance(n, w, fixed=fixed), monkeypatch, True, threads=2)
    assert len(stores) == 2
    if expected is None:
        assert out.termination is nqmip.Termination.INFEASIBLE
    else:
        assert out.termination is nqmip.Termination.OPTIMAL and out.objective == expected


def test_nogoods_are_learnt_and_rule_children_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """Toulbar2 family N = 12, seed 0: the pruned nodes give nogoods, and nogoods with one
    square missing rule that square out before its child is opened; the optimum is the
    one without them."""
    inst = to_maximisation(toulbar2_tutorial(12, 0))[0]
    monkeypatch.setattr(lpsearch, "CONFLICTS", False)
    plain = lpsearch.lp_branch_and_bound(inst, Deadline(None), neighbourhood=False)
    out, (store,) = _solve(inst, monkeypatch, False)
    assert out.objective == plain.objective
    assert store.learned > 0 and store.sizes >= store.learned
    assert store.ruled + store.pruned > 0


@pytest.mark.parametrize(("n", "seed", "fixed"), [(8, 0, {}), (12, 2, {}), (14, 1, {}),
                                                  (10, 3, {0: 4}), (9, 1, {2: 2, 5: 0})])
def test_every_nogood_bounds_the_lp_of_its_queens(
        n: int, seed: int, fixed: dict[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    """Each nogood learnt (from pruned nodes and from trials; the queens dropped the
    cheapest first, the shallowest first, or by solving the LP again): the LP with only its
    queens and the board's fixed ones placed, solved from scratch by HiGHS, is at most
    its value (infeasible when its value is -inf)."""
    if fixed:
        w = np.random.default_rng(seed).integers(1, 40, (n, n)).astype(float)
        inst = make_instance(n, w, fixed=fixed)
    else:
        inst = to_maximisation(toulbar2_tutorial(n, seed))[0]
        w = np.asarray(inst.weights, dtype=float)
    lp = NodeLP(w)
    held = [r * n + c for r, c in fixed.items()]
    learnt = []
    for shallow, exact in ((False, False), (True, False), (False, True)):
        _, (store,) = _solve(inst, monkeypatch, True, shallow=shallow, exact=exact)
        assert store.learned > 0
        learnt += list(zip(store.members, store.values, strict=False))
    if (n, seed) == (10, 3):  # two of its nogoods come from infeasible LPs' Farkas rays
        assert any(value == float("-inf") for _, value in learnt)
    for members, value in learnt:
        assert not set(held) & set(members.tolist())
        lower = np.zeros(n * n, np.int8)
        lower[members] = 1
        lower[held] = 1
        sol = lp.solve(lower, np.ones(n * n, np.int8), None, None)
        if value == float("-inf"):
            assert sol is None
        elif sol is not None:
            assert sol.value <= value + 1e-7


def test_the_store_counts_the_squares_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A nogood prunes a board that holds it, rules out its one missing square, only
    below what the node needs; a full store drops its older half and keeps its counts."""
    monkeypatch.setattr(conflicts, "CAPACITY", 4)
    n = 5
    store = conflicts.Nogoods(n)
    lower = np.zeros(n * n, np.int8)
    store.add(np.array([2, 13]), 10.0, lower)
    assert not store.check(11.0)[0] and store.check(11.0)[1].size == 0
    lower[2] = 1
    store.place(2, 1)
    dead, ruled = store.check(11.0)
    assert not dead and ruled.tolist() == [13]
    assert store.check(10.0)[1].size == 0  # not below what the node needs
    lower[13] = 1
    store.place(13, 1)
    assert store.check(11.0)[0]
    for square in (7, 9, 20):
        store.add(np.array([square]), 5.0, lower)  # the fourth fills the store
    assert len(store.members) == 4
    store.add(np.array([2, 24]), 6.0, lower)  # full: the older two go
    assert [m.tolist() for m in store.members] == [[9], [20], [2, 24]]
    dead, ruled = store.check(7.0)
    assert not dead and sorted(ruled.tolist()) == [9, 20, 24]
    assert store.learned == 5 and store.sizes == 7
