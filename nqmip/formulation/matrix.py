"""The binary ILP as arrays: the common form behind the direct HiGHS and Gurobi backends.

Variable ``k = i * n + j`` is ``x[i, j]`` (a queen on row i, column j, 0-based). Rows, in
order: n row equalities, n column equalities, 2n-1 diagonal (i - j = d) and 2n-1
anti-diagonal (i + j = s) inequalities, then any strengthening rows. The matrix is kept
row-wise (CSR) in plain numpy arrays, so no scipy is needed to build it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from nqmip.instance import Instance


@dataclass(frozen=True)
class LinearModel:
    """``max c.x  s.t.  row_lower <= A x <= row_upper,  col_lower <= x <= col_upper``."""

    n: int
    cost: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    row_names: list[str] = field(default_factory=list)
    # Extra integer columns (beyond the n*n binaries), e.g. for strengthening.
    num_extra_cols: int = 0

    @property
    def num_cols(self) -> int:
        return self.cost.size

    @property
    def num_rows(self) -> int:
        return self.row_lower.size

    @property
    def num_nonzeros(self) -> int:
        return self.values.size

    def col_name(self, k: int) -> str:
        if k < self.n * self.n:
            return f"x_{k // self.n}_{k % self.n}"
        return f"z_{k - self.n * self.n}"


def queen_rows(n: int) -> list[tuple[str, np.ndarray, float, float]]:
    """The textbook constraints as ``(name, variable indices, lower, upper)``."""
    idx = np.arange(n * n).reshape(n, n)
    rows: list[tuple[str, np.ndarray, float, float]] = []
    rows += [(f"row_{i}", idx[i, :], 1.0, 1.0) for i in range(n)]
    rows += [(f"col_{j}", idx[:, j], 1.0, 1.0) for j in range(n)]
    # d = i - j runs from -(n-1) to n-1; np.diagonal(offset=k) holds j - i = k.
    rows += [
        (f"diag_{d}", np.diagonal(idx, offset=-d).copy(), -np.inf, 1.0)
        for d in range(-(n - 1), n)
    ]
    flipped = idx[:, ::-1]  # column j -> n-1-j, so i + j = s becomes (i - j') = s - (n-1)
    rows += [
        (f"anti_{s}", np.diagonal(flipped, offset=(n - 1) - s).copy(), -np.inf, 1.0)
        for s in range(2 * n - 1)
    ]
    return rows


def build_linear_model(
    instance: Instance,
    extra_rows: list[tuple[str, np.ndarray, np.ndarray, float, float]] | None = None,
    num_extra_cols: int = 0,
    extra_col_bounds: tuple[np.ndarray, np.ndarray] | None = None,
) -> LinearModel:
    """The binary ILP of ``instance`` as arrays.

    ``extra_rows`` are ``(name, indices, coefficients, lower, upper)`` over all columns
    (binaries first, then ``num_extra_cols`` integer columns with ``extra_col_bounds``).
    """
    n = instance.n
    nn = n * n
    num_cols = nn + num_extra_cols
    cost = np.zeros(num_cols)
    cost[:nn] = instance.weight_matrix().ravel()
    col_lower = np.zeros(num_cols)
    col_upper = np.ones(num_cols)
    if num_extra_cols:
        assert extra_col_bounds is not None
        col_lower[nn:], col_upper[nn:] = extra_col_bounds
    for row, col in instance.fixed:
        col_lower[row * n + col] = 1.0

    names: list[str] = []
    lower: list[float] = []
    upper: list[float] = []
    index_parts: list[np.ndarray] = []
    value_parts: list[np.ndarray] = []
    for name, cols, lo, up in queen_rows(n):
        names.append(name)
        lower.append(lo)
        upper.append(up)
        index_parts.append(cols)
        value_parts.append(np.ones(cols.size))
    for name, cols, coefs, lo, up in extra_rows or []:
        names.append(name)
        lower.append(lo)
        upper.append(up)
        index_parts.append(np.asarray(cols, dtype=np.int64))
        value_parts.append(np.asarray(coefs, dtype=float))
    lengths = np.fromiter((p.size for p in index_parts), dtype=np.int64, count=len(index_parts))
    indptr = np.zeros(len(index_parts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    return LinearModel(
        n=n,
        cost=cost,
        col_lower=col_lower,
        col_upper=col_upper,
        row_lower=np.array(lower),
        row_upper=np.array(upper),
        indptr=indptr,
        indices=np.concatenate(index_parts).astype(np.int64),
        values=np.concatenate(value_parts),
        row_names=names,
        num_extra_cols=num_extra_cols,
    )
