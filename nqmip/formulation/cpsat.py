"""The same problem as an OR-Tools CP-SAT model.

Booleans ``x[i, j]`` with exactly-one per row and column and at-most-one per diagonal
and anti-diagonal (the ILP, word for word), channelled to one integer ``queen[i]`` per row
(the column of its queen) so that CP-SAT's all-different propagation on ``queen[i]``,
``queen[i] + i`` and ``queen[i] - i`` (OR-Tools' ``nqueens_sat`` model) helps its search.
Built on the free board: fixed queens take no variable (they are constants). Weights may
be fractional: CP-SAT then optimises a floating-point objective.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from nqmip.board import free_board
from nqmip.instance import Instance

if TYPE_CHECKING:  # pragma: no cover
    from ortools.sat.python import cp_model


@dataclass
class CpSatModel:
    """A CP-SAT model with handles on its variables.

    ``model`` is the ``cp_model.CpModel``; ``x[i, j]`` the boolean of square (i, j), for the
    free cells (:func:`~nqmip.board.free_board`); ``queen[i]`` the column of row i's
    queen: an integer variable on a free row, the plain int of a fixed queen's column on a
    fixed row (``solver.value`` reads both); ``fixed`` the fixed queens. Solve it with
    ``cp_model.CpSolver``.
    """

    model: cp_model.CpModel
    x: dict[tuple[int, int], cp_model.IntVar]
    queen: list[cp_model.IntVar | int]
    n: int
    fixed: dict[int, int] = field(default_factory=dict)
    #: What :func:`~nqmip.formulation.build_model` built it from (a
    #: :class:`~nqmip.formulation.reading.Origin`; None when built otherwise).
    origin: Any = None

    def placement(self, solver: cp_model.CpSolver) -> tuple[int, ...]:
        return tuple(int(solver.value(q)) for q in self.queen)

    def add_hint(self, placement: tuple[int, ...]) -> None:
        """Give CP-SAT a complete solution hint (never fixes the variables); squares of
        the hint that are not free are skipped (the hint is then partial)."""
        self.model.clear_hints()
        columns = {j for (_i, j) in self.x}
        for i, col in enumerate(placement):
            if i in self.fixed:
                continue
            if (i, int(col)) in self.x:
                self.model.add_hint(self.queen[i], int(col))
            for j in columns:
                var = self.x.get((i, j))
                if var is not None:
                    self.model.add_hint(var, int(j == col))


def integral_weights(weights: np.ndarray) -> bool:
    from nqmip.instance import whole

    return whole(weights, 1e-12)


def build_cpsat_model(instance: Instance) -> CpSatModel:
    """The model over the free board (:func:`~nqmip.board.free_board`): one boolean per
    free cell, the lines that are left, one integer ``queen[i]`` per free row whose domain
    is that row's free columns; the fixed queens are constants."""
    from ortools.sat.python import cp_model

    n = instance.n
    board = free_board(instance)
    model = cp_model.CpModel()
    model.name = f"nqueens_{n}_{instance.name}"
    cells = list(zip(board.cell_row.tolist(), board.cell_col.tolist(), strict=True))
    flat = [model.new_bool_var(f"x_{i}_{j}") for i, j in cells]
    x = dict(zip(cells, flat, strict=True))
    queen: list[Any] = [None] * n
    for row, col in board.fixed:
        queen[row] = col  # a constant: no variable in the model
    for name, members, lower, _upper in board.lines():
        terms = [flat[int(k)] for k in members]
        if lower == 1.0:
            model.add_exactly_one(terms)
        else:
            model.add_at_most_one(terms)
        if name.startswith("row_"):
            i = int(name[4:])
            columns = [cells[int(k)][1] for k in members]
            queen[i] = model.new_int_var_from_domain(
                cp_model.Domain.from_values(columns or [0]), f"queen_{i}")
            if columns:
                model.add(queen[i] == sum(j * v for j, v in zip(columns, terms, strict=True)))
    free = [queen[int(i)] for i in board.rows.tolist()]
    rows = board.rows.tolist()
    if len(free) > 1:
        model.add_all_different(free)
        model.add_all_different(q + i for q, i in zip(free, rows, strict=True))
        model.add_all_different(q - i for q, i in zip(free, rows, strict=True))

    weights = board.weights
    optimise = model.minimize if instance.sense == "min" else model.maximize
    if integral_weights(weights) and integral_weights(np.array([board.fixed_value])):
        coefs = np.round(weights).astype(np.int64).tolist()
        optimise(sum(c * v for c, v in zip(coefs, flat, strict=True) if c)
                 + round(board.fixed_value))
    else:
        # every queen fixed: a float objective with no variable is refused by the
        # CP-SAT API ("'float' is not a valid objective"); a variable fixed at 0 carries it
        terms = flat or [model.new_constant(0)]
        optimise(sum(float(w) * v for w, v in zip(weights.tolist() or [1.0], terms,
                                                  strict=True)) + board.fixed_value)
    return CpSatModel(model=model, x=x, queen=queen, n=n, fixed=dict(board.fixed))


def exact_gaps(params: Any, mip_gap: float = 0.0) -> None:
    """CP-SAT's gap limits for a proof: ``mip_gap`` relative, no absolute gap. CP-SAT's
    default absolute gap (1e-4) ends the search of a floating objective 'OPTIMAL' short of
    the optimum (measured, 6 x 6 chess weights plus noise of 1e-6 to 1e-3, 192 boards: up to
    1.3e-5 below it, its bound 4.9e-5 off; with no absolute gap, 2.2e-7 and 7.7e-7, its
    scaling's precision)."""
    params.relative_gap_limit = float(mip_gap)
    params.absolute_gap_limit = 0.0


def solver_bound(solver: Any, optimal: bool, sense: str) -> float:
    """CP-SAT's bound on the objective (of the model's ``sense``): at a proof, within its
    gap limits of the objective (the objective itself when both are 0), else
    ``best_objective_bound``, which for a floating objective need not meet a proven
    optimum (measured: 0.509 over an optimum of -0.401, a 4 x 4 board with a fixed queen
    that its presolve solved)."""
    bound = float(solver.best_objective_bound)
    if not optimal:
        return bound
    objective = float(solver.objective_value)
    params = solver.parameters
    slack = float(params.absolute_gap_limit) + float(params.relative_gap_limit) * abs(objective)
    return max(bound, objective - slack) if sense == "min" else min(bound, objective + slack)


def cp_solver() -> Any:
    """A CP-SAT solver that leaves Ctrl-C to Python off the main thread. CP-SAT installs its
    own SIGINT handler by default; installed from a worker thread (the command line solves
    in one, auto runs proofs beside searches) a Ctrl-C racing its removal aborted the
    process ("std::bad_function_call"). There the caller's Deadline stops the search."""
    import threading

    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.catch_sigint_signal = (threading.current_thread()
                                            is threading.main_thread())
    return solver
