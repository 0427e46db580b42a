"""The orders of the LP search's children and dives (:mod:`nqmip.bnb.ordering`) and its
jumps to the best task (:data:`nqmip.bnb.parallel.JUMP_NODES`): each
proves the brute-force optimum, and a search stopped early keeps a valid bound when its
children are not best bound first."""

from __future__ import annotations

import numpy as np
import pytest

import nqmip
from nqmip.bnb import lpsearch, ordering, parallel
from nqmip.budget import Deadline
from nqmip.instance import make_instance
from nqmip.instances.families import toulbar2_tutorial
from nqmip.sense import to_maximisation
from tests.oracle import best_value
from tests.test_bnb_lp import stopped_after


@pytest.mark.parametrize(("child", "dive", "jump"),
                         [(1, 0, 0), (2, 0, 0), (0, 1, 0), (0, 2, 0), (0, 0, 3), (1, 0, 2)])
@pytest.mark.parametrize("in_rounds", [True, False])
def test_every_order_proves_the_brute_force_optimum(monkeypatch: pytest.MonkeyPatch,
                                                   child: int, dive: int, jump: int,
                                                   in_rounds: bool) -> None:
    monkeypatch.setattr(ordering, "CHILD_ORDER", child)
    monkeypatch.setattr(ordering, "DIVE_KEY", dive)
    monkeypatch.setattr(parallel, "JUMP_NODES", jump)
    for n in (6, 7, 8, 9):
        for seed in range(4):
            w = np.random.default_rng(seed).integers(1, 30, (n, n)).astype(float)
            out = lpsearch.lp_branch_and_bound(make_instance(n, w), Deadline(None),
                                               rounds=in_rounds)
            assert out.termination is nqmip.Termination.OPTIMAL
            assert out.placement is not None and nqmip.is_solution(out.placement)
            assert out.objective == best_value(n, w) == out.bound, (n, seed)


@pytest.mark.parametrize("child", [1, 2])
def test_a_stopped_search_keeps_a_valid_bound(monkeypatch: pytest.MonkeyPatch,
                                              child: int) -> None:
    # toulbar2 family N = 16: stopped after a few chunks, the bound (maximisation) is at
    # least the optimum though the children left are not best bound first
    monkeypatch.setattr(ordering, "CHILD_ORDER", child)
    inst = to_maximisation(toulbar2_tutorial(16))[0]
    optimum = lpsearch.lp_branch_and_bound(inst, Deadline(None)).objective
    assert optimum is not None
    monkeypatch.setattr(parallel, "OFFER_NODES", 1)
    for chunks in (1, 2, 5, 20):
        out = stopped_after(inst, chunks, rounds=False)
        assert out.bound is not None and out.bound >= optimum
        assert out.objective is None or out.objective <= optimum
