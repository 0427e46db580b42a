"""The binary ILP as arrays: the common form behind the direct HiGHS and Gurobi backends.

The model is built on the :class:`~nqmip.board.FreeBoard` of the instance: one binary
per free cell (without fixed queens, variable ``k = i * n + j`` is ``x[i, j]``, a queen on
row i, column j, 0-based), and the rows, in order: the free rows' and columns' equalities,
the diagonal (i - j = d) and anti-diagonal (i + j = s) inequalities (all 2n-1 of each
without fixed queens; with them, those still holding two free cells), then any
strengthening rows. The fixed queens' weight is the objective's ``offset``. The matrix is
kept row-wise (CSR) in plain numpy arrays, so no scipy is needed to build it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqmip.board import FreeBoard, Line, _textbook_lines, free_board
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
    # Extra integer columns (beyond the binaries of the free cells), e.g. for strengthening.
    num_extra_cols: int = 0
    #: The free board the binaries stand for (cell k is column k); None: the whole board.
    board: FreeBoard | None = None
    #: Constant of the objective: the weight of the fixed queens.
    offset: float = 0.0
    #: What :func:`~nqmip.formulation.build_model` built it from (a
    #: :class:`~nqmip.formulation.reading.Origin`; None when built otherwise).
    origin: Any = None

    @property
    def num_binaries(self) -> int:
        return self.num_cols - self.num_extra_cols

    def placement(self, values: np.ndarray) -> tuple[int, ...]:
        """The full placement (fixed queens included) from the solver's column values;
        ValueError unless every row holds exactly one queen."""
        chosen = np.flatnonzero(np.asarray(values[: self.num_binaries]) > 0.5)
        if self.board is None:
            return _free_of(self.n).placement(chosen)
        return self.board.placement(chosen)

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
        if k < self.num_binaries:
            if self.board is None:
                return f"x_{k // self.n}_{k % self.n}"
            return f"x_{int(self.board.cell_row[k])}_{int(self.board.cell_col[k])}"
        return f"z_{k - self.num_binaries}"


def _free_of(n: int) -> FreeBoard:
    from nqmip.instance import make_instance

    return free_board(make_instance(n))


def queen_rows(n: int) -> list[Line]:
    """The textbook constraints as ``(name, variable indices, lower, upper)``."""
    return _textbook_lines(n)


def build_linear_model(
    instance: Instance,
    extra_rows: list[tuple[str, np.ndarray, np.ndarray, float, float]] | None = None,
    num_extra_cols: int = 0,
    extra_col_bounds: tuple[np.ndarray, np.ndarray] | None = None,
) -> LinearModel:
    """The binary ILP of ``instance``'s free board as arrays.

    ``extra_rows`` are ``(name, indices, coefficients, lower, upper)`` over all columns
    (the binaries of the free cells first, then ``num_extra_cols`` integer columns with
    ``extra_col_bounds``).
    """
    n = instance.n
    board = free_board(instance)
    nn = board.num_cells
    stand_in = nn + num_extra_cols == 0
    if stand_in:
        # no free cell (every queen fixed, or none left to place): a model of no column
        # is 'empty' to HiGHS, which then reads no row (an empty row = 1 went unseen);
        # one column held at 0 stands for the missing cells in every line (0 = 1)
        num_extra_cols, extra_col_bounds = 1, (np.zeros(1), np.zeros(1))
    num_cols = nn + num_extra_cols
    cost = np.zeros(num_cols)
    cost[:nn] = board.weights
    col_lower = np.zeros(num_cols)
    col_upper = np.ones(num_cols)
    if num_extra_cols:
        assert extra_col_bounds is not None
        col_lower[nn:], col_upper[nn:] = extra_col_bounds

    names: list[str] = []
    lower: list[float] = []
    upper: list[float] = []
    index_parts: list[np.ndarray] = []
    value_parts: list[np.ndarray] = []
    for name, cols, lo, up in board.lines():
        names.append(name)
        lower.append(lo)
        upper.append(up)
        cols = np.zeros(1, dtype=np.int64) if stand_in else cols  # the column held at 0
        index_parts.append(cols)
        value_parts.append(np.ones(cols.size))
    for name, cols, coefs, lo, up in extra_rows or []:
        names.append(name)
        lower.append(lo)
        upper.append(up)
        index_parts.append(np.asarray(cols, dtype=np.int64))
        value_parts.append(np.asarray(coefs, dtype=float))
    if not index_parts:  # every queen fixed: no row at all
        index_parts.append(np.zeros(0, dtype=np.int64))
        value_parts.append(np.zeros(0))
    lengths = np.fromiter((p.size for p in index_parts), dtype=np.int64, count=len(index_parts))
    lengths = lengths[: len(names)]
    indptr = np.zeros(len(names) + 1, dtype=np.int64)
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
        board=board,
        offset=board.fixed_value,
    )


def to_highs_lp(lm: LinearModel, highspy: Any = None) -> Any:
    """The arrays as a ``highspy.HighsLp`` (maximise, every column integer):
    ``h = highspy.Highs(); h.passModel(to_highs_lp(lm)); h.run()`` solves them, and
    :func:`nqmip.result_from_model` ``(lm, h)`` reads the answer back."""
    if highspy is None:
        import importlib

        highspy = importlib.import_module("highspy")
    lp = highspy.HighsLp()
    lp.num_col_ = lm.num_cols
    lp.num_row_ = lm.num_rows
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.col_cost_ = lm.cost
    lp.offset_ = float(lm.offset)
    lp.col_lower_ = lm.col_lower
    lp.col_upper_ = lm.col_upper
    lp.row_lower_ = np.where(np.isfinite(lm.row_lower), lm.row_lower, -highspy.kHighsInf)
    lp.row_upper_ = np.where(np.isfinite(lm.row_upper), lm.row_upper, highspy.kHighsInf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = lm.indptr.astype(np.int32)
    lp.a_matrix_.index_ = lm.indices.astype(np.int32)
    lp.a_matrix_.value_ = lm.values
    lp.a_matrix_.num_col_ = lm.num_cols
    lp.a_matrix_.num_row_ = lm.num_rows
    lp.integrality_ = [highspy.HighsVarType.kInteger] * lm.num_cols
    return lp


#: Nonzeros of the constraint matrix handed to HiGHS per call by :func:`pass_to_highs`.
#: A call holds the GIL, so the watchdog's thread waits it out: ``passModel`` of a whole
#: 2,000-board held it for 1.1 s (after 2.5 s building the ``HighsLp``), and a 5 s limit
#: was answered at 6.2 to 7.5 s. A piece of a million nonzeros takes
#: at most 0.07 s there.
HIGHS_PIECE_NONZEROS = 1_000_000


def pass_to_highs(h: Any, lm: LinearModel, highspy: Any, *, integer: bool = True,
                  deadline: Any = None) -> bool:
    """Hand the arrays to the ``highspy.Highs`` ``h`` (maximise; every column integer
    unless ``integer`` is False) by :func:`pass_arrays`. False when ``deadline`` (a
    :class:`~nqmip.budget.Deadline`) had expired or been cancelled first: the model is
    then incomplete and must not be run. At n = 2,000 the pass takes 0.7 s against 3.6 s
    through :func:`to_highs_lp` (whose fields are copied element by element)."""
    return pass_arrays(h, highspy, lm.cost, lm.col_lower, lm.col_upper,
                       lm.row_lower, lm.row_upper, lm.indptr, lm.indices, lm.values,
                       integer=integer, maximise=True, offset=float(lm.offset),
                       deadline=deadline)


def pass_arrays(h: Any, highspy: Any, cost: np.ndarray, col_lower: np.ndarray,
                col_upper: np.ndarray, row_lower: np.ndarray, row_upper: np.ndarray,
                indptr: np.ndarray, indices: np.ndarray, values: np.ndarray, *,
                integer: bool, maximise: bool, offset: float = 0.0,
                deadline: Any = None) -> bool:
    """A model as arrays (the rows in CSR, infinite sides allowed) into ``h``: the columns
    by one ``passModel`` (highspy's numpy overload), then the rows by ``addRows`` in
    pieces of about :data:`HIGHS_PIECE_NONZEROS`, ``deadline`` looked at between them;
    False when it had ended first (the rows are then incomplete)."""
    inf = highspy.kHighsInf
    none_f, none_i = np.zeros(0), np.zeros(0, dtype=np.int32)
    num_cols, num_rows = int(cost.size), int(row_lower.size)
    integrality = np.full(num_cols, 1 if integer else 0, dtype=np.int32)
    sense = highspy.ObjSense.kMaximize if maximise else highspy.ObjSense.kMinimize
    status = h.passModel(num_cols, 0, 0, int(highspy.MatrixFormat.kRowwise.value),
                         int(sense.value), float(offset),
                         np.ascontiguousarray(cost, dtype=float),
                         np.ascontiguousarray(col_lower, dtype=float),
                         np.ascontiguousarray(col_upper, dtype=float),
                         none_f, none_f, none_i, none_i, none_f, integrality)
    if status != highspy.HighsStatus.kOk:
        raise RuntimeError(f"HiGHS refused the model's columns: {status}")
    lower = np.where(np.isfinite(row_lower), row_lower, -inf)
    upper = np.where(np.isfinite(row_upper), row_upper, inf)
    first = 0
    while first < num_rows:
        if deadline is not None and (deadline.expired() or deadline.cancelled()):
            return False
        start = int(indptr[first])
        last = int(np.searchsorted(indptr, start + HIGHS_PIECE_NONZEROS, side="right")) - 1
        last = min(max(last, first + 1), num_rows)
        end = int(indptr[last])
        status = h.addRows(last - first, lower[first:last], upper[first:last], end - start,
                           (indptr[first:last] - start).astype(np.int32),
                           np.asarray(indices[start:end], dtype=np.int32),
                           np.asarray(values[start:end], dtype=float))
        if status != highspy.HighsStatus.kOk:
            raise RuntimeError(f"HiGHS refused the model's rows: {status}")
        first = last
    return True
