"""The round trip of a model the user solves: ``build_model`` for each backend, solved by
each solver Pyomo, OR-Tools and HiGHS offer here, read back by
``nqmip.result_from_model`` into a verified ``Result``, against ``nqmip.solve`` and brute
force; then the models it refuses (one ModelError line) and the changed models whose
proof it does not take."""

from __future__ import annotations

from functools import cache
from itertools import permutations
from typing import Any

import numpy as np
import pytest

import nqmip
from nqmip.result import Status, Termination

#: Each solver, the model it reads, and the backend whose availability it needs.
SOLVERS = {
    "glpk": ("pyomo", "glpk"),
    "appsi_highs": ("pyomo", "highs-pyomo"),
    "appsi-direct": ("pyomo", "highs-pyomo"),  # appsi's own Results
    "highs": ("pyomo", "highs"),  # pyomo.contrib.solver's, through SolverFactory
    "contrib-highs": ("pyomo", "highs"),  # pyomo.contrib.solver's own Results
    "gurobi_direct": ("pyomo", "gurobi"),
    "scip_direct": ("pyomo", "scip"),
    "cpsat": ("cpsat", "cpsat"),
    "highspy": ("matrix", "highs"),
    "column-values": ("matrix", "highs"),  # highspy's values handed over as an array
}
SOLVER_PARAMS = [pytest.param(name, marks=pytest.mark.solver(mark), id=name)
                 for name, (_backend, mark) in SOLVERS.items()]


def solved(model: Any, solver: str) -> Any:
    """Solve the model as a user would with ``solver``; what result_from_model takes."""
    backend = SOLVERS[solver][0]
    if backend == "cpsat":
        from ortools.sat.python import cp_model

        cp = cp_model.CpSolver()
        cp.parameters.num_workers = 1
        cp.solve(model.model)
        return cp
    if backend == "matrix":
        import highspy

        from nqmip.formulation.matrix import to_highs_lp

        highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        highs.passModel(to_highs_lp(model))
        highs.run()
        if solver == "highspy":
            return highs
        return np.array(highs.getSolution().col_value)
    if solver == "appsi-direct":
        from pyomo.contrib import appsi

        opt = appsi.solvers.Highs()
        opt.config.load_solution = False
        results = opt.solve(model)
        if results.best_feasible_objective is not None:
            results.solution_loader.load_vars()
        return results
    if solver == "contrib-highs":
        from pyomo.contrib.solver.common.factory import SolverFactory

        results = SolverFactory("highs").solve(
            model, load_solutions=False, raise_exception_on_nonoptimal_result=False)
        if results.incumbent_objective is not None:
            results.solution_loader.load_vars()
        return results
    import pyomo.environ as pyo

    if solver == "glpk":
        return pyo.SolverFactory(solver).solve(model)  # loads what it found (a warning if none)
    # the others raise when there is nothing to load: load what there is
    results = pyo.SolverFactory(solver).solve(model, load_solutions=False)
    if len(results.solution):
        model.solutions.load_from(results)
    return results


@cache
def brute_force(n: int, sense: str, fixed: tuple[tuple[int, int], ...]) -> float | None:
    """The best value over every permutation keeping the fixed queens (None: none)."""
    weights = nqmip.make_instance(n, "random", weights_seed=n).dense
    assert weights is not None
    best = None
    for p in permutations(range(n)):
        if any(p[r] != c for r, c in fixed):
            continue
        if len({i - p[i] for i in range(n)}) < n or len({i + p[i] for i in range(n)}) < n:
            continue
        value = float(sum(weights[i, p[i]] for i in range(n)))
        if best is None or (value < best if sense == "min" else value > best):
            best = value
    return best


@cache
def package(n: int, sense: str, fixed: tuple[tuple[int, int], ...]) -> nqmip.Result:
    return nqmip.solve(n, "random", weights_seed=n, sense=sense, fixed=fixed, method="highs")


#: Each solver with each sense its model takes (the arrays are written for maximisation:
#: build_model refuses sense='min' for them).
SOLVER_SENSES = [pytest.param(name, sense, marks=pytest.mark.solver(mark),
                              id=f"{name}-{sense}")
                 for name, (backend, mark) in SOLVERS.items()
                 for sense in (("max",) if backend == "matrix" else ("max", "min"))]


