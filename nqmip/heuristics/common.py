"""Ground shared by every heuristic: seeding, starting permutations, parameter checks, and
the conversion of a heuristic's outcome into the package's :class:`Result`."""

from __future__ import annotations

import math
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from nqmip.budget import Deadline
from nqmip.chunks import kernel_seed as kernel_seed  # each chunk's seed, by the loop
from nqmip.instance import Instance
from nqmip.outcome import make_result
from nqmip.progress import ProgressCallback, ProgressReporter
from nqmip.result import (
    Counters,
    Placement,
    Provenance,
    Result,
    Termination,
    Timing,
    as_placement,
)
from nqmip.verify import conflicts, solution_conflicts
from nqmip.watchdog import join_at_exit


class ParameterError(ValueError):
    """A heuristic parameter out of its range (a population of 0, a probability of 1.5)."""


#: The iteration or evaluation budget of a heuristic given a time limit and no budget of its
#: own: unlimited in practice, so it improves until the deadline (or reaches its bound).
UNLIMITED = 2**62


def stop_clock(time_limit: float | Deadline | None) -> Deadline:
    """The deadline a search polls, made when the method is called (before numba's compile:
    one clock, compile included): a Deadline as it is (so a cancel from another thread is
    heard), a number of seconds from now, or no limit."""
    if isinstance(time_limit, Deadline):
        return time_limit
    if time_limit is not None:
        check_float("time_limit", time_limit, 0.0, float("inf"), low_open=True)
    return Deadline(time_limit)


def default_budget(time_limit: float | Deadline | None, without_limit: int) -> int:
    """A heuristic's budget when the caller gives none: unlimited under a time limit (the
    deadline stops it), ``without_limit`` otherwise (so a call without a limit ends)."""
    limited = (time_limit.limited if isinstance(time_limit, Deadline)
               else time_limit is not None)
    return UNLIMITED if limited else without_limit


def make_rng(seed: int | None) -> np.random.Generator:
    """The one generator of a run, created from ``seed`` and passed down explicitly."""
    return np.random.default_rng(seed)


def free_rows_and_columns(instance: Instance) -> tuple[np.ndarray, np.ndarray]:
    """Rows without a fixed queen, and the columns no fixed queen takes (int32, sorted)."""
    n = instance.n
    fixed = instance.fixed_map
    rows = np.array([r for r in range(n) if r not in fixed], dtype=np.int32)
    taken = set(fixed.values())
    cols = np.array([c for c in range(n) if c not in taken], dtype=np.int32)
    return rows, cols


def random_permutation(instance: Instance, rng: np.random.Generator) -> np.ndarray:
    """A random permutation (int32) that keeps every fixed queen in place."""
    perm = np.empty(instance.n, dtype=np.int32)
    for row, col in instance.fixed:
        perm[row] = col
    rows, cols = free_rows_and_columns(instance)
    perm[rows] = rng.permutation(cols)
    return perm


def checked_start(instance: Instance, start: Any) -> np.ndarray:
    """A caller's ``start`` placement as an int64 copy, refused (:class:`ParameterError`)
    unless it is a permutation keeping the fixed queens with no attacking pair."""
    n = instance.n
    perm = np.asarray(start, dtype=np.int64).copy()
    if perm.shape != (n,) or not np.array_equal(np.sort(perm), np.arange(n)) \
            or any(perm[r] != c for r, c in instance.fixed):
        raise ParameterError(f"start must be a permutation of 0..{n - 1} keeping the "
                             "fixed queens")
    if conflicts(perm):
        raise ParameterError("start must be conflict-free")
    return perm


def fixed_queens_clash(instance: Instance) -> bool:
    """True when two fixed queens attack each other (same column, diagonal or
    anti-diagonal): then no placement exists."""
    seen_cols: set[int] = set()
    seen_diag: set[int] = set()
    seen_anti: set[int] = set()
    for row, col in instance.fixed:
        if col in seen_cols or row - col in seen_diag or row + col in seen_anti:
            return True
        seen_cols.add(col)
        seen_diag.add(row - col)
        seen_anti.add(row + col)
    return False


#: The most a caller's whole parameter may be without a bound of its own (checked at the
#: doors, nqmip.heuristics.params.check_own_value; inside, up to UNLIMITED): more work
#: than a run does in a day, far below what the kernels' 64-bit counters hold once
#: multiplied by n (2**63 met OverflowError, 'int too big to convert': a traceback at the
#: command and an 'error' cell in the compare; quota's samples=2**62 wrapped and ended
#: its run at once).
MOST_WHOLE = 10**12


