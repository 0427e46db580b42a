"""Each run's curve: the call's incumbent and bound each time either improved, when the
best was found, and when a target was reached (:class:`Trajectory`).

:func:`nqmip.solve` makes one per call and hands every method its :meth:`Trajectory.listen`
as ``on_progress``: whatever a method reports (through
:class:`~nqmip.progress.ProgressReporter`) is recorded here first (on the search's thread),
then passed on to the caller's own callback (on the call's
:class:`~nqmip.progress.Dispatcher` thread: a slow callback never holds a search up).
Values are in the maximisation's terms, as every method works (:mod:`nqmip.sense`); the
result turns them back. The cost is one comparison per report and one small tuple per
improvement, and improvements are few: at most ``TRAJECTORY_CAP`` points are kept (beyond
it every other older point goes; the first and the last stay, and the times to the best and
to the target are kept apart).

A **target** makes the call stop as soon as the incumbent reaches it: the call's deadline
is cancelled at once, every method hears the cancel within one chunk and returns its best,
and the result's termination says ``target``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from nqmip.budget import TARGET, Deadline
from nqmip.progress import Progress, ProgressCallback, finite

#: Most points one trajectory keeps (a run improving all the time is thinned, not cut).
TRAJECTORY_CAP = 256


def close_to(value: float, other: float) -> bool:
    """Equal up to the tolerance every comparison of objectives uses here."""
    return abs(value - other) <= 1e-9 * max(1.0, abs(other))


@dataclass(frozen=True)
class Point:
    """The incumbent and the bound (None: none yet) from ``seconds`` after the call began."""

    seconds: float
    incumbent: float | None
    bound: float | None

    def to_list(self) -> list[float | None]:
        return [round(self.seconds, 6), self.incumbent, self.bound]


class Trajectory:
    """The improvements of one call (see the module's docstring)."""

    def __init__(self, deadline: Deadline, *, target: float | None = None,
                 round_bound: Callable[[float], float] | None = None,
                 integral: bool = False, cap: int = TRAJECTORY_CAP) -> None:
        self.deadline = deadline
        self.target = target
        self.round_bound = round_bound
        self.integral = integral  # whole weights: an incumbent is a whole number
        self.cap = max(cap, 2)
        self.points: list[Point] = []
        self.incumbent: float | None = None
        self.bound: float | None = None
        self.best_time: float | None = None
        self.target_time: float | None = None
        #: the incumbent's placement, where a reporter handed one over (auto's parts)
        self.placement: Sequence[int] | Any | None = None
        #: the provenance the reporter gave with it (auto's steps, the incumbent's and the
        #: bound's sources): what the call's fallback answer says
        self.steps: tuple[str, ...] = ()
        self.incumbent_source: str | None = None
        self.bound_source: str | None = None
        self._lock = threading.Lock()

    @property
    def target_reached(self) -> bool:
        return self.target_time is not None

    def note(self, incumbent: float | None = None, bound: float | None = None,
             placement: Sequence[int] | Any | None = None) -> None:
        """Record an incumbent and/or a bound if either improves; cancel the call's
        deadline when the incumbent reaches the target."""
        incumbent, bound = finite(incumbent), finite(bound)
        if bound is not None and self.round_bound is not None:
            bound = self.round_bound(bound)
        if incumbent is not None and self.integral:  # a solver's 27.999999999999993 is 28
            incumbent = float(round(incumbent))
        reached = False
        with self._lock:
            now = self.deadline.elapsed()
            changed = False
            if incumbent is not None:
                if self.incumbent is None or (incumbent > self.incumbent
                                              and not close_to(incumbent, self.incumbent)):
                    self.incumbent, self.best_time, self.placement = incumbent, now, placement
                    changed = True
                elif placement is not None and self.placement is None \
                        and close_to(incumbent, self.incumbent):
                    self.placement = placement
            if bound is not None and (self.bound is None or (
                    bound < self.bound and not close_to(bound, self.bound))):
                self.bound = bound
                changed = True
            if changed:
                self._append(Point(now, self.incumbent, self.bound))
            if (self.target is not None and self.target_time is None
                    and self.incumbent is not None
                    and (self.incumbent >= self.target or close_to(self.incumbent,
                                                                   self.target))):
                self.target_time = now
                reached = True
        if reached:
            self.deadline.cancel(TARGET)  # why it stops, said where it does

    def _append(self, point: Point) -> None:
        self.points.append(point)
        if len(self.points) > self.cap:
            kept = self.points[:-1:2]
            kept.append(self.points[-1])
            self.points = kept

    def listen(self, forward: ProgressCallback | None = None) -> ProgressCallback:
        """The ``on_progress`` a method gets: record the report, then pass it on."""

        def on_progress(report: Progress) -> None:
            self.note(report.incumbent, report.bound, report.placement)
            if report.steps is not None:
                with self._lock:
                    self.steps = report.steps
                    self.incumbent_source = report.incumbent_source
                    self.bound_source = report.bound_source
            if forward is not None:
                forward(report)

        return on_progress

    def sources(self, bound: float | None,
                source: str | None) -> tuple[tuple[str, ...], str | None, str | None]:
        """The steps, the bound's source and the incumbent's of an answer built from these
        reports when the method did not return in time (:func:`nqmip.solve.fallback`):
        auto's, as its last report gave them with its placement (``source`` "reported");
        a ``bound`` that is not the reported one (the best square of each row) is said to
        be "reported" as before, and no steps are known from other methods."""
        bound_source = None if bound is None else "reported"
        if bound is not None and bound == self.bound and self.bound_source:
            bound_source = self.bound_source
        if source == "reported" and self.incumbent_source:
            source = self.incumbent_source
        return self.steps, bound_source, source

    def finish(self, objective: float | None, bound: float | None) -> None:
        """The result's own objective and bound, recorded now if no report carried them
        (a method that reports at its end only): the curve ends where the result does."""
        self.note(objective, bound)

    def closing(self, method: str, objective: float | None,
                bound: float | None) -> Progress | None:
        """The report that ends the caller's stream where the method's result does, when no
        report carried its objective or its bound (a solver proving at its end what it never
        reported, or a start it was handed that was already optimal); None when the
        reports already reached both."""
        objective, bound = finite(objective), finite(bound)
        with self._lock:
            better = objective is not None and (self.incumbent is None or (
                objective > self.incumbent and not close_to(objective, self.incumbent)))
            tighter = bound is not None and (self.bound is None or (
                bound < self.bound and not close_to(bound, self.bound)))
            now = self.deadline.elapsed()
        if not (better or tighter):
            return None
        return Progress(method, now, incumbent=objective, bound=bound)

    def time_to(self, objective: float | None) -> float | None:
        """When the incumbent first reached ``objective`` (the result's), or None."""
        if objective is None:
            return None
        for point in self.points:
            if point.incumbent is not None and (point.incumbent >= objective
                                                or close_to(point.incumbent, objective)):
                return point.seconds
        return self.best_time if self.incumbent is not None and close_to(
            self.incumbent, objective) else None
