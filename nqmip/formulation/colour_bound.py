"""The colour bound: how many black queens a placement can have, proven.

A queen on (i, j) is *black* when i + j is even. When the weights are constant per colour
(``a`` on black, ``b`` on white: the "chess" preset, or any matrix of that shape), the
objective is ``n*b + (a - b) * #black``, so a bound on the number of black queens is a
bound on the objective. :func:`black_queen_range` gets one from the line model of
:mod:`nqmip.formulation.line_model` (solved by HiGHS up to ``LINE_IP_MAX_N``, beyond it bounded
by weak duality in O(n)); it equals the proven optimum for every n the frontier sweep closed
(docs/frontier.md). It is used as a proof (:mod:`nqmip.colour.proof`) and as model rows
(:mod:`nqmip.formulation.strengthen`).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from nqmip import highs_threads
from nqmip.formulation.line_model import COLOUR_PROOF_MAX_N
from nqmip.instance import ColourWeights, Instance

#: Seconds given to the diagonal IP of :func:`black_queen_range`; on time-out its dual
#: bound (rounded down to the right parity) is used, which is still valid. Measured: a
#: 0.3 s cap already gives the IP's optimum for every n in 8..64
#: (docs/formulation-strengthening.md).
BOUND_TIME_LIMIT = 0.5


def colour_weights(instance: Instance) -> ColourWeights | None:
    """The two colour values if the weights are constant per colour, else None
    (feasibility counts as both colours worth 1)."""
    if instance.is_feasibility:
        return ColourWeights(1.0, 1.0)
    return instance.colours


def black_squares(n: int) -> np.ndarray:
    """Flat indices of the black squares ((i + j) even)."""
    i, j = np.indices((n, n))
    return np.flatnonzero(((i + j) % 2 == 0).ravel())


def black_count(placement: object) -> int:
    """Number of black queens ((row + column) even) of a placement."""
    p = np.asarray(placement, dtype=np.int64)
    return int(np.count_nonzero((np.arange(p.size) + p) % 2 == 0))


@lru_cache(maxsize=512)
def black_queen_range(
    n: int, fixed: tuple[tuple[int, int], ...] = (), time_limit: float = BOUND_TIME_LIMIT
) -> tuple[int, int] | None:
    """``(lo, hi)`` with ``lo <= #black queens <= hi`` for every placement keeping ``fixed``.

    None when the relaxation below is infeasible, which proves that no placement exists.

    Why it is valid: a placement uses n distinct anti-diagonals s = i + j and n distinct
    diagonals d = i - j; a queen is black iff s (equivalently d) is even. Over the n queens,
    sum(s) = 2 * sum(i) = n(n-1), sum(d) = 0 and sum(s^2) + sum(d^2) = 2 * sum(i^2 + j^2)
    = 4 * sum_{k<n} k^2, and #even s = #even d = #black. Further, the k queens on
    anti-diagonals s <= t sit in rows and columns <= t, so sum(i) + sum(j) >= k(k-1) while
    sum(s) <= k t - k(k-1)/2, hence k <= 1 + 2t/3 (the same for the three other corners).
    So the placement's indicator vectors u_s, v_d are a feasible point of this small IP
    (about 4n binaries), and its optimum bounds #black. The count also has the parity of n
    (docs/formulation-strengthening.md), so the IP's dual bound is rounded to that parity,
    which keeps it valid when the time cap stops the IP early. Cached per (n, fixed).
    """
    hi = black_queen_bound(n, fixed, maximise=True, time_limit=time_limit)
    if hi is None:
        return None
    lo = black_queen_bound(n, fixed, maximise=False, time_limit=time_limit)
    if lo is None:
        return None
    return lo, hi


@lru_cache(maxsize=1024)
def black_queen_bound(
    n: int,
    fixed: tuple[tuple[int, int], ...] = (),
    *,
    maximise: bool = True,
    time_limit: float = BOUND_TIME_LIMIT,
) -> int | None:
    """One side of :func:`black_queen_range` (an upper bound if ``maximise``), cached."""
    return _diagonal_ip(n, fixed, maximise=maximise, time_limit=time_limit)


#: Beyond this n the line IP gives way to the Lagrangian bound of :func:`_lagrangian_bound`
#: (O(n) numpy, 0.02 s at 10^5). Measured for n = 4 … 100: the IP is tighter only at
#: n = 8, 9, 18, 28, 33, 66 (by 2), and equal from there to n = 500 while it costs 0.5-1.8 s
#: (n = 100-300); the colour proof's range keeps the IP.
LINE_IP_MAX_N = COLOUR_PROOF_MAX_N
#: Board on which the LP that supplies the Lagrange multipliers is solved (0.05 s).
MULTIPLIER_N = 2000


def _diagonal_ip(
    n: int, fixed: tuple[tuple[int, int], ...], *, maximise: bool, time_limit: float
) -> int | None:
    """The line model's bound on #black: from the table of empty boards
    (:mod:`nqmip.formulation.colour_bound_table`, solved once with a long limit), else
    solved by HiGHS, or the Lagrangian one beyond ``LINE_IP_MAX_N``; None when the line
    model is infeasible."""
    if n > LINE_IP_MAX_N:
        return _lagrangian_bound(n, fixed, maximise=maximise)
    if not fixed:
        from nqmip.formulation.colour_bound_table import LEAST, MOST

        table = MOST if maximise else LEAST
        if 0 < n < len(table):
            return table[n]
    return line_ip_bound(n, fixed, maximise=maximise, time_limit=time_limit)[0]


def line_ip_bound(
    n: int, fixed: tuple[tuple[int, int], ...], *, maximise: bool, time_limit: float
) -> tuple[int | None, bool]:
    """The line model solved by HiGHS within ``time_limit``: its dual bound on #black,
    rounded to n's parity (None when the model is infeasible), and whether HiGHS proved it
    optimal."""
    import highspy

    from nqmip.formulation.line_model import line_model, to_highs

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(time_limit))
    to_highs(line_model(n, fixed), h, highspy, maximise=maximise)
    ran = highs_threads.run(h, 1)
    status = h.getModelStatus()
    ms = highspy.HighsModelStatus
    if status == ms.kInfeasible:
        return None, True
    if ran == highspy.HighsStatus.kError or status == ms.kNotset:
        return (n if maximise else 0), False  # no bound from a run that did not happen
    info = h.getInfo()
    bound = float(info.mip_dual_bound)
    if not math.isfinite(bound):
        return (n if maximise else 0), False
    proven = status == ms.kOptimal
    parity = n % 2
    if maximise:
        value = math.floor(bound + 1e-6)
        value -= (value - parity) % 2
        return min(value, n), proven
    value = math.ceil(bound - 1e-6)
    value += (parity - value) % 2
    return max(value, 0), proven


def _line_rows(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """Scaled data of the line model's equality rows: ``s/n``, ``d/n``, the even masks of
    the anti-diagonals and diagonals, and ``4 Σ_{k<n} k² / n²``."""
    m = 2 * n - 1
    s = np.arange(m, dtype=float)
    d = np.arange(-(n - 1), n, dtype=float)
    quad = 4.0 * (n - 1) * (2 * n - 1) / (6.0 * n)
    return s / n, d / n, (np.arange(m) % 2 == 0).astype(float), (d % 2 == 0).astype(float), quad


def _line_lp_multipliers(n: int, sign: float) -> np.ndarray:
    """Row duals of the line model's LP relaxation without the corner caps (6 rows)."""
    import highspy

    s, d, even_s, even_d, quad = _line_rows(n)
    m = s.size
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.addVars(2 * m, np.zeros(2 * m), np.ones(2 * m))
    h.changeColsCost(2 * m, np.arange(2 * m, dtype=np.int32),
                     np.concatenate([sign * even_s, np.zeros(m)]))
    h.changeObjectiveSense(highspy.ObjSense.kMaximize)
    iu = np.arange(m, dtype=np.int32)
    iv = iu + m
    for cols, vals, rhs in ((iu, np.ones(m), n), (iv, np.ones(m), n), (iu, s, n - 1),
                            (iv, d, 0.0), (np.r_[iu, iv], np.r_[s**2, d**2], quad),
                            (np.r_[iu, iv], np.r_[even_s, -even_d], 0.0)):
        h.addRow(rhs, rhs, len(cols), cols.astype(np.int32), vals.astype(float))
    highs_threads.run(h, 1)
    return np.asarray(h.getSolution().row_dual, dtype=float)


