"""The free board: what is left of the board once the fixed queens are placed (the cells
a queen may still take, and the lines over them), the sub-problem every model is built on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

import numpy as np

from nqmip.instance import Instance

#: A line of a model over the free cells: ``(name, cell indices, lower, upper)``.
Line = tuple[str, np.ndarray, float, float]


@dataclass(frozen=True, eq=False)
class FreeBoard:
    """The sub-problem the models are built on: the cells a queen may still take.

    A fixed queen takes its row, its column, its diagonal and its anti-diagonal; what is
    left is ``rows`` and ``cols`` (the free rows and columns, sorted) and the free cells
    ``(cell_row[k], cell_col[k])`` (row-major), the squares of a free row and a free column
    on no taken diagonal. A model has one variable per free cell, one exactly-one line per
    free row and column and one at-most-one line per diagonal still holding two free cells;
    the fixed queens come back in :meth:`placement`, and their weight is ``fixed_value``
    (a constant of the objective). Without fixed queens, cell ``k`` is square
    ``(k // n, k % n)`` and the lines are the textbook model's, in its order.
    """

    n: int
    fixed: tuple[tuple[int, int], ...]
    rows: np.ndarray
    cols: np.ndarray
    cell_row: np.ndarray
    cell_col: np.ndarray
    weights: np.ndarray
    fixed_value: float

    @property
    def num_cells(self) -> int:
        return int(self.cell_row.size)

    @property
    def reduced(self) -> bool:
        """True when fixed queens took something (the model is not the textbook one)."""
        return bool(self.fixed)

    def blocked(self) -> str | None:
        """Why no completion exists when a free row or column has no free cell left (a
        one-line reason), else None. A cheap, sufficient test only: None proves nothing."""
        for label, free, taken in (("row", self.rows, self.cell_row),
                                   ("column", self.cols, self.cell_col)):
            empty = np.setdiff1d(free, taken)
            if empty.size:
                return (f"every square of {label} {int(empty[0])} is attacked by a fixed queen"
                        " (no completion)")
        return None

    def lines(self) -> list[Line]:
        """The model's lines over the cells: rows and columns (= 1), diagonals ``d = i - j``
        and anti-diagonals ``s = i + j`` (<= 1), each named by its key on the full board."""
        n = self.n
        if not self.reduced:
            return _textbook_lines(n)
        out: list[Line] = []
        families = (("row", self.cell_row, 1.0, False), ("col", self.cell_col, 1.0, False),
                    ("diag", self.cell_row - self.cell_col, -np.inf, True),
                    ("anti", self.cell_row + self.cell_col, -np.inf, True))
        for name, key, lower, skip_short in families:
            order = np.argsort(key, kind="stable")
            keys, starts = np.unique(key[order], return_index=True)
            groups = np.split(order, starts[1:]) if order.size else []
            present = dict(zip(keys.tolist(), groups, strict=True))
            wanted = (self.rows if name == "row" else self.cols if name == "col"
                      else keys)
            for k in np.asarray(wanted).tolist():
                cells = present.get(k, np.zeros(0, dtype=np.int64))
                if skip_short and cells.size < 2:
                    continue  # at most one of one cell: nothing to say
                out.append((f"{name}_{k}", cells.astype(np.int64), lower, 1.0))
        return out

    def cell_of(self, placement: Iterable[int]) -> np.ndarray:
        """Cell index of each free row's queen of a full placement (-1 where the
        placement uses a square that is not a free cell)."""
        cols = np.asarray(list(placement), dtype=np.int64)
        rows = self.rows.astype(np.int64)
        if not self.reduced:
            return rows * self.n + cols[rows]
        lookup = {(int(r), int(c)): k for k, (r, c) in
                  enumerate(zip(self.cell_row.tolist(), self.cell_col.tolist(), strict=True))}
        return np.array([lookup.get((int(r), int(cols[r])), -1) for r in rows.tolist()],
                        dtype=np.int64)

    def placement(self, cells: Iterable[int]) -> tuple[int, ...]:
        """The full placement (column per row) from the chosen cells plus the fixed queens;
        raises ValueError unless every row ends with exactly one queen."""
        cols = [-1] * self.n
        for row, col in self.fixed:
            cols[row] = col
        for k in cells:
            row = int(self.cell_row[k])
            if cols[row] != -1:
                raise ValueError(f"row {row} holds two queens in the solver's solution")
            cols[row] = int(self.cell_col[k])
        if -1 in cols:
            raise ValueError(f"row {cols.index(-1)} holds no queen in the solver's solution")
        return tuple(cols)


def _textbook_lines(n: int) -> list[Line]:
    idx = np.arange(n * n).reshape(n, n)
    rows: list[Line] = []
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


def free_board(instance: Instance) -> FreeBoard:
    """The :class:`FreeBoard` of ``instance``: O(F^2 + n + k) for F free rows and k fixed
    queens (O(n^2) without fixed queens, the whole board); kept on the instance."""
    cached = instance.__dict__.get("_free_board")
    if cached is not None:
        return cast(FreeBoard, cached)
    n = instance.n
    fixed = instance.fixed
    if not fixed:
        rows = np.arange(n, dtype=np.int64)
        cell_row = np.repeat(rows, n)
        cell_col = np.tile(rows, n)
        cols = rows
    else:
        taken_row = np.zeros(n, dtype=bool)
        taken_col = np.zeros(n, dtype=bool)
        taken_diag = np.zeros(2 * n - 1, dtype=bool)  # index i - j + n - 1
        taken_anti = np.zeros(2 * n - 1, dtype=bool)  # index i + j
        fr = np.array([r for r, _ in fixed], dtype=np.int64)
        fc = np.array([c for _, c in fixed], dtype=np.int64)
        taken_row[fr] = True
        taken_col[fc] = True
        taken_diag[fr - fc + n - 1] = True
        taken_anti[fr + fc] = True
        rows = np.flatnonzero(~taken_row).astype(np.int64)
        cols = np.flatnonzero(~taken_col).astype(np.int64)
        r = np.repeat(rows, cols.size)
        c = np.tile(cols, rows.size)
        keep = ~taken_diag[r - c + n - 1] & ~taken_anti[r + c]
        cell_row, cell_col = r[keep], c[keep]
    if instance.is_feasibility:
        weights = np.ones(cell_row.size)
        fixed_value = float(len(fixed))
    else:
        weights = np.asarray(instance.weights_at(cell_row, cell_col), dtype=np.float64)
        fixed_value = float(instance.weights_at(
            np.array([r for r, _ in fixed], dtype=np.int64),
            np.array([c for _, c in fixed], dtype=np.int64)).sum()) if fixed else 0.0
    board = FreeBoard(n=n, fixed=fixed, rows=rows, cols=cols, cell_row=cell_row,
                      cell_col=cell_col, weights=weights, fixed_value=fixed_value)
    object.__setattr__(instance, "_free_board", board)
    return board


