"""The model doors swept over their kinds: ``build_model``'s backends solved by every solver
Pyomo and OR-Tools offer here, on boards whose queens are all fixed (or leave a line
without a free cell), and the chess colours' values of every type."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import nqmip
from nqmip.instance import InstanceError

#: Each Pyomo solver and the backend whose availability it needs (the solver mark).
PYOMO_SOLVERS = {"appsi_highs": "highs-pyomo", "highs": "highs", "glpk": "glpk",
                 "gurobi_direct": "gurobi", "scip_direct": "scip"}
SOLVERS = [pytest.param(name, marks=pytest.mark.solver(mark), id=name)
           for name, mark in [*PYOMO_SOLVERS.items(), ("cpsat", "cpsat")]]

#: Weights of every kind (None, the chess preset, its values, dense whole and fractional,
#: negative, zero) for the 4-board.
WEIGHTS: dict[str, dict[str, Any]] = {
    "none": {"weights": None},
    "chess": {"weights": "chess"},
    "chess-fractional": {"weights": "chess", "black": 0.5, "white": -1.25},
    "dense-whole": {"weights": np.arange(16, dtype=np.int32).reshape(4, 4)},
    "dense-fractional": {"weights": np.arange(16).reshape(4, 4) / 3},
    "dense-negative": {"weights": -np.arange(1.0, 17.0).reshape(4, 4)},
    "zero": {"weights": np.zeros((4, 4))},
}
#: A solution of the 4-board given whole, and two queens that leave row 3 no free cell.
ALL_FIXED = {0: 1, 1: 3, 2: 0, 3: 2}
BLOCKING = {0: 0, 1: 2}


def _solve(model: Any, solver: str) -> tuple[str, float | None, tuple[int, ...] | None]:
    """``(status, objective, placement)`` of the built model under ``solver``."""
    if solver == "cpsat":
        from ortools.sat.python import cp_model

        cp = cp_model.CpSolver()
        cp.parameters.num_workers = 1
        status = cp.solve(model.model)
        if status == cp_model.INFEASIBLE:
            return "infeasible", None, None
        assert status == cp_model.OPTIMAL, cp.status_name(status)
        return "optimal", cp.objective_value, model.placement(cp)
    import pyomo.environ as pyo

    from nqmip.formulation.pyomo import placement_from_pyomo

    results = pyo.SolverFactory(solver).solve(model, load_solutions=False)
    condition = results.solver.termination_condition
    if condition in (pyo.TerminationCondition.infeasible,
                     pyo.TerminationCondition.infeasibleOrUnbounded):
        return "infeasible", None, None
    assert condition == pyo.TerminationCondition.optimal, str(condition)
    model.solutions.load_from(results)
    return "optimal", pyo.value(model.value), placement_from_pyomo(model)


@pytest.mark.parametrize("sense", ["max", "min"])
@pytest.mark.parametrize("kind", list(WEIGHTS))
@pytest.mark.parametrize("solver", SOLVERS)
def test_every_model_of_a_fully_fixed_board_solves_to_its_value(solver: str, kind: str,
                                                                 sense: str) -> None:
    """Every queen fixed: the model has no free cell. CP-SAT's float objective of a
    constant was a TypeError at build time, appsi_highs and highs answered 'unknown' to a
    Pyomo model of no variable; now each is optimal at the fixed queens' value."""
    spec = WEIGHTS[kind]
    if sense == "min" and spec["weights"] is None:
        pytest.skip("a minimisation needs costs (refused by name elsewhere)")
    backend = "cpsat" if solver == "cpsat" else "pyomo"
    model = nqmip.build_model(4, fixed=ALL_FIXED, backend=backend, sense=sense, **spec)
    instance = nqmip.make_instance(4, fixed=ALL_FIXED, sense=sense, **spec)
    status, value, placement = _solve(model, solver)
    expected = tuple(ALL_FIXED[i] for i in range(4))
    assert (status, placement) == ("optimal", expected)
    assert value == pytest.approx(instance.objective(expected), abs=1e-9)


@pytest.mark.parametrize("kind", list(WEIGHTS))
@pytest.mark.parametrize("solver", SOLVERS)
def test_every_model_of_a_blocked_line_is_infeasible(solver: str, kind: str) -> None:
    """Fixed queens that leave a row without a free cell: the model is infeasible for
    every solver (Pyomo's Constraint.Infeasible was a NotImplementedError in scip_direct)."""
    backend = "cpsat" if solver == "cpsat" else "pyomo"
    model = nqmip.build_model(4, fixed=BLOCKING, backend=backend, **WEIGHTS[kind])
    assert _solve(model, solver)[0] == "infeasible"
    assert nqmip.solve(4, fixed=BLOCKING, method="cpsat", **WEIGHTS[kind]).status == \
        "infeasible"


#: Values of ``black``/``white``: real numbers of every type are taken, others refused.
TAKEN = [3, -2.5, 0, np.float32(1.5), np.int64(4), Decimal("2.5"), Fraction(7, 2)]
REFUSED = ["2", True, np.bool_(True), 1 + 2j, [2], b"2"]


@pytest.mark.parametrize("label", ["black", "white"])
@pytest.mark.parametrize("backend", ["pyomo", "cpsat", "matrix"])
@pytest.mark.parametrize("value", TAKEN + REFUSED, ids=repr)
def test_a_colour_value_is_taken_if_a_real_number_else_refused_by_name(
        value: Any, backend: str, label: str) -> None:
    """A string met numpy's 'ufunc isfinite not supported' (a TypeError naming no
    parameter); True was taken as 1."""
    if any(value is refused for refused in REFUSED):
        with pytest.raises(InstanceError, match=rf"^{label} \(the {label} squares' value\) "
                                                "must be a real number"):
            nqmip.build_model(4, "chess", backend=backend, **{label: value})
        return
    nqmip.build_model(4, "chess", backend=backend, **{label: value})
    instance = nqmip.make_instance(4, "chess", **{label: value})
    assert instance.weights is not None
    assert instance.weights[(0, 0) if label == "black" else (0, 1)] == float(value)
