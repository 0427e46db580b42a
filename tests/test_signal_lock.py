"""A stop that comes inside ``Condition.wait``'s release and re-acquire of its lock.

``Event.wait`` and ``Queue.get(timeout=...)`` hold a lock around ``Condition.wait``, which
releases it, waits, and takes it back in a ``finally``; a KeyboardInterrupt raised between
the release and the ``try`` left it released, and leaving the ``with`` raised
``RuntimeError: release unlocked lock`` in place of the stop. A CI run lost the solve
command's answer so (``timeout -s INT``'s two SIGINTs at n = 300: exit 1, not 130). The
waiting threads of the watchdog and of the count's thread now wait with
``nqmip.budget.wait_safely`` (``time.sleep``, no lock). Here the stop is raised exactly at
that point of ``Condition.wait`` whenever the calling thread enters it (a trace function),
and a real Ctrl-C follows 0.2 s later."""

from __future__ import annotations

import _thread
import inspect
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest

from nqmip.budget import Deadline
from nqmip.watchdog import run_watched

#: The line of Condition.wait right after it released its lock, before its ``try``.
_SOURCE, _FIRST = inspect.getsourcelines(threading.Condition.wait)
GAP = next(_FIRST + i for i, line in enumerate(_SOURCE) if "gotit = False" in line)


@contextmanager
def stop_in_the_gap_then_ctrl_c(waiter: str) -> Iterator[list[str]]:
    """In this thread: KeyboardInterrupt at ``GAP`` of a Condition.wait that the function
    ``waiter`` waits in through ``Event.wait`` or ``Queue.get`` (not a thread's start,
    whose wait lasts microseconds), and
    a Ctrl-C (``interrupt_main``) 0.2 s after the block starts; what was raised in the
    gap."""
    raised: list[str] = []
    code = threading.Condition.wait.__code__

    def called_from(frame: FrameType | None) -> bool:  # Event.wait or Queue.get's frame
        caller = frame.f_back if frame is not None else None
        return caller is not None and caller.f_code.co_name == waiter

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line" and frame.f_lineno == GAP:
            raised.append("gap")
            raise KeyboardInterrupt
        return local

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code is code and called_from(frame.f_back) else None

    # Ctrl-C as a command's handler turns it: KeyboardInterrupt (interrupt_main calls the
    # handler in force, and a test before this one in the same process may have left
    # another: the count then ran to its end, 'DID NOT RAISE', in a fast-lane run)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.2, _thread.interrupt_main)
    timer.start()
    sys.settrace(tracer)
    try:
        yield raised
    finally:
        sys.settrace(None)
        timer.cancel()
        timer.join()
        signal.signal(signal.SIGINT, before)


def _slow(seconds: float) -> Callable[[], str]:
    def work() -> str:
        time.sleep(seconds)
        return "done"
    return work


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="Ctrl-C is heard by the main thread")
def test_the_watchdog_hears_a_stop_at_any_point_of_its_wait() -> None:
    with stop_in_the_gap_then_ctrl_c("_wait") as raised:
        watched = run_watched(_slow(3.0), Deadline(10))
    assert watched.interrupted, raised  # RuntimeError('release unlocked lock') before
    time.sleep(0.3)  # no stop left over for the next test


def _count_stopped_in_the_gap(workers: int, waiter: str) -> None:
    """The count of n = 16 on ``workers``, stopped in ``waiter``'s gap, then by Ctrl-C:
    raises what the stop became."""
    from nqmip.enumeration.count_tasks import execute, tasks_at_depth

    todo = tasks_at_depth(16, {}, 2)
    with stop_in_the_gap_then_ctrl_c(waiter):
        for _ in execute(16, (), todo, workers, None):
            pass


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="Ctrl-C is heard by the main thread")
def test_the_count_thread_hears_a_stop_at_any_point_of_its_wait() -> None:
    """One worker: the count's thread, waited for on a queue."""
    with pytest.raises(KeyboardInterrupt):  # not RuntimeError('release unlocked lock')
        _count_stopped_in_the_gap(1, "_in_thread")


#: The pool's case in a process of its own: run in the pytest worker, it killed that
#: worker in a CI run (the pool's processes started while the trace function was set).
#: Four times: the Ctrl-C landing inside Condition.__enter__ of a future's lock, which it
#: left held, hung the pool's shutdown in 6 runs of 32 before the wait read the futures
#: without their lock (nqmip.cluster._ended).
POOL_PROGRAM = """
import sys
sys.path.insert(0, {tests!r})
from test_signal_lock import _count_stopped_in_the_gap
for _ in range(4):
    try:
        _count_stopped_in_the_gap(2, "wait")
    except KeyboardInterrupt:
        print("stopped")
    else:
        print("ran to its end")
"""


def test_the_pool_hears_a_stop_at_any_point_of_its_wait() -> None:
    """Two workers: the count's pool of processes, waited for through
    nqmip.cluster.TaskPool.finished (concurrent.futures.wait before: its waiter's
    Event.wait, in the main thread)."""
    import subprocess
    from pathlib import Path

    program = POOL_PROGRAM.format(tests=str(Path(__file__).parent))
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=90)
    assert done.stdout.split() == ["stopped"] * 4 and done.returncode == 0, \
        (done.returncode, done.stdout, done.stderr[-2000:])
