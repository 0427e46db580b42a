"""One time budget for a whole call: the :class:`Deadline` every path receives.

As OR-Tools keeps one ``TimeLimit`` that all of CP-SAT's workers poll, a solve creates one
deadline from its ``time_limit`` and passes it down: the portfolio, the colour proof, the
warm start, the exact backends and the heuristics each read what is left of *the same*
clock, and none invents its own share of it. A part that should stop earlier asks for a
:meth:`Deadline.sub` deadline, which never ends after its parent. ``None`` as a time limit
means no limit, everywhere.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from numbers import Real

#: The least time limit handed to a solver or a search: solvers refuse a zero or negative
#: limit, so what is left is passed as at least this (and less than it left counts as none).
MIN_SOLVER_SECONDS = 0.01
#: The reasons of a cancel with no other word, and of a limit reached (the values of
#: :class:`nqmip.result.Termination`, which this lower layer does not import).
INTERRUPTED = "interrupted"
TIME_LIMIT = "time_limit"
TARGET = "target"


class Deadline:
    """A point in time (``time.perf_counter``) by which work must stop, or none.

    ``Deadline(None)`` never expires; ``Deadline(5.0)`` expires five seconds from now.
    :meth:`cancel` ends it at once, and with it every deadline :meth:`sub` made from it
    (auto stops the annealing it runs beside a proof once the proof is done).
    """

    __slots__ = ("_asked", "_cancelled", "_cancelled_at", "_end", "_hears", "_parent",
                 "_reason", "_start")

    def __init__(self, seconds: float | None = None, *, start: float | None = None,
                 asked: float | None = None) -> None:
        """``asked``: the limit the user gave, where ``seconds`` is what is left of it for
        this work (the command keeps some to start and print): :meth:`total`."""
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, Real)):
            raise TypeError(f"a time limit is a non-negative number of seconds, got "
                            f"{type(seconds).__name__} {seconds!r}")  # 'x': math's own words
        if seconds is not None and (math.isnan(seconds) or seconds < 0):
            raise ValueError(f"a time limit is a non-negative number of seconds, got {seconds}")
        self._start = time.perf_counter() if start is None else start
        self._end = math.inf if seconds is None else self._start + float(seconds)
        self._parent: Deadline | None = None
        self._hears: Deadline | None = None  # whose cancel ends this one too
        self._cancelled = False
        self._cancelled_at = math.inf
        self._reason: str | None = None
        self._asked = None if asked is None or seconds is None else float(asked)

    @classmethod
    def of(cls, limit: float | Deadline | None) -> Deadline:
        """The deadline itself, or a new one for ``limit`` seconds (None: no limit)."""
        return limit if isinstance(limit, Deadline) else cls(limit)

    def _until(self) -> float:
        """The end of this deadline, or of an ancestor cancelled before it."""
        end = self._end
        parent = self._parent
        while parent is not None:
            end = min(end, parent._end)
            parent = parent._parent
        if self._hears is not None and self._hears.cancelled():
            end = min(end, self._hears._until())
        return end

    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called on this deadline or on one it was made from."""
        node: Deadline | None = self
        while node is not None:
            if node._cancelled or (node._hears is not None and node._hears.cancelled()):
                return True
            node = node._parent
        return False

    def own_clock(self, seconds: float | None) -> Deadline:
        """A deadline ``seconds`` from now, whatever is left here, that still ends when this
        one is cancelled (a solver's limit that does not count its model's building)."""
        fresh = Deadline(seconds)
        fresh._hears = self
        return fresh

    @property
    def limited(self) -> bool:
        return not math.isinf(self._until())

    @property
    def start(self) -> float:
        return self._start

    def elapsed(self) -> float:
        """Seconds since this deadline was created."""
        return time.perf_counter() - self._start

    def remaining(self) -> float:
        """Seconds left (``inf`` without a limit, 0 once expired)."""
        return max(self._until() - time.perf_counter(), 0.0)

    def expired(self) -> bool:
        return time.perf_counter() >= self._until()

    def cancel(self, reason: str = INTERRUPTED) -> None:
        """End now: this deadline and the ones made from it (even in other threads) expire.
        ``reason`` says why, in the words of :class:`nqmip.result.Termination` (the one who
        stops the work knows: a proof "optimal" or "infeasible", the caller's "target", a
        Ctrl-C "interrupted", the watchdog's "time_limit"); :meth:`stopped_by` reads it.
        The first cancel's reason is kept."""
        now = time.perf_counter()
        self._end = min(self._end, now)
        if not self._cancelled:
            self._cancelled, self._cancelled_at, self._reason = True, now, reason

    def stopped_by(self) -> str | None:
        """Why this deadline has ended: the reason of the earliest :meth:`cancel` on it, on
        one it was made from or on one it hears, else "time_limit" once it has expired;
        None while it runs."""
        first = min((node for node in self._lineage() if node._cancelled),
                    key=lambda node: node._cancelled_at, default=None)
        if first is not None:
            return first._reason
        return TIME_LIMIT if self.expired() else None

    def _lineage(self) -> list[Deadline]:
        """This deadline, those it was made from, and those it hears, and theirs."""
        found: list[Deadline] = []
        node: Deadline | None = self
        while node is not None:
            found.append(node)
            if node._hears is not None:
                found += node._hears._lineage()
            node = node._parent
        return found

    def total(self) -> float | None:
        """The seconds this deadline was given from its start, however many have gone (None
        without a limit): the caller's whole limit, for a choice that reads a limit as long
        or short (a 30 s limit had 29.93 s left when auto's plan was chosen, below its 30 s
        threshold, so that a limit of exactly 30 s never reached the plan it names): the
        limit ``asked`` where one was given (the command's 30 s gave the solve 29.8 s)."""
        if math.isinf(self._end):
            return None
        return self._asked if self._asked is not None else self._end - self._start

    def seconds(self, floor: float = 0.0) -> float | None:
        """What is left as a solver's time-limit option: None without a limit, else at least
        ``floor`` seconds (solvers refuse a zero or negative limit)."""
        if not self.limited:
            return None
        return max(self.remaining(), floor)

    def sub(self, seconds: float | None = None, *, share: float | None = None) -> Deadline:
        """A deadline for a part of the work: ``seconds`` from now and/or ``share`` of what is
        left, whichever ends first, and never after this one. Without a limit here, a
        ``share`` alone gives no limit either (a share of forever), ``seconds`` still does."""
        child = Deadline(None)
        child._parent = self
        end = self._until()
        now = child._start
        if seconds is not None:
            end = min(end, now + max(float(seconds), 0.0))
        if share is not None and self.limited:
            end = min(end, now + share * self.remaining())
        child._end = end
        return child

    def __repr__(self) -> str:
        if not self.limited:
            return "Deadline(no limit)"
        return f"Deadline({self.remaining():.3f} s left)"


