"""The same problem as an OR-Tools CP-SAT model.

Booleans ``x[i, j]`` with exactly-one per row and column and at-most-one per diagonal
and anti-diagonal (the ILP, word for word), channelled to one integer ``queen[i]`` per row
(the column of its queen) so that CP-SAT's all-different propagation on ``queen[i]``,
``queen[i] + i`` and ``queen[i] - i`` (OR-Tools' ``nqueens_sat`` model) helps its search.
Fixed queens are fixed booleans. Weights may be fractional: CP-SAT then optimises a
floating-point objective.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from nqmip.instance import Instance

if TYPE_CHECKING:  # pragma: no cover
    from ortools.sat.python import cp_model


@dataclass
class CpSatModel:
    """A CP-SAT model with handles on its variables.

    ``model`` is the ``cp_model.CpModel``; ``x[i, j]`` the boolean of square (i, j);
    ``queen[i]`` the column of row i's queen. Solve it with ``cp_model.CpSolver``.
    """

    model: cp_model.CpModel
    x: dict[tuple[int, int], cp_model.IntVar]
    queen: list[cp_model.IntVar]
    n: int

    def placement(self, solver: cp_model.CpSolver) -> tuple[int, ...]:
        return tuple(int(solver.value(q)) for q in self.queen)

    def add_hint(self, placement: tuple[int, ...]) -> None:
        """Give CP-SAT a complete solution hint (never fixes the variables)."""
        self.model.clear_hints()
        for i, col in enumerate(placement):
            self.model.add_hint(self.queen[i], int(col))
            for j in range(self.n):
                self.model.add_hint(self.x[i, j], int(j == col))


def integral_weights(weights: np.ndarray) -> bool:
    return bool(np.all(np.abs(weights - np.round(weights)) < 1e-12))


def build_cpsat_model(instance: Instance) -> CpSatModel:
    from ortools.sat.python import cp_model

    n = instance.n
    model = cp_model.CpModel()
    model.name = f"nqueens_{n}_{instance.name}"
    x = {(i, j): model.new_bool_var(f"x_{i}_{j}") for i in range(n) for j in range(n)}
    queen = [model.new_int_var(0, n - 1, f"queen_{i}") for i in range(n)]
    for i in range(n):
        model.add_exactly_one(x[i, j] for j in range(n))
        model.add(queen[i] == sum(j * x[i, j] for j in range(1, n)))
    for j in range(n):
        model.add_exactly_one(x[i, j] for i in range(n))
    for d in range(-(n - 1), n):
        model.add_at_most_one(x[i, i - d] for i in range(max(0, d), min(n, n + d)))
    for s in range(2 * n - 1):
        model.add_at_most_one(x[i, s - i] for i in range(max(0, s - n + 1), min(n, s + 1)))
    model.add_all_different(queen)
    model.add_all_different(queen[i] + i for i in range(n))
    model.add_all_different(queen[i] - i for i in range(n))
    for row, col in instance.fixed:
        model.add(x[row, col] == 1)

    weights = instance.weight_matrix()
    if integral_weights(weights):
        coefs = np.round(weights).astype(np.int64)
        model.maximize(
            sum(int(coefs[i, j]) * x[i, j] for i in range(n) for j in range(n) if coefs[i, j])
        )
    else:
        model.maximize(
            sum(float(weights[i, j]) * x[i, j] for i in range(n) for j in range(n))
        )
    return CpSatModel(model=model, x=x, queen=queen, n=n)
