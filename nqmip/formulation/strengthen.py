"""Valid strengthening of the N-Queens ILP: rows that cut off no optimal placement.

Everything here is derived from the :class:`~nqmip.instance.Instance` itself (its weight
matrix and fixed queens), never assumed from its name, and every piece is proven valid in
docs/formulation-strengthening.md and checked by brute force in tests/test_strengthen.py:

- **Colour bound.** A queen on (i, j) is *black* when i + j is even. When the weights are
  constant per colour (``a`` on black, ``b`` on white: the "chess" preset, or any matrix of
  that shape), the objective is ``n*b + (a - b) * #black``, so a bound on the number of
  black queens is a bound on the objective. :func:`black_queen_range` gets one from a small
  integer program over "diagonal used" indicators (see its docstring); it equals the proven
  optimum for every n the frontier sweep closed (docs/frontier.md). Used two ways: as a
  proof (:mod:`nqmip.colour_proof`: a placement that reaches it is optimal, no solver needed),
  and as the row ``sum(black x) <= B`` (``>= B_min`` when white is worth more), on by
  default for CP-SAT only: it slowed HiGHS down (measured, see the doc).
- **Colour parity.** For every placement, ``#black = n (mod 2)``: integer column ``z`` with
  ``sum(black x) = 2 z + n % 2``, on by default for the MIP backends (HiGHS: chess n = 28
  from 54 s to 8 s) and only for colour weights.
- **Symmetry breaking.** The board symmetries ``g`` (of the dihedral group of order 8) that
  map the weight matrix onto itself *and* the set of fixed queens onto itself are detected;
  for a linear key ``f`` (the column of the queen in the first free row) the rows
  ``f(x) <= f(g x)`` for every detected ``g`` keep the ``f``-smallest member of every orbit,
  hence at least one optimal placement.

The exported builders return the pieces for each model form: :func:`matrix_extras` for
:func:`~nqmip.formulation.matrix.build_linear_model`, :func:`add_to_pyomo` and
:func:`add_to_cpsat`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from nqmip.instance import ColourWeights, Instance

if TYPE_CHECKING:  # pragma: no cover
    import pyomo.environ as pyo

    from nqmip.formulation.cpsat import CpSatModel

#: The seven non-identity symmetries of the square, as maps (i, j) -> (i', j').
SYMMETRY_NAMES: tuple[str, ...] = (
    "rot90",
    "rot180",
    "rot270",
    "flip_rows",
    "flip_cols",
    "transpose",
    "anti_transpose",
)

#: Seconds given to the diagonal IP of :func:`black_queen_range`; on time-out its dual
#: bound (rounded down to the right parity) is used, which is still valid. Measured: a
#: 0.3 s cap already gives the IP's optimum for every n in 8..64
#: (docs/formulation-strengthening.md).
BOUND_TIME_LIMIT = 0.5


def symmetry_map(n: int, name: str) -> np.ndarray:
    """Flat image of every square: ``image[i * n + j] = i' * n + j'`` for symmetry ``name``."""
    i, j = np.indices((n, n))
    m = n - 1
    images = {
        "identity": (i, j),
        "rot90": (j, m - i),
        "rot180": (m - i, m - j),
        "rot270": (m - j, i),
        "flip_rows": (m - i, j),
        "flip_cols": (i, m - j),
        "transpose": (j, i),
        "anti_transpose": (m - j, m - i),
    }
    try:
        ii, jj = images[name]
    except KeyError:
        raise ValueError(f"unknown symmetry {name!r}: use one of {SYMMETRY_NAMES}") from None
    return (ii * n + jj).ravel()


def apply_symmetry(placement: tuple[int, ...], name: str) -> tuple[int, ...]:
    """The placement moved by symmetry ``name`` (used by tests and enumeration)."""
    n = len(placement)
    image = symmetry_map(n, name)
    out = [0] * n
    for row, col in enumerate(placement):
        k = int(image[row * n + col])
        out[k // n] = k % n
    return tuple(out)


def detect_symmetries(instance: Instance) -> tuple[str, ...]:
    """The board symmetries that keep the weight matrix and the set of fixed queens.

    Detected from the numbers, never assumed from the preset's name: ``W[g(k)] == W[k]``
    for every square ``k`` and ``g(F) == F``. These form a group (a stabiliser), which is
    what makes the symmetry-breaking rows jointly valid.
    """
    n = instance.n
    w = instance.weight_matrix().ravel()
    fixed = {r * n + c for r, c in instance.fixed}
    found = []
    for name in SYMMETRY_NAMES:
        image = symmetry_map(n, name)
        if not np.array_equal(w[image], w):
            continue
        if {int(image[k]) for k in fixed} != fixed:
            continue
        found.append(name)
    return tuple(found)


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
#: (n = 100-300); the colour proof's range (n <= 128) keeps the IP.
LINE_IP_MAX_N = 128
#: Board on which the LP that supplies the Lagrange multipliers is solved (0.05 s).
MULTIPLIER_N = 2000


def _diagonal_ip(
    n: int, fixed: tuple[tuple[int, int], ...], *, maximise: bool, time_limit: float
) -> int | None:
    if n > LINE_IP_MAX_N:
        return _lagrangian_bound(n, fixed, maximise=maximise)
    import highspy

    m = 2 * n - 1
    s_vals = np.arange(m, dtype=float)
    d_vals = np.arange(-(n - 1), n, dtype=float)
    even_s = (np.arange(m) % 2 == 0).astype(float)
    even_d = (np.arange(-(n - 1), n) % 2 == 0).astype(float)
    num = 2 * m
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", float(time_limit))
    lower = np.zeros(num)
    for r, c in fixed:
        lower[r + c] = 1.0
        lower[m + (r - c) + (n - 1)] = 1.0
    h.addVars(num, lower, np.ones(num))
    idx = np.arange(num, dtype=np.int32)
    h.changeColsIntegrality(num, idx, np.array([highspy.HighsVarType.kInteger] * num))
    cost = np.concatenate([even_s, np.zeros(m)])
    h.changeColsCost(num, idx, cost)
    h.changeObjectiveSense(
        highspy.ObjSense.kMaximize if maximise else highspy.ObjSense.kMinimize
    )
    iu = np.arange(m)
    iv = iu + m
    quad = 4.0 * sum(k * k for k in range(n))

    def add(cols: np.ndarray, vals: np.ndarray, lo: float, up: float) -> None:
        h.addRow(lo, up, len(cols), np.asarray(cols, dtype=np.int32), np.asarray(vals, float))

    add(iu, np.ones(m), n, n)
    add(iv, np.ones(m), n, n)
    add(iu, s_vals, n * (n - 1), n * (n - 1))
    add(iv, d_vals, 0.0, 0.0)
    add(np.r_[iu, iv], np.r_[s_vals**2, d_vals**2], quad, quad)
    add(np.r_[iu, iv], np.r_[even_s, -even_d], 0.0, 0.0)
    # Corner caps: the lines within t of each of the 4 corners hold at most 1 + 2t/3 queens.
    # Written with running sums (p_t = p_(t-1) + line_t, p_t <= cap_t): 3 non-zeros a row
    # instead of t + 1, so the model is O(n) (the direct rows were O(n^2): 2.6 GB at
    # n = 4000).
    caps = 1.0 + (2 * np.arange(n - 1)) // 3
    corners = (iu, iu[::-1], iv, iv[::-1])
    first = num
    h.addVars(4 * (n - 1), np.zeros(4 * (n - 1)), np.tile(caps, 4))
    if n > 1:
        index_blocks, value_blocks, start_blocks = [], [], []
        offset = 0
        for k, lines in enumerate(corners):
            sums = first + k * (n - 1) + np.arange(n - 1)
            # row t: p_t - p_(t-1) - line_t = 0 (row 0 has no p_(-1))
            idx = np.stack([sums, np.r_[-1, sums[:-1]], lines[: n - 1]], axis=1).ravel()
            val = np.tile([1.0, -1.0, -1.0], n - 1)
            keep = idx >= 0
            index_blocks.append(idx[keep])
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
    h.run()
    status = h.getModelStatus()
    ms = highspy.HighsModelStatus
    if status == ms.kInfeasible:
        return None
    info = h.getInfo()
    bound = float(info.mip_dual_bound)
    if not math.isfinite(bound):
        return n if maximise else 0
    parity = n % 2
    if maximise:
        value = math.floor(bound + 1e-6)
        value -= (value - parity) % 2
        return min(value, n)
    value = math.ceil(bound - 1e-6)
    value += (parity - value) % 2
    return max(value, 0)


@dataclass(frozen=True)
class Strengthening:
    """What is added to the model of one instance (see :func:`plan`)."""

    n: int
    black_upper: int | None = None  # row sum(black x) <= black_upper
    black_lower: int | None = None  # row sum(black x) >= black_lower
    parity: bool = False  # integer z with sum(black x) = 2 z + n % 2
    symmetries: tuple[str, ...] = ()
    key_row: int = 0  # row whose queen's column is the symmetry-breaking key f
    objective_bound: float | None = None  # proven upper bound on the objective
    black_target: int | None = None  # the black count that reaches objective_bound
    infeasible: bool = False  # the relaxation proved that no placement exists

    @property
    def empty(self) -> bool:
        return (
            self.black_upper is None
            and self.black_lower is None
            and not self.parity
            and not self.symmetries
        )


#: Which pieces are on by default, per model kind; each was measured on its own
#: (docs/formulation-strengthening.md). HiGHS: the parity column paid (chess n=24: 15.4 s
#: plain, 3.9 s with parity; n=28: 53.9 s -> 8.1 s), the colour-bound row did not (n=24:
#: 21.7 s, n=26: 56 s). CP-SAT: the colour-bound row is what lets it prove anything (its
#: bound otherwise stays at 2n).
DEFAULT_PIECES: dict[str, dict[str, bool]] = {
    "mip": {"colour_bound": False, "parity": True, "symmetry": False},
    "cpsat": {"colour_bound": True, "parity": False, "symmetry": False},
}


def plan(instance: Instance, kind: str = "mip", **pieces: bool) -> Strengthening:
    """Decide the valid strengthening of ``instance`` for a ``"mip"`` or ``"cpsat"`` model.

    ``pieces`` (``colour_bound``, ``parity``, ``symmetry``) override the defaults of
    ``kind``. The colour rows (bound and parity) are added only for weights constant per
    colour with two different values: elsewhere they are valid but cannot move the
    objective. ``objective_bound`` is filled for such weights whatever the pieces, for the
    proof by the bound.
    """
    defaults = DEFAULT_PIECES[kind]
    unknown = set(pieces) - set(defaults)
    if unknown:
        raise ValueError(f"unknown strengthening pieces: {', '.join(sorted(unknown))}")
    use = {**defaults, **pieces}
    n = instance.n
    black_upper = black_lower = None
    objective_bound = None
    best: int | None = None
    infeasible = False
    colours = None if instance.is_feasibility else instance.colours
    coloured = colours is not None and colours.black != colours.white
    if coloured:
        assert colours is not None
        maximise = colours.black > colours.white
        best = black_queen_bound(n, instance.fixed, maximise=maximise)
        if best is None:
            infeasible = True
        else:
            if use["colour_bound"] and maximise:
                black_upper = best
            elif use["colour_bound"]:
                black_lower = best
            objective_bound = n * colours.white + (colours.black - colours.white) * best
    symmetries = detect_symmetries(instance) if use["symmetry"] else ()
    fixed_rows = {r for r, _ in instance.fixed}
    key_row = next((r for r in range(n) if r not in fixed_rows), 0)
    return Strengthening(
        n=n,
        black_upper=black_upper,
        black_lower=black_lower,
        parity=bool(use["parity"]) and coloured and n > 1,
        symmetries=symmetries,
        key_row=key_row,
        objective_bound=objective_bound,
        black_target=best if objective_bound is not None else None,
        infeasible=infeasible,
    )


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
    h.setOptionValue("threads", 1)
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
    h.run()
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


def _symmetry_rows(s: Strengthening) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``f(x) - f(g x) <= 0`` per symmetry, as (name, columns, coefficients)."""
    n = s.n
    key = np.zeros(n * n)
    key[s.key_row * n : (s.key_row + 1) * n] = np.arange(n)
    rows = []
    for name in s.symmetries:
        coefs = key - key[symmetry_map(n, name)]
        cols = np.flatnonzero(coefs)
        if cols.size:
            rows.append((f"sym_{name}", cols, coefs[cols]))
    return rows


