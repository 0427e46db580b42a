"""A call that keeps its word: the work runs in a worker thread under the call's one
:class:`~nqmip.budget.Deadline` while the calling thread only waits (:func:`run_watched`).

The waiting thread hears Ctrl-C at once, whatever the worker is doing (a numba kernel, a
compile, a MIP solver), and it returns by the time limit even when the worker does not: a
numba compile cannot be interrupted, and a cold cache may take longer than the budget.

- **Time limit.** Once the time limit has passed the worker has ``OVERRUN`` seconds to
  return; then the deadline is cancelled (for parts that hear only a cancel) and it has
  ``LAST_CALL`` more. A worker that has not returned by then is abandoned (it ends in the
  background; it is a daemon thread), and the caller answers with what it knows. A cancel
  before the limit for a target reached abandons nothing: the worker returns its own
  best, and has until the limit to do so. A caller's cancel (reason "interrupted": its
  own, or its progress callback's exception) is a stop as Ctrl-C is: ``GRACE`` seconds,
  then the answer (glpsol does not hear a cancel: a cancel at 2 s
  of a 30 s limit was answered at 30 s; toulbar2's process of its own is stopped).
- **Ctrl-C.** The deadline is cancelled and the worker gets ``GRACE`` seconds to return
  its own best. Signals that arrive within ``REPEAT`` seconds of the first are the same
  request (a wrapper such as ``timeout -s INT`` signals the whole process group, so the
  process may hear two); a Ctrl-C after that answers at once.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

from nqmip.budget import INTERRUPTED, TIME_LIMIT, Deadline, wait_safely

#: Seconds a run cancelled by Ctrl-C has to return its own best placement.
GRACE = 0.6
#: Seconds past the deadline before the watchdog cancels it, and after that before it
#: abandons the worker: the call ends within ``OVERRUN + LAST_CALL`` of its time limit.
OVERRUN = 0.25
LAST_CALL = 0.15
#: A second Ctrl-C within this many seconds of the first is the same request.
REPEAT = 1.0
#: How often the waiting thread looks up.
POLL = 0.02
#: Seconds the interpreter's exit waits for each abandoned run (it was cancelled and ends
#: soon): a solver's C++ threads still running when the process tears down abort it
#: ("terminate called without an active exception").
EXIT_WAIT = 30.0

_ABANDONED: set[threading.Thread] = set()
#: The threads loading a method's code (importing numba, loading or compiling kernels):
#: a watched run still there at its limit has no best of its own to give.
_LOADING: set[int] = set()


@contextmanager
def loading() -> Iterator[None]:
    """Mark this thread as loading its method's code for the block: a watched run past its
    limit in it is answered at once, not after ``OVERRUN + LAST_CALL`` (ga, sa, tabu at
    0.1 s in a fresh process answered at 0.53 s, their kernels still loading)."""
    with _marked(_LOADING):
        yield


@contextmanager
def _marked(threads: set[int]) -> Iterator[None]:
    """This thread in ``threads`` for the block."""
    ident = threading.get_ident()
    threads.add(ident)
    try:
        yield
    finally:
        threads.discard(ident)


#: The threads in pure Python code for a while (:func:`in_python`): the exit does not wait
#: for them.
_IN_PYTHON: set[int] = set()


@contextmanager
def in_python() -> Iterator[None]:
    """Mark this thread as running pure Python code for the block (a Pyomo model's
    build): an exit does not wait for it there, as it waits for a thread that may be in a
    solver's C++ code. ``solve(1500, "chess", method="highs-pyomo", time_limit=3)``
    answered at 3.7 s, and the script then took 42 s to exit: the exit waited for the
    abandoned build (a Pyomo Param of n^2 values, one call that hears no cancel)."""
    with _marked(_IN_PYTHON):
        yield


#: How often the exit looks again at the abandoned threads (seconds).
EXIT_POLL = 0.05


def _join_abandoned() -> None:
    """Wait (``EXIT_WAIT`` in all) for every abandoned thread, those started while the exit
    waits included: a run abandoned while its kernels loaded goes on to start the colour
    bound's HiGHS thread before it sees its cancel, and a snapshot of the set missed it
    (quota at n = 10^5 with a 1 s limit aborted 4 exits of 6)."""
    end = time.monotonic() + EXIT_WAIT
    while True:
        alive = [thread for thread in list(_ABANDONED)
                 if thread.is_alive() and thread.ident not in _IN_PYTHON]
        if not alive or time.monotonic() >= end:
            return
        alive[0].join(min(EXIT_POLL, max(end - time.monotonic(), 0.0)))


def join_at_exit(thread: threading.Thread) -> None:
    """The interpreter's exit waits (at most ``EXIT_WAIT`` s) for ``thread``, a daemon a
    call may leave running in a solver's C or C++ code (the colour bound's HiGHS beside a
    heuristic): a daemon thread still there when the process tears down is unwound
    through C++ frames and aborts it ("terminate called without an active exception")."""
    for done in [t for t in _ABANDONED if not t.is_alive()]:
        _ABANDONED.discard(done)
    _ABANDONED.add(thread)


# Before the interpreter's other exit handlers: atexit runs the last registered first, and
# numba and llvmlite register theirs when first imported, often by the abandoned run itself
# (a first run loading its kernels): LLVM shut down under a thread still compiling aborted
# the process ("terminate called without an active exception", exit 134; sa at n = 10^5
# with a 2 s limit in a fresh process). threading's exit hooks run before any of them.
_before_atexit = getattr(threading, "_register_atexit", None)
if _before_atexit is not None:
    _before_atexit(_join_abandoned)
else:  # pragma: no cover - Python without the hook
    atexit.register(_join_abandoned)

T = TypeVar("T")


@dataclass(frozen=True)
class Watched(Generic[T]):
    """What the work returned (None: it had not returned when the caller had to answer),
    whether Ctrl-C ended it, and whether the watchdog cancelled the deadline because the
    work overran it (a part that hears only a cancel then says "interrupted" for what is
    a time limit)."""

    value: T | None
    interrupted: bool = False
    overran: bool = False


def run_watched(work: Callable[[], T], deadline: Deadline) -> Watched[T]:
    """Run ``work()`` in a worker thread under ``deadline`` (see the module's docstring);
    an exception it raises is raised here."""
    box: dict[str, object] = {}
    done = threading.Event()

    def worker() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # raised again in the waiting thread
            box["error"] = exc
        finally:
            done.set()
            _ABANDONED.discard(threading.current_thread())

    thread = threading.Thread(target=worker, name="nqmip-solve", daemon=True)
    thread.start()
    interrupted = overran = False
    end = time.perf_counter() + deadline.remaining()  # the limit; a later cancel keeps it
    try:
        overran = _wait(done, deadline, end, thread)
        interrupted = not done.is_set() and deadline.stopped_by() == INTERRUPTED
    except KeyboardInterrupt:
        interrupted = True
        deadline.cancel(INTERRUPTED)
        _wait_after_interrupt(done)
    if not done.is_set():
        # it ends at its next look; the exit waits for it
        deadline.cancel(INTERRUPTED if interrupted else TIME_LIMIT)
        _ABANDONED.add(thread)
        return Watched(None, interrupted, overran)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return Watched(box["value"], interrupted, overran)  # type: ignore[arg-type]


def _wait(done: threading.Event, deadline: Deadline, end: float,
          worker: threading.Thread) -> bool:
    """Until the work returns, or ``OVERRUN`` after the limit ``end`` plus ``LAST_CALL``
    (at the limit for a worker still :func:`loading`), or ``GRACE`` after a caller's
    cancel; whether the deadline had to be cancelled."""
    stopped: float | None = None
    while not wait_safely(done.is_set, POLL):
        now = time.perf_counter()
        if stopped is None and deadline.stopped_by() == INTERRUPTED:
            stopped = now
        if stopped is not None and now - stopped >= GRACE:
            return False
        late = now - end
        if late >= 0 and worker.ident in _LOADING:
            deadline.cancel(TIME_LIMIT)
            return True
        if late >= OVERRUN:
            cancelled = deadline.cancelled()
            deadline.cancel(TIME_LIMIT)
            wait_safely(done.is_set, LAST_CALL)
            return not cancelled
    return False


def _wait_after_interrupt(done: threading.Event) -> None:
    """``GRACE`` seconds for the work to return; a repeat of the signal within ``REPEAT``
    seconds of the first is absorbed, a later one answers at once."""
    first = time.perf_counter()
    end = first + GRACE
    while True:
        try:
            wait_safely(done.is_set, max(end - time.perf_counter(), 0.0))
            return
        except KeyboardInterrupt:
            if time.perf_counter() - first > REPEAT:
                return


#: Times a watched call's answer is made again when Ctrl-C cuts its making short.
FINISH_TRIES = 3


def finish_heard(finish: Callable[[], T]) -> tuple[T, bool]:
    """``finish()``, the making of a watched call's answer from what its work returned,
    and whether Ctrl-C came while it ran. The work has returned: its answer is known, and
    a stop now is heard, not raised (the answer is made again, at most ``FINISH_TRIES``
    times). Raised, it lost the answer: a SIGTERM as ``solve_weighted --n 8 --method ga
    --random-weights 2`` finished its proven 55 answered the explicit construction's 48."""
    heard = False
    for _ in range(FINISH_TRIES - 1):
        try:
            return finish(), heard
        except KeyboardInterrupt:
            heard = True
    return finish(), heard
