"""A child process of the package that ends with its parent: the one mechanism, used by
toulbar2's search process (:mod:`nqmip.backends.toulbar2_child`) and the warm-up's
compiling child (:mod:`nqmip.warmup`). Standard library only, and nothing of the package
imported: toulbar2's child loads this file by its path, to start in a tenth of a second.

Linux's ``PR_SET_PDEATHSIG`` (:func:`die_with_parent`, in the child): the kernel sends
SIGKILL the moment the thread that started the process ends. It needs no thread of the
child's own, which a watcher would: pybind11 keeps the interpreter lock through toulbar2's
search, and a watcher thread (the warm-up's, which looked at ``os.getppid`` every 0.2 s)
never ran there. The parent starts such a child by :func:`start`, from a thread that lasts
as long as its process: the child ends with the process (killed, or left by
``os._exit``), not with the thread that asked for it (the colour proof's thread starts
the warm-up's compile, which the annealing's thread waits for after the proof's end). A
parent that ended before the request took hold is caught by comparing ``os.getppid`` with
the pid the parent gave. Elsewhere (no ``prctl``) the child is left to its own end
(toulbar2's CPU-time limit, the warm-up's last group): nothing is killed that should not
be.

A program not of the package (glpsol, started by Pyomo for GLPK) cannot ask for itself:
:func:`start_program` asks in the forked child before it runs the program (the request
outlives ``exec``). Without it a killed command left glpsol searching: in one CI run
three of them ran 35 minutes after the tests that started them.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: prctl's option number (linux/prctl.h).
PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None) -> bool:
    """SIGKILL this process when the thread that started it ends (Linux); at once when
    ``parent`` (the pid the parent gave) is no longer the parent. True when the kernel
    took the request, False where there is no ``prctl`` (not Linux)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        taken = libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux: no prctl
        taken = False
    if parent is not None and os.getppid() != parent:  # ended before the request
        os._exit(0)
    return taken


#: The parent's starter: requests (argv, keywords, the reply queue) for its thread.
_REQUESTS: queue.Queue[tuple[list[str], dict[str, Any], queue.Queue[Any]]] = queue.Queue()
_STARTER: list[threading.Thread] = []
_LOCK = threading.Lock()


def _starter() -> None:
    while True:
        argv, kwargs, reply = _REQUESTS.get()
        try:
            reply.put(subprocess.Popen(argv, **kwargs))
        except BaseException as exc:  # given to the caller to raise
            reply.put(exc)


def start(argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(argv, **kwargs)`` from a thread of this process that lasts until
    it ends, so that a child calling :func:`die_with_parent` ends with the process rather
    than with the caller's thread; what Popen raises is raised here."""
    with _LOCK:
        if not _STARTER or not _STARTER[0].is_alive():
            thread = threading.Thread(target=_starter, name="nqmip-starter", daemon=True)
            thread.start()
            _STARTER[:] = [thread]
    reply: queue.Queue[Any] = queue.Queue()
    _REQUESTS.put((list(argv), kwargs, reply))
    got = reply.get()
    if isinstance(got, BaseException):
        raise got
    return got


def _asks_before_exec() -> Callable[[], None] | None:
    """A ``preexec_fn`` that asks the kernel for SIGKILL when this process ends, and ends
    the child at once if this process already has; None where there is no ``prctl``. The
    C function is looked up here, in the parent: the forked child only calls it."""
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux: no prctl
        return None
    parent = os.getpid()
    kill = int(signal.SIGKILL)

    def ask() -> None:
        prctl(PR_SET_PDEATHSIG, kill, 0, 0, 0)
        if os.getppid() != parent:  # ended before the request
            os._exit(0)

    return ask


#: The signals that stop a command as Ctrl-C does (SIGHUP where the system has it).
STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def leave_stops_to_parent() -> None:
    """In a helper process of a command (a pool's): the stop signals are ignored, the
    command's to answer. A stop sent to the whole process group (Ctrl-C at a terminal,
    ``timeout``, ``kill -TERM -PGID``) reaches the helpers too; the command stops them
    itself, and they end with it (:func:`watch_parent`). A cube pool's processes ignored
    SIGINT only: SIGTERM killed them, the descent started a new pool for their cubes, and
    the command answered no placement and no row ("the search had not returned when it
    was stopped": 3 of 4 runs, n = 36, 4 to 6 s in)."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)


@contextmanager
def stops_blocked() -> Iterator[None]:
    """The stop signals blocked in this thread meanwhile: a thread it starts, and the
    processes that thread starts, keep them blocked; this thread hears one after."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (the process that unlinks a pool's
    semaphores after it) deaf to the stop signals: it ignores SIGINT and SIGTERM itself,
    not SIGHUP, which killed it when a hang-up reached the command's process group; the
    tracker started again in its place was told to forget semaphores it never knew and
    printed two KeyError tracebacks after the command's answer (n = 36, ``--lex-first
    --workers 2``, a SIGHUP to the group 4 to 6 s in: every run). A signal blocked while it
    starts stays blocked in it; here, it comes once the mask is put back."""
    from multiprocessing import resource_tracker

    with stops_blocked():
        resource_tracker.ensure_running()


def start_program(argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
    """:func:`start` for a program that does not call :func:`die_with_parent` itself: the
    request is made between ``fork`` and ``exec``, so the program ends with this
    process (Linux); elsewhere it is started as is."""
    ask = _asks_before_exec()
    if ask is not None:
        kwargs["preexec_fn"] = ask
    return start(argv, **kwargs)


#: How often a pool process's watcher looks whether its parent has ended (seconds).
WATCH_SECONDS = 0.25


def watch_parent(parent: int) -> None:
    """End this process (``os._exit``) once ``parent`` is no longer its parent, seen by a
    daemon thread every :data:`WATCH_SECONDS`: for a pool's processes, which the pool
    forks from whichever thread submits (a kernel request would end them with that
    thread). Forked processes of a killed command waited for work forever otherwise (the
    count's pool: two idle processes a minute after ``kill -9``). A task that holds the
    interpreter lock is seen at its end."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="nqmip-parent-watch", daemon=True).start()