@pytest.mark.parametrize("n", [1, 3, 6, 8])
@pytest.mark.parametrize("fixed", [(), ((0, 1),)], ids=["free", "fixed"])
@pytest.mark.parametrize(("solver", "sense"), SOLVER_SENSES)
def test_a_solved_model_gives_the_packages_verified_result(
        solver: str, sense: str, fixed: tuple[tuple[int, int], ...], n: int) -> None:
    """Every backend x solver x sense x fixed queen: the result is the optimum brute force
    and nqmip.solve find (or infeasible where they find nothing), proven by the solver,
    in the instance's sense, its fixed queen kept, said to be solved outside nqmip.
    (The slow lane: 10 s in all; the fast lane runs the next test, one board a solver.)"""
    round_trip(solver, sense, fixed, n)


@pytest.mark.parametrize("solver", SOLVER_PARAMS)
def test_each_solver_round_trips_a_board_with_a_fixed_queen(solver: str) -> None:
    sense = "max" if SOLVERS[solver][0] == "matrix" else "min"
    round_trip(solver, sense, ((0, 1),), 6)


@pytest.mark.parametrize("solver", [p for p in SOLVER_PARAMS
                                    if p.id in ("glpk", "cpsat", "highspy")])
def test_a_strengthened_model_round_trips_as_built(solver: str) -> None:
    """strengthen=True: the fresh build it is compared with is strengthened too."""
    model = nqmip.build_model(8, "random", weights_seed=8, strengthen=True,
                              backend=SOLVERS[solver][0])
    r = nqmip.result_from_model(model, solved(model, solver))
    assert (r.status, r.objective) == (Status.OPTIMAL, brute_force(8, "max", ()))
    assert "model_changed" not in r.extra


def round_trip(solver: str, sense: str, fixed: tuple[tuple[int, int], ...], n: int) -> None:
    backend = SOLVERS[solver][0]
    fixed = tuple((r, c) for r, c in fixed if c < n) or (((0, 0),) if fixed else ())
    model = nqmip.build_model(n, "random", fixed=fixed, weights_seed=n, sense=sense,
                              backend=backend)
    best = brute_force(n, sense, fixed)
    if best is None and solver == "column-values":  # HiGHS's values of no solution: zeros
        with pytest.raises(nqmip.ModelError, match=r"^row \d holds no queen in the solution$"):
            nqmip.result_from_model(model, solved(model, solver))
        return
    result = nqmip.result_from_model(model, solved(model, solver))
    reference = package(n, sense, fixed)
    assert (result.method, result.sense, result.fixed, result.n) == ("outside", sense, fixed, n)
    if best is None:
        assert reference.status == result.status == Status.INFEASIBLE, result.message
        assert result.termination == Termination.INFEASIBLE and result.placement is None
        return
    assert result.objective == pytest.approx(best) == reference.objective
    if solver == "column-values":  # values alone: no solver's word, no proof
        assert (result.status, result.termination, result.bound) == (
            Status.FEASIBLE, Termination.UNKNOWN, None), result.message
    else:
        assert result.status == Status.OPTIMAL, result.message
        assert result.termination == Termination.OPTIMAL
        assert result.bound == pytest.approx(best)
    assert result.placement is not None and nqmip.is_solution(result.placement, fixed)
    assert result.provenance.incumbent_source == "outside"
    if solver in ("glpk", "cpsat", "highspy"):  # each says how long it took
        assert result.timing.solve is not None and result.timing.solve >= 0
    assert "outside nqmip" in result.provenance.plan[0]
    assert "model_changed" not in result.extra


def _pyomo(n: int = 6, **kwargs: Any) -> Any:
    return nqmip.build_model(n, "random", weights_seed=n, **kwargs)


