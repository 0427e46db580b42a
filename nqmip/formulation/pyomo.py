"""The binary ILP as a Pyomo ``ConcreteModel``, for notebooks and for Pyomo's solvers.

Components (all 0-based): ``I``, ``J`` (rows, columns), ``D`` (diagonal keys d = i - j),
``S`` (anti-diagonal keys s = i + j), ``w[i, j]`` (weights, a mutable Param), ``x[i, j]``
(binary), constraint blocks ``rows``, ``cols``, ``diagonals``, ``anti_diagonals`` and the
objective ``value``. Fixed queens take no variable: the model is over the free board
(:class:`~nqmip.board.FreeBoard`); they come back in :func:`placement_from_pyomo`. When
they leave a row or column without a free cell (no completion) or fix every queen, a
variable ``no_cell`` held at 0 stands for the missing cells in those rows and in the
objective, so that every solver reads the model (infeasible, or optimal at their value).

:func:`appsi_highs` is Pyomo's HiGHS interface without its process-wide capture of the
output (the two backends that solve through it: ``highs-pyomo`` exact and lexicographic).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from nqmip.board import free_board
from nqmip.instance import Instance

if TYPE_CHECKING:  # pragma: no cover
    import pyomo.environ as pyo

#: LP/MPS row names of the constraint blocks: ``row_3``, ``diag_m2`` (d = -2), ...
_ROW_PREFIX = {"rows": "row", "cols": "col", "diagonals": "diag", "anti_diagonals": "anti"}
_MODEL_CLASS: Any = None
_HIGHS_CLASS: Any = None
#: Whether this thread runs an :func:`appsi_highs` solver (Pyomo's capture is off in it).
_IN_PLACE = threading.local()
#: HiGHS's options that keep its log off the console and feed its log callback.
_QUIET = {"log_to_console": False, "log_file": os.devnull}


def readable_label(component: Any) -> str:
    """The LP/MPS name of a component of the model: ``x_i_j``, ``row_i``, ``diag_m3``,
    ``anti_5``, ``value`` (Pyomo's own are ``x1``, ``c_e_x66_``)."""
    parent = component.parent_component().local_name
    if parent == "x":
        i, j = component.index()
        return f"x_{i}_{j}"
    if parent in _ROW_PREFIX:
        index = int(component.index())
        return f"{_ROW_PREFIX[parent]}_{'m' if index < 0 else ''}{abs(index)}"
    return str(component.local_name)


def model_class() -> Any:
    """``NQueensModel``: a Pyomo ``ConcreteModel`` whose files have readable names and
    whose ``repr`` says what it holds (made once, when Pyomo is first needed)."""
    global _MODEL_CLASS
    if _MODEL_CLASS is not None:
        return _MODEL_CLASS
    import pyomo.environ as pyo

    class NQueensModel(pyo.ConcreteModel):
        """The N-Queens ILP; ``m.write("m.lp")`` names the variables ``x_i_j`` and the
        rows ``row_i``, ``col_j``, ``diag_d``, ``anti_s`` (``m`` for a minus sign)."""

        def write(self, filename: Any = None, format: Any = None,
                  solver_capability: Any = None, io_options: Any = None,
                  **kwargs: Any) -> Any:
            options = {"labeler": readable_label, **(io_options or {})}
            return super().write(filename, format, solver_capability, io_options=options,
                                 **kwargs)

        def __repr__(self) -> str:
            cells = len(self.x)
            rows = sum(len(block) for block in (self.rows, self.cols, self.diagonals,
                                                 self.anti_diagonals))
            return (f"<NQueensModel {self.name}: {cells} binaries x[i, j], {rows} "
                    "constraints in rows, cols, diagonals, anti_diagonals; objective value "
                    f"({'minimise' if self.value.sense == pyo.minimize else 'maximise'}); "
                    "m.pprint() shows it all>")

    _MODEL_CLASS = NQueensModel
    return NQueensModel


def build_pyomo_model(instance: Instance) -> pyo.ConcreteModel:
    """The ConcreteModel of ``instance``, over its free board (:func:`free_board`).

    Built for speed at large n (docs/benchmarks-exact.md): the weights come from a rule over
    a list (a dict initializer re-validates each key), and every constraint and the
    objective is one ``LinearExpression`` over a precomputed list of the variables instead
    of a generator of ``x[i, j]`` look-ups. Without fixed queens the model is the textbook
    one, term for term (``I``, ``J`` all rows and columns, ``x`` every square). With fixed
    queens, ``I``/``J`` are the free rows and columns, ``x[i, j]`` exists for the free
    cells only, ``D``/``S`` hold the diagonals still holding two free cells, the objective
    carries the fixed queens' weight as a constant, and ``model.fixed_queens`` keeps them
    for :func:`placement_from_pyomo`.
    """
    import pyomo.environ as pyo
    from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression

    n = instance.n
    board = free_board(instance)
    weights = board.weights.tolist()
    cells = list(zip(board.cell_row.tolist(), board.cell_col.tolist(), strict=True))
    m = model_class()(name=f"nqueens_{n}_{instance.name}")
    lines = board.lines()
    groups: dict[str, list[tuple[int, np.ndarray]]] = {"row": [], "col": [], "diag": [],
                                                        "anti": []}
    for name, cells_of_line, _lo, _up in lines:
        family, key = name.rsplit("_", 1)
        groups[family].append((int(key), cells_of_line))
    if board.reduced:
        m.I = pyo.Set(initialize=board.rows.tolist(), ordered=True, doc="free rows")
        m.J = pyo.Set(initialize=board.cols.tolist(), ordered=True, doc="free columns")
        m.D = pyo.Set(initialize=[k for k, _ in groups["diag"]], ordered=True,
                      doc="diagonals d = i - j with two free cells")
        m.S = pyo.Set(initialize=[k for k, _ in groups["anti"]], ordered=True,
                      doc="anti-diagonals s = i + j with two free cells")
        m.C = pyo.Set(initialize=cells, dimen=2, ordered=True, doc="free cells")
        m.w = pyo.Param(m.C, initialize=dict(zip(cells, weights, strict=True)),
                        mutable=True, doc="square weights")
        m.x = pyo.Var(m.C, within=pyo.Binary, doc="1 if a queen stands on (i, j)")
    else:
        m.I = pyo.RangeSet(0, n - 1, doc="rows")
        m.J = pyo.RangeSet(0, n - 1, doc="columns")
        m.D = pyo.RangeSet(-(n - 1), n - 1, doc="diagonals d = i - j")
        m.S = pyo.RangeSet(0, 2 * (n - 1), doc="anti-diagonals s = i + j")
        m.w = pyo.Param(
            m.I,
            m.J,
            initialize=lambda _m, i, j: float(weights[i * n + j]),
            mutable=True,
            doc="square weights",
        )
        m.x = pyo.Var(m.I, m.J, within=pyo.Binary, doc="1 if a queen stands on (i, j)")
    m.fixed_queens = dict(board.fixed)
    # x in cell order (row-major), as the index sets are ordered.
    flat = list(m.x.values())
    members = {family: dict(items) for family, items in groups.items()}
    empty = not flat or any(len(cells_of) == 0 for family in ("row", "col")
                            for _key, cells_of in groups[family])
    if empty:  # every queen fixed, or a line left without a free cell (no completion)
        # Pyomo's Constraint.Infeasible crashed scip_direct ("unrecognized expression
        # type"), and a model of no variable was "unknown" to appsi_highs and highs: a
        # variable held at 0 stands in for the missing cells (0 == 1: infeasible)
        m.no_cell = pyo.Var(bounds=(0, 0), doc="0: the cells of a line (or objective) "
                            "left with none free")

    def rule(family: str, equal: bool) -> Any:
        def build(_m: pyo.ConcreteModel, key: int) -> Any:
            terms = [flat[int(k)] for k in members[family][key]] or [m.no_cell]
            return LinearExpression(terms) == 1 if equal else LinearExpression(terms) <= 1
        return build

    m.rows = pyo.Constraint(m.I, rule=rule("row", True), doc="one queen per row")
    m.cols = pyo.Constraint(m.J, rule=rule("col", True), doc="one queen per column")
    m.diagonals = pyo.Constraint(m.D, rule=rule("diag", False), doc="at most one per diagonal")
    m.anti_diagonals = pyo.Constraint(
        m.S, rule=rule("anti", False), doc="at most one per anti-diagonal"
    )
    terms = LinearExpression(
        [MonomialTermExpression((w, x)) for w, x in zip(m.w.values(), flat, strict=True)]
        or [MonomialTermExpression((1, m.no_cell))]
    )
    m.value = pyo.Objective(
        expr=terms + board.fixed_value if board.reduced else terms,
        sense=pyo.minimize if instance.sense == "min" else pyo.maximize,
    )
    return m


def placement_from_pyomo(model: pyo.ConcreteModel) -> tuple[int, ...]:
    """Read the placement (column per row, fixed queens included) from a solved model;
    raises ValueError (:class:`~nqmip.formulation.placement.ModelError`) unless every row
    holds exactly one queen."""
    from nqmip.formulation.placement import placement_of

    fixed: dict[int, int] = getattr(model, "fixed_queens", {})
    chosen = [(i, j) for (i, j), var in model.x.items() if (var.value or 0.0) > 0.5]
    return placement_of(chosen, fixed, len(model.I) + len(fixed))


def appsi_highs() -> Any:
    """Pyomo's ``appsi_highs`` solver whose calls leave the process's output alone.

    Pyomo's interface builds and solves inside ``capture_output(capture_fd=True)``: for
    the whole process it swaps ``sys.stdout`` and ``sys.stderr`` and points descriptors 1
    and 2 at its own pipe, and gives them back when the call returns. A call the watchdog
    gave up on (at its time limit, while Pyomo still built the model or HiGHS ran) took
    the caller's output with it: what the caller printed after it went into Pyomo's pipe
    and was lost, and the call's late return put back the streams of its start (four
    abandoned ``highs-pyomo`` calls in one process: one or two of five lines printed came
    out). Here the capture is off in the thread that runs this solver (the other threads'
    Pyomo solvers keep theirs), and HiGHS writes its log to no console (``log_to_console``
    off; its log file ``os.devnull``, which keeps the log callback ``cbLogging`` fed):
    nothing of the solver reaches standard output or error, unless the caller streams
    the log (the backends' ``SolverLog``)."""
    global _HIGHS_CLASS
    if _HIGHS_CLASS is None:
        _HIGHS_CLASS = _in_place_highs_class()
    solver = _HIGHS_CLASS()
    solver.highs_options.update(_QUIET)  # over Pyomo's log_to_console=True at each solve
    return solver


def _in_place_highs_class() -> Any:
    """The subclass of Pyomo's ``Highs`` whose calls run with the capture off (once: its
    module's ``capture_output`` is replaced by one that is off in those threads)."""
    from pyomo.contrib.appsi.solvers import highs

    capture = getattr(highs, "capture_output", None)
    if capture is not None and not getattr(capture, "nqmip_gate", False):
        highs.capture_output = _gated(capture)
    # a cancel (cancelSolve: Ctrl-C, a target, another part's proof) ends HiGHS with
    # kInterrupt, which Pyomo's interface knows no word for: it warned on stderr
    highs.logger.addFilter(lambda record: "kInterrupt" not in record.getMessage())

    class InPlaceHighs(highs.Highs):
        @property
        def _solver_model(self) -> Any:
            return self.__dict__.get("_quiet_model")

        @_solver_model.setter
        def _solver_model(self, model: Any) -> None:
            # quiet from its birth: set_instance's model building prints HiGHS's banner
            for option, value in _QUIET.items():
                if model is not None:
                    model.setOptionValue(option, value)
            self.__dict__["_quiet_model"] = model

        def set_instance(self, model: Any) -> Any:
            return _in_place(lambda: super(InPlaceHighs, self).set_instance(model))

        def solve(self, model: Any, timer: Any = None) -> Any:
            return _in_place(lambda: super(InPlaceHighs, self).solve(model, timer))

    return InPlaceHighs


def _in_place(call: Callable[[], Any]) -> Any:
    """``call()`` with Pyomo's capture off in this thread."""
    before = getattr(_IN_PLACE, "on", False)
    _IN_PLACE.on = True
    try:
        return call()
    finally:
        _IN_PLACE.on = before


def _gated(capture: Any) -> Any:
    """Pyomo's ``capture_output``, a context that does nothing in an :func:`appsi_highs`
    thread."""
    import contextlib

    def capture_output(*args: Any, **kwargs: Any) -> Any:
        if getattr(_IN_PLACE, "on", False):
            return contextlib.nullcontext()
        return capture(*args, **kwargs)

    capture_output.nqmip_gate = True  # type: ignore[attr-defined]
    return capture_output
