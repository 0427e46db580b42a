"""Valid strengthening of the N-Queens ILP: rows that cut off no optimal placement.

Everything here is derived from the :class:`~nqmip.instance.Instance` itself (its weight
matrix and fixed queens), never assumed from its name, and every piece is proven valid in
docs/formulation-strengthening.md and checked by brute force in tests/test_strengthen.py:

- **Colour bound.** A queen on (i, j) is *black* when i + j is even. When the weights are
  constant per colour (``a`` on black, ``b`` on white: the "chess" preset, or any matrix of
  that shape), the objective is ``n*b + (a - b) * #black``, so a bound on the number of
  black queens is a bound on the objective: :func:`nqmip.formulation.colour_bound.black_queen_range`
  (the line model; the colour proof of :mod:`nqmip.colour.proof` uses it without a
  solver). Here it is the row ``sum(black x) <= B`` (``>= B_min`` when white is worth more), on by
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

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from nqmip.board import FreeBoard, free_board
from nqmip.formulation.colour_bound import black_count, black_queen_bound
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
    #: The free board the model is built on (its cells are the model's binaries).
    board: FreeBoard | None = None

    def free(self) -> FreeBoard:
        if self.board is not None:
            return self.board
        from nqmip.instance import make_instance

        return free_board(make_instance(self.n))

    def fixed_black(self) -> int:
        """Black queens among the fixed ones (the colour rows are over the free cells)."""
        return sum(1 for r, c in self.free().fixed if (r + c) % 2 == 0)

    def black_cells(self) -> np.ndarray:
        """Cell indices of the free board's black squares."""
        board = self.free()
        return np.flatnonzero((board.cell_row + board.cell_col) % 2 == 0)


#: Which pieces are on by default, per model kind; each was measured on its own
#: (docs/formulation-strengthening.md). HiGHS: the parity column paid (chess n=24: 15.4 s
#: plain, 3.9 s with parity; n=28: 53.9 s -> 8.1 s), the colour-bound row did not (n=24:
#: 21.7 s, n=26: 56 s). CP-SAT: the colour-bound row is what lets it prove anything (its
#: bound otherwise stays at 2n).
DEFAULT_PIECES: dict[str, dict[str, bool]] = {
    "mip": {"colour_bound": False, "parity": True, "symmetry": False},
    "cpsat": {"colour_bound": True, "parity": False, "symmetry": False},
}


def _colour_count(instance: Instance) -> tuple[ColourWeights, int | None] | None:
    """For weights constant per colour with two values: the values, and the bound on the
    black queens the fixed ones leave (None: no count is possible); None for others."""
    colours = None if instance.is_feasibility else instance.colours
    if colours is None or colours.black == colours.white:
        return None
    return colours, black_queen_bound(instance.n, instance.fixed,
                                      maximise=colours.black > colours.white)


def colour_objective_bound(instance: Instance) -> float | None:
    """:func:`plan`'s ``objective_bound`` alone: the colour bound on the objective (weights
    constant per colour, two values; None otherwise or when the fixed queens leave no
    count of black queens). No model's pieces: no free board, whose F^2 squares a board of
    n = 10^6 with one fixed queen cannot hold (auto's bound asked 7.3 TiB of it)."""
    counted = _colour_count(instance)
    if counted is None or counted[1] is None:
        return None
    return _objective_of(instance.n, counted[0], counted[1])


def _objective_of(n: int, colours: ColourWeights, black: int) -> float:
    """The objective of ``black`` black queens and ``n - black`` white ones."""
    return n * colours.white + (colours.black - colours.white) * black


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
    counted = _colour_count(instance)
    coloured = counted is not None
    if counted is not None:
        colours, best = counted
        maximise = colours.black > colours.white
        if best is None:
            infeasible = True
        else:
            if use["colour_bound"] and maximise:
                black_upper = best
            elif use["colour_bound"]:
                black_lower = best
            objective_bound = _objective_of(n, colours, best)
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
        # the whole board (no fixed queens) is built only by a model that needs it
        board=free_board(instance) if instance.fixed else None,
    )


