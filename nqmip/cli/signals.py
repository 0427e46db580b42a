"""The signals that stop a command, in one place: Ctrl-C (SIGINT), SIGTERM (what
``timeout``, batch schedulers and ``docker stop`` send) and SIGHUP (the terminal went
away) all stop ``solve-weighted`` and ``nqmip-count`` the same way, as Ctrl-C: the search
ends, the best placement is printed and ``--output`` written, and the command exits with
``128 +`` the signal's number (130 SIGINT, 143 SIGTERM, 129 SIGHUP), as a shell reports
a command a signal ended.

:func:`stops_as_ctrl_c` turns each of them into :class:`KeyboardInterrupt` (which
:mod:`nqmip.watchdog` hears while a solve runs) and remembers the first one heard. Once
the answer is known, :meth:`Stop.hold` keeps the writing of it whole: a first stop then
is answered by the exit status (it killed the command mid-print, exit -2, before), a repeat
within :data:`nqmip.watchdog.REPEAT` seconds (a wrapper that signals the whole process
group makes the process hear two) is absorbed, a later one ends the process at once by
the signal's own default action. A command that heard a stop exits with 128 + its
number, whatever it had finished (:attr:`Stop.heard`). A signal the caller had set to be ignored
(``nohup`` ignores SIGHUP; a background job of a script ignores SIGINT) stays ignored.

A signal can come before that, while Python imports numpy, numba and the solvers (the
first few tenths of a second, more on a loaded machine): each command's first act is
:func:`listen_early` (:mod:`nqmip.cli.launch`, before any heavy import), whose handlers
only record the signal. :func:`stops_as_ctrl_c` takes over from them, and
:meth:`Stop.replay` raises the recorded stop where the command can answer it: the solve
command with the explicit construction, as any stop before its solve started; the count
and the sweep with their one line. Before, such a signal ended the command with a
``KeyboardInterrupt`` traceback (SIGINT) or bare, with no answer (SIGTERM, SIGHUP).

A stop raised where it cannot propagate (a C callback, a finaliser: Python reports it as
"Exception ignored") is not printed, and is signalled again until it is raised where it
propagates (:meth:`Stop.again`).
"""

from __future__ import annotations

import _thread
import atexit
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from nqmip.parent_death import STOP_SIGNALS


def exit_status(signum: int) -> int:
    """A command's exit status when ``signum`` stopped it: 128 + its number."""
    return 128 + int(signum)


#: The dispositions :func:`listen_early` replaced, and the first signal it heard (its
#: number and when, ``time.monotonic()``).
_EARLY: dict[int, Any] = {}
_EARLY_HEARD: list[tuple[int, float]] = []


def _record(signum: int, frame: FrameType | None) -> None:
    if not _EARLY_HEARD:
        _EARLY_HEARD.append((signum, time.monotonic()))


def listen_early() -> None:
    """From now until :func:`stops_as_ctrl_c` takes over, a stop signal is only recorded
    (see the module's docstring); one the caller ignores stays ignored. The API never
    calls it: ``import nqmip`` leaves a notebook's handlers alone."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in STOP_SIGNALS:
        before = signal.getsignal(signum)
        if before in (signal.SIG_DFL, signal.default_int_handler):
            _EARLY[signum] = before
            signal.signal(signum, _record)


def late_status(code: int) -> int:
    """A command's exit status ``code``, or 128 + a stop heard after its answer was
    written, once its handlers were given back to the launcher's (:func:`listen_early`):
    whatever it had finished, a command that heard a stop says so."""
    return exit_status(_EARLY_HEARD[0][0]) if code == 0 and _EARLY_HEARD else code


def _exit_now(signum: int, frame: FrameType | None) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(exit_status(signum))


def stop_now_until_exit() -> None:
    """From now until the process ends (the interpreter's teardown: the threads it joins,
    its exit handlers), a stop signal ends it at once with 128 + the signal; one the
    caller ignores stays ignored. After the last exit handler (:func:`_quiet_end`) the
    interpreter puts the default actions back for its modules' teardown, where a stop
    killed the command (exit -2): there it is ignored, the answer long written."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _exit_now)


def _quiet_end() -> None:
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) is _exit_now:
            signal.signal(signum, signal.SIG_IGN)


# registered as the launcher imports this module, before numba or a solver registers its
# own: exit handlers run last-registered first, so this one runs after them
atexit.register(_quiet_end)


#: Seconds after a stop was absorbed before it is signalled again (:meth:`Stop.again`).
AGAIN = 0.01


