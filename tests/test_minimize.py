"""Both senses against brute force: every method minimises costs as it maximises weights,
with a lower bound, verified against the user's costs; the models minimise too."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import nqmip
from nqmip.verify import VerificationError, verified
from tests.conftest import options_for

from .conftest import backend_params

ROOT = Path(__file__).resolve().parent.parent


def brute_force(n: int, weights: np.ndarray, sense: str) -> float:
    values = [weights[np.arange(n), list(p)].sum() for p in itertools.permutations(range(n))
              if len({i - c for i, c in enumerate(p)}) == n
              and len({i + c for i, c in enumerate(p)}) == n]
    return float(min(values) if sense == "min" else max(values))


@pytest.mark.parametrize("sense", ["min", "max"])
@pytest.mark.parametrize(
    "method", ["auto", "sa", *backend_params(("highs", "cpsat", "scip", "toulbar2", "bnb"))])
@pytest.mark.parametrize("n", [4, 6, 8])
def test_both_senses_match_brute_force(n: int, method: str, sense: str) -> None:
    weights = np.random.default_rng(n).integers(1, 10, (n, n)).astype(float)
    expected = brute_force(n, weights, sense)
    # the annealing cannot prove: it stops at the optimum given as its target (2 s is ample
    # at n <= 8 to reach it)
    target = {"target": expected} if method == "sa" else {}
    r = nqmip.solve(n, weights, method=method, sense=sense,
                    time_limit=2 if method == "sa" else 10, **target,
                    **options_for(method, seed=2))
    assert nqmip.is_solution(r.placement) and r.sense == sense
    assert r.objective == pytest.approx(float(weights[np.arange(n), list(r.placement)].sum()))
    if r.status == "optimal":
        assert r.objective == pytest.approx(expected) and r.bound == pytest.approx(expected)
    else:  # a heuristic: its bound is on the right side
        assert (r.objective >= expected - 1e-9) if sense == "min" else (
            r.objective <= expected + 1e-9)
        assert r.bound is None or ((r.bound <= expected + 1e-9) if sense == "min"
                                   else (r.bound >= expected - 1e-9))
    if method != "sa":
        assert r.status == "optimal"


def test_colour_costs_are_proven_by_the_colour_bound() -> None:
    # black squares cost 2, white 1: the cheapest 40-board has as few black queens as
    # possible, and the colour proof applies to the equivalent maximisation
    r = nqmip.solve(40, "chess", sense="min", time_limit=30)
    assert r.status == "optimal" and r.objective == r.bound
    blacks = sum((i + c) % 2 == 0 for i, c in enumerate(r.placement))
    assert r.objective == 40 + blacks
    top = nqmip.solve(40, "chess", time_limit=30)
    assert top.objective > r.objective


def test_a_lower_bound_above_the_cost_is_caught() -> None:
    instance = nqmip.make_instance(6, np.ones((6, 6)), sense="min")
    good = nqmip.solve(instance, method="highs")
    with pytest.raises(VerificationError, match="below the proven lower bound"):
        verified(instance, good.with_(bound=good.objective + 1))


@pytest.mark.parametrize("backend", ["pyomo", "cpsat"])
def test_the_models_minimise(backend: str) -> None:
    weights = np.random.default_rng(5).integers(1, 10, (6, 6)).astype(float)
    model = nqmip.build_model(6, weights, sense="min", backend=backend)
    if backend == "pyomo":
        import pyomo.environ as pyo

        pyo.SolverFactory("appsi_highs").solve(model)
        value = pyo.value(model.value)
    else:
        from ortools.sat.python import cp_model

        solver = cp_model.CpSolver()
        solver.solve(model.model)
        value = solver.objective_value
    assert value == pytest.approx(brute_force(6, weights, "min"))
    with pytest.raises(ValueError, match="maximisation"):
        nqmip.build_model(6, weights, sense="min", strengthen=True)
    with pytest.raises(ValueError, match="sense"):
        nqmip.make_instance(6, weights, sense="down")


def test_costs_from_the_command_line(tmp_path: Path) -> None:
    weights = np.random.default_rng(9).integers(1, 10, (7, 7))
    path = tmp_path / "c.csv"
    np.savetxt(path, weights, delimiter=",", fmt="%d")
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "solve_weighted.py"),
                          "--costs", str(path), "--json"], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    data = json.loads(out.stdout)
    assert data["objective"] == brute_force(7, weights.astype(float), "min")
    assert data["sense"] == "min" and data["status"] == "optimal"


@pytest.mark.parametrize("n", [8, 10])
def test_a_root_bound_of_costs_is_a_lower_bound(n: int) -> None:
    # bnb's root bound among the statistics is turned into costs with the objective: below
    # the optimum, not the maximisation's value (about n times the largest cost)
    from nqmip.instances.families import toulbar2_tutorial

    r = nqmip.solve(toulbar2_tutorial(n), method="bnb")
    assert r.status.value == "optimal" and r.objective is not None
    assert 0 <= r.extra["root_bound"] <= r.objective


#: Every door that takes a sense, asked to minimise a board without weights: the call, and
#: the words it must refuse it with (one home: nqmip.instance.needs_costs).
NO_COSTS_DOORS = {
    "solve": (lambda: nqmip.solve(8, None, sense="min"),
              "sense='min' needs weights (costs): weights=None has none"),
    "solve-method": (lambda: nqmip.solve(8, sense="min", method="sa", time_limit=1),
                     "sense='min' needs weights (costs): weights=None has none"),
    "make_instance": (lambda: nqmip.make_instance(8, sense="min"),
                      "sense='min' needs weights (costs): weights=None has none"),
    "build_model-pyomo": (lambda: nqmip.build_model(8, None, sense="min"),
                          "sense='min' needs weights (costs): weights=None has none"),
    "build_model-cpsat": (lambda: nqmip.build_model(8, sense="min", backend="cpsat"),
                          "sense='min' needs weights (costs): weights=None has none"),
}


@pytest.mark.parametrize("door", sorted(NO_COSTS_DOORS))
def test_the_api_refuses_to_minimise_without_weights_as_the_command_does(door: str) -> None:
    """`solve-weighted --feasibility --minimize` was refused while nqmip.solve(8, None,
    sense="min") answered 8 'optimal' (every placement of a board without weights totals
    n): each API door now refuses it, an InstanceError (a ValueError) in the command's
    words."""
    call, words = NO_COSTS_DOORS[door]
    with pytest.raises(nqmip.InstanceError) as refused:
        call()
    assert str(refused.value) == words


@pytest.mark.parametrize("command", ["solve", "compare"])
def test_the_commands_refuse_to_minimise_without_weights_in_the_same_words(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The commands' refusals come from the same home as the API's: one line, exit 2
    (nqmip-compare ran every cell of such a sweep)."""
    if command == "solve":
        from nqmip.cli.solve import solve_weighted_main as main

        status = main(["--n", "8", "--feasibility", "--minimize"])
        words = "solve_weighted: error: --minimize needs weights (costs): --feasibility has none"
    else:
        from nqmip.compare import main

        status = main(["--n", "8", "--methods", "sa", "--weights", "none", "--minimize",
                       "--time-limit", "1", "--no-progress"])
        words = ("nqmip-compare: error: --minimize needs weights (costs): "
                 "--weights none has none")
    err = capsys.readouterr().err
    assert status == 2 and err == words + "\n", err


@pytest.mark.parametrize("door", ["solve", "build_model", "make_instance"])
def test_the_sense_is_read_in_any_case_as_the_weights_kind_is(door: str) -> None:
    """weights='CHESS' was taken and sense='MIN' refused: one rule, either case."""
    costs = np.arange(16, dtype=float).reshape(4, 4)
    if door == "solve":
        upper = nqmip.solve(4, costs, method="highs", sense="MIN")
        assert upper.sense == "min"
        assert upper.objective == nqmip.solve(4, costs, method="highs", sense="min").objective
    elif door == "build_model":
        nqmip.build_model(4, costs, sense="Min", strengthen=False)
    else:
        assert nqmip.make_instance(4, costs, sense="MAX").sense == "max"
    with pytest.raises(ValueError, match="sense must be 'max' or 'min', got 'minimum'"):
        nqmip.make_instance(4, costs, sense="minimum")
