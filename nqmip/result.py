"""One result type for every method, exact or heuristic.

Following Pyomo's newer solver interface, *why the method stopped* (``termination``) is
kept apart from *what it found* (``status``): a time limit is not an error, and a run
that hit its limit with an incumbent is ``feasible`` with ``termination = time_limit``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any

import numpy as np

from nqmip.trajectory import Point


class Status(StrEnum):
    """What the method found."""

    OPTIMAL = "optimal"  # a placement proven optimal (objective == bound)
    FEASIBLE = "feasible"  # a valid placement, optimality not proven
    INFEASIBLE = "infeasible"  # proven: no valid placement exists
    UNKNOWN = "unknown"  # stopped before finding a placement or a proof


class Termination(StrEnum):
    """Why the method stopped."""

    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    TIME_LIMIT = "time_limit"
    ITERATION_LIMIT = "iteration_limit"  # also evaluation and node limits
    SOLUTION_FOUND = "solution_found"  # a heuristic reached its goal
    TARGET = "target"  # the incumbent reached the caller's target (``target=``)
    GAP = "gap"  # the bound came within the caller's ``mip_gap`` of the incumbent: no proof
    INTERRUPTED = "interrupted"
    ERROR = "error"
    UNKNOWN = "unknown"  # the solver did not say why it stopped


@dataclass(frozen=True)
class Provenance:
    """How a result was obtained, in declared fields (not free ``extra`` keys).

    - ``plan``: the steps that ran, in order (``("sa", "highs")``, ``("colour proof",)``).
    - ``proof``: what proves the status: ``"solver"`` (the solver's own proof),
      ``"colour_bound"`` (a placement reaching the colour bound, :mod:`nqmip.colour.proof`),
      ``"bound"`` (an incumbent meeting a cheap bound), ``"fixed_queens"`` (the fixed
      queens fill the board, or leave a row or column no square), ``"exhaustive"`` (a
      small board: every placement looked at, none or one exists, or the best of them
      answered by a search stopped before its own answer), or
      None (nothing proven).
    - ``bound_source``: where ``bound`` comes from: ``"solver"``, ``"colour_bound"``,
      ``"lp_relaxation"``, ``"row_column_maxima"``, ``"exhaustive"`` (the optimum of a
      small board, every placement looked at: :mod:`nqmip.heuristics.exhaustive`),
      ``"reported"`` (the method's last progress report, when it was stopped before it
      returned), or None without a bound.
    - ``refuted_black_counts``: black-queen counts refuted by the line sets (they lowered
      the colour bound).
    - ``incumbent_source``: where the placement comes from: ``"solver"``, ``"warm_start"``,
      ``"colour_search"``, ``"fixed"`` (the fixed queens alone), ``"explicit"`` (the
      explicit construction), ``"climbed"`` (the construction improved by a short swap climb),
      ``"completion"`` (a short search's completion of the fixed queens) and
      ``"repaired"`` (min-conflicts' completion of them, beyond the short search's rows):
      what a search stopped before it held a placement answers; ``"exhaustive"`` (a small
      board's only placement); ``"every"`` (the best of a small board's placements, every
      one listed: what a search stopped before its answer gives there); ``"outside"`` (a model of
      :func:`~nqmip.formulation.build_model` solved by the caller,
      :func:`~nqmip.formulation.roundtrip.result_from_model`); or a heuristic's name.
    - ``warm_start``: what was given as the start: ``"placement"``, ``"result"``, a
      heuristic's name, or the exact pipeline's own start under a time limit,
      ``"explicit"`` or ``"climbed"`` (then also the ``incumbent_source`` when it is the
      answer), or None; ``start_objective`` its value (in the result's terms)
      and ``start_accepted`` whether the solver took it (None: no start, or a solver
      that cannot say).
    """

    plan: tuple[str, ...] = ()
    proof: str | None = None
    bound_source: str | None = None
    refuted_black_counts: tuple[int, ...] = ()
    incumbent_source: str | None = None
    warm_start: str | None = None
    start_objective: float | None = None
    start_accepted: bool | None = None

    def with_(self, **changes: Any) -> Provenance:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return {"plan": list(self.plan), "proof": self.proof,
                "bound_source": self.bound_source,
                "refuted_black_counts": list(self.refuted_black_counts),
                "incumbent_source": self.incumbent_source, "warm_start": self.warm_start,
                "start_objective": _number(self.start_objective),
                "start_accepted": self.start_accepted}


@dataclass(frozen=True)
class Timing:
    """Seconds, all within the one call (``time_limit`` bounds ``wall``).

    - ``wall``: the whole call, numba's load and compile included;
    - ``compile``: of which numba's compile or cache load (None: nothing compiled);
    - ``start``: of which the warm start's heuristic (exact backends);
    - ``solve``: of which the exact solver's own run;
    - ``to_best``: when the returned placement's objective was first reached;
    - ``to_target``: when the incumbent first reached the caller's target (None: never, or
      no target).
    """

    wall: float = 0.0
    compile: float | None = None
    start: float | None = None
    solve: float | None = None
    to_best: float | None = None
    to_target: float | None = None

    def with_(self, **changes: Any) -> Timing:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, float | None]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Counters:
    """The work a method did, in its own units (None: not counted by this method):
    ``nodes`` of a tree search, ``iterations`` (moves, generations), ``evaluations`` (boards
    or swaps whose cost was computed) and ``improvements`` of its best."""

    nodes: int | None = None
    iterations: int | None = None
    evaluations: int | None = None
    improvements: int | None = None

    def with_(self, **changes: Any) -> Counters:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, int | None]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _number(value: float | None) -> float | str | None:
    """A float as JSON can hold it: NaN as None, the infinities as strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else str(value)
    return value


def status_of(termination: Termination, found: bool, proven: bool = False) -> Status:
    """The one map from why a method stopped and what it holds to what it found: a proof
    (``proven``, or termination ``optimal`` / ``infeasible``) makes ``optimal`` with a
    placement and ``infeasible`` without one; otherwise a placement is ``feasible`` and
    none is ``unknown``."""
    if termination is Termination.INFEASIBLE and not found:
        return Status.INFEASIBLE
    if found:
        return Status.OPTIMAL if proven or termination is Termination.OPTIMAL \
            else Status.FEASIBLE
    return Status.INFEASIBLE if proven else Status.UNKNOWN


#: Seed used when the caller gives none, by every method: the same command gives the same
#: answer, and the result's ``seed`` records it.
DEFAULT_SEED = 0

#: From this many queens a placement is a read-only int32 numpy array, not a tuple: a tuple
#: of 10^8 Python ints takes about 3.6 GB, the array 0.4 GB.
ARRAY_PLACEMENT_FROM = 1_000_000

Placement = tuple[int, ...] | np.ndarray


def as_placement(columns: Sequence[int] | np.ndarray) -> Placement:
    """A placement as stored in a :class:`Result`: a tuple of ints, or for boards of
    ``ARRAY_PLACEMENT_FROM`` queens and more, a read-only int32 array."""
    array = np.asarray(columns)
    if array.size >= ARRAY_PLACEMENT_FROM:
        if array.dtype == np.int32 and not array.flags.writeable:
            return array  # already one: the same object, checked once (nqmip.verify)
        # No copy when it already is int32: the heuristic hands its board over.
        array = np.asarray(array, dtype=np.int32).view()
        array.setflags(write=False)
        return array
    return tuple(array.tolist())


@dataclass(frozen=True)
class Result:
    """The outcome of :func:`nqmip.solve`, identical in form for every method.

    What was found: ``status``, ``objective``, ``bound`` (an upper bound when maximising, a
    lower bound for costs: ``sense == "min"``), ``gap`` and ``placement`` (``placement[i]``
    is the column of the queen in row ``i``, 0-based; None when none was found; a tuple, or
    from ``ARRAY_PLACEMENT_FROM`` queens a read-only int32 numpy array). Why the method
    stopped: ``termination``. How long: ``timing`` (``wall_time`` is ``timing.wall``) and
    the ``trajectory`` of (seconds, incumbent, bound) at each improvement. How much work:
    ``counters``. How it was obtained: ``provenance``. Every placement in a ``Result`` has
    passed the independent checker in :mod:`nqmip.verify`.
    """

    status: Status
    termination: Termination
    n: int
    method: str
    solver: str
    objective: float | None
    bound: float | None
    placement: Placement | None
    timing: Timing = field(default_factory=Timing)
    counters: Counters = field(default_factory=Counters)
    provenance: Provenance = field(default_factory=Provenance)
    trajectory: tuple[Point, ...] = ()
    sense: str = "max"  # "min": objective is a cost, bound a lower bound
    weights_name: str = "none"  # the instance's name ("chess", "random(seed=3)", ...)
    fixed: tuple[tuple[int, int], ...] = ()  # the instance's pre-placed queens, (row, col)
    seed: int | None = None
    target: float | None = None  # the caller's target, if any (termination "target")
    message: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # method-specific statistics only

    def _fields_but(self, *names: str) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in fields(self) if f.name not in names)

    def __eq__(self, other: object) -> bool:
        """Field by field, the placement by value whether tuple or array (``==`` between
        two results at 10^6 queens raised numpy's "truth value of an array is ambiguous")."""
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Result)
        mine, theirs = self.placement, other.placement
        same = (mine is theirs or (mine is not None and theirs is not None
                                   and np.array_equal(mine, theirs)))
        return same and self._fields_but("placement") == other._fields_but("placement")

    def __hash__(self) -> int:
        """Over the fields that hash (not ``extra``, a dict, nor the placement, which may be
        an array): equal results hash alike. It raised "unhashable type: 'dict'"."""
        return hash(self._fields_but("placement", "extra"))

    @property
    def wall_time(self) -> float:
        """Seconds of the whole call (``timing.wall``)."""
        return self.timing.wall

    @property
    def time_to_best(self) -> float | None:
        """Seconds from the call's start until the returned objective was first reached."""
        return self.timing.to_best

    @property
    def gap(self) -> float | None:
        """Relative gap ``|bound - objective| / max(1, |objective|)``; None without a bound."""
        if self.objective is None or self.bound is None:
            return None
        if math.isinf(self.bound):
            return math.inf
        return abs(self.bound - self.objective) / max(1.0, abs(self.objective))

    @property
    def found(self) -> bool:
        return self.placement is not None

    def with_(self, **changes: Any) -> Result:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every field as JSON holds it (nested ``timing``, ``counters``, ``provenance``;
        the trajectory as [seconds, incumbent, bound] lists), and the properties ``gap``,
        ``wall_time`` and ``time_to_best``."""
        # asdict would deep-copy a placement of millions of queens; fields are shallow.
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["extra"] = dict(self.extra)
        data["timing"] = self.timing.to_dict()
        data["counters"] = self.counters.to_dict()
        data["provenance"] = self.provenance.to_dict()
        data["trajectory"] = [point.to_list() for point in self.trajectory]
        data["status"] = str(self.status)
        data["termination"] = str(self.termination)
        data["placement"] = (
            np.asarray(self.placement).tolist() if self.placement is not None else None
        )
        data["gap"] = self.gap
        data["wall_time"] = self.wall_time
        data["time_to_best"] = self.time_to_best
        for key in ("objective", "bound", "gap", "target"):
            data[key] = _number(data.get(key))
        return data

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    def __repr__(self) -> str:
        """One short line, whatever n: the placement is in ``placement``."""
        def num(value: float | None) -> str:
            if value is None:
                return "None"
            return str(int(value)) if math.isfinite(value) and value == int(value) \
                else f"{value:.6g}"

        gap = "None" if self.gap is None else f"{self.gap:.2%}"
        return (f"Result(n={self.n}, status={self.status!s}, objective={num(self.objective)}, "
                f"bound={num(self.bound)}, gap={gap}, method={self.method!r}, "
                f"wall_time={self.wall_time:.3f})")

    def _repr_html_(self) -> str:
        """Jupyter's picture of a result: the board drawn (a density picture beyond
        n = 64) with a caption; see :func:`nqmip.draw`."""
        from nqmip.drawing import result_html

        return result_html(self)


def interrupted(result: Result) -> Result:
    """``result`` of a call Ctrl-C stopped: termination interrupted, unless it is proven
    (an exact method's proof, or a heuristic's placement that meets its bound: it had
    stopped on its own, its solution found)."""
    if result.termination in (Termination.OPTIMAL, Termination.INFEASIBLE) or \
            result.status in (Status.OPTIMAL, Status.INFEASIBLE):
        return result
    return result.with_(termination=Termination.INTERRUPTED)