@contextmanager
def stop_when_cancelled(deadline: Deadline | None, stop: Callable[[], object],
                        poll: float = 0.05, repeat: bool = False) -> Iterator[None]:
    """Call ``stop()`` if ``deadline`` is cancelled from another thread while the block
    runs (its time limit is the solver's own option): for solvers that block their thread
    (CP-SAT's ``stop_search``). ``repeat``: called again every ``poll`` seconds until the
    block ends, for a solver that loses a stop coming before its search has started
    (CP-SAT ran on to its own 120 s limit after a Ctrl-C, once in a CI run). Without a
    deadline there is nothing to hear: the block runs alone."""
    if deadline is None:
        yield
        return

    finished = threading.Event()

    def watch() -> None:
        while not finished.wait(poll):
            if deadline.cancelled():
                stop()
                if not repeat:
                    return

    watcher = threading.Thread(target=watch, name="nqmip-stop-watch", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()


def wait_safely(ready: Callable[[], bool], seconds: float, poll: float = 0.02) -> bool:
    """Wait until ``ready()`` or ``seconds`` have passed; whether it is ready. Safe where a
    signal may interrupt the wait (the main thread: Ctrl-C raises there), which
    ``Event.wait`` and ``Queue.get(timeout=...)`` are not: they hold a lock around
    ``Condition.wait``, and a :class:`KeyboardInterrupt` raised between its release of that
    lock and its ``try`` left the lock released, so that leaving the ``with`` raised
    ``RuntimeError: release unlocked lock`` in place of the stop (a CI run:
    ``timeout -s INT``'s two SIGINTs, the solve command's answer lost, exit 1).
    ``time.sleep`` takes no lock, and ``ready`` must never *wait* on a ``Condition`` (that
    release and re-acquire is the window), nor take a lock through Python code: a Ctrl-C
    raised inside ``Condition.__enter__`` once the lock is taken leaves it held
    (``Future.done``: a pool's shutdown then hung, :func:`nqmip.cluster._ended`).
    ``Event.is_set`` reads a flag; ``Queue.empty`` takes its plain lock in C. It looks
    every millisecond at first, then every ``poll`` seconds."""
    end = time.perf_counter() + seconds
    step = 0.001
    while not ready():
        left = end - time.perf_counter()
        if left <= 0:
            return False
        time.sleep(min(step, left))
        step = min(2 * step, poll)
    return True
