"""The weighted N-Queens problem as a Pyomo AbstractModel, usable without the nqmip package.

Same formulation and component names as ``nqmip.build_model`` (0-based indices):

- ``n``: board size; ``I``, ``J``: rows and columns 0..n-1;
- ``D``: diagonals d = i - j in -(n-1)..n-1; ``S``: anti-diagonals s = i + j in 0..2n-2;
- ``w[i, j]``: the weight of square (i, j) (default 1: the feasibility problem);
- ``x[i, j]``: binary, 1 if a queen stands on (i, j);
- ``rows``, ``cols``: exactly one queen per row and per column;
- ``diagonals``, ``anti_diagonals``: at most one queen per diagonal and anti-diagonal;
- ``value``: maximise the total weight of the occupied squares.

Solve the reference weighted 8-queens instance (see models/README.md)::

    pyomo solve models/nqueens_abstract.py models/weighted8.dat --solver=glpk
"""

from __future__ import annotations

import pyomo.environ as pyo

model = pyo.AbstractModel(name="nqueens")

model.n = pyo.Param(within=pyo.PositiveIntegers, doc="board size")
model.I = pyo.Set(initialize=lambda m: range(pyo.value(m.n)), doc="rows")
model.J = pyo.Set(initialize=lambda m: range(pyo.value(m.n)), doc="columns")
model.D = pyo.Set(
    initialize=lambda m: range(1 - pyo.value(m.n), pyo.value(m.n)), doc="diagonals d = i - j"
)
model.S = pyo.Set(
    initialize=lambda m: range(2 * pyo.value(m.n) - 1), doc="anti-diagonals s = i + j"
)
model.w = pyo.Param(model.I, model.J, default=1.0, mutable=True, doc="square weights")
model.x = pyo.Var(model.I, model.J, within=pyo.Binary, doc="1 if a queen stands on (i, j)")


def row_rule(m: pyo.Model, i: int) -> object:
    return sum(m.x[i, j] for j in m.J) == 1


def col_rule(m: pyo.Model, j: int) -> object:
    return sum(m.x[i, j] for i in m.I) == 1


def diagonal_rule(m: pyo.Model, d: int) -> object:
    n = pyo.value(m.n)
    return sum(m.x[i, i - d] for i in range(max(0, d), min(n, n + d))) <= 1


def anti_diagonal_rule(m: pyo.Model, s: int) -> object:
    n = pyo.value(m.n)
    return sum(m.x[i, s - i] for i in range(max(0, s - n + 1), min(n, s + 1))) <= 1


def value_rule(m: pyo.Model) -> object:
    return sum(m.w[i, j] * m.x[i, j] for i in m.I for j in m.J)


model.rows = pyo.Constraint(model.I, rule=row_rule, doc="one queen per row")
model.cols = pyo.Constraint(model.J, rule=col_rule, doc="one queen per column")
model.diagonals = pyo.Constraint(model.D, rule=diagonal_rule, doc="at most one per diagonal")
model.anti_diagonals = pyo.Constraint(
    model.S, rule=anti_diagonal_rule, doc="at most one per anti-diagonal"
)
model.value = pyo.Objective(rule=value_rule, sense=pyo.maximize, doc="total weight")


def pyomo_postprocess(
    options: object = None, instance: pyo.Model = None, results: object = None
) -> None:
    """Called by ``pyomo solve`` after the solve: print the objective and the board."""
    n = pyo.value(instance.n)
    board = [
        "".join("Q" if (instance.x[i, j].value or 0) > 0.5 else "." for j in range(n))
        for i in range(n)
    ]
    print("\n".join(board))
    print(f"value = {pyo.value(instance.value):g}")
