"""The model doors swept over their kinds: ``build_model``'s backends solved by every solver
Pyomo and OR-Tools offer here, on boards whose queens are all fixed (or leave a line
without a free cell), the chess colours' values of every type, and the OPB reader's
strictness (every mutation of a written file is refused by name or read back the same)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nqmip
from nqmip.instance import InstanceError

#: Each Pyomo solver and the backend whose availability it needs (the solver mark).
PYOMO_SOLVERS = {"appsi_highs": "highs-pyomo", "highs": "highs", "glpk": "glpk",
                 "gurobi_direct": "gurobi", "scip_direct": "scip"}
SOLVERS = [pytest.param(name, marks=pytest.mark.solver(mark), id=name)
           for name, mark in [*PYOMO_SOLVERS.items(), ("cpsat", "cpsat"),
                              ("matrix-highspy", "highs")]]
#: The model each solver reads.
BACKEND = {"cpsat": "cpsat", "matrix-highspy": "matrix"}

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
    if solver == "matrix-highspy":
        import highspy

        from nqmip.backends.highs import to_highs_lp

        highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        highs.passModel(to_highs_lp(model, highspy))
        highs.run()
        status = highs.getModelStatus()
        if status == highspy.HighsModelStatus.kInfeasible:
            return "infeasible", None, None
        assert status == highspy.HighsModelStatus.kOptimal, str(status)
        values = np.array(highs.getSolution().col_value)
        return "optimal", highs.getInfo().objective_function_value, model.placement(values)
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
    Pyomo model of no variable, and HiGHS called the matrix of no column 'empty'; now each
    is optimal at the fixed queens' value."""
    spec = WEIGHTS[kind]
    if sense == "min" and spec["weights"] is None:
        pytest.skip("a minimisation needs costs (refused by name elsewhere)")
    if sense == "min" and solver == "matrix-highspy":
        pytest.skip("the matrix is written for maximisation (refused by name elsewhere)")
    model = nqmip.build_model(4, fixed=ALL_FIXED, backend=BACKEND.get(solver, "pyomo"),
                              sense=sense, **spec)
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
    model = nqmip.build_model(4, fixed=BLOCKING, backend=BACKEND.get(solver, "pyomo"),
                              **WEIGHTS[kind])
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


#: The weights of one 4-board, as rows and as the rows' container, in every iterable form
#: WeightsSpec (``Iterable[Iterable[float]]``) admits.
ROWS = {"list": list, "tuple": tuple, "array": np.array, "generator": lambda r: (v for v in r),
        "iterator": iter}
OUTER = {"list": list, "tuple": tuple, "generator": lambda rows: (r for r in rows),
         "map": lambda rows: map(lambda r: r, rows)}


@pytest.mark.parametrize("backend", ["pyomo", "cpsat", "matrix"])
@pytest.mark.parametrize("outer", list(OUTER))
@pytest.mark.parametrize("row", list(ROWS))
def test_weights_in_any_iterable_form_build_the_same_model(row: str, outer: str,
                                                           backend: str) -> None:
    """Rows drawn by a generator were refused ('got generator ... at []'): numpy takes a
    generator for one object."""
    matrix = np.arange(16.0).reshape(4, 4) - 5
    weights = OUTER[outer]([ROWS[row](r.tolist()) for r in matrix])
    instance = nqmip.make_instance(4, OUTER[outer]([ROWS[row](r.tolist()) for r in matrix]))
    assert np.array_equal(instance.weights, matrix)
    model = nqmip.build_model(4, weights, backend=backend)
    if backend == "matrix":
        assert np.array_equal(model.cost, matrix.ravel())


# --- OPB ---------------------------------------------------------------------------------

def _opb(tmp_path: Path, text: str) -> Any:
    from nqmip.instances.opb import read_opb

    path = tmp_path / "q.opb"
    path.write_bytes(text.encode())
    return read_opb(path)


#: Rewrites of a written file that keep its instance (the file's bytes as editors leave it).
KEPT = {"bom": lambda t: "\ufeff" + t, "crlf": lambda t: t.replace("\n", "\r\n"),
        "tabs": lambda t: t.replace(" ", "\t"),
        "comments-and-empty-lines": lambda t: t.replace(";\n", ";\n\n* a comment\n")}