def check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ParameterError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        upper = f" and at most {high}" if high is not None else ""
        raise ParameterError(f"{name} must be at least {low}{upper}, got {value}")
    if value > UNLIMITED:  # the package's own 'no limit' (a caller's: MOST_WHOLE)
        raise ParameterError(f"{name} must be at most 2**62, got {value}")
    return int(value)


def check_float(
    name: str, value: Any, low: float, high: float, *, low_open: bool = False
) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a number, got {value!r}") from None
    if not np.isfinite(v) or v < low or v > high or (low_open and v == low):
        bracket = "(" if low_open else "["
        raise ParameterError(f"{name} must be in {bracket}{low}, {high}], got {value!r}")
    return v


@dataclass(frozen=True)
class Bound:
    """The range of a heuristic's own numeric parameter, declared once in its module's
    ``BOUNDS`` (read by its entry through :func:`checked`, and before the run by
    :mod:`nqmip.heuristics.params`): a whole number from ``low`` (to ``high``), or a
    number in ``[low, high]`` with either end open."""

    low: float
    high: float | None = None
    whole: bool = True
    low_open: bool = False
    high_open: bool = False

    def check(self, name: str, value: Any) -> Any:
        """``value`` as an int or a float, or :class:`ParameterError` naming ``name``."""
        if self.whole:
            return check_int(name, value, int(self.low),
                             None if self.high is None else int(self.high))
        high = math.inf if self.high is None else self.high
        try:
            number = check_float(name, value, self.low, high, low_open=self.low_open)
            if self.high_open and number == high:
                raise ParameterError(name)
        except ParameterError:
            if isinstance(value, bool | str) or value is None:
                raise
            raise ParameterError(f"{name} must be in {'(' if self.low_open else '['}"
                                 f"{self.low}, {high}{')' if self.high_open else ']'}, "
                                 f"got {value!r}") from None
        return number


def checked(bounds: Mapping[str, Bound], name: str, value: Any) -> Any:
    """``value`` of the parameter ``name`` checked against its declared :class:`Bound`."""
    return bounds[name].check(name, value)


#: :func:`weight_bound` of each instance alive: a dense board's is two passes over its
#: n x n weights (1 s at n = 20,000), asked for by the search, the solve and the answer
#: given after the time limit; the instance is read-only.
_BOUNDS: weakref.WeakKeyDictionary[Instance, float] = weakref.WeakKeyDictionary()


def weight_bound(instance: Instance, *, coarse: bool = False) -> float:
    """A cheap bound: for gains (maximisation) the smaller of Σ row maxima and Σ column
    maxima, for costs the larger of Σ row minima and Σ column minima (n if no weights).

    Fixed queens count with their own weight in their row and column. Colour weights need
    no matrix: every free row and column holds squares of both colours (n > 1).
    ``coarse``: when it is not known yet, the free rows times the largest weight (the
    smallest for costs) instead, with no pass over the board (the answer after the time
    limit).
    """
    known = _BOUNDS.get(instance)
    if known is None and coarse and instance.dense is not None:
        fixed = instance.fixed_map
        rows = np.fromiter(fixed.keys(), dtype=np.int64, count=len(fixed))
        cols = np.fromiter(fixed.values(), dtype=np.int64, count=len(fixed))
        low, high = instance.weight_range()  # known since the instance was checked
        best = high if instance.sense != "min" else low
        return float((instance.n - len(fixed)) * best
                     + instance.weights_at(rows, cols).sum())
    if known is None:
        known = _BOUNDS[instance] = _weight_bound(instance)
    return known


def _weight_bound(instance: Instance) -> float:
    if instance.is_feasibility:
        return float(instance.n)
    top = instance.sense != "min"
    fixed = instance.fixed_map
    if instance.colours is not None and instance.n > 1:
        pick = max if top else min
        best = pick(instance.colours.black, instance.colours.white)
        rows = np.fromiter(fixed.keys(), dtype=np.int64, count=len(fixed))
        cols = np.fromiter(fixed.values(), dtype=np.int64, count=len(fixed))
        own = float(instance.weights_at(rows, cols).sum())
        return float((instance.n - len(fixed)) * best + own)
    w = instance.weight_matrix()
    row_best = (w.max(axis=1) if top else w.min(axis=1)).copy()
    col_best = (w.max(axis=0) if top else w.min(axis=0)).copy()
    for r, c in fixed.items():
        row_best[r] = w[r, c]
        col_best[c] = w[r, c]
    sums = (float(row_best.sum()), float(col_best.sum()))
    return min(sums) if top else max(sums)


