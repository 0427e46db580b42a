"""The problem instance: board size, weights and pre-placed (fixed) queens.

Everything else in the package takes an :class:`Instance`; the public functions also accept
the loose ``n, weights, fixed`` arguments and build one with :func:`make_instance`.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from typing import Any

import numpy as np

from nqmip.budget import Deadline
from nqmip.option_types import text_int
from nqmip.weights import CHESS_BLACK as CHESS_BLACK
from nqmip.weights import CHESS_WHITE as CHESS_WHITE
from nqmip.weights import InstanceError as InstanceError
from nqmip.weights import _check_n, colour_value, drawn_rows, kernel_matrix, size_of, unmasked
from nqmip.weights import chess_weights as chess_weights
from nqmip.weights import random_weights as random_weights

WeightsSpec = None | str | np.ndarray | Iterable[Iterable[float]]
FixedSpec = None | Mapping[int, int] | Iterable[tuple[int, int]]


def needs_costs(asked: str, source: str) -> str:
    """The one refusal of a minimisation without weights, in the words of the door that
    asked (``asked``: ``"sense='min'"``, ``"--minimize"``; ``source``: what gave no
    weights): every cost-free board has the same total n, so minimising it means nothing
    and was accepted by the API while the commands refused it."""
    return f"{asked} needs weights (costs): {source} has none"


def no_colours(given: list[str], source: str) -> str:
    """The one refusal of chess colour values (``given``: ``["black"]``, ``["--black",
    "--white"]``) for weights without colours (``source``), in the door's words."""
    return f"{' and '.join(given)} set the chess colours' values: {source} has no colours"