@pytest.mark.solver("glpk")
def test_a_model_with_a_constraint_of_its_own_is_verified_but_not_proven() -> None:
    """A constraint added (no queen on either long diagonal): the placement is checked
    and valued with the instance's weights; the solver's 'optimal' is of the changed
    model: feasible, no bound, the change named."""
    import pyomo.environ as pyo

    n = 8
    m = _pyomo(n)
    cells = sorted({(i, i) for i in range(n)} | {(i, n - 1 - i) for i in range(n)})
    m.off_long_diagonals = pyo.Constraint(expr=sum(m.x[c] for c in cells) == 0)
    results = pyo.SolverFactory("glpk").solve(m)
    r = nqmip.result_from_model(m, results)
    assert (r.status, r.termination, r.bound) == (Status.FEASIBLE, Termination.OPTIMAL, None)
    assert "off_long_diagonals" in r.extra["model_changed"]
    best = brute_force(n, "max", ())
    assert best is not None and r.objective == pytest.approx(pyo.value(m.value))
    assert r.objective is not None and r.objective < best
    assert r.placement is not None and all(r.placement[i] != j for i, j in cells)
    m.off_long_diagonals.deactivate()  # the model as built again: proven
    r = nqmip.result_from_model(m, pyo.SolverFactory("glpk").solve(m))
    assert r.status == Status.OPTIMAL and r.objective == brute_force(n, "max", ())


@pytest.mark.solver("highs-pyomo")
def test_a_changed_weight_keeps_the_instances_objective_and_reports_the_solvers() -> None:
    """A weight of the model changed: the objective is the instance's value of the
    placement, the solver's own value beside it in extra."""
    import pyomo.environ as pyo

    m = _pyomo(6)
    best = package(6, "max", ()).placement
    assert best is not None
    m.w[0, best[0]] = -100  # the optimum's square made worthless
    r = nqmip.result_from_model(m, pyo.SolverFactory("appsi_highs").solve(m))
    assert r.status == Status.FEASIBLE and r.bound is None
    assert "changed value" in r.extra["model_changed"]
    instance = nqmip.make_instance(6, "random", weights_seed=6)
    assert r.objective == instance.objective(r.placement)
    assert r.extra["solver_objective"] == pytest.approx(pyo.value(m.value))
    m.x[0, best[0]].fix(0)
    r = nqmip.result_from_model(m, pyo.SolverFactory("appsi_highs").solve(m))
    assert r.placement is not None and r.placement[0] != best[0]
    assert "changed c_e_rows(0)_" in r.extra["model_changed"]  # x[0, j] now a constant


@pytest.mark.solver("cpsat")
def test_a_changed_cpsat_model_is_verified_but_not_proven() -> None:
    """CP-SAT: a constraint added, or the objective replaced, is seen in the proto;
    a hint (add_hint) is no change."""
    from ortools.sat.python import cp_model

    cps = nqmip.build_model(6, "random", weights_seed=6, backend="cpsat")
    cps.add_hint(package(6, "max", ()).placement)
    solver = cp_model.CpSolver()
    solver.solve(cps.model)
    assert nqmip.result_from_model(cps, solver).status == Status.OPTIMAL
    cps.model.add(cps.queen[0] == 1)
    solver.solve(cps.model)
    r = nqmip.result_from_model(cps, solver)
    assert (r.status, r.bound, r.placement[0]) == (Status.FEASIBLE, None, 1)  # type: ignore[index]
    assert r.extra["model_changed"].startswith("constraints")
    cps = nqmip.build_model(6, "random", weights_seed=6, backend="cpsat")
    cps.model.maximize(sum(cps.x[i, i] for i in range(6) if (i, i) in cps.x))
    solver.solve(cps.model)
    r = nqmip.result_from_model(cps, solver)
    assert r.status == Status.FEASIBLE and r.extra["solver_objective"] != r.objective


@pytest.mark.solver("cpsat")
def test_an_infeasible_changed_model_is_unknown_not_infeasible() -> None:
    from ortools.sat.python import cp_model

    cps = nqmip.build_model(5, "random", weights_seed=5, backend="cpsat")
    cps.model.add(cps.queen[0] == cps.queen[1])
    solver = cp_model.CpSolver()
    solver.solve(cps.model)
    r = nqmip.result_from_model(cps, solver)
    assert (r.status, r.termination, r.placement) == (Status.UNKNOWN, Termination.INFEASIBLE,
                                                     None)