class Stop:
    """Which stop signal the command heard first (None: none yet)."""

    def __init__(self, deferred: bool = False) -> None:
        self.signum: int | None = None
        self.first = 0.0  # when (time.monotonic()) the first was heard
        self._installed: dict[int, Any] = {}
        # heard but not yet raised: before the command could answer it (deferred, or
        # heard by listen_early's handlers)
        self.pending = False
        self.deferred = deferred
        self._again = False  # a stop absorbed is to be signalled again (again())

    @property
    def status(self) -> int:
        """The exit status of a command this signal stopped (SIGINT's, 130, when the stop
        came as a bare KeyboardInterrupt)."""
        return exit_status(signal.SIGINT if self.signum is None else self.signum)

    @property
    def heard(self) -> bool:
        """Whether a stop signal came (even one the code it interrupted absorbed, or one
        that came as the answer was known)."""
        return self.signum is not None

    def _heard(self, signum: int) -> None:
        if self.signum is None:
            self.signum, self.first = signum, time.monotonic()

    def _as_ctrl_c(self, signum: int, frame: FrameType | None) -> None:
        self._heard(signum)
        if self.deferred:
            self.pending = True
            return
        raise KeyboardInterrupt

    def replay(self) -> None:
        """From here a stop raises :class:`KeyboardInterrupt`; one already heard (by
        :func:`listen_early`'s handlers, or while deferred) is raised now: the command
        answers it as a stop at this point."""
        self.deferred = False
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt

    def check(self) -> None:
        """Raise :class:`KeyboardInterrupt` if a stop was heard, even one already raised:
        the code it interrupted may have absorbed it (a search's chunk loop run in this
        thread, as a warm-up does, returns its best as ``interrupted``; a finaliser or a C
        callback cannot raise), and the command would go on as if it never came (a
        SIGINT while ``nqmip-compare`` loaded its kernels: the whole sweep ran, exit 0).
        A command calls it where it looks between steps of its own."""
        if self.signum is not None or self.pending:
            self.deferred = self.pending = False
            raise KeyboardInterrupt

    def again(self) -> None:
        """The stop, absorbed where it was raised (a C callback: llvmlite's object cache
        as numba loads or compiles a kernel; a finaliser: a weakref's callback), is
        signalled again :data:`AGAIN` seconds later from a thread of its own
        (``_thread.interrupt_main``: the handler runs at the next line of Python the main
        thread runs; from the callback itself it would run in it again), until it is
        raised where it propagates. The command went on as if it never came:
        ``nqmip-count --workers 2``, SIGTERM as its kernels loaded, printed the whole
        count, then exited 143. Nothing once the answer is being written (:meth:`hold`)
        or the handlers are put back."""
        if self._again:
            return
        self._again = True

        def later() -> None:
            time.sleep(AGAIN)
            self._again = False
            signum = self.signum
            if signum is not None and signal.getsignal(signum) == self._as_ctrl_c:
                _thread.interrupt_main(signal.Signals(signum))

        try:
            threading.Thread(target=later, name="nqmip-stop-again", daemon=True).start()
        except RuntimeError:  # the interpreter is shutting down: nothing left to stop
            self._again = False

    @contextmanager
    def interruptible(self, when: bool = True, *, waits: bool = False) -> Iterator[None]:
        """Within the block (``when``), a deferred stop raises at once: a read is not
        held up by a deferral. ``waits``: the read may wait for ever (standard input, a
        pipe), so a stop heard before it (by :func:`listen_early`'s handlers, or while
        deferred) is raised on entering; otherwise it is answered after the block."""
        deferred = self.deferred
        if when and waits:
            self.replay()
        self.deferred = deferred and not when
        try:
            yield
        finally:
            self.deferred = deferred

    def _holding(self, signum: int, frame: FrameType | None) -> None:
        from nqmip.watchdog import REPEAT

        if self.signum is None:  # the first: the answer is written whole, then 128 + it
            self._heard(signum)
            return
        if time.monotonic() - self.first <= REPEAT:
            return  # the same request, heard twice
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)

    def hold(self) -> None:
        """From now on the answer is being written: see the module's docstring."""
        for signum in self._installed:
            signal.signal(signum, self._holding)


