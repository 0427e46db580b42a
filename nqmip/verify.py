"""The independent checker.

Nothing here shares code with the formulations or the heuristics: a placement is checked
from first principles (marking or counting queens per column and per diagonal in numpy
arrays; :func:`is_solution` of a short list of ints with sets), in O(n) time and memory,
so it serves for millions of queens too. :func:`verified` is the
gate every :class:`~nqmip.result.Result` passes before it leaves the package.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from nqmip.columns import as_integer_columns
from nqmip.instance import ColourWeights
from nqmip.result import Status

if TYPE_CHECKING:  # pragma: no cover
    from nqmip.instance import Instance
    from nqmip.result import Result


class VerificationError(RuntimeError):
    """A method produced a placement or objective that does not check out: a bug."""


def _pairs(counts: np.ndarray) -> int:
    counts = counts.astype(np.int64, copy=False)
    return int((counts * (counts - 1) // 2).sum())


#: From this many queens on, :func:`conflicts` counts by sorting int32 line indices instead
#: of ``np.bincount`` (whose int64 counts and temporaries took 5 GB for 10^8 queens); it is
#: also faster from about a million queens (10^7: 0.36 s against 0.61 s).
LEAN_FROM = 1 << 20
_RUN_CHUNK = 1 << 24


def _equal_run_pairs(ordered: np.ndarray) -> int:
    """Σ k(k-1)/2 over the groups of equal values of a sorted array, chunk by chunk.

    A group of k equal values shows as k-1 consecutive True in ``ordered[1:] ==
    ordered[:-1]``; a run of t True stands for t(t+1)/2 pairs. ``carry`` is the length of a
    run still open at a chunk's end.
    """
    total = 0
    carry = 0
    last = ordered.size - 1
    for lo in range(0, last, _RUN_CHUNK):
        hi = min(lo + _RUN_CHUNK, last)
        equal = ordered[lo + 1 : hi + 1] == ordered[lo:hi]
        if not equal.any():
            total += carry * (carry + 1) // 2
            carry = 0
            continue
        edges = np.diff(np.concatenate(([0], equal.view(np.int8), [0])))
        lengths = np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)
        if equal[0]:
            lengths[0] += carry
        else:
            total += carry * (carry + 1) // 2
        carry = 0
        if equal[-1]:
            carry = int(lengths[-1])
            lengths = lengths[:-1]
        total += int((lengths * (lengths + 1) // 2).sum())
    return total + carry * (carry + 1) // 2


def _conflicts_by_sorting(cols: np.ndarray) -> int:
    """:func:`conflicts` for huge boards: for each family of lines (columns, diagonals
    i - j, anti-diagonals i + j) build the int32 line index of every queen, sort it, and
    count the pairs within groups of equal indices. Memory: one int32 array of n at a time
    (0.4 GB for 10^8 queens) beside the input. Same first principles as the bincount path,
    nothing shared with the solvers."""
    total = 0
    for index in _line_indices(cols, own=True):
        index.sort()
        total += _equal_run_pairs(index)
        del index
    return total


def _line_indices(cols: np.ndarray, *, own: bool = False) -> Iterator[np.ndarray]:
    """Each family's line index (int32) of every queen, one array at a time: the
    column, the diagonal i - j + n - 1, the anti-diagonal i + j; ``own``: the column's
    a copy (the caller sorts it in place)."""
    n = cols.size
    columns = cols.astype(np.int32, copy=False)  # the diagonals' (never sorted)
    yield columns.copy() if own else columns
    for sign in (-1, 1):
        index = np.arange(n, dtype=np.int32)
        if sign < 0:
            index -= columns
            index += n - 1
        else:
            index += columns
        yield index


def _clash_free(cols: np.ndarray) -> bool:
    """Whether no two queens share a column, a diagonal or an anti-diagonal: each family's
    line indices (int32) marked in a boolean array, as many marks as queens. O(n), one
    byte a line: a placement with no clash (the usual case) is checked without sorting
    (2 * 10^6 queens: 0.05 s against 0.21 s); with a clash, the count below."""
    n = cols.size
    for index in _line_indices(cols):
        seen = np.zeros(2 * n - 1, dtype=bool)
        seen[index] = True
        if int(np.count_nonzero(seen)) != n:
            return False
    return True


def conflicts(placement: Iterable[int]) -> int:
    """Number of attacking pairs among the queens (row i holds a queen at column p[i]).

    Counts pairs that share a column, a diagonal (i - j constant) or an anti-diagonal
    (i + j constant). Columns outside ``0..n-1`` raise ``ValueError``.
    """
    raw = as_integer_columns(placement)
    n = raw.size
    if n == 0:
        return 0
    if raw.min() < 0 or raw.max() >= n:
        raise ValueError(f"a column is off the {n} x {n} board")
    if n < 2**30 and _clash_free(raw):
        return 0
    if LEAN_FROM <= n < 2**30:
        return _conflicts_by_sorting(raw)
    cols = raw.astype(np.int64, copy=False)
    rows = np.arange(n, dtype=np.int64)
    return (
        _pairs(np.bincount(cols, minlength=n))
        + _pairs(np.bincount(rows - cols + n - 1, minlength=2 * n - 1))
        + _pairs(np.bincount(rows + cols, minlength=2 * n - 1))
    )


#: A list or tuple of at most this many Python ints is checked with sets, without numpy
#: arrays: a brute force over the 40320 permutations of n = 8 takes 0.1 s (4 s through
#: the arrays, their cost being per call).
SMALL = 64


def _small_clash_free(placement: object) -> bool | None:
    """Whether a short list or tuple of Python ints puts its queens on distinct columns,
    diagonals and anti-diagonals, each on the board; None for any other placement."""
    if not isinstance(placement, list | tuple) or len(placement) > SMALL:
        return None
    if not all(type(col) is int for col in placement):
        return None
    n = len(placement)
    return (all(0 <= col < n for col in placement) and len(set(placement)) == n
            and len({row + col for row, col in enumerate(placement)}) == n
            and len({row - col for row, col in enumerate(placement)}) == n)


def is_solution(
    placement: Iterable[int], fixed: Mapping[int, int] | Iterable[tuple[int, int]] | None = None
) -> bool:
    """True when the placement puts n non-attacking queens and keeps every fixed queen."""
    small = _small_clash_free(placement)
    if small is False:
        return False
    if small is None:
        try:
            cols = as_integer_columns(placement)
            if conflicts(cols) != 0:
                return False
        except ValueError:
            return False
    else:
        cols = np.asarray(placement) if fixed else np.empty(0, dtype=np.int64)
    if fixed:
        pairs = fixed.items() if isinstance(fixed, Mapping) else fixed
        for row, col in pairs:
            if not 0 <= row < cols.size or cols[row] != col:
                return False
    return True


def objective_of(
    placement: Sequence[int] | np.ndarray, weights: np.ndarray | ColourWeights | None
) -> float:
    """Objective recomputed from the weights (the number of queens when there are none).

    ``weights`` is a dense matrix or, for weights constant per colour, the two values: a
    queen on (i, j) is on a black square when i + j is even (counted here without any
    n x n array)."""
    cols = as_integer_columns(placement)
    if weights is None:
        return float(cols.size)
    if isinstance(weights, ColourWeights):
        black = int(np.count_nonzero(((np.arange(cols.size) + cols) & 1) == 0))
        value = float(black * weights.black + (cols.size - black) * weights.white)
    else:
        value = float(np.asarray(weights, dtype=float)[np.arange(cols.size), cols].sum())
    return value + 0.0  # weights of -0.0 summed to -0.0, written "-0.0"


#: Read-only placement arrays (boards of ``ARRAY_PLACEMENT_FROM`` queens and more, which a
#: Result holds as such) already found to be solutions, by ``id``: a weak reference to the
#: array, n and the fixed queens. A result is checked on each step of its way out (the
#: method's answer, the call's, the costs' view); the board's check, 1 s at 10^8 queens,
#: is done once, and only the objective (the weights differ by view) again.
_SOLUTIONS: dict[int, tuple[weakref.ref[np.ndarray], int, tuple[tuple[int, int], ...]]] = {}
_SOLUTIONS_LOCK = threading.Lock()


def _seen(placement: object, n: int, fixed: tuple[tuple[int, int], ...]) -> bool:
    if not isinstance(placement, np.ndarray) or placement.flags.writeable:
        return False
    with _SOLUTIONS_LOCK:
        entry = _SOLUTIONS.get(id(placement))
    return entry is not None and entry[0]() is placement and entry[1:] == (n, fixed)


def _remember(placement: object, n: int, fixed: tuple[tuple[int, int], ...]) -> None:
    if not isinstance(placement, np.ndarray) or placement.flags.writeable:
        return
    key = id(placement)

    def forget(_: object, key: int = key) -> None:
        with _SOLUTIONS_LOCK:
            _SOLUTIONS.pop(key, None)

    with _SOLUTIONS_LOCK:
        _SOLUTIONS[key] = (weakref.ref(placement, forget), n, tuple(fixed))


def solution_conflicts(placement: Sequence[int] | np.ndarray, n: int,
                       fixed: Iterable[tuple[int, int]] = ()) -> int:
    """The attacking pairs of a placement of n queens (0: a solution), remembered for
    :func:`check_placement` when it is a read-only array and has none."""
    pairs = tuple(fixed)
    if _seen(placement, n, pairs):
        return 0
    clashes = conflicts(placement)
    if not clashes:
        cols = as_integer_columns(placement)
        if (cols.size == n and (n == 0 or (cols.min() >= 0 and cols.max() < n))
                and all(cols[r] == c for r, c in pairs)):
            _remember(placement, n, pairs)
    return clashes


def check_placement(
    placement: Sequence[int] | np.ndarray,
    n: int,
    weights: np.ndarray | ColourWeights | None,
    fixed: Mapping[int, int] | Iterable[tuple[int, int]] | None,
    claimed_objective: float | None,
    *,
    source: str,
    tol: float = 1e-6,
) -> float:
    """Raise :class:`VerificationError` unless the placement solves the instance.

    Returns the recomputed objective; when ``claimed_objective`` is given it must agree
    within ``tol`` (relative to the magnitude for large objectives). The placement keeps its
    own integer type (no int64 copy: 0.8 GB at 10^8 queens).
    """
    cols = as_integer_columns(placement)
    pairs = tuple((fixed.items() if isinstance(fixed, Mapping) else fixed) or ())
    if not _seen(placement, n, pairs):
        if cols.size != n:
            raise VerificationError(f"{source}: placement has {cols.size} queens, "
                                    f"expected {n}")
        if cols.min() < 0 or cols.max() >= n:
            raise VerificationError(f"{source}: a queen is off the {n} x {n} board")
        clashes = conflicts(cols)
        if clashes:
            raise VerificationError(f"{source}: placement has {clashes} attacking pairs")
        moved = [(r, c) for r, c in pairs if cols[r] != c]
        if moved:
            raise VerificationError(f"{source}: fixed queens not kept: {moved}")
        _remember(placement, n, pairs)
    value = objective_of(cols, weights)
    if claimed_objective is not None:
        scale = max(1.0, abs(value))
        if abs(value - claimed_objective) > tol * scale:
            raise VerificationError(
                f"{source}: solver reports objective {claimed_objective}, the placement is "
                f"worth {value}"
            )
    return value


def verified(instance: Instance, result: Result) -> Result:
    """Check a result's placement and objective independently; raise if they are wrong."""
    source = f"{result.method} ({result.solver})"
    if result.placement is None:
        if result.status in (Status.OPTIMAL, Status.FEASIBLE):
            raise VerificationError(f"{source}: status {result.status} without a placement")
        return result
    if result.status in (Status.INFEASIBLE, Status.UNKNOWN):
        raise VerificationError(f"{source}: status {result.status} with a placement")
    value = check_placement(
        result.placement,
        instance.n,
        instance.colours if instance.colours is not None else instance.dense,
        instance.fixed,
        result.objective,
        source=source,
    )
    bound = result.bound
    slack = 1e-6 * max(1.0, abs(value))
    if instance.sense == "min":
        if bound is not None and value < bound - slack:
            raise VerificationError(f"{source}: cost {value} is below the proven lower bound "
                                    f"{bound}")
    elif bound is not None and value > bound + slack:
        raise VerificationError(f"{source}: objective {value} exceeds the proven bound {bound}")
    if bound is not None and (value < bound if instance.sense == "min" else value > bound):
        # past the bound within the slack: the two sums' rounding (chess 0.1/0.2 at n = 9,
        # HiGHS: objective 1.5000000000000002, bound 1.4999999999999998), not a better
        # placement; the bound is the placement's value
        result = result.with_(bound=value)
    # the objective as recomputed; a result that gives none keeps none (the first solution
    # in lexicographic order is ranked by order, not by a number)
    return result.with_(objective=None if result.objective is None else value)


