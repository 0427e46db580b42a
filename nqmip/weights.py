"""The weights a board is given by name: the chess preset (two colour values) and seeded
random integers, drawn by a deadline; what every door says of a bad ``n``; and
:class:`InstanceError`, the refusal of an instance's input. :mod:`nqmip.instance` builds
on these and re-exports them (their size is checked there, in :func:`_check_total`)."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import numpy as np

from nqmip.budget import Deadline

#: Default values of the "chess" preset: black squares ((i + j) even) and white squares.
CHESS_BLACK = 2.0
CHESS_WHITE = 1.0


def kernel_layout(n: int, rows: int | None = None) -> np.ndarray:
    """An empty float64 matrix of ``rows`` (default n) x n in the layout the numba kernels
    read (:meth:`nqmip.instance.Instance.kernel_weights`: each row one element longer, a
    view of the first n), so that an instance's weights reach the kernels as they are: the
    copy into that layout took 7.5 s and a second 3.2 GB at random n = 20,000 (new memory
    is slow to touch), where tabu, sa and auto with a fixed queen and 10 s then answered
    no placement."""
    return np.empty((n if rows is None else rows, n + 1), dtype=np.float64)[:, :n]


def kernel_matrix(matrix: np.ndarray, *, copy: bool = False) -> np.ndarray:
    """The square ``matrix`` in :func:`kernel_layout`, read-only: itself where it is held so
    already (unless ``copy``), else a copy."""
    if not copy and in_kernel_layout(matrix):
        return matrix
    out = kernel_layout(matrix.shape[0])
    out[...] = matrix
    out.flags.writeable = False
    return out


def in_kernel_layout(matrix: np.ndarray) -> bool:
    """Whether ``matrix`` is a float64 view in :func:`kernel_layout`'s layout (not
    contiguous, which a matrix of one row or column is whatever its strides)."""
    n = matrix.shape[-1]
    return (matrix.ndim == 2 and matrix.dtype == np.float64
            and matrix.strides == (8 * (n + 1), 8) and not matrix.flags.c_contiguous)


class InstanceError(ValueError):
    """An instance that cannot be built: bad n, weights or fixed queens."""


#: What every door says of a bad ``n`` (the commands' ``--n`` says the same range).
N_RANGE = ("a whole number of at least 1 (the board's side; the largest is what memory "
           "holds, nqmip.capacity)")


def _check_n(n: Any) -> int:
    """``n`` as an int, or one InstanceError stating the accepted range."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise InstanceError(f"n must be {N_RANGE}, got {n!r}")
    return int(n)


def chess_weights(n: int, black: float = CHESS_BLACK, white: float = CHESS_WHITE) -> np.ndarray:
    """Black squares ((i + j) even, 0- or 1-based alike) worth ``black``, white ``white``."""
    n = _check_n(n)
    black, white = colour_value("black", black), colour_value("white", white)
    i, j = np.indices((n, n))
    return np.where((i + j) % 2 == 0, black, white)


