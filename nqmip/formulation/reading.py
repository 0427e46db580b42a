"""What a model of :func:`~nqmip.formulation.build_model` says once the caller solved it:
one reader per model kind (Pyomo, CP-SAT, the arrays), each giving a
:class:`Reading` for :func:`~nqmip.formulation.roundtrip.result_of`; and what they share:
the :class:`Origin` a model keeps, the :class:`ModelError` they raise.

Each reader also compares the model with a fresh build of its origin, so that the proof
and the bound of a changed model are not taken for the instance's.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nqmip.formulation.cpsat import solver_bound
from nqmip.formulation.placement import ModelError, placement_of
from nqmip.instance import Instance
from nqmip.result import Termination

#: A binary's value counts as 0 or 1 within this (HiGHS's and CP-SAT's integrality
#: tolerances are 1e-6 and exact); beyond it the solution is fractional.
INTEGRALITY_TOLERANCE = 1e-5


@dataclass(frozen=True)
class Origin:
    """What :func:`~nqmip.formulation.build_model` built a model from (kept on the model:
    ``m.nqmip_origin`` for Pyomo, ``.origin`` of the CP-SAT and matrix models)."""

    instance: Instance
    strengthen: bool = False


@dataclass(frozen=True)
class Reading:
    """What a solved model says, in the solver's terms: its ``solver`` name, its status
    word, why it stopped, the ``placement`` read (None: no solution), its objective and
    bound (None: not given), what changed in the model since it was built (None:
    nothing) and the solver's seconds (None: not given)."""

    solver: str
    word: str
    termination: Termination
    placement: tuple[int, ...] | None
    objective: float | None
    bound: float | None
    changes: str | None
    seconds: float | None = None


def binary_values(values: Sequence[float | None] | np.ndarray, names: Sequence[str],
                  ) -> np.ndarray | None:
    """The 0/1 values of the model's binaries (None: the model holds no solution);
    ModelError for a fractional value or a solution only partly there."""
    missing = [k for k, v in enumerate(values) if v is None]
    if missing and len(missing) == len(values):
        return None
    if missing:
        raise ModelError(f"{names[missing[0]]} has no value: the model holds a partial "
                         "solution, not a placement")
    array = np.asarray(values, dtype=float)
    off = np.flatnonzero(np.minimum(np.abs(array), np.abs(array - 1.0))
                         > INTEGRALITY_TOLERANCE)
    if off.size:
        k = int(off[0])
        raise ModelError(f"{names[k]} = {array[k]:.6g} is fractional: a solution of a "
                         "relaxation (the LP), not a placement")
    return array > 0.5


#: Termination conditions of Pyomo's three solver interfaces (the legacy ``SolverResults``,
#: appsi's and ``pyomo.contrib.solver``'s), by lower-cased name.
_PYOMO_STOPS = {
    "optimal": Termination.OPTIMAL, "globallyoptimal": Termination.OPTIMAL,
    "convergencecriteriasatisfied": Termination.OPTIMAL,
    "infeasible": Termination.INFEASIBLE, "proveninfeasible": Termination.INFEASIBLE,
    # a bounded binary model is never unbounded
    "infeasibleorunbounded": Termination.INFEASIBLE,
    "maxtimelimit": Termination.TIME_LIMIT,
    "maxiterations": Termination.ITERATION_LIMIT, "iterationlimit": Termination.ITERATION_LIMIT,
    "maxevaluations": Termination.ITERATION_LIMIT,
    "userinterrupt": Termination.INTERRUPTED, "interrupted": Termination.INTERRUPTED,
    "error": Termination.ERROR, "solverfailure": Termination.ERROR,
    "internalsolvererror": Termination.ERROR,
}


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _pyomo_word(minimise: bool, results: Any) -> tuple[str, str, Termination, float | None,
                                                      float | None]:
    """The solver's name, its termination word, the termination, its objective and its
    bound, from any of Pyomo's results objects (None: nothing said); ``minimise``: the
    model as built minimises (the legacy results' incumbent is then its upper bound)."""
    if results is None:
        return "pyomo", "no solver result given", Termination.UNKNOWN, None, None
    legacy = getattr(results, "solver", None)
    if legacy is not None and hasattr(legacy, "termination_condition"):
        condition = legacy.termination_condition
        incumbent, bound = ("upper_bound", "lower_bound") if minimise else \
            ("lower_bound", "upper_bound")
        name = str(getattr(legacy, "name", None) or "<undefined>")
        name = "pyomo" if name == "<undefined>" else name
        objective = _number(getattr(results.problem, incumbent, None))
        bound_value = _number(getattr(results.problem, bound, None))
    elif hasattr(results, "termination_condition") and (
            hasattr(results, "best_feasible_objective") or hasattr(results, "incumbent_objective")):
        condition = results.termination_condition
        name = str(getattr(results, "solver_name", None) or type(results).__name__)
        objective = _number(getattr(results, "best_feasible_objective",
                                    getattr(results, "incumbent_objective", None)))
        bound_value = _number(getattr(results, "best_objective_bound",
                                      getattr(results, "objective_bound", None)))
    else:
        raise ModelError("solver_result of a Pyomo model is what the solver's solve() "
                         f"returned (SolverResults, appsi's or contrib's Results), not "
                         f"{type(results).__name__}")
    word = str(getattr(condition, "name", condition))
    termination = _PYOMO_STOPS.get(word.lower(), Termination.UNKNOWN)
    return name, word, termination, objective, bound_value