@pytest.mark.solver("glpk")
def test_a_model_without_the_solvers_word_is_feasible_at_best() -> None:
    import pyomo.environ as pyo

    m = _pyomo()
    pyo.SolverFactory("glpk").solve(m)
    r = nqmip.result_from_model(m)
    assert (r.status, r.termination, r.bound) == (Status.FEASIBLE, Termination.UNKNOWN, None)
    assert r.objective == brute_force(6, "max", ())


@pytest.mark.solver("highs-pyomo")
def test_an_lp_relaxation_is_refused_as_fractional() -> None:
    """The LP relaxation of the 6-board with weights seed 6 has a fractional optimum."""
    import pyomo.environ as pyo

    m = _pyomo()
    pyo.TransformationFactory("core.relax_integer_vars").apply_to(m)
    pyo.SolverFactory("appsi_highs").solve(m)
    assert any(0.01 < v.value < 0.99 for v in m.x.values())
    with pytest.raises(nqmip.ModelError, match=r"^x\[\d, \d\] = [0-9.]+ is fractional: a "
                                               r"solution of a relaxation"):
        nqmip.result_from_model(m, None)


@pytest.mark.solver("highs")
@pytest.mark.parametrize("change", ["row bounds", "coefficients", "integrality"])
def test_a_model_changed_inside_highs_is_verified_but_not_proven(change: str) -> None:
    """A row's bounds, a coefficient or a column's integrality changed in the Highs object
    (not in the arrays): reported optimal 51 for a board whose optimum is 57 before."""
    import highspy

    from nqmip.formulation.matrix import to_highs_lp

    lm = nqmip.build_model(8, "random", weights_seed=1, backend="matrix")
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.passModel(to_highs_lp(lm))
    row = lm.num_rows // 2
    if change == "row bounds":  # a diagonal closed
        highs.changeRowBounds(row, float(lm.row_lower[row]), 0.0)
    elif change == "coefficients":
        highs.changeCoeff(row, int(lm.indices[lm.indptr[row]]), 2.0)
    else:
        highs.changeColIntegrality(0, highspy.HighsVarType.kContinuous)
    highs.run()
    r = nqmip.result_from_model(lm, highs)
    assert (r.status, r.bound) == (Status.FEASIBLE, None), r
    assert r.extra["model_changed"] == f"HiGHS's {change}"


@pytest.mark.solver("cpsat")
def test_the_arrays_with_another_solver_are_refused_by_name() -> None:
    """A CpSolver handed with the arrays met float()'s words (TypeError)."""
    from ortools.sat.python import cp_model

    lm = nqmip.build_model(8, weights="chess", backend="matrix")
    with pytest.raises(nqmip.ModelError, match="not CpSolver"):
        nqmip.result_from_model(lm, cp_model.CpSolver())


@pytest.mark.solver("glpk")
@pytest.mark.parametrize("cell", [(0, 0), (3, 3), (7, 2)])
def test_a_changed_bound_names_its_variable(cell: tuple[int, int]) -> None:
    """The bounds section compared line by line named the line after the change (x[3, 3]
    made continuous was 'x(3_4)')."""
    import pyomo.environ as pyo

    m = nqmip.build_model(8, weights="chess")
    m.x[cell].domain = pyo.UnitInterval
    r = nqmip.result_from_model(m, pyo.SolverFactory("glpk").solve(m))
    assert r.extra["model_changed"] == f"changed bounds (x({cell[0]}_{cell[1]}))"


@pytest.mark.solver("highs")
def test_the_arrays_lp_relaxation_is_refused_as_fractional() -> None:
    import highspy

    from nqmip.formulation.matrix import to_highs_lp

    lm = nqmip.build_model(6, "random", weights_seed=6, backend="matrix")
    lp = to_highs_lp(lm)
    lp.integrality_ = [highspy.HighsVarType.kContinuous] * lm.num_cols
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.passModel(lp)
    highs.run()
    with pytest.raises(nqmip.ModelError, match="is fractional"):
        nqmip.result_from_model(lm, highs)


