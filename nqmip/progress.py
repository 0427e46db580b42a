"""Live reports from a running method: :class:`Progress`, the callback type, and the
reporter every method uses (:class:`ProgressReporter`).

Every method reports its incumbent and bound through one ``on_progress`` callback (the
call's, set by :func:`nqmip.solve`): the call's :class:`~nqmip.trajectory.Trajectory`
records each improvement from it, the target is checked there, and the user's own callback
hears it. An improvement always goes through at once (they are rare: a few per second at
most, far fewer over a run); a report that improves nothing is passed on at most every
``interval`` seconds.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from nqmip import numba_cache

#: Magnitudes from here on are a solver's "infinity", not a value: SCIP's is 1e20, Gurobi's
#: 1e100 (GRB.INFINITY), HiGHS's an IEEE infinity; an instance's totals stay below 2^53
#: (about 9.0e15: nqmip.instance refuses weights past it).
FINITE = 1e20


@dataclass(frozen=True)
class Progress:
    """A live report from a running method: its incumbent, bound and elapsed time.

    ``placement`` is the incumbent's placement where the reporter holds one it will not
    change (a verified result of auto's parts); None otherwise."""

    method: str
    elapsed: float
    incumbent: float | None = None
    bound: float | None = None
    conflicts: int | None = None
    placement: Sequence[int] | Any | None = None
    # What the method is doing when it is not searching (numba compiling its kernels on a
    # first run), for a live display; "" when that is over.
    note: str | None = None
    # auto's steps so far and where its incumbent and bound came from (its provenance),
    # with the placement it hands over: the call's answer names them if auto has not
    # returned by the time limit (a compile that cannot be interrupted).
    steps: tuple[str, ...] | None = None
    incumbent_source: str | None = None
    bound_source: str | None = None


ProgressCallback = Callable[[Progress], None]


def finite(value: float | None) -> float | None:
    """``value`` if it is a real number, None for None and for a solver's infinity."""
    return value if value is not None and abs(value) < FINITE else None


class ProgressReporter:
    """Forwards a method's incumbent and bound to ``on_progress`` (maximisation terms: a
    higher incumbent and a lower bound are improvements). An improvement is forwarded at
    once; anything else at most every ``interval`` seconds."""

    def __init__(self, method: str, on_progress: ProgressCallback | None,
                 interval: float = 0.2) -> None:
        self.method = method
        self.on_progress = on_progress
        self.interval = interval
        self.start = time.perf_counter()
        self._last = -interval
        self._incumbent: float | None = None
        self._bound: float | None = None

    def __call__(self, incumbent: float | None = None, bound: float | None = None,
                 conflicts: int | None = None, force: bool = False,
                 placement: Callable[[], Any] | None = None) -> None:
        """Report; ``placement()``, if given, is called only when the incumbent improves
        (it copies the search's best board: the call's fallback answers with it if the
        search cannot return in time)."""
        if self.on_progress is None:
            return
        incumbent, bound = finite(incumbent), finite(bound)
        improved = incumbent is not None and (self._incumbent is None
                                              or incumbent > self._incumbent)
        better = improved or (bound is not None and (self._bound is None
                                                     or bound < self._bound))
        now = time.perf_counter() - self.start
        if better or force or now - self._last >= self.interval:
            self._last = now
            if incumbent is not None and (self._incumbent is None
                                          or incumbent > self._incumbent):
                self._incumbent = incumbent
            if bound is not None and (self._bound is None or bound < self._bound):
                self._bound = bound
            board = placement() if improved and placement is not None else None
            self.on_progress(Progress(self.method, now, incumbent, bound, conflicts, board))


#: Seconds of a kernel load past which it was a compile (a cache load takes well under).
COMPILE_SECONDS = 2.0


def load_kernels(load: Callable[[], object], what: str, method: str,
                 on_progress: ProgressCallback | None) -> float:
    """Run ``load`` (numba's compile of ``what``'s kernels on a first run, its cache load
    after), telling ``on_progress`` first, so that a live display shows a first run's
    compile as what it is, and after (an empty note, or how long a compile took); the
    seconds it took."""
    begin = time.perf_counter()
    if on_progress is not None:
        on_progress(Progress(method, 0.0, note=f"loading the {what} kernels (numba compiles "
                                               "them on a first run, then caches them)"))
    compiled = numba_cache.compiles()
    load()
    seconds = time.perf_counter() - begin
    compiled = numba_cache.compiles() > compiled  # numba's count: a cache load is none
    if on_progress is not None:
        on_progress(Progress(method, seconds, note=(
            f"compiled the {what} kernels in {seconds:.1f} s (cached for the next runs)"
            if compiled and seconds >= COMPILE_SECONDS else "")))
    return seconds


#: Seconds after :meth:`Dispatcher.close` during which reports still waiting are passed on
#: (a quick callback hears every one; a slow one is not waited for beyond its current call).
DRAIN = 0.25


class Dispatcher:
    """Hands the caller's callback the reports of one call on a thread of its own
    (``nqmip-progress``), so that no search thread ever waits for it, and brings its
    exception back to the caller.

    A report is queued in O(1) under a short lock and the search goes on. While the
    callback is busy, reports pile up **coalesced**: the newest report of each method
    replaces the one waiting before it (notes of a kernel load are kept, they are few), so a
    slow callback hears fewer reports, the newest incumbent and bound of each method, and
    never slows the search. The first exception the callback raises (any
    ``BaseException``) ends the deliveries and calls ``on_error`` (the call cancels its
    deadline); :meth:`close` hands it back, and :func:`nqmip.solve` raises it in the caller
    once the solve has stopped.

    :meth:`close` ends the thread before the call returns: reports still waiting are passed
    on, the notes among them only for ``DRAIN`` more seconds (each method's newest report
    always); a callback still running is waited for
    (a Ctrl-C during that wait stops waiting: the thread, a daemon, ends with the call)."""

    def __init__(self, deliver: ProgressCallback, on_error: Callable[[], None]) -> None:
        self._deliver = deliver
        self._on_error = on_error
        self._pending: dict[tuple[str, int], Progress] = {}
        self._notes = 0  # a counter: every note is a key of its own
        self._ready = threading.Condition(threading.Lock())
        self._closed_at: float | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="nqmip-progress", daemon=True)
        self._thread.start()

    def __call__(self, report: Progress) -> None:
        """Queue ``report`` (called from the search threads; never waits for the callback)."""
        with self._ready:
            if self.error is not None or self._closed_at is not None:
                return
            if report.note is not None:
                self._notes += 1
                key = (report.method, self._notes)
            else:
                key = (report.method, 0)
                self._pending.pop(key, None)  # the newest goes last, after older ones
            self._pending[key] = report
            self._ready.notify()

    def _next(self) -> Progress | None:
        """The oldest report waiting, or None once closed and drained."""
        with self._ready:
            while not self._pending:
                if self._closed_at is not None:
                    return None
                self._ready.wait()
            if self._closed_at is not None and \
                    time.perf_counter() - self._closed_at > DRAIN:
                # late: the notes are dropped, each method's newest report still heard
                # (a few: the callback hears the answer's incumbent, however loaded the
                # machine is)
                for key in [key for key in self._pending if key[1] != 0]:
                    del self._pending[key]
                if not self._pending:
                    return None
            key = next(iter(self._pending))
            return self._pending.pop(key)

    def _run(self) -> None:
        while (report := self._next()) is not None:
            try:
                self._deliver(report)
            except BaseException as exc:  # raised again in the caller by close()
                with self._ready:
                    self.error = exc
                    self._pending.clear()
                self._on_error()
                return

    def close(self) -> BaseException | None:
        """Stop taking reports, pass on those waiting (for ``DRAIN`` seconds), wait for the
        thread to end; the exception the callback raised, if it did."""
        with self._ready:
            if self._closed_at is None:
                self._closed_at = time.perf_counter()
            self._ready.notify()
        try:
            while self._thread.is_alive():
                self._thread.join(0.05)
        except KeyboardInterrupt:
            with self._ready:
                self._pending.clear()
        return self.error


def forwarded(on_progress: ProgressCallback | None, log: bool,
             offset: float | None) -> ProgressCallback | None:
    """What the caller hears of the reports: in its own terms (costs when minimising), and
    with ``log`` one line per report on stderr."""
    if on_progress is None and not log:
        return None

    def forward(report: Progress) -> None:
        if offset is not None:
            report = replace(report,
                             incumbent=None if report.incumbent is None
                             else offset - report.incumbent,
                             bound=None if report.bound is None else offset - report.bound)
        if log and report.note != "":  # "": a note is over, nothing to say
            parts = [f"{report.elapsed:9.3f} s", report.method]
            if report.incumbent is not None:
                parts.append(f"incumbent {report.incumbent:g}")
            if report.bound is not None:
                parts.append(f"bound {report.bound:g}")
            if report.conflicts is not None:
                parts.append(f"conflicts {report.conflicts}")
            if report.note:
                parts.append(report.note)
            print("  ".join(parts), file=sys.stderr, flush=True)
        if on_progress is not None:
            on_progress(report)

    return forward