def matrix_extras(
    s: Strengthening,
) -> tuple[list[tuple[str, np.ndarray, np.ndarray, float, float]], int,
           tuple[np.ndarray, np.ndarray] | None]:
    """``(extra_rows, num_extra_cols, extra_col_bounds)`` for ``build_linear_model``."""
    n = s.n
    black = black_squares(n)
    ones = np.ones(black.size)
    rows: list[tuple[str, np.ndarray, np.ndarray, float, float]] = []
    if s.black_upper is not None:
        rows.append(("black_upper", black, ones, -np.inf, float(s.black_upper)))
    if s.black_lower is not None:
        rows.append(("black_lower", black, ones, float(s.black_lower), np.inf))
    for name, cols, coefs in _symmetry_rows(s):
        rows.append((name, cols, coefs, -np.inf, 0.0))
    if not s.parity:
        return rows, 0, None
    z = n * n  # the one extra column
    rows.append(
        ("parity", np.r_[black, z], np.r_[ones, -2.0], float(n % 2), float(n % 2))
    )
    return rows, 1, (np.zeros(1), np.array([float(n // 2)]))


def parity_start(placement: tuple[int, ...]) -> int:
    """The parity variable's value for a start placement: z = #black // 2 (with z = 0 the
    start would violate the parity row and be refused)."""
    from nqmip.formulation.lines import black_count

    return black_count(placement) // 2


def build_strengthened_linear_model(instance: Instance, s: Strengthening | None = None) -> Any:
    """The matrix model of ``instance`` with the strengthening rows appended."""
    from nqmip.formulation.matrix import build_linear_model

    s = plan(instance) if s is None else s
    rows, ncols, bounds = matrix_extras(s)
    return build_linear_model(instance, extra_rows=rows, num_extra_cols=ncols,
                              extra_col_bounds=bounds)


def add_to_pyomo(model: pyo.ConcreteModel, s: Strengthening) -> pyo.ConcreteModel:
    """Add the strengthening to a model of :func:`build_pyomo_model` in its own blocks.

    The textbook blocks ``rows``, ``cols``, ``diagonals``, ``anti_diagonals`` are left as
    they are; added here: ``black_bound`` (one row), ``symmetry_breaking`` (one row per
    detected symmetry), ``parity`` with the integer variable ``black_half``.
    """
    import pyomo.environ as pyo

    n = s.n
    black = [(int(k) // n, int(k) % n) for k in black_squares(n)]
    black_sum = pyo.quicksum(model.x[i, j] for i, j in black)
    if s.black_upper is not None or s.black_lower is not None:
        model.black_bound = pyo.Constraint(
            expr=pyo.inequality(s.black_lower, black_sum, s.black_upper),
            doc="number of black queens within the diagonal-IP bound",
        )
    sym_rows = _symmetry_rows(s)
    if sym_rows:
        model.symmetry_breaking = pyo.ConstraintList(doc="f(x) <= f(g x), g a symmetry")
        for _name, cols, coefs in sym_rows:
            model.symmetry_breaking.add(
                pyo.quicksum(float(c) * model.x[int(k) // n, int(k) % n]
                             for k, c in zip(cols, coefs, strict=True)) <= 0
            )
    if s.parity:
        model.black_half = pyo.Var(within=pyo.NonNegativeIntegers, bounds=(0, n // 2))
        model.parity = pyo.Constraint(expr=black_sum == 2 * model.black_half + n % 2,
                                      doc="#black has the parity of n")
    return model


def add_to_cpsat(cps: CpSatModel, s: Strengthening) -> CpSatModel:
    """Add the same rows to a CP-SAT model (booleans ``cps.x``)."""
    n = s.n
    model = cps.model
    black = [cps.x[int(k) // n, int(k) % n] for k in black_squares(n)]
    if s.black_upper is not None:
        model.add(sum(black) <= s.black_upper)
    if s.black_lower is not None:
        model.add(sum(black) >= s.black_lower)
    for _name, cols, coefs in _symmetry_rows(s):
        model.add(sum(int(c) * cps.x[int(k) // n, int(k) % n]
                      for k, c in zip(cols, coefs, strict=True)) <= 0)
    if s.parity:
        half = model.new_int_var(0, n // 2, "black_half")
        model.add(sum(black) == 2 * half + n % 2)
    return cps


# --- one-call builders used by the backends (``options.strengthen`` switches them) -------


def linear_extras(instance: Instance, on: bool = True) -> dict[str, Any]:
    """Keyword arguments of ``build_linear_model`` for the strengthened model ({} if off)."""
    if not on:
        return {}
    rows, ncols, bounds = matrix_extras(plan(instance, "mip"))
    return {"extra_rows": rows, "num_extra_cols": ncols, "extra_col_bounds": bounds}


def pyomo_model(instance: Instance, on: bool = True) -> pyo.ConcreteModel:
    """``build_pyomo_model(instance)``, plus the strengthening blocks when ``on``."""
    from nqmip.formulation.pyomo import build_pyomo_model

    model = build_pyomo_model(instance)
    return add_to_pyomo(model, plan(instance, "mip")) if on else model


def cpsat_model(instance: Instance, on: bool = True) -> CpSatModel:
    """``build_cpsat_model(instance)``, plus the strengthening constraints when ``on``."""
    from nqmip.formulation.cpsat import build_cpsat_model

    cps = build_cpsat_model(instance)
    return add_to_cpsat(cps, plan(instance, "cpsat")) if on else cps


# --- MIP starts for the strengthened model ------------------------------------------------

def start_vector(lm: Any, placement: tuple[int, ...]) -> np.ndarray:
    """All column values of a MIP start for the (possibly strengthened) matrix model ``lm``.

    The binaries from the placement, and the parity column ``z = #black // 2`` when the
    model has one: with ``z = 0`` the start would violate the parity row and be refused.
    """
    n = lm.n
    values = np.zeros(lm.num_cols)
    values[np.arange(n) * n + np.asarray(placement)] = 1.0
    if lm.num_extra_cols and "parity" in lm.row_names:
        values[n * n] = float(parity_start(placement))
    return values
