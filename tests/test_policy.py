"""auto's policy as a table: which plan each instance gets, decided without running a
solver (nqmip.auto.policy.choose_plan), and the docs' table generated from the same one."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import nqmip
from nqmip.auto.plans import RUNNERS, warm_up
from nqmip.auto.policy import PLANS, choose_plan, policy_markdown
from nqmip.backends.base import module_available

ROOT = Path(__file__).resolve().parent.parent

# (n, weights, fixed, warm start given, exact backend for the size) -> plan
TABLE = [
    (8, "chess", None, False, "highs", "small"),
    (12, "random", None, False, "highs", "small"),
    (12, None, None, False, "highs", "small"),
    (12, "chess", {0: 0}, False, "highs", "small"),           # fixed queens: HiGHS too
    (6, "random", {1: 3}, False, "highs", "small"),
    (8, None, {1: 3}, False, "highs", "small"),               # not the completion search
    (14, "chess", {0: 0, 1: 2}, False, "highs", "small"),     # 12 free rows
    (14, "chess", {0: 0}, False, "highs", "small"),           # 13 free rows
    (15, "chess", {0: 0}, False, "highs", "colour-proof"),    # 14 free rows
    (20, "random", None, True, "highs", "warm-start"),
    (8, "chess", None, True, "highs", "warm-start"),
    (21, None, {0: 0, 1: 2}, False, "highs", "completion"),
    (200, None, None, False, "highs", "feasibility"),
    (100, None, {0: 0}, False, "highs", "feasibility"),       # 99 free rows: no bitboard
    (13, "chess", None, False, "highs", "small"),
    (14, "chess", None, False, "highs", "colour-proof"),
    (128, "chess", None, False, "highs", "colour-proof"),
    (129, "chess", None, False, "highs", "colour-quota"),
    (20, "random", None, False, "highs", "mip"),
    (36, "random", None, False, "highs", "mip"),
    (37, "random", None, False, "highs", "anneal"),
    (50, "random", None, False, "gurobi", "mip"),              # Gurobi widens the MIP range
    (61, "random", None, False, "gurobi", "anneal"),
    (999, "random", None, False, "highs", "anneal"),
    (1000, "random", None, False, "highs", "topsquares"),
]


@pytest.mark.parametrize(("n", "weights", "fixed", "warm", "backend", "plan"), TABLE)
def test_choose_plan(n: int, weights: object, fixed: object, warm: bool, backend: str,
                     plan: str) -> None:
    instance = nqmip.make_instance(n, weights, fixed, weights_seed=1)
    assert choose_plan(instance, warm_start=warm, backend=backend).name == plan


@pytest.mark.parametrize(("n", "budget", "plan"), [
    (37, 20.0, "anneal"), (37, None, "anneal"), (37, 60.0, "mip"), (48, 60.0, "mip"),
    (49, 600.0, "anneal"), (20, 1.0, "mip")])
def test_a_long_budget_widens_the_exact_range(n: int, budget: float | None,
                                              plan: str) -> None:
    """Beyond 36 free rows the exact plan runs only with a limit of 30 s or more (and up
    to 48)."""
    instance = nqmip.make_instance(n, "random", weights_seed=1)
    assert choose_plan(instance, budget=budget).name == plan


@pytest.mark.parametrize(("n", "weights", "fixed", "budget", "plan"), [
    (16, "chess", None, 5.0, "small"), (16, "random", None, 1.0, "small"),
    (17, "random", {0: 0}, 2.0, "small"), (17, "random", None, 5.0, "mip"),
    (17, "chess", None, 5.0, "colour-proof"), (16, "random", None, None, "mip"),
    (16, None, None, 5.0, "feasibility")])
def test_a_first_run_under_a_limit_hands_small_weighted_boards_to_highs(
        n: int, weights: object, fixed: object, budget: float | None, plan: str) -> None:
    """On a first run (its plan's kernels not compiled yet) under a limit, HiGHS alone up
    to FIRST_RUN_EXACT_MAX_FREE free rows: the plans answered their numpy climbs there."""
    instance = nqmip.make_instance(n, weights, fixed, weights_seed=1)
    assert choose_plan(instance, budget=budget, first_run=True).name == plan
    assert choose_plan(instance, budget=budget).name == (
        "mip" if weights == "random" else "colour-proof" if weights else "feasibility")


def test_auto_hands_its_time_limit_to_the_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    import nqmip.auto.plans as plans

    seen: list[float | None] = []

    def spy(instance: object, **kwargs: object) -> object:
        seen.append(kwargs.get("budget"))  # type: ignore[arg-type]
        return choose_plan(instance, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(plans, "choose_plan", spy)
    for limit in (400.0, None):
        r = nqmip.solve(14, "random", weights_seed=2, time_limit=limit, seed=0)
        assert r.status == nqmip.Status.OPTIMAL
    assert seen[0] is not None and 390.0 < seen[0] <= 400.0
    assert seen[1] is None


def test_equal_colour_values_are_not_colour_weights() -> None:
    # black = white: the colour bound says nothing, so no colour proof and no quota
    flat = nqmip.make_instance(200, np.full((200, 200), 3.0))
    assert choose_plan(flat).name == "anneal"


def test_every_plan_runs_somewhere_and_loads_known_kernels() -> None:
    names = {plan.name for plan in PLANS}
    assert set(RUNNERS) | {"small", "warm-start"} == names
    for plan in PLANS:
        warm_up(plan)  # every kernel it names has a loader (compile or cache load)


def test_the_docs_show_the_policy_table_of_the_code() -> None:
    page = (ROOT / "docs" / "anytime.md").read_text()
    assert policy_markdown() in page, "regenerate: python -m nqmip.auto.policy >> docs"


def test_available_for_defaults_to_available_and_gurobi_adds_its_licence_size(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from nqmip.backends.base import get_backend
    from nqmip.backends.gurobi import SIZE_LIMITED_MAX_N, GurobiBackend

    highs = get_backend("highs")
    for n in (1, 44, 45, 10_000):
        assert highs.available_for(n) == highs.available()
    gurobi = GurobiBackend()
    monkeypatch.setattr(GurobiBackend, "available", lambda self: True)
    assert gurobi.available_for(SIZE_LIMITED_MAX_N)
    assert not gurobi.available_for(SIZE_LIMITED_MAX_N + 1)  # pip's licence is assumed
    monkeypatch.setattr(GurobiBackend, "available", lambda self: False)
    assert not gurobi.available_for(1)


def test_pick_backend_asks_each_backend_for_n(monkeypatch: pytest.MonkeyPatch) -> None:
    import nqmip.auto.policy as policy

    class Sized:
        def __init__(self, largest: int) -> None:
            self.largest = largest

        def available_for(self, n: int) -> bool:
            return n <= self.largest

    sizes = {"gurobi": 44, "highs": 10**9}
    monkeypatch.setattr(policy, "get_backend", lambda name: Sized(sizes[name]))
    assert [policy.pick_backend(n) for n in (8, 44, 45, 500)] == [
        "gurobi", "gurobi", "highs", "highs"]
    sizes["gurobi"] = -1  # not installed
    assert policy.pick_backend(8) == "highs"


def test_scip_runs_beside_the_lp_search_only_where_installed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from nqmip.auto.policy import SCIP_MIN_FREE, scip_beside
    from nqmip.backends.base import get_backend

    monkeypatch.setitem(sys.modules, "pyscipopt", None)  # as without the extra
    monkeypatch.setattr(get_backend("scip"), "_checked", False)  # asked again
    monkeypatch.setattr(get_backend("scip"), "_why", None)
    assert not scip_beside(SCIP_MIN_FREE) and not scip_beside(48)
    monkeypatch.undo()  # the module back, and the first answer remembered again
    installed = module_available("pyscipopt")
    assert scip_beside(SCIP_MIN_FREE) is installed and not scip_beside(SCIP_MIN_FREE - 1)