def _symmetry_rows(s: Strengthening) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``f(x) - f(g x) <= 0`` per symmetry, as (name, cells, coefficients) over the free
    cells. A detected ``g`` maps the fixed queens onto themselves, hence the free cells onto
    free cells; the key row is free, so ``f`` and ``f o g`` are zero on the fixed squares,
    and the squares attacked by fixed queens hold no queen: dropping them changes nothing."""
    n = s.n
    if not s.symmetries:
        return []
    board = s.free()
    key = np.zeros(n * n)
    key[s.key_row * n : (s.key_row + 1) * n] = np.arange(n)
    squares = board.cell_row * n + board.cell_col
    rows = []
    for name in s.symmetries:
        coefs = (key - key[symmetry_map(n, name)])[squares]
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
    black = s.black_cells()
    fixed_black = s.fixed_black()
    ones = np.ones(black.size)
    rows: list[tuple[str, np.ndarray, np.ndarray, float, float]] = []
    if s.black_upper is not None:
        rows.append(("black_upper", black, ones, -np.inf, float(s.black_upper - fixed_black)))
    if s.black_lower is not None:
        rows.append(("black_lower", black, ones, float(s.black_lower - fixed_black), np.inf))
    for name, cols, coefs in _symmetry_rows(s):
        rows.append((name, cols, coefs, -np.inf, 0.0))
    if not s.parity:
        return rows, 0, None
    z = s.free().num_cells  # the one extra column
    rhs = float(n % 2 - fixed_black)
    rows.append(("parity", np.r_[black, z], np.r_[ones, -2.0], rhs, rhs))
    return rows, 1, (np.zeros(1), np.array([float(n // 2)]))


def parity_start(placement: tuple[int, ...]) -> int:
    """The parity variable's value for a start placement: z = #black // 2 (with z = 0 the
    start would violate the parity row and be refused)."""
    return black_count(placement) // 2


def add_to_pyomo(model: pyo.ConcreteModel, s: Strengthening) -> pyo.ConcreteModel:
    """Add the strengthening to a model of :func:`build_pyomo_model` in its own blocks.

    The textbook blocks ``rows``, ``cols``, ``diagonals``, ``anti_diagonals`` are left as
    they are; added here: ``black_bound`` (one row), ``symmetry_breaking`` (one row per
    detected symmetry), ``parity`` with the integer variable ``black_half``.
    """
    import pyomo.environ as pyo

    n = s.n
    board = s.free()
    fb = s.fixed_black()

    def square(k: int) -> tuple[int, int]:
        return int(board.cell_row[k]), int(board.cell_col[k])

    black_sum = pyo.quicksum(model.x[square(int(k))] for k in s.black_cells()) + fb
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
                pyo.quicksum(float(c) * model.x[square(int(k))]
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
    board = s.free()
    fb = s.fixed_black()

    def var(k: int) -> Any:
        return cps.x[int(board.cell_row[k]), int(board.cell_col[k])]

    black = [var(int(k)) for k in s.black_cells()]
    if s.black_upper is not None:
        model.add(sum(black) <= s.black_upper - fb)
    if s.black_lower is not None:
        model.add(sum(black) >= s.black_lower - fb)
    for _name, cols, coefs in _symmetry_rows(s):
        model.add(sum(int(c) * var(int(k))
                      for k, c in zip(cols, coefs, strict=True)) <= 0)
    if s.parity:
        half = model.new_int_var(0, n // 2, "black_half")
        model.add(sum(black) + fb == 2 * half + n % 2)
    return cps


# --- one-call builders used by the backends (``options.strengthen`` switches them) -------


def linear_extras(instance: Instance, on: bool = True, **pieces: bool) -> dict[str, Any]:
    """Keyword arguments of ``build_linear_model`` for the strengthened model ({} if off);
    ``pieces`` as :func:`plan` takes them."""
    if not on:
        return {}
    rows, ncols, bounds = matrix_extras(plan(instance, "mip", **pieces))
    return {"extra_rows": rows, "num_extra_cols": ncols, "extra_col_bounds": bounds}


def pyomo_model(instance: Instance, on: bool = True) -> pyo.ConcreteModel:
    """``build_pyomo_model(instance)``, plus the strengthening blocks when ``on``."""
    from nqmip.formulation.pyomo import build_pyomo_model
    from nqmip.watchdog import in_python

    with in_python():  # Pyomo's build: an exit need not wait for it (C++ is not there)
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
    values = np.zeros(lm.num_cols)
    board = lm.board
    if board is None:
        n = lm.n
        values[np.arange(n) * n + np.asarray(placement)] = 1.0
    else:
        cells = board.cell_of(placement)
        values[cells[cells >= 0]] = 1.0  # a start off the free cells is refused by the solver
    if lm.num_extra_cols and "parity" in lm.row_names:
        values[lm.num_binaries] = float(parity_start(placement))
    return values