def colour_value(label: str, value: Any) -> float:
    """A colour's value (``black``, ``white``) as a float: a finite real number (Python's,
    numpy's, Fraction, Decimal); InstanceError naming ``label`` otherwise. One rule for
    ``chess_weights``, ``solve``/``build_model``'s ``black=``/``white=`` and the commands'
    ``--black``/``--white`` (a bool was taken as 1.0, '8' and b'8' as 8.0, NaN kept, a
    complex or a list met Python's own ``float()`` message)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real | Decimal):
        raise InstanceError(f"{label} (the {label} squares' value) must be a real number, "
                            f"got {type(value).__name__} {value!r}")
    number = float(value)
    if not np.isfinite(number):
        raise InstanceError(f"{label} (the {label} squares' value) must be finite, got {value}")
    return number


def unmasked(weights: Any) -> Any:
    """A masked array's data, when no cell is masked; InstanceError otherwise: numpy reads
    a masked array as its data, masked cells included (their mask silently dropped)."""
    if isinstance(weights, np.ma.MaskedArray):
        if np.ma.count_masked(weights):
            raise InstanceError(f"weights must be an n x n array of numbers, got a masked "
                                f"array with {np.ma.count_masked(weights)} masked cells: fill "
                                "them (weights.filled(value))")
        return np.ma.getdata(weights)
    return weights


#: Random weights are drawn this many at a time: a board of one block (n <= 2,048, some 30
#: ms) is always drawn whole, a larger one stops between blocks at its deadline.
BLOCK = 1 << 22


def draws_long(n: Any) -> bool:
    """Whether the random weights of an ``n``-board take more than one block to draw (5
    to 10 s at n = 30,000): a command hears a stop during the draw (it waited for the
    whole draw: Ctrl-C 1.2 s into ``--n 12000 --random-weights 1`` answered at 7 s)."""
    return isinstance(n, int) and n * n > BLOCK


def random_weights(n: int, seed: int | None = None, low: int = 1, high: int = 9, *,
                   rows: int | None = None, deadline: Deadline | None = None) -> np.ndarray:
    """Integer weights drawn uniformly from ``low..high`` with an explicit seed.

    The same numbers as ``default_rng(seed).integers(low, high + 1, (n, n))``, written
    into one float array a block of rows at a time (8 bytes a cell, no int64 copy), in
    :func:`kernel_layout`.
    ``rows``: only the first rows of that matrix (a look at it before the draw). The draw
    (5 to 10 s at n = 30,000) stops at ``deadline``'s end with an InstanceError (after
    its first block of 2^22 weights: a small board is drawn whatever the time): with no
    weights there is no placement to answer with."""
    n = _check_n(n)
    if deadline is not None and not isinstance(deadline, Deadline):  # 5 was taken unsaid
        raise TypeError(f"deadline must be an nqmip.Deadline, got {type(deadline).__name__}")
    if rows is not None and _whole("rows", rows) < 1:  # True, '2', 2.5 and 0 were taken
        raise InstanceError(f"rows must be a whole number of at least 1, got {rows!r}")
    height = n if rows is None else min(n, int(rows))
    from nqmip.capacity import check_fits
    from nqmip.option_types import check_value

    if rows is None:  # before the matrix (random_weights(200000) met numpy's MemoryError)
        check_fits(n, dense_weights=True, method="random weights (a dense n x n matrix)")

    try:
        seed = check_value("seed", seed)
        low, high = _whole("low", low), _whole("high", high)
    except (TypeError, ValueError) as exc:
        raise InstanceError(str(exc)) from None
    if low > high:
        raise InstanceError(f"low must be at most high, got low = {low}, high = {high}")
    rng = np.random.default_rng(seed)
    out = kernel_layout(n, height)  # the kernels read it as it is (no copy)
    small = low >= -(2**31) and high < 2**31

    def late(done: int) -> InstanceError:
        assert deadline is not None
        return InstanceError(
            f"the time limit ended while drawing the {n} x {n} random weights ({done:,} "
            f"of {n:,} rows in {deadline.elapsed():.1f} s): give more time or a smaller n")

    for part in row_blocks(height, n, deadline, late):
        # int32 where it holds them: the same numbers as int64's (both bounded draws take
        # 32 bits a number below 2^32), drawn in half the time
        out[part] = rng.integers(low, high + 1, size=(part.stop - part.start, n),
                                 dtype=np.int32 if small else np.int64)
    return out


def row_blocks(height: int, n: int, deadline: Deadline | None,
               late: Callable[[int], Exception]) -> Iterator[slice]:
    """The first ``height`` rows of an n-wide matrix in blocks of at most :data:`BLOCK`
    cells; ``late(rows done)`` is raised when ``deadline`` has ended before a block, from
    the second on: a board of one block (n <= 2,048, some 30 ms) is always done, and a
    call whose limit ended before it answers as it did (a placement)."""
    block = max(1, BLOCK // max(n, 1))
    for lo in range(0, height, block):
        if lo and deadline is not None and deadline.expired():
            raise late(lo)
        yield slice(lo, min(lo + block, height))


def _whole(name: str, value: Any) -> int:
    """A whole number (Python's or numpy's), InstanceError naming ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InstanceError(f"{name} must be a whole number, got {value!r}")
    return int(value)


def drawn_rows(weights: Any) -> Any:
    """Rows drawn by a generator (an Iterable[Iterable[float]], as ``WeightsSpec`` says)
    as lists: numpy takes a generator for one object ("got generator ... at []")."""
    if isinstance(weights, Iterator) or (isinstance(weights, list | tuple) and any(
            isinstance(row, Iterator) for row in weights)):
        return [list(row) if isinstance(row, Iterator) else row for row in weights]
    return weights


def size_of(weights: Any) -> tuple[int, Any]:
    """``n=None``: the board's side taken from a square weights array (as the commands
    take it from a weights file), and the weights (a generator's rows drawn once); an
    :class:`InstanceError` if it is not square (without an array, n=None is refused by
    :func:`_check_n`, as every door refuses it)."""
    weights = drawn_rows(weights)
    try:
        shape: tuple[int, ...] | None = np.shape(weights)
    except ValueError:  # ragged rows
        shape = None
    if shape is None or len(shape) != 2 or shape[0] != shape[1] or shape[0] < 1:
        raise InstanceError(f"n=None takes the board's size from a square weights array, "
                            f"got {'rows of different lengths' if shape is None else shape}")
    return int(shape[0]), weights