def _lagrangian_bound(
    n: int, fixed: tuple[tuple[int, int], ...], *, maximise: bool
) -> int | None:
    """The black-count bound for large n by weak duality, in O(n) numpy.

    For the line model's relaxation (``0 <= u, v <= 1``, the fixed queens' lines at 1, the
    six equality rows of :func:`_diagonal_ip`; the corner caps dropped, which only weakens
    it) and ANY multipliers ``y``, ``rhs·y + Σ_j max(0, c_j - a_j·y)`` (the fixed lines
    counted in full) bounds ``max c·x``: weak duality. The multipliers are the LP's duals on
    a ``MULTIPLIER_N`` board, which the scaled rows make nearly optimal at every n
    (chess n = 10^5: 78,867.55 black against the LP's own 78,867.51). Rounded to the parity
    of n like the IP's bound.
    """
    sign = 1.0 if maximise else -1.0
    y = _line_lp_multipliers(min(n, MULTIPLIER_N), sign)
    s, d, even_s, even_d, quad = _line_rows(n)
    m = s.size
    reduced_u = sign * even_s - (y[0] + y[2] * s + y[4] * s**2 + y[5] * even_s)
    reduced_v = -(y[1] + y[3] * d + y[4] * d**2 - y[5] * even_d)
    forced_u = np.zeros(m, dtype=bool)
    forced_v = np.zeros(m, dtype=bool)
    for r, c in fixed:
        forced_u[r + c] = True
        forced_v[r - c + n - 1] = True
    value = (float(np.array([n, n, n - 1, 0.0, quad, 0.0]) @ y)
             + float(np.where(forced_u, reduced_u, np.maximum(reduced_u, 0.0)).sum())
             + float(np.where(forced_v, reduced_v, np.maximum(reduced_v, 0.0)).sum()))
    slack = 1e-7 * n  # float rounding must never cut the bound below the true dual value
    parity = n % 2
    if maximise:
        count = min(math.floor(value + slack), n)
        count -= (count - parity) % 2
        return count
    count = max(math.ceil(-value - slack), 0)
    count += (parity - count) % 2
    return count
