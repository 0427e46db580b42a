"""The independent checker.

Nothing here shares code with the formulations or the heuristics: a placement is checked
from first principles (counting queens per column and per diagonal with ``np.bincount``),
in O(n) time and memory, so it serves for millions of queens too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np


class VerificationError(RuntimeError):
    """A method produced a placement or objective that does not check out: a bug."""


def _as_columns(placement: Iterable[int]) -> np.ndarray:
    cols = np.asarray(placement if isinstance(placement, np.ndarray) else list(placement))
    if cols.ndim != 1:
        raise ValueError("a placement is a 1-D sequence: the column of the queen in each row")
    if cols.size and not np.issubdtype(cols.dtype, np.integer):
        raise ValueError("a placement holds integer column indices")
    return cols.astype(np.int64, copy=False)


def _pairs(counts: np.ndarray) -> int:
    counts = counts.astype(np.int64, copy=False)
    return int((counts * (counts - 1) // 2).sum())


def conflicts(placement: Iterable[int]) -> int:
    """Number of attacking pairs among the queens (row i holds a queen at column p[i]).

    Counts pairs that share a column, a diagonal (i - j constant) or an anti-diagonal
    (i + j constant). Columns outside ``0..n-1`` raise ``ValueError``.
    """
    cols = _as_columns(placement)
    n = cols.size
    if n == 0:
        return 0
    if cols.min() < 0 or cols.max() >= n:
        raise ValueError(f"a column is off the {n} x {n} board")
    rows = np.arange(n, dtype=np.int64)
    return (
        _pairs(np.bincount(cols, minlength=n))
        + _pairs(np.bincount(rows - cols + n - 1, minlength=2 * n - 1))
        + _pairs(np.bincount(rows + cols, minlength=2 * n - 1))
    )


def is_solution(
    placement: Iterable[int], fixed: Mapping[int, int] | Iterable[tuple[int, int]] | None = None
) -> bool:
    """True when the placement puts n non-attacking queens and keeps every fixed queen."""
    try:
        cols = _as_columns(placement)
        if conflicts(cols) != 0:
            return False
    except ValueError:
        return False
    if fixed:
        pairs = fixed.items() if isinstance(fixed, Mapping) else fixed
        for row, col in pairs:
            if not 0 <= row < cols.size or cols[row] != col:
                return False
    return True


def objective_of(placement: Sequence[int], weights: np.ndarray | None) -> float:
    """Objective recomputed from the weights (the number of queens when there are none)."""
    cols = _as_columns(placement)
    if weights is None:
        return float(cols.size)
    w = np.asarray(weights, dtype=float)
    return float(w[np.arange(cols.size), cols].sum())


def check_placement(
    placement: Sequence[int],
    n: int,
    weights: np.ndarray | None,
    fixed: Mapping[int, int] | Iterable[tuple[int, int]] | None,
    claimed_objective: float | None,
    *,
    source: str,
    tol: float = 1e-6,
) -> float:
    """Raise :class:`VerificationError` unless the placement solves the instance.

    Returns the recomputed objective; when ``claimed_objective`` is given it must agree
    within ``tol`` (relative to the magnitude for large objectives).
    """
    cols = _as_columns(placement)
    if cols.size != n:
        raise VerificationError(f"{source}: placement has {cols.size} queens, expected {n}")
    if cols.min() < 0 or cols.max() >= n:
        raise VerificationError(f"{source}: a queen is off the {n} x {n} board")
    clashes = conflicts(cols)
    if clashes:
        raise VerificationError(f"{source}: placement has {clashes} attacking pairs")
    if fixed:
        pairs = fixed.items() if isinstance(fixed, Mapping) else fixed
        moved = [(r, c) for r, c in pairs if cols[r] != c]
        if moved:
            raise VerificationError(f"{source}: fixed queens not kept: {moved}")
    value = objective_of(cols, weights)
    if claimed_objective is not None:
        scale = max(1.0, abs(value))
        if abs(value - claimed_objective) > tol * scale:
            raise VerificationError(
                f"{source}: solver reports objective {claimed_objective}, the placement is "
                f"worth {value}"
            )
    return value