def check_solution_batch(
    placements: np.ndarray,
    fixed: Mapping[int, int] | Iterable[tuple[int, int]] | None,
    *,
    source: str,
) -> None:
    """Raise :class:`VerificationError` unless every row of the (K, n) integer array is a
    solution of the n x n board keeping the ``fixed`` queens.

    The same first principles as :func:`conflicts`, for many small boards at once: sorted
    along each row, the columns, the diagonals (i - col) and the anti-diagonals (i + col)
    must hold no two equal values."""
    batch = np.asarray(placements)
    if batch.ndim != 2 or not np.issubdtype(batch.dtype, np.integer):
        raise VerificationError(f"{source}: a batch of placements is a 2-D integer array")
    count, n = batch.shape
    if count == 0 or n == 0:
        return
    if batch.min() < 0 or batch.max() >= n:
        raise VerificationError(f"{source}: a queen is off the {n} x {n} board")
    rows = np.arange(n)
    for family in (batch, rows - batch, rows + batch):
        ordered = np.sort(family, axis=1)
        clash = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
        if clash.size:
            bad = batch[clash[0]].tolist()
            raise VerificationError(f"{source}: placement {bad} has attacking queens")
    if fixed:
        pairs = fixed.items() if isinstance(fixed, Mapping) else fixed
        for row, col in pairs:
            moved = np.flatnonzero(batch[:, row] != col)
            if moved.size:
                raise VerificationError(
                    f"{source}: placement {batch[moved[0]].tolist()} moves the fixed queen "
                    f"({row}, {col})"
                )