@pytest.mark.solver("glpk")
def test_removed_diagonals_give_attacking_queens_refused() -> None:
    """The diagonal rows deactivated and a weight that pays for a clash: refused."""
    import pyomo.environ as pyo

    m = nqmip.build_model(4, np.eye(4) * 10 + 1)
    m.diagonals.deactivate()
    m.anti_diagonals.deactivate()
    pyo.SolverFactory("glpk").solve(m)
    with pytest.raises(nqmip.ModelError, match="attacking pairs"):
        nqmip.result_from_model(m)


@pytest.mark.solver("glpk")
def test_a_moved_fixed_queen_is_refused() -> None:
    import pyomo.environ as pyo

    m = _pyomo(6, fixed=[(0, 1)])
    results = pyo.SolverFactory("glpk").solve(m)
    m.fixed_queens[0] = 4
    with pytest.raises(nqmip.ModelError, match=r"fixed queens not kept: \[\(0, 1\)\]|"
                                               "attacking"):
        nqmip.result_from_model(m, results)


def test_values_that_are_not_a_placement_are_refused() -> None:
    m = _pyomo(4)
    for var in m.x.values():
        var.set_value(0)
    m.x[0, 0].set_value(1)
    m.x[0, 2].set_value(1)
    with pytest.raises(nqmip.ModelError, match=r"^row 0 holds two queens in the solution$"):
        nqmip.result_from_model(m)
    m.x[0, 2].set_value(0)
    with pytest.raises(nqmip.ModelError, match=r"^row 1 holds no queen in the solution$"):
        nqmip.result_from_model(m)
    m.x[0, 0].set_value(None)
    with pytest.raises(nqmip.ModelError, match="x\\[0, 0\\] has no value"):
        nqmip.result_from_model(m)


def test_unsolved_models_are_refused_in_one_line() -> None:
    from ortools.sat.python import cp_model

    cases = [
        (lambda: nqmip.result_from_model(_pyomo()), "holds no solution.*solve it first"),
        (lambda: nqmip.result_from_model(nqmip.build_model(6, backend="cpsat")),
         "in the CpSolver that solved it"),
        (lambda: nqmip.result_from_model(nqmip.build_model(6, backend="cpsat"),
                                         cp_model.CpSolver()), "has solved nothing"),
        (lambda: nqmip.result_from_model(nqmip.build_model(6, backend="matrix")),
         "the arrays' solution is the solver's"),
        (lambda: nqmip.result_from_model(nqmip.build_model(6, backend="matrix"), [0.0] * 5),
         "the solution holds 5 values, the model 36 columns"),
        (lambda: nqmip.result_from_model(_pyomo(), "optimal"),
         "what the solver's solve\\(\\) returned"),
    ]
    for call, words in cases:
        with pytest.raises(nqmip.ModelError, match=words) as caught:
            call()
        assert "\n" not in str(caught.value)


@pytest.mark.solver("highs-pyomo")
def test_a_solution_left_unloaded_is_refused() -> None:
    import pyomo.environ as pyo

    m = _pyomo()
    results = pyo.SolverFactory("appsi_highs").solve(m, load_solutions=False)
    with pytest.raises(nqmip.ModelError, match="load it into the model"):
        nqmip.result_from_model(m, results)


@pytest.mark.solver("highs-pyomo")
def test_a_stopped_solve_left_unloaded_is_refused() -> None:
    """HiGHS stopped at its first solution (a limit, not a proof) whose values the caller
    did not load: refused (it was read as no solution, status unknown)."""
    import pyomo.environ as pyo

    m = _pyomo(16)
    results = pyo.SolverFactory("appsi_highs").solve(
        m, load_solutions=False, options={"mip_max_improving_sols": 1, "presolve": "off"})
    assert results.solver.termination_condition != pyo.TerminationCondition.optimal
    with pytest.raises(nqmip.ModelError, match="found a solution, but the model's "
                                               "variables have no value"):
        nqmip.result_from_model(m, results)


@pytest.mark.solver("cpsat")
def test_a_cpsolver_of_another_model_is_refused() -> None:
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.solve(nqmip.build_model(5, backend="cpsat").model)
    with pytest.raises(nqmip.ModelError, match="it solved another model"):
        nqmip.result_from_model(nqmip.build_model(6, backend="cpsat"), solver)


