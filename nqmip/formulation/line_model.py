"""The line model, written once: which anti-diagonals and diagonals n queens can use.

A placement of n queens uses n distinct anti-diagonals ``s = i + j`` and n distinct
diagonals ``d = i - j``; a queen is black iff ``s`` (equivalently ``d``) is even. Over the
n queens, ``sum s = n(n-1)``, ``sum d = 0``, ``sum s^2 + sum d^2 = 4 sum_{k<n} k^2`` and
``#even s = #even d = #black``; the ``k`` lines nearest a corner hold at most
``1 + 2t/3`` queens (the *corner caps*; proofs in docs/formulation-strengthening.md). The
indicators ``u_s`` and ``v_d`` of the used lines are therefore a solution of this small
integer program, whatever the placement.

:class:`LineModel` is that description, as numbers; two emitters write it for a solver:

- :func:`to_highs`: the HiGHS MIP that *bounds* the number of black queens (maximise or
  minimise it; :mod:`nqmip.formulation.colour_bound`). Corner caps as running sums, O(n) non-zeros.
- :func:`to_cpsat`: the CP-SAT model with the black count *fixed*, whose solutions are the
  line sets (:mod:`nqmip.colour.lines`). Corner caps as direct rows (n <=
  ``COLOUR_PROOF_MAX_N`` there).

Variables: ``u_s`` at index ``s`` (0..2n-2), ``v_d`` at index ``m + d + n - 1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

#: The colour proof's range: the largest n on which the proof uses the line model (its IP
#: bound in :mod:`nqmip.formulation.colour_bound`, its line-set search in
#: :mod:`nqmip.colour.search`, the corner caps as direct rows here); auto runs the proof up to it
#: (:mod:`nqmip.auto.policy`, docs/frontier.md). The one place this size is spelled.
COLOUR_PROOF_MAX_N = 128
#: An equality row: (variable indices, coefficients, right-hand side).
Row = tuple[np.ndarray, np.ndarray, float]


@dataclass(frozen=True)
class LineModel:
    """The line model of an n x n board with some queens fixed (see the module docstring)."""

    n: int
    identities: tuple[Row, ...]  # sum u = n, sum v = n, sum s u, sum d v, the squares
    black_u: np.ndarray  # indices of the even (black) anti-diagonals
    black_v: np.ndarray  # indices of the even (black) diagonals
    corners: tuple[np.ndarray, ...]  # per corner, the line indices from the corner inward
    caps: np.ndarray  # caps[t]: the first t + 1 lines of a corner hold at most this many
    forced: tuple[int, ...]  # lines of the fixed queens: u and v indices at 1

    @property
    def m(self) -> int:
        return 2 * self.n - 1

    @property
    def num_vars(self) -> int:
        return 2 * self.m


def line_model(n: int, fixed: tuple[tuple[int, int], ...] = ()) -> LineModel:
    m = 2 * n - 1
    iu = np.arange(m)
    iv = iu + m
    s_vals = np.arange(m)
    d_vals = np.arange(-(n - 1), n)
    quad = 4 * sum(k * k for k in range(n))
    identities: tuple[Row, ...] = (
        (iu, np.ones(m, dtype=np.int64), float(n)),
        (iv, np.ones(m, dtype=np.int64), float(n)),
        (iu, s_vals, float(n * (n - 1))),
        (iv, d_vals, 0.0),
        (np.r_[iu, iv], np.r_[s_vals**2, d_vals**2], float(quad)),
    )
    forced: list[int] = []
    for r, c in fixed:
        forced += [r + c, m + r - c + n - 1]
    return LineModel(
        n=n,
        identities=identities,
        black_u=iu[s_vals % 2 == 0],
        black_v=iv[d_vals % 2 == 0],
        corners=(iu, iu[::-1], iv, iv[::-1]),
        caps=1 + (2 * np.arange(max(n - 1, 0))) // 3,
        forced=tuple(forced),
    )


def to_highs(lm: LineModel, h: Any, highspy: Any, *, maximise: bool) -> None:
    """Write the bounding MIP into the empty ``highspy.Highs`` ``h``: maximise (or minimise)
    the black anti-diagonals, with ``#black anti-diagonals = #black diagonals``."""
    n, num = lm.n, lm.num_vars
    lower = np.zeros(num)
    lower[list(lm.forced)] = 1.0
    h.addVars(num, lower, np.ones(num))
    idx = np.arange(num, dtype=np.int32)
    h.changeColsIntegrality(num, idx, np.array([highspy.HighsVarType.kInteger] * num))
    cost = np.zeros(num)
    cost[lm.black_u] = 1.0
    h.changeColsCost(num, idx, cost)
    h.changeObjectiveSense(
        highspy.ObjSense.kMaximize if maximise else highspy.ObjSense.kMinimize
    )

    def add(cols: np.ndarray, vals: np.ndarray, rhs: float) -> None:
        h.addRow(rhs, rhs, len(cols), np.asarray(cols, dtype=np.int32),
                 np.asarray(vals, float))

    for cols, vals, rhs in lm.identities:
        add(cols, vals, rhs)
    link = np.zeros(num)
    link[lm.black_u] = 1.0
    link[lm.black_v] = -1.0
    add(np.arange(num), link, 0.0)
    # Corner caps with running sums (p_t = p_(t-1) + line_t, p_t <= cap_t): 3 non-zeros a
    # row instead of t + 1, so the model is O(n) (the direct rows were 2.6 GB at n = 4000).
    first = num
    h.addVars(4 * (n - 1), np.zeros(4 * (n - 1)), np.tile(lm.caps.astype(float), 4))
    if n > 1:
        index_blocks, value_blocks, start_blocks = [], [], []
        offset = 0
        for k, lines in enumerate(lm.corners):
            sums = first + k * (n - 1) + np.arange(n - 1)
            # row t: p_t - p_(t-1) - line_t = 0 (row 0 has no p_(-1))
            idx2 = np.stack([sums, np.r_[-1, sums[:-1]], lines[: n - 1]], axis=1).ravel()
            val = np.tile([1.0, -1.0, -1.0], n - 1)
            keep = idx2 >= 0
            index_blocks.append(idx2[keep])
            value_blocks.append(val[keep])
            lengths = np.full(n - 1, 3)
            lengths[0] = 2
            start_blocks.append(offset + np.r_[0, np.cumsum(lengths)[:-1]])
            offset += int(lengths.sum())
        rows = 4 * (n - 1)
        h.addRows(rows, np.zeros(rows), np.zeros(rows), offset,
                  np.concatenate(start_blocks).astype(np.int32),
                  np.concatenate(index_blocks).astype(np.int32),
                  np.concatenate(value_blocks))


def to_cpsat(lm: LineModel, black: int) -> tuple[Any, list[Any], list[Any]]:
    """The CP-SAT model with exactly ``black`` black queens: ``(model, u, v)``.

    ``u[s]`` for ``s`` in 0..2n-2, ``v[k]`` for the diagonal ``d = k - (n - 1)``.
    """
    from ortools.sat.python import cp_model

    n, m = lm.n, lm.m
    model = cp_model.CpModel()
    u = [model.NewBoolVar(f"u{s}") for s in range(m)]
    v = [model.NewBoolVar(f"v{k}") for k in range(m)]
    x = u + v
    for cols, vals, rhs in lm.identities:
        model.Add(sum(int(c) * x[int(k)] for k, c in zip(cols, vals, strict=True))
                  == int(rhs))
    model.Add(sum(x[int(k)] for k in lm.black_u) == black)
    model.Add(sum(x[int(k)] for k in lm.black_v) == black)
    for t in range(n - 1):
        cap = int(lm.caps[t])
        for lines in lm.corners:
            model.Add(sum(x[int(k)] for k in np.sort(lines[: t + 1])) <= cap)
    for k in lm.forced:
        model.Add(x[k] == 1)
    return model, u, v