@dataclass(frozen=True)
class ColourWeights:
    """Weights constant per colour: ``black`` on (i + j) even squares, ``white`` on odd."""

    black: float
    white: float

    def at(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """The weights of the squares ``(rows[k], cols[k])``, without an n x n array."""
        odd = (np.asarray(rows, dtype=np.int64) + np.asarray(cols, dtype=np.int64)) & 1
        return np.where(odd == 0, self.black, self.white)


#: Largest board whose colour weights are materialised as a dense n x n matrix on request
#: (8 bytes a cell: 2 GiB at this size). Paths that scale further (the heuristics, the
#: colour bound, the verifier) never ask for the matrix.
DENSE_MAX_N = 16_384


@dataclass(frozen=True, eq=False)
class Instance:
    """An N-Queens instance.

    The objective is one of three kinds, and memory matches it:

    - feasibility (``is_feasibility``): maximise the number of queens; no weights at all;
    - weights constant per colour (``colours`` set: the ``"chess"`` preset, ``--black``/
      ``--white``, or a dense matrix found to be constant per colour): two numbers, and
      no n x n array unless a dense-only path asks for :attr:`weights`;
    - any dense matrix (``dense``): a read-only float ``n x n`` array, held once.

    ``fixed`` holds the pre-placed queens as sorted ``(row, col)`` pairs, 0-based.
    """

    n: int
    dense: np.ndarray | None = None
    fixed: tuple[tuple[int, int], ...] = ()
    name: str = field(default="custom")
    colours: ColourWeights | None = None
    sense: str = "max"  # "min": the weights are costs, the objective is minimised

    @property
    def is_feasibility(self) -> bool:
        return self.dense is None and self.colours is None

    @property
    def weights(self) -> np.ndarray | None:
        """The dense ``n x n`` weight matrix (None for feasibility).

        For colour weights it is built on first use and kept; boards beyond
        ``DENSE_MAX_N`` refuse, since the paths that scale use :attr:`colours` instead.
        """
        if self.dense is not None or self.colours is None:
            return self.dense
        if self.n > DENSE_MAX_N:
            raise InstanceError(
                f"n = {self.n}: this method needs the dense {self.n} x {self.n} weight matrix "
                f"({8 * self.n * self.n / 2**30:.1f} GiB); colour weights are dense only up to "
                f"n = {DENSE_MAX_N}: use a heuristic (sa, tabu, minconflicts) or auto"
            )
        cached = self.__dict__.get("_dense_cache")
        if cached is None:
            cached = chess_weights(self.n, self.colours.black, self.colours.white)
            cached.setflags(write=False)
            object.__setattr__(self, "_dense_cache", cached)
        return cached

    @property
    def fixed_map(self) -> dict[int, int]:
        return dict(self.fixed)

    def weight_matrix(self) -> np.ndarray:
        """The objective coefficients: the weights, or all ones for feasibility."""
        weights = self.weights
        if weights is None:
            return np.ones((self.n, self.n))
        return weights

    def weights_at(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Weights of the squares ``(rows[k], cols[k])`` (ones for feasibility), O(len)."""
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        if self.colours is not None:
            return self.colours.at(rows, cols)
        if self.dense is None:
            return np.ones(rows.shape)
        return self.dense[rows, cols]

    def kernel_weights(self) -> np.ndarray:
        """The weights as the numba kernels read them, ``w[i, j]``, one array type for every
        kind of weights (2-D float64, strided, read-only: a kernel compiles once, not once
        per kind): for colour weights an n x n *view* of 2n - 1 alternating values
        (``w[i, j] = base[i + j]``, O(n) memory), a dense matrix in rows one element longer
        (:func:`~nqmip.weights.kernel_layout`, as make_instance holds it: no copy; a
        contiguous array would be a type of its own), and a 1 x 2 dummy of zero strides
        for feasibility (n = 1: a 1 x 1 array is contiguous whatever its strides)."""
        from numpy.lib.stride_tricks import as_strided

        if self.colours is not None:
            base = np.where(np.arange(2 * self.n - 1) % 2 == 0, self.colours.black,
                            self.colours.white).astype(np.float64)
            step = base.strides[0]
            return as_strided(base, shape=(self.n, self.n), strides=(step, step),
                              writeable=False)
        if self.dense is None:
            return as_strided(np.zeros(1), shape=(1, 2), strides=(0, 0), writeable=False)
        return kernel_matrix(self.dense)

    @cached_property
    def integral(self) -> bool:
        """Whether every weight is whole (then so is every objective value)."""
        if self.name.startswith("random("):  # drawn whole: no scan (2.7 s at n = 20,000,
            return True  # after the solve, past the command's time limit)
        values = self.dense if self.dense is not None else np.array([self.weight_range()])
        block = max(1, (1 << 20) // max(values.shape[1], 1))  # no n x n temporaries
        return all(whole(part)
                   for part in (values[lo:lo + block] for lo in range(0, len(values), block)))

    def rounded_bound(self, bound: float) -> float:
        """A bound of the maximisation made whole where the weights are: 99.71 says 99."""
        whole = self.integral and bool(np.isfinite(bound))
        return float(np.floor(bound + 1e-6)) if whole else bound

    def weight_range(self) -> tuple[float, float]:
        """Smallest and largest weight on the board (1, 1 for feasibility)."""
        if self.colours is not None:
            if self.n == 1:
                return self.colours.black, self.colours.black
            low = min(self.colours.black, self.colours.white)
            return low, max(self.colours.black, self.colours.white)
        if self.dense is None:
            return 1.0, 1.0
        return self._dense_range

    @cached_property
    def _dense_range(self) -> tuple[float, float]:
        """A dense board's smallest and largest weight: two passes over n x n weights (0.4
        s at n = 20,000), made once, when the instance is checked."""
        assert self.dense is not None
        return float(self.dense.min()), float(self.dense.max())

    def objective(self, placement: Iterable[int]) -> float:
        """Objective value of a placement (column of the queen in each row)."""
        cols = np.asarray(placement if isinstance(placement, np.ndarray) else list(placement),
                          dtype=np.int64)
        if self.is_feasibility:
            return float(len(cols))
        return float(self.weights_at(np.arange(len(cols)), cols).sum())

    def describe(self) -> str:
        fixed = f", {len(self.fixed)} fixed" if self.fixed else ""
        sense = ", minimise" if self.sense == "min" else ""
        return f"n={self.n}, weights={self.name}{fixed}{sense}"

    def __repr__(self) -> str:
        """One short line: the weights are in :attr:`weights`, never printed whole."""
        return f"Instance({self.describe()})"


def whole(values: np.ndarray, tolerance: float = 1e-9) -> bool:
    """Whether every value is a whole number, up to ``tolerance`` (a sum's 2.9999999999):
    a value that is not zero but rounds to zero is not whole (weights of 1e-12 are not
    0: read as whole, their bounds were rounded down to 0, below their placements)."""
    rounded = np.rint(values)
    return bool(np.all((np.abs(values - rounded) < tolerance)
                       & ((rounded != 0) | (values == 0))))


Weights = tuple[np.ndarray | None, ColourWeights | None, str]


def random_preset(n: int, weights_seed: int | None, *, rows: int | None = None,
                  deadline: Deadline | None = None) -> np.ndarray:
    """The matrix of ``weights="random"`` (:func:`random_weights`; ``weights_seed`` None:
    :data:`~nqmip.result.DEFAULT_SEED`), a bad seed refused in the caller's name,
    ``weights_seed`` (``seed`` is the method's own)."""
    from nqmip.result import DEFAULT_SEED

    seed = DEFAULT_SEED if weights_seed is None else weights_seed
    try:
        return random_weights(n, seed, rows=rows, deadline=deadline)
    except InstanceError as exc:
        raise InstanceError(f"weights_{exc}" if str(exc).startswith("seed")
                            else str(exc)) from None


def _check_weights(
    n: int, weights: WeightsSpec, black: float, white: float, seed: int | None,
    deadline: Deadline | None = None,
) -> Weights:
    """``(dense matrix, colour weights, name)``: at most one of the first two is set."""
    if weights is None:
        return None, None, "none"
    if isinstance(weights, str):
        key = weights.lower()
        if key in ("none", "feasibility"):
            return None, None, "none"
        if key == "chess":
            return None, ColourWeights(colour_value("black", black),
                                       colour_value("white", white)), "chess"
        if key == "random":
            from nqmip.result import DEFAULT_SEED

            seed = DEFAULT_SEED if seed is None else seed  # the same call, the same weights
            return random_preset(n, seed, deadline=deadline), None, f"random(seed={seed})"
        raise InstanceError(
            f"unknown weights preset {weights!r}: use None, 'chess', 'random' or an n x n array"
        )
    weights = unmasked(drawn_rows(weights))
    try:
        kind = np.asarray(weights).dtype.kind
    except ValueError:  # ragged rows: numpy's words name neither weights nor the board
        raise InstanceError(f"weights must be an n x n array of numbers, got rows of "
                            f"different lengths (the board is {n} x {n})") from None
    if kind == "O":  # exact numbers (Fraction, Decimal) are taken as floats; others named
        weights = _exact_numbers(weights)
        kind = "f"
    if kind not in "biuf":  # complex, strings: not weights (no silent casting)
        raise InstanceError(f"weights must be real numbers, got an array of dtype "
                            f"{np.asarray(weights).dtype}")
    try:
        # np.asarray: a float64 array is taken as it is (copied once below, read-only).
        matrix = np.asarray(weights, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InstanceError(f"weights must be an n x n array of numbers: {exc}") from None
    if matrix.shape != (n, n):
        square = matrix.ndim == 2 and matrix.shape[0] == matrix.shape[1] \
            and matrix.shape[0] >= 1  # n mistyped (not an empty array: no board at all)
        raise InstanceError(f"weights must have shape ({n}, {n}) for n = {n}, got "
                            f"{matrix.shape}" + (f": give n={matrix.shape[0]}, or n=None to "
                                                 "take it from the array" if square else ""))
    if not np.all(np.isfinite(matrix)):
        raise InstanceError("weights must be finite numbers (found NaN or infinity)")
    return matrix, None, "custom"


def _exact_numbers(weights: Any) -> np.ndarray:
    """An array of Python objects as floats when every one is a real number (Fraction,
    Decimal, int, float): InstanceError naming the first that is not, and where."""
    try:
        cells = np.asarray(weights, dtype=object)
    except ValueError as exc:  # ragged rows
        raise InstanceError(f"weights must be an n x n array of numbers: {exc}") from None
    for index, value in np.ndenumerate(cells):
        if isinstance(value, bool) or not isinstance(value, numbers.Real | Decimal):
            where = f" at [{', '.join(str(i) for i in index)}]" if index else ""
            raise InstanceError(f"weights must be real numbers, got {type(value).__name__} "
                                f"{value!r}{where}")
    with np.errstate(over="ignore"):
        return np.array([float(v) for v in cells.ravel()],
                        dtype=np.float64).reshape(cells.shape)


def detect_colours(matrix: np.ndarray) -> ColourWeights | None:
    """The two colour values when a dense matrix is constant per colour, else None."""
    n = matrix.shape[0]
    if n == 0:
        return None
    black, white = float(matrix[0, 0]), float(matrix[0, 1]) if n > 1 else float(matrix[0, 0])
    for start, value in ((0, black), (1, white)):
        for row in range(n):
            squares = matrix[row, (row + start) % 2 :: 2]
            if squares.size and not np.all(squares == value):
                return None
    return ColourWeights(black, white)


_SQUARE = re.compile(r"([a-z]+)([0-9]+)")


def parse_queen(text: str) -> tuple[int, int]:
    """A queen as the commands write it: ``ROW,COL`` (0-based; ``ROW COL``, ``ROW;COL``,
    quoted cells and a trailing separator too, as a spreadsheet writes a line of a
    ``--fixed`` file) or a chess square (``e1``
    is row 0, column 4; files past ``z`` go on ``aa``, ``ab``, ...). InstanceError naming
    the notation otherwise."""
    parts = [part.strip("\"'") for part in re.split(r"[\s,;]+", text.strip()) if part]
    square = _SQUARE.fullmatch(parts[0].lower()) if len(parts) == 1 else None
    if square:
        letters, rank = square.groups()
        col = 0
        for letter in letters:
            col = col * 26 + (ord(letter) - ord("a") + 1)
        if int(rank) < 1:
            raise InstanceError(f"a fixed queen's square has ranks from 1 (e1), got {text!r}")
        return int(rank) - 1, col - 1
    try:  # the separators a line of a --fixed file takes (commas, semicolons, spaces, tabs)
        row, col = (text_int(part) for part in parts)
    except ValueError:
        raise InstanceError(f"a fixed queen takes ROW,COL (0-based integers) or a square "
                            f"such as e4, got {text!r}") from None
    if row < 0 or col < 0:
        raise InstanceError(f"a fixed queen's row and column count from 0, got {text!r}")
    return row, col


def _pairs(fixed: Any) -> Iterable[Any]:
    """The queens of a FixedSpec: a mapping's items, a list's items (a string among them
    read as the commands read ``--fix``: ``"e1"``, ``"0,4"``), or one string of queens
    separated by spaces."""
    if isinstance(fixed, Mapping):
        return list(fixed.items())
    if isinstance(fixed, str):
        return [parse_queen(part) for part in fixed.split()]
    return [parse_queen(pair) if isinstance(pair, str) else pair for pair in fixed]


def _check_fixed(n: int, fixed: FixedSpec) -> tuple[tuple[int, int], ...]:
    if fixed is None:
        return ()
    if not isinstance(fixed, Mapping | str | Iterable):
        raise InstanceError(f"fixed must be queens ({{row: col}}, [(row, col), ...] or "
                            f"squares such as 'e1'), got {type(fixed).__name__}")
    seen_rows: dict[int, int] = {}
    for pair in _pairs(fixed):
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
        if row in seen_rows:
            raise InstanceError(f"fixed queen ({row}, {col}) is given twice" if
                                seen_rows[row] == col else
                                f"row {row} is given two fixed queens")
        seen_rows[int(row)] = int(col)
    queens = tuple(sorted(seen_rows.items()))
    _check_no_attack(queens)
    return queens


def _check_no_attack(queens: tuple[tuple[int, int], ...]) -> None:
    """Two given queens that attack each other are a typo, not a puzzle: an input error
    naming both and the line they share (O(k) with one dict per family of lines)."""
    families = (("column", lambda r, c: c), ("diagonal", lambda r, c: r - c),
                ("anti-diagonal", lambda r, c: r + c))
    for line, key in families:
        seen: dict[int, tuple[int, int]] = {}
        for row, col in queens:
            k = key(row, col)
            if k in seen:
                other = seen[k]
                raise InstanceError(
                    f"fixed queens {other} and {(row, col)} attack each other along "
                    f"{'an' if line[0] in 'aeiou' else 'a'} {line}"
                )
            seen[k] = (row, col)


def make_instance(
    n: int | Instance | None,
    weights: WeightsSpec = None,
    fixed: FixedSpec = None,
    *,
    black: float | None = None,
    white: float | None = None,
    weights_seed: int | None = None,
    sense: str | None = None,
    deadline: Deadline | None = None,
) -> Instance:
    """Validate the loose arguments and build an :class:`Instance` (random weights drawn
    by ``deadline``: :func:`random_weights`). ``sense="min"`` makes the weights costs.
    ``black`` and ``white`` (default 2 and 1) are the values of ``weights="chess"``; with
    other weights they are refused by name (``solve(8, black=3)`` solved the feasibility
    problem), as is any part given again beside an Instance (it holds them).
    Fixed queens that attack each other are an :class:`InstanceError` naming them; fixed
    queens that merely admit no completion are valid input whose answer is "infeasible".
    ``n=None`` takes the side of a square weights array (:func:`~nqmip.weights.size_of`),
    as the commands take it from a weights file; a shape that disagrees with n is refused.
    """
    if isinstance(n, Instance):  # built by hand: the same rule on its weights' size
        again = [name for name, value in (
            ("weights", weights), ("fixed", fixed), ("black", black), ("white", white),
            ("weights_seed", weights_seed),
            ("sense", None if sense is None or str(sense).lower() == n.sense else sense))
            if value is not None]
        if again:  # dropped unsaid before: make_instance(make_instance(8), "chess")
            raise InstanceError(f"{', '.join(again)}: given with an Instance, which already "
                                "holds them; pass n instead, or drop them")
        _check_total(n)
        return n
    sense = "max" if sense is None else sense.lower() if isinstance(sense, str) else sense
    if sense not in ("max", "min"):
        raise InstanceError(f"sense must be 'max' or 'min', got {sense!r}")
    if sense == "min" and weights is None:
        raise InstanceError(needs_costs("sense='min'", "weights=None"))
    if n is None and weights is not None and not isinstance(weights, str):
        n, weights = size_of(weights)
    n = _check_n(n)
    given = [label for label, value in (("black", black), ("white", white)) if value is not None]
    if given and not (isinstance(weights, str) and weights.lower() == "chess"):
        raise InstanceError(f"{no_colours(given, f'weights={_weights_name(weights)}')}; "
                            "pass weights='chess' or drop them")
    black = CHESS_BLACK if black is None else black
    white = CHESS_WHITE if white is None else white
    matrix, colours, name = _check_weights(n, weights, black, white, weights_seed, deadline)
    if matrix is not None:
        if name == "custom":  # the caller's array may change under us: copied, and
            matrix = kernel_matrix(matrix, copy=True)  # in the kernels' layout
        matrix.setflags(write=False)
        # A dense matrix constant per colour keeps its numbers (the exact models read them)
        # and also gets the two colour values, so the colour bound and proof apply to it.
        colours = detect_colours(matrix)
    instance = Instance(n=n, dense=matrix, fixed=_check_fixed(n, fixed), name=name,
                        colours=colours, sense=sense)
    _check_total(instance)
    return instance


def _weights_name(weights: WeightsSpec) -> str:
    """How a refusal names ``weights``: its preset, None, or 'an array'."""
    return repr(weights) if weights is None or isinstance(weights, str) else "an array"


#: The largest total a placement may reach (n times the largest absolute weight, twice
#: that for costs, which are flipped into weights ``K - c``, :mod:`nqmip.sense`): 2^53,
#: below which float64 adds whole numbers exactly. Past it a white square's 1 vanishes
#: next to a black 2^63 (HiGHS reported 2 below the optimum and called it optimal), so
#: every objective, bound and verification nqmip computes could be off: such weights are
#: refused for every method. Weights that are not whole are taken below it too; their
#: sums are float64's, rounded (relative 2^-53 an addition), as they always were, and
#: compared with tolerances (:func:`whole`, the solvers' gaps).
TOTAL_LIMIT = float(2**53)


def _check_total(instance: Instance) -> None:
    """Refuse weights whose objective cannot be summed exactly (:data:`TOTAL_LIMIT`)."""
    if instance.is_feasibility:
        return
    n, sense = instance.n, instance.sense
    low, high = instance.weight_range()  # not np.abs(matrix): a second n x n copy
    largest = max(abs(low), abs(high))
    with np.errstate(over="ignore"):
        total = float(np.float64(n) * largest * (2.0 if sense == "min" else 1.0))
    if not total < TOTAL_LIMIT:
        what = "costs" if sense == "min" else "weights"
        raise InstanceError(
            f"{what} up to {largest:.3g} on the {n} x {n} board can total {total:.3g}"
            f"{' once flipped into weights' if sense == 'min' else ''}, not below 2^53 "
            f"(about 9.007e15), past which floating point no longer adds whole numbers "
            f"exactly (1 + 2^53 is 2^53): scale the {what} down")


def free_rows(instance: Instance) -> int:
    """The rows left to fill: n without the fixed queens."""
    return instance.n - len(instance.fixed)  # one fixed queen per row at most