@contextmanager
def stops_as_ctrl_c(deferred: bool = False) -> Iterator[Stop]:
    """SIGINT, SIGTERM and SIGHUP raise :class:`KeyboardInterrupt` within the block (the
    handlers are put back after it, those before :func:`listen_early`'s); outside the main
    thread, where no handler can be set, nothing changes. ``deferred``: a stop is only
    recorded until :meth:`Stop.replay`, as is one :func:`listen_early` heard."""
    stop = Stop(deferred=True)  # while the handlers change hands, a stop is recorded
    if threading.current_thread() is not threading.main_thread():
        stop.deferred = deferred
        yield stop
        return
    launched: dict[int, Any] = {}  # the launcher's (listen_early's), given back after
    for signum in STOP_SIGNALS:
        if signum in _EARLY:
            launched[signum] = before = _EARLY.pop(signum)
        else:
            before = signal.getsignal(signum)
        if before in (signal.SIG_DFL, signal.default_int_handler):
            stop._installed[signum] = before
            signal.signal(signum, stop._as_ctrl_c)
    if _EARLY_HEARD:  # the first stop of all, heard by listen_early's handlers
        stop.signum, stop.first = _EARLY_HEARD[0]
        stop.pending = True
        _EARLY_HEARD.clear()
    stop.deferred = deferred
    hook = sys.unraisablehook

    def quiet(unraisable: Any) -> None:
        # the stop raised inside a C callback (llvmlite's object cache as numba loads or
        # compiles a kernel) or a finaliser (a weakref's callback) cannot propagate: Python
        # would print it as "Exception ignored"; the command says it was stopped instead,
        # once the stop is raised again where it can propagate (Stop.again)
        if stop.signum is not None and unraisable.exc_type is KeyboardInterrupt:
            stop.again()
        elif not (stop.signum is not None and _torn(unraisable)):
            hook(unraisable)

    sys.unraisablehook = quiet
    try:
        yield stop
    finally:
        # after a stop, the objects it interrupted are freed as the command ends: their
        # finalisers stay quiet there too
        sys.unraisablehook = hook if stop.signum is None else _after_stop(hook)
        for number, before in stop._installed.items():
            if number in launched:  # a command's process: a stop from here until it
                # leaves is recorded (late_status), not the default's kill (exit -2 just
                # after a count printed, 2 of 3 at 0.96 s)
                _EARLY[number] = launched[number]
                signal.signal(number, _record)
            else:
                signal.signal(number, before)


def _torn(unraisable: Any) -> bool:
    """Whether an exception Python could not raise came from a finaliser (``__del__``):
    after a stop, that of an object the stop interrupted as it was made. llvmlite's
    ``OutputString`` stopped in its ``__init__`` (SIGINT as numba compiled a kernel in the
    command's thread) printed ``AttributeError: ... no attribute '_ptr'`` with a traceback
    above the command's one line."""
    return getattr(unraisable.object, "__name__", None) == "__del__"


def _after_stop(hook: Any) -> Any:
    def quiet(unraisable: Any) -> None:
        if not (unraisable.exc_type is KeyboardInterrupt or _torn(unraisable)):
            hook(unraisable)

    return quiet


#: The least seconds an input that waits is given (:func:`waiting_inputs`), even when the
#: start-up ate the time limit: input already in the pipe is read in far less.
WAIT_FLOOR = 0.2


class InputWait(BaseException):
    """An input that waits (standard input, a pipe) gave nothing within the command's time
    limit (:func:`waiting_inputs`); its message is the door's one line. A BaseException, as
    :class:`KeyboardInterrupt` is: the readers' ``except OSError``/``except ValueError``
    must not turn it into a message about the file."""


def waits(path: Any) -> bool:
    """Whether reading the input at ``path`` may wait for ever: standard input (``-``), a
    pipe (``<(...)`` too), a socket; a regular file or a folder does not (a device is
    refused unread: :func:`nqmip.instances.weights_file.read_input`)."""
    import os
    import stat

    try:
        mode = os.fstat(0).st_mode if str(path) == "-" else os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (str(path) == "-" and
                                                          stat.S_ISCHR(mode))  # a terminal


@contextmanager
def waiting_inputs(inputs: list[tuple[str, Any]], seconds: float | None,
                   limit: str) -> Iterator[None]:
    """Within the block the inputs ``(option, path)`` are read; those that may wait
    (:func:`waits`) are waited on for at most ``seconds``, then :class:`InputWait` says so
    (``limit``: the option that set them, e.g. "--time-limit 2"): a door's time limit
    covers reading its input, and a pipe no program writes to (``mkfifo``) ends the
    command at its limit, in one line, as standard input left open does. Nothing without
    such an input, without ``seconds``, or outside the main thread (no SIGALRM there)."""
    waiting = [f"{option} {path}" for option, path in inputs if waits(path)]
    if (not waiting or seconds is None or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
        yield
        return
    said = (f"{', '.join(waiting)}: nothing to read within {limit}, which covers reading "
            "the input: give a file, or write the input before then")

    def alarm(signum: int, frame: FrameType | None) -> None:
        raise InputWait(said)

    before = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, WAIT_FLOOR))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