def lp_text(model: Any) -> dict[str, str]:
    """The model's LP file (the readable names) as its entries, by first line: the
    objective, each constraint, the bounds, the integer sections; comments left out."""
    from pyomo.repn.plugins.lp_writer import LPWriter

    out = io.StringIO()
    LPWriter().write(model, out, symbolic_solver_labels=True)
    entries: dict[str, str] = {}
    for block in out.getvalue().split("\n\n"):
        lines = [line for line in block.splitlines() if not line.startswith("\\*")]
        if lines:  # the objective's first line is its sense, its name the next
            key = lines[1] if lines[0].strip() in ("max", "min") and len(lines) > 1 \
                else lines[0]
            entries.setdefault(key, "\n".join(lines))
    return entries


def _differences(built: dict[str, str], now: dict[str, str]) -> str | None:
    """What changed between two models' entries: ``added c_u_mine_``, ``removed
    c_e_rows(2)_``, ``changed value``; None when none did."""
    words = [f"added {key.rstrip(':')}" for key in now if key not in built]
    words += [f"removed {key.rstrip(':')}" for key in built if key not in now]
    for key in built:
        if key in now and built[key] != now[key]:
            first = _first_changed(built[key].splitlines(), now[key].splitlines())
            words.append(f"changed {key.rstrip(':')}" + (f" ({first.strip()})"
                                                          if key == "bounds" else ""))
    if not words:
        return None
    return ", ".join(words[:3]) + (f" and {len(words) - 3} more" if len(words) > 3 else "")


def _first_changed(before: list[str], after: list[str]) -> str:
    """The first line of ``after`` that ``before`` does not hold, else the first of
    ``before`` gone from ``after`` (not the first that differs by position: a line added
    shifts the rest, and x[3, 3] made continuous was named 'x(3_4)')."""
    had, has = set(before), set(after)
    return next((line for line in after if line not in had),
                next((line for line in before if line not in has), ""))


def _pyomo_changes(model: Any, origin: Origin) -> str | None:
    """What differs from a fresh build of the model's origin (None: nothing)."""
    from nqmip.formulation.strengthen import pyomo_model

    try:
        now = lp_text(model)
    except Exception as error:  # a component the LP writer cannot write: a change
        first = (str(error).splitlines() or [type(error).__name__])[0]
        return f"the LP writer refuses it: {first}"
    return _differences(lp_text(pyomo_model(origin.instance, origin.strengthen)), now)


def read_pyomo(model: Any, origin: Origin, results: Any) -> Reading:
    """The reading of a solved Pyomo model (its variables' loaded values)."""
    solver, word, termination, objective, bound = _pyomo_word(
        origin.instance.sense == "min", results)
    placement = None
    if termination is not Termination.INFEASIBLE:  # its values, if any, are not a solution
        keys = list(model.x.keys())
        chosen = binary_values([var.value for var in model.x.values()],
                               [f"x[{i}, {j}]" for i, j in keys])
        if chosen is None and results is None:
            raise ModelError("the model holds no solution (its variables have no value): "
                             "solve it first")
        if chosen is None and (termination is Termination.OPTIMAL or objective is not None):
            raise ModelError(f"{solver} says {word} and found a solution, but the model's "
                             "variables have no value: load it into the model "
                             "(load_solutions)")
        if chosen is not None:
            cells = [key for key, on in zip(keys, chosen, strict=True) if on]
            placement = placement_of(cells, dict(getattr(model, "fixed_queens", {})),
                                     origin.instance.n)
    return Reading(solver, word, termination, placement, objective, bound,
                   _pyomo_changes(model, origin), _pyomo_seconds(results))


