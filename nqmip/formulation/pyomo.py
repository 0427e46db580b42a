"""The binary ILP as a Pyomo ``ConcreteModel``, for notebooks and for Pyomo's solvers.

Components (all 0-based): ``I``, ``J`` (rows, columns), ``D`` (diagonal keys d = i - j),
``S`` (anti-diagonal keys s = i + j), ``w[i, j]`` (weights, a mutable Param), ``x[i, j]``
(binary), constraint blocks ``rows``, ``cols``, ``diagonals``, ``anti_diagonals`` and the
objective ``value``. Fixed queens are fixed variables (``x[r, c].fix(1)``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nqmip.instance import Instance

if TYPE_CHECKING:  # pragma: no cover
    import pyomo.environ as pyo


def build_pyomo_model(instance: Instance) -> pyo.ConcreteModel:
    """The ConcreteModel of ``instance``.

    Built for speed at large n (docs/benchmarks-exact.md): the weights come from a rule over
    a nested list (a dict initializer re-validates each of the n^2 keys), and every
    constraint and the objective is one ``LinearExpression`` over a precomputed list of the
    variables instead of a generator of ``x[i, j]`` look-ups. The model is the same, term for
    term (the LP and MPS files written from it are byte-identical to the earlier build's).
    """
    import pyomo.environ as pyo
    from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression

    n = instance.n
    weights = instance.weight_matrix().tolist()
    m = pyo.ConcreteModel(name=f"nqueens_{n}_{instance.name}")
    m.I = pyo.RangeSet(0, n - 1, doc="rows")
    m.J = pyo.RangeSet(0, n - 1, doc="columns")
    m.D = pyo.RangeSet(-(n - 1), n - 1, doc="diagonals d = i - j")
    m.S = pyo.RangeSet(0, 2 * (n - 1), doc="anti-diagonals s = i + j")
    m.w = pyo.Param(
        m.I,
        m.J,
        initialize=lambda _m, i, j: float(weights[i][j]),
        mutable=True,
        doc="square weights",
    )
    m.x = pyo.Var(m.I, m.J, within=pyo.Binary, doc="1 if a queen stands on (i, j)")
    # x[i, j] in row-major order: grid[i][j]; the index set is ordered, so values() is too.
    flat = list(m.x.values())
    grid = [flat[i * n : (i + 1) * n] for i in range(n)]

    def row_rule(m: pyo.ConcreteModel, i: int) -> pyo.Expression:
        return LinearExpression(grid[i]) == 1

    def col_rule(m: pyo.ConcreteModel, j: int) -> pyo.Expression:
        return LinearExpression([grid[i][j] for i in range(n)]) == 1

    def diagonal_rule(m: pyo.ConcreteModel, d: int) -> pyo.Expression:
        return LinearExpression([grid[i][i - d] for i in range(max(0, d), min(n, n + d))]) <= 1

    def anti_diagonal_rule(m: pyo.ConcreteModel, s: int) -> pyo.Expression:
        terms = [grid[i][s - i] for i in range(max(0, s - n + 1), min(n, s + 1))]
        return LinearExpression(terms) <= 1

    m.rows = pyo.Constraint(m.I, rule=row_rule, doc="one queen per row")
    m.cols = pyo.Constraint(m.J, rule=col_rule, doc="one queen per column")
    m.diagonals = pyo.Constraint(m.D, rule=diagonal_rule, doc="at most one per diagonal")
    m.anti_diagonals = pyo.Constraint(
        m.S, rule=anti_diagonal_rule, doc="at most one per anti-diagonal"
    )
    m.value = pyo.Objective(
        expr=LinearExpression(
            [MonomialTermExpression((w, x)) for w, x in zip(m.w.values(), flat, strict=True)]
        ),
        sense=pyo.maximize,
    )
    for row, col in instance.fixed:
        m.x[row, col].fix(1)
    return m


def placement_from_pyomo(model: pyo.ConcreteModel) -> tuple[int, ...]:
    """Read the placement (column per row) from a solved model; raises if not one per row."""
    n = len(model.I)
    cols: list[int] = []
    for i in range(n):
        row = [j for j in range(n) if (model.x[i, j].value or 0.0) > 0.5]
        if len(row) != 1:
            raise ValueError(f"row {i} holds {len(row)} queens in the solver's solution")
        cols.append(row[0])
    return tuple(cols)