#: Rewrites that make another problem: each must be refused, never read as the model.
CHANGED = {
    "variable-0": lambda t: t.replace("min: ", "min: +5 x0 "),
    "variable-past-the-board": lambda t: t.replace("min: ", "min: +5 x99 "),
    "variable-twice": lambda t: t.replace("min: ", "min: -3 x16 "),
    "float-coefficient": lambda t: t.replace("min: ", "min: +1.5e3 x1 "),
    "trivial-diagonal": lambda t: t.replace("-1 x1 -1 x6 -1 x11 -1 x16 >= -1",
                                            "+1 x1 +1 x6 +1 x11 +1 x16 >= -1"),
    "coefficient-2": lambda t: t.replace("+1 x1 +1 x2", "+2 x1 +1 x2"),
    "right-side-2": lambda t: t.replace("+1 x4 = 1", "+1 x4 = 2"),
}
OPB_WEIGHTS = {"whole": np.arange(16.0).reshape(4, 4), "negative": -np.ones((4, 4)),
               "large": np.full((4, 4), 2.0**49 + 1)}


@pytest.mark.parametrize("sense", ["max", "min"])
@pytest.mark.parametrize("kind", list(OPB_WEIGHTS))
@pytest.mark.parametrize("edit", list(KEPT))
def test_an_opb_file_as_editors_leave_it_reads_back_the_same(tmp_path: Path, edit: str,
                                                             kind: str, sense: str) -> None:
    """Tabs in the writer's mark of a maximisation flipped it into a minimisation."""
    from nqmip.instances.opb import opb_text

    instance = nqmip.make_instance(4, OPB_WEIGHTS[kind], sense=sense)
    back = _opb(tmp_path, KEPT[edit](opb_text(instance)))
    assert back.sense == sense
    assert np.array_equal(back.weight_matrix(), instance.weight_matrix())


@pytest.mark.parametrize("edit", list(CHANGED))
def test_an_opb_file_of_another_problem_is_refused_by_name(tmp_path: Path, edit: str) -> None:
    from nqmip.instances.opb import opb_text

    text = opb_text(nqmip.make_instance(4, OPB_WEIGHTS["whole"]))
    changed = CHANGED[edit](text)
    assert changed != text
    with pytest.raises(InstanceError, match=r"q\.opb: "):
        _opb(tmp_path, changed)


@pytest.mark.parametrize("weight", [1000000.3, 2.5, 1e-9, 0.4])
def test_opb_refuses_weights_that_are_not_whole(weight: float) -> None:
    """np.allclose (relative 1e-5) took 1000000.3 as whole and wrote 1000000."""
    from nqmip.instances.opb import opb_text

    with pytest.raises(InstanceError, match="OPB coefficients are integers"):
        opb_text(nqmip.make_instance(4, np.full((4, 4), weight)))


# --- CSPLib prob079 ----------------------------------------------------------------------

@pytest.mark.parametrize("diags", ["[[1, 0]]", "[[3, 1]]", "[[1, 0], [3, 1]]", "[]"])
@pytest.mark.parametrize("n", [10**7, 10**9, 10**12])
def test_the_reduction_of_a_huge_param_file_is_refused_up_front(n: int, diags: str) -> None:
    """A .param file's n is the file's word: its reduction to a completion (some 266 n
    fixed queens) is checked against memory before any list of n is built (n = 10^7 spent
    5 s building them, then began 2.7 * 10^9 queens)."""
    import time

    from nqmip.capacity import available_bytes
    from nqmip.instances.csplib import excluded_to_completion, parse_diagonals

    if available_bytes() is None:
        pytest.skip("no /proc/meminfo: the machine's memory is unknown")
    start = time.perf_counter()
    with pytest.raises(InstanceError, match=rf"excluded_to_completion of the {n}-board"):
        excluded_to_completion(parse_diagonals(f"n = {n}\ndiags = {diags}\n"))
    assert time.perf_counter() - start < 2.0
