"""The problem instance: board size, weights and pre-placed (fixed) queens.

Everything else in the package takes an :class:`Instance`; the public functions also accept
the loose ``n, weights, fixed`` arguments and build one with :func:`make_instance`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

WeightsSpec = None | str | np.ndarray | Iterable[Iterable[float]]
FixedSpec = None | Mapping[int, int] | Iterable[tuple[int, int]]

#: Default values of the "chess" preset: black squares ((i + j) even) and white squares.
CHESS_BLACK = 2.0
CHESS_WHITE = 1.0


class InstanceError(ValueError):
    """An instance that cannot be built: bad n, weights or fixed queens."""


@dataclass(frozen=True, eq=False)
class Instance:
    """An N-Queens instance.

    ``weights`` is ``None`` for the feasibility problem (maximise the number of queens,
    whose optimum is ``n`` when a solution exists) or a read-only float ``n x n`` matrix.
    ``fixed`` holds the pre-placed queens as sorted ``(row, col)`` pairs, 0-based.
    """

    n: int
    weights: np.ndarray | None = None
    fixed: tuple[tuple[int, int], ...] = ()
    name: str = field(default="custom")

    @property
    def is_feasibility(self) -> bool:
        return self.weights is None

    @property
    def fixed_map(self) -> dict[int, int]:
        return dict(self.fixed)

    def weight_matrix(self) -> np.ndarray:
        """The objective coefficients: the weights, or all ones for feasibility."""
        if self.weights is None:
            return np.ones((self.n, self.n))
        return self.weights

    def objective(self, placement: Iterable[int]) -> float:
        """Objective value of a placement (column of the queen in each row)."""
        cols = np.asarray(placement if isinstance(placement, np.ndarray) else list(placement),
                          dtype=np.int64)
        if self.weights is None:
            return float(len(cols))
        return float(self.weights[np.arange(len(cols)), cols].sum())

    def describe(self) -> str:
        fixed = f", {len(self.fixed)} fixed" if self.fixed else ""
        return f"n={self.n}, weights={self.name}{fixed}"


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise InstanceError(f"n must be an integer, got {n!r}")
    if n < 1:
        raise InstanceError(f"n must be at least 1, got {n}")
    return int(n)


def chess_weights(n: int, black: float = CHESS_BLACK, white: float = CHESS_WHITE) -> np.ndarray:
    """Black squares ((i + j) even, 0- or 1-based alike) worth ``black``, white ``white``."""
    i, j = np.indices((n, n))
    return np.where((i + j) % 2 == 0, float(black), float(white))


def random_weights(n: int, seed: int | None = None, low: int = 1, high: int = 9) -> np.ndarray:
    """Integer weights drawn uniformly from ``low..high`` with an explicit seed."""
    rng = np.random.default_rng(seed)
    return rng.integers(low, high + 1, size=(n, n)).astype(float)


def _check_weights(
    n: int, weights: WeightsSpec, black: float, white: float, seed: int | None
) -> tuple[np.ndarray | None, str]:
    if weights is None:
        return None, "none"
    if isinstance(weights, str):
        key = weights.lower()
        if key in ("none", "feasibility"):
            return None, "none"
        if key == "chess":
            for label, value in (("black", black), ("white", white)):
                if not np.isfinite(value):
                    raise InstanceError(f"the {label} square value must be finite, got {value}")
            return chess_weights(n, black, white), "chess"
        if key == "random":
            return random_weights(n, seed), f"random(seed={seed})"
        raise InstanceError(
            f"unknown weights preset {weights!r}: use None, 'chess', 'random' or an n x n array"
        )
    try:
        matrix = np.array(weights, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InstanceError(f"weights must be an n x n array of numbers: {exc}") from None
    if matrix.shape != (n, n):
        raise InstanceError(f"weights must have shape ({n}, {n}), got {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise InstanceError("weights must be finite numbers (found NaN or infinity)")
    return matrix, "custom"


def _check_fixed(n: int, fixed: FixedSpec) -> tuple[tuple[int, int], ...]:
    if fixed is None:
        return ()
    pairs = fixed.items() if isinstance(fixed, Mapping) else fixed
    seen_rows: dict[int, int] = {}
    for pair in pairs:
        try:
            row, col = pair
        except (TypeError, ValueError):
            raise InstanceError(f"a fixed queen must be a (row, col) pair, got {pair!r}") from None
        for label, v in (("row", row), ("column", col)):
            if isinstance(v, bool) or not isinstance(v, int | np.integer):
                raise InstanceError(f"fixed queen {label} must be an integer, got {v!r}")
            if not 0 <= v < n:
                raise InstanceError(
                    f"fixed queen ({row}, {col}) is off the {n} x {n} board (0-based)"
                )
        if row in seen_rows and seen_rows[row] != col:
            raise InstanceError(f"row {row} is given two fixed queens")
        seen_rows[int(row)] = int(col)
    return tuple(sorted(seen_rows.items()))


def make_instance(
    n: int | Instance,
    weights: WeightsSpec = None,
    fixed: FixedSpec = None,
    *,
    black: float = CHESS_BLACK,
    white: float = CHESS_WHITE,
    weights_seed: int | None = None,
) -> Instance:
    """Validate the loose arguments and build an :class:`Instance`.

    Fixed queens that attack each other are *not* an error here: such an instance is
    valid input whose answer is "infeasible".
    """
    if isinstance(n, Instance):
        return n
    n = _check_n(n)
    matrix, name = _check_weights(n, weights, black, white, weights_seed)
    if matrix is not None:
        matrix = matrix.copy()
        matrix.setflags(write=False)
    return Instance(n=n, weights=matrix, fixed=_check_fixed(n, fixed), name=name)