def _pyomo_seconds(results: Any) -> float | None:
    """The solver's seconds where its results say (the legacy ``solver.time`` or
    ``wallclock_time``, contrib's ``timing_info.wall_time``)."""
    legacy = getattr(results, "solver", None)
    for holder, name in ((legacy, "wallclock_time"), (legacy, "time"),
                         (getattr(results, "timing_info", None), "wall_time")):
        try:
            seconds = _number(getattr(holder, name, None))
        except Exception:  # Pyomo's containers raise more than AttributeError
            seconds = None
        if seconds is not None:
            return seconds
    return None


def _proto_text(model: Any) -> str:
    """A CP-SAT model's proto as text, its name and hints left out."""
    from ortools.sat.python import cp_model_helper

    proto = cp_model_helper.CpModelProto()
    proto.copy_from(model.proto)
    proto.clear_solution_hint()
    proto.clear_name()
    return str(proto)


def _cpsat_changes(cps: Any, origin: Origin) -> str | None:
    from nqmip.formulation.strengthen import cpsat_model

    built = cpsat_model(origin.instance, origin.strengthen).model
    if _proto_text(built) == _proto_text(cps.model):
        return None
    sizes = [(what, len(getattr(built.proto, what)), len(getattr(cps.model.proto, what)))
             for what in ("variables", "constraints")]
    words = [f"{what} {old} built, {now} now" for what, old, now in sizes if old != now]
    return ", ".join(words) or "its objective or a variable's domain"


def _cpsat_stop(solver: Any, word: str) -> Termination:
    """Why CP-SAT stopped: its proof, else its time limit when it ran to it (it stops early
    only at a limit or on a stop)."""
    if word == "OPTIMAL":
        return Termination.OPTIMAL
    if word == "INFEASIBLE":
        return Termination.INFEASIBLE
    limit = float(solver.parameters.max_time_in_seconds)
    if math.isfinite(limit) and float(solver.wall_time) >= 0.9 * limit:
        return Termination.TIME_LIMIT
    return Termination.UNKNOWN


def read_cpsat(cps: Any, origin: Origin, solver: Any) -> Reading:
    """The reading of a CP-SAT model from the ``CpSolver`` that solved it."""
    if solver is None or not hasattr(type(solver), "response_proto"):
        raise ModelError("a CP-SAT model's solution is in the CpSolver that solved it: "
                         "result_from_model(cp, solver)")
    try:
        response = solver.response_proto
    except RuntimeError:
        raise ModelError("the CpSolver has solved nothing: solver.solve(cp.model) "
                         "first") from None
    word = str(getattr(response.status, "name", response.status))
    if word == "MODEL_INVALID":
        raise ModelError(f"CP-SAT finds the model invalid: {cps.model.validate()}")
    placement = objective = bound = None
    if word in ("OPTIMAL", "FEASIBLE"):
        if len(response.solution) != len(cps.model.proto.variables):
            raise ModelError(f"the CpSolver's solution has {len(response.solution)} values, "
                             f"this model {len(cps.model.proto.variables)} variables: it "
                             "solved another model")
        cells = [key for key, var in cps.x.items() if solver.boolean_value(var)]
        placement = placement_of(cells, dict(cps.fixed), cps.n)
        if cps.model.has_objective():
            objective = _number(solver.objective_value)
            bound = _number(solver_bound(solver, word == "OPTIMAL",
                                              origin.instance.sense))
    return Reading("cpsat", word, _cpsat_stop(solver, word), placement, objective, bound,
                   _cpsat_changes(cps, origin), _number(solver.wall_time))


_HIGHS_STOPS = {"kOptimal": Termination.OPTIMAL, "kInfeasible": Termination.INFEASIBLE,
                "kUnboundedOrInfeasible": Termination.INFEASIBLE,
                "kTimeLimit": Termination.TIME_LIMIT,
                "kIterationLimit": Termination.ITERATION_LIMIT,
                "kSolutionLimit": Termination.ITERATION_LIMIT,
                "kInterrupt": Termination.INTERRUPTED,
                "kHighsInterrupt": Termination.INTERRUPTED}