def cheap_bound_of(instance: Instance, deadline: Deadline | None = None, *,
                   cached: bool = False) -> tuple[float, str]:
    """The bound every heuristic starts from, and its source: on a small board the optimum
    itself, every placement looked at (:mod:`nqmip.heuristics.exhaustive`, where
    ``deadline`` leaves the time, or with ``cached`` where listed already: a search stops
    when it reaches it, proven), else :func:`weight_bound`."""
    from nqmip.heuristics.exhaustive import small_bound

    optimum = small_bound(instance, deadline, cached=cached)
    if optimum is not None:
        return optimum, "exhaustive"
    return weight_bound(instance), "row_column_maxima"


#: Seconds the colour bound's integer program may take for a heuristic (cached per n: paid
#: once per process and board size; 0.03 s at n <= 10, its cap from n = 20 to 100, O(n)
#: and milliseconds beyond). It runs beside the search, never before it.
COLOUR_BOUND_SECONDS = 0.5
#: Seconds a heuristic waits for the colour bound before its first move.
QUICK_WAIT = 0.05


class KnownBound:
    """The best bound a heuristic knows while it runs (maximisation): the row and column
    maxima at once, and where the weights are constant per colour with two values the
    colour bound, once its integer program has answered in a background thread (HiGHS
    releases the GIL: a run with a time limit does not wait for it; one without, whose
    counters must not depend on the machine's speed, does). A search reads :meth:`get`
    between chunks; reaching it proves the placement optimal."""

    def __init__(self, instance: Instance, deadline: Deadline | None = None) -> None:
        self._known = cheap_bound_of(instance, deadline)
        colours = instance.colours
        if self._known[1] == "exhaustive" or instance.is_feasibility or colours is None \
                or colours.black == colours.white or instance.sense == "min" \
                or instance.n < 2:
            self._thread: threading.Thread | None = None
            return
        seconds = COLOUR_BOUND_SECONDS
        if deadline is not None and deadline.limited:
            seconds = max(min(seconds, 0.05 * deadline.remaining()), 0.01)
        self._thread = threading.Thread(target=self._colour, args=(instance, seconds),
                                        name="nqmip-colour-bound", daemon=True)
        self._thread.start()
        join_at_exit(self._thread)  # HiGHS may outlast a short run (a model of n = 10^5)
        # Small boards have it at once (0.03 s at n <= 10). Without a time limit the run is
        # a budget's, the same on any machine: it starts from the bound, waited for.
        limited = deadline is not None and deadline.limited
        self._thread.join(QUICK_WAIT if limited else None)

    def _colour(self, instance: Instance, seconds: float) -> None:
        from nqmip.formulation.colour_bound import black_queen_bound

        colours = instance.colours
        assert colours is not None
        best = black_queen_bound(instance.n, instance.fixed,
                                 maximise=colours.black > colours.white, time_limit=seconds)
        if best is not None:
            bound = instance.n * colours.white + (colours.black - colours.white) * best
            if bound < self._known[0]:
                self._known = (bound, "colour_bound")  # one assignment: read whole

    def get(self) -> tuple[float, str]:
        """The bound known now and where it comes from."""
        return self._known

    def wait(self, seconds: float) -> tuple[float, str]:
        """The bound, after waiting at most ``seconds`` for the colour bound."""
        if self._thread is not None:
            self._thread.join(seconds)
        return self._known

    def final(self, deadline: Deadline | None = None) -> tuple[float, str]:
        """The bound a result reports: the colour bound waited for (within what is left of
        ``deadline``) when the search ended first, so that an optimum it reached is
        proven."""
        left = COLOUR_BOUND_SECONDS
        if deadline is not None and deadline.limited:
            left = min(left, deadline.remaining())
        return self.wait(left)


def known_bound(instance: Instance, deadline: Deadline | None = None) -> tuple[float, str]:
    """The best bound a heuristic knows, waited for (:class:`KnownBound`): the colour bound
    where the weights are constant per colour with two values, else :func:`weight_bound`;
    and where it comes from (``"colour_bound"`` or ``"row_column_maxima"``)."""
    return KnownBound(instance, deadline).wait(COLOUR_BOUND_SECONDS + 1.0)