def test_a_model_not_built_by_build_model_is_refused() -> None:
    import pyomo.environ as pyo
    from ortools.sat.python import cp_model

    from nqmip.formulation.cpsat import build_cpsat_model
    from nqmip.formulation.pyomo import build_pyomo_model

    instance = nqmip.make_instance(5)
    for model in (pyo.ConcreteModel(), build_pyomo_model(instance), cp_model.CpModel(),
                  build_cpsat_model(instance), object(), None):
        with pytest.raises(nqmip.ModelError, match=r"^result_from_model takes a model of "
                                                    r"nqmip\.build_model"):
            nqmip.result_from_model(model)
    assert {"result_from_model", "ModelError"} <= set(nqmip.__all__)


@pytest.mark.solver("cpsat")
def test_a_stopped_cpsat_search_is_feasible_with_its_bound() -> None:
    """Stopped by its deterministic limit before a proof: feasible, CP-SAT's lower bound
    kept for costs, the termination not 'optimal'."""
    from ortools.sat.python import cp_model

    cps = nqmip.build_model(40, "random", weights_seed=1, sense="min", backend="cpsat")
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_deterministic_time = 0.2
    solver.solve(cps.model)
    r = nqmip.result_from_model(cps, solver)
    assert r.status in (Status.FEASIBLE, Status.OPTIMAL, Status.UNKNOWN)
    if r.status == Status.FEASIBLE:
        assert r.termination in (Termination.UNKNOWN, Termination.TIME_LIMIT)
        assert r.bound is not None and r.objective is not None and r.bound < r.objective
        assert r.placement is not None and nqmip.is_solution(r.placement)


@pytest.mark.solver("cpsat")
def test_real_weights_take_cpsats_optimal_within_its_tolerance() -> None:
    """CP-SAT's float objective proves within its own tolerance: its bound was 1.63482468
    for the cost 1.63483319 (random reals, seed 0, the fifth board), and the result said
    feasible; it is optimal as CP-SAT says, with CP-SAT's bound, the same cost as
    nqmip.solve's."""
    from ortools.sat.python import cp_model

    rng = np.random.default_rng(0)
    boards = [rng.random((8, 8)) * 10 - 3 for _ in range(5)]
    for weights in boards:
        for sense in ("max", "min"):
            cps = nqmip.build_model(8, weights, backend="cpsat", sense=sense)
            solver = cp_model.CpSolver()
            solver.parameters.num_workers = 1
            solver.solve(cps.model)
            r = nqmip.result_from_model(cps, solver)
            reference = nqmip.solve(8, weights, sense=sense, method="highs")
            assert r.status == Status.OPTIMAL, (sense, r.objective, r.bound)
            assert r.objective == pytest.approx(reference.objective, rel=1e-9)


def _infeasible_answer(backend: str) -> Any:
    """The solver's answer for 4 queens with one in a corner (no completion), on ``backend``."""
    model = nqmip.build_model(4, None, {0: 0}, backend=backend)
    if backend == "cpsat":
        from ortools.sat.python import cp_model

        solver = cp_model.CpSolver()
        solver.solve(model.model)
        return model, solver
    from pyomo.environ import SolverFactory

    return model, SolverFactory("appsi_highs").solve(model, load_solutions=False)


@pytest.mark.parametrize("backend", ["pyomo", "cpsat"])
@pytest.mark.parametrize("other", [(5, None), (4, None), (8, {0: 0})])
def test_an_infeasible_answer_given_with_another_model_is_refused(
        backend: str, other: tuple[int, Any]) -> None:
    """No values to count, so no other check saw it: the answer of the 4-board with a
    corner queen, given with a board that has placements, was reported infeasible."""
    model, answer = _infeasible_answer(backend)
    assert nqmip.result_from_model(model, answer).status is Status.INFEASIBLE
    with pytest.raises(nqmip.ModelError, match="answer is of another model"):
        nqmip.result_from_model(nqmip.build_model(other[0], None, other[1], backend=backend),
                                answer)