def _matrix_changes(lm: Any, origin: Origin, highs: Any = None) -> str | None:
    """What differs between the arrays (and the model HiGHS holds) and a fresh build."""
    from nqmip.formulation.matrix import build_linear_model
    from nqmip.formulation.strengthen import linear_extras

    built = build_linear_model(origin.instance, **linear_extras(origin.instance,
                                                                 origin.strengthen))
    arrays = ("cost", "col_lower", "col_upper", "row_lower", "row_upper", "indptr",
              "indices", "values")
    words = [name for name in arrays
             if not np.array_equal(getattr(built, name), getattr(lm, name))]
    if highs is not None:
        import highspy

        lp = highs.getLp()
        rows = lp.num_row_ == built.num_rows and lp.num_col_ == built.num_cols
        held = {"sense": lp.sense_ == highspy.ObjSense.kMaximize,
                "cost": np.array_equal(lp.col_cost_, built.cost),
                "offset": float(lp.offset_) == float(built.offset),
                "col bounds": np.array_equal(lp.col_lower_, built.col_lower)
                and np.array_equal(lp.col_upper_, built.col_upper),
                "rows": rows,
                # a row's bounds, a coefficient or a column made continuous inside HiGHS
                # (changeRowBounds, changeCoeff, changeColIntegrality) was taken at its
                # word: optimal 51 for a model whose optimum is 57
                "row bounds": rows and np.array_equal(lp.row_lower_, built.row_lower)
                and np.array_equal(lp.row_upper_, built.row_upper),
                "coefficients": rows and _same_matrix(lp.a_matrix_, built),
                "integrality": list(lp.integrality_)
                == [highspy.HighsVarType.kInteger] * built.num_cols}
        words += [f"HiGHS's {name}" for name, same in held.items() if not same]
    return ", ".join(words) or None


def _same_matrix(held: Any, built: Any) -> bool:
    """Whether HiGHS's constraint matrix (by columns or by rows) is the built one's (by
    rows), entry for entry."""
    import highspy
    from scipy.sparse import csc_matrix, csr_matrix

    kind = csc_matrix if held.format_ == highspy.MatrixFormat.kColwise else csr_matrix
    shape = (built.num_rows, built.num_cols)
    ours = kind((np.asarray(held.value_, dtype=float), np.asarray(held.index_),
                 np.asarray(held.start_)), shape=shape)
    theirs = csr_matrix((built.values, built.indices, built.indptr), shape=shape)
    return bool((ours != theirs).nnz == 0)


def _matrix_placement(lm: Any, values: Any) -> tuple[int, ...] | None:
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):  # a CpSolver met float()'s words
        raise ModelError(f"the arrays' solution is a solved highspy.Highs or the column "
                         f"values, not {type(values).__name__}") from None
    if array.shape != (lm.num_cols,):
        raise ModelError(f"the solution holds {array.size} values, the model "
                         f"{lm.num_cols} columns")
    binaries = lm.num_binaries if lm.board.num_cells else 0  # the stand-in column held at 0
    chosen = binary_values(array[:binaries], [lm.col_name(k) for k in range(binaries)])
    assert chosen is not None
    cells = [(int(lm.board.cell_row[k]), int(lm.board.cell_col[k]))
             for k in np.flatnonzero(chosen)]
    return placement_of(cells, dict(lm.board.fixed), lm.n)


def read_matrix(lm: Any, origin: Origin, given: Any) -> Reading:
    """The reading of the arrays from a solved ``highspy.Highs`` or the column values."""
    if given is None:
        raise ModelError("the arrays' solution is the solver's: result_from_model(lm, "
                         "highs) or result_from_model(lm, column_values)")
    if not hasattr(given, "getModelStatus"):
        return Reading("column values", "values given", Termination.UNKNOWN,
                       _matrix_placement(lm, given), None, None, _matrix_changes(lm, origin))
    status = given.getModelStatus()
    word = str(getattr(status, "name", status))
    if word in ("kNotset", "kModelEmpty", "kLoadError", "kModelError"):
        raise ModelError(f"HiGHS has not solved the model ({given.modelStatusToString(status)})")
    termination = _HIGHS_STOPS.get(word, Termination.UNKNOWN)
    placement = objective = bound = None
    solution = given.getSolution()
    if termination is not Termination.INFEASIBLE and solution.value_valid:
        placement = _matrix_placement(lm, solution.col_value)
        info = given.getInfo()
        objective = _number(info.objective_function_value)
        bound = _number(info.mip_dual_bound)
    return Reading("highs", word, termination, placement, objective, bound,
                   _matrix_changes(lm, origin, given), _number(given.getRunTime()))