def heuristic_result(
    instance: Instance,
    method: str,
    placement: np.ndarray | None,
    *,
    wall_time: float,
    seed: int | None,
    termination: Termination,
    evaluations: int | None = None,
    iterations: int | None = None,
    improvements: int | None = None,
    compile_time: float | None = None,
    best_conflicts: int | None = None,
    solver: str = "nqmip",
    extra: dict[str, Any] | None = None,
    bound: tuple[float, str] | None = None,
) -> Result:
    """The verified :class:`Result` of a heuristic run (:func:`nqmip.outcome.make_result`):
    ``wall_time`` is the run's, compile included; ``bound`` the one it knew and its source
    (default :func:`cheap_bound_of`), which proves the placement optimal when it meets it.

    A placement with conflicts is never returned as a solution: it becomes status
    ``unknown`` with no placement and ``extra["best_conflicts"]``.
    """
    extra = dict(extra or {})
    answer: Placement | None = None
    if placement is not None:
        answer = as_placement(placement)  # the object verified() checks, once
        clashes = solution_conflicts(answer, instance.n, instance.fixed)
        if clashes:
            best_conflicts, answer = clashes, None
    if answer is None and best_conflicts is not None:
        extra["best_conflicts"] = int(best_conflicts)
    value, source = cheap_bound_of(instance, cached=True) if bound is None else bound
    proven = answer is not None and (
        instance.is_feasibility or instance.objective(answer) >= value - 1e-9)
    return make_result(
        instance, method, answer, termination, solver=solver, proven=proven,
        bound=None if answer is None else value,
        timing=Timing(wall=wall_time, compile=compile_time),
        counters=Counters(iterations=iterations, evaluations=evaluations,
                          improvements=improvements),
        provenance=Provenance(plan=(method,), proof="bound" if proven else None,
                              bound_source=source if answer is not None else None,
                              incumbent_source=method if answer is not None else None),
        seed=seed, extra=extra)


#: What a search's chunk loop reads for its report: (incumbent, bound, conflicts left),
#: each None where the search has none (maximisation terms).
Reading = tuple[float | None, float | None, int | None]


#: Largest board whose best placement a heuristic copies into its progress report at each
#: improvement (O(n), between chunks): the call answers with it if the search cannot return
#: in time (a run abandoned by the watchdog).
REPORT_PLACEMENT_MAX_N = 100_000


def chunk_progress(method: str, on_progress: ProgressCallback | None,
                   read: Callable[[], Reading],
                   best: Callable[[], np.ndarray | None] | None = None,
                   ) -> Callable[[], None] | None:
    """The chunk loop's ``progress`` for a heuristic: ``read()`` between chunks, passed to
    ``on_progress`` through a :class:`~nqmip.progress.ProgressReporter` (an improvement at
    once, anything else at most every 0.2 s); ``best()``, the search's best board, is copied
    into the report when the incumbent improves (up to ``REPORT_PLACEMENT_MAX_N`` queens).
    None without a callback."""
    if on_progress is None:
        return None
    report = ProgressReporter(method, on_progress)

    def copy() -> Any:
        board = best() if best is not None else None
        if board is None or board.size > REPORT_PLACEMENT_MAX_N:
            return None
        return as_placement(board)  # a tuple: a copy the search will not change

    def progress() -> None:
        incumbent, bound, conflicts_left = read()
        report(incumbent=incumbent, bound=bound, conflicts=conflicts_left,
               placement=copy if best is not None else None)

    return progress


def timed_compile(warmup: Callable[[], Any]) -> float:
    """Run a kernel's warm-up call once (numba compiles or loads its cache); return seconds.

    Callers report this as ``compile_time``, apart from the run's ``wall_time``.
    """
    start = time.perf_counter()
    warmup()
    return time.perf_counter() - start


def explicit_result(instance: Instance, seed: int | None) -> Result:
    """The explicit solution of :mod:`nqmip.construct` as a verified result (n >= 4; no
    placement for n = 2, 3): the first incumbent of ``auto`` at any n."""
    from nqmip.construct import explicit_solution

    begin = time.perf_counter()
    placement = explicit_solution(instance.n)
    return heuristic_result(
        instance, "explicit", None if placement is None else placement.astype(np.int32),
        wall_time=time.perf_counter() - begin, seed=seed,
        termination=Termination.SOLUTION_FOUND, solver="explicit construction")
