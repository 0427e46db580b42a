"""The signals that stop a command, in one place: Ctrl-C (SIGINT), SIGTERM (what
``timeout``, batch schedulers and ``docker stop`` send) and SIGHUP (the terminal went
away) all stop ``solve-weighted`` and ``nqmip-count`` the same way, as Ctrl-C: the search
ends, the best placement is printed and ``--output`` written, and the command exits with
``128 +`` the signal's number (130 SIGINT, 143 SIGTERM, 129 SIGHUP), as a shell reports
a command a signal ended.

:func:`stops_as_ctrl_c` turns each of them into :class:`KeyboardInterrupt` (which
:mod:`nqmip.watchdog` hears while a solve runs) and remembers the first one heard. Once
the answer is known, :meth:`Stop.hold` keeps the writing of it whole: a repeat of the
signal within :data:`nqmip.watchdog.REPEAT` seconds (a wrapper that signals the whole
process group makes the process hear two) is absorbed, a later one ends the process at
once by the signal's own default action. A signal the caller had set to be ignored
(``nohup`` ignores SIGHUP; a background job of a script ignores SIGINT) stays ignored.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

#: The signals that stop a command as Ctrl-C does (SIGHUP where the system has it).
STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def exit_status(signum: int) -> int:
    """A command's exit status when ``signum`` stopped it: 128 + its number."""
    return 128 + int(signum)


class Stop:
    """Which stop signal the command heard first (None: none yet)."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.first = 0.0  # when (time.monotonic()) the first was heard
        self._installed: dict[int, Any] = {}

    @property
    def status(self) -> int:
        """The exit status of a command this signal stopped (SIGINT's, 130, when the stop
        came as a bare KeyboardInterrupt)."""
        return exit_status(signal.SIGINT if self.signum is None else self.signum)

    def _heard(self, signum: int) -> None:
        if self.signum is None:
            self.signum, self.first = signum, time.monotonic()

    def _as_ctrl_c(self, signum: int, frame: FrameType | None) -> None:
        self._heard(signum)
        raise KeyboardInterrupt

    def _holding(self, signum: int, frame: FrameType | None) -> None:
        from nqmip.watchdog import REPEAT

        if self.signum is not None and time.monotonic() - self.first <= REPEAT:
            return  # the same request, heard twice
        self._heard(signum)
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)

    def hold(self) -> None:
        """From now on the answer is being written: see the module's docstring."""
        for signum in self._installed:
            signal.signal(signum, self._holding)


@contextmanager
def stops_as_ctrl_c() -> Iterator[Stop]:
    """SIGINT, SIGTERM and SIGHUP raise :class:`KeyboardInterrupt` within the block (the
    handlers are put back after it); outside the main thread, where no handler can be set,
    nothing changes."""
    stop = Stop()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    for signum in STOP_SIGNALS:
        before = signal.getsignal(signum)
        if before in (signal.SIG_DFL, signal.default_int_handler):
            stop._installed[signum] = before
            signal.signal(signum, stop._as_ctrl_c)
    hook = sys.unraisablehook

    def quiet(unraisable: Any) -> None:
        # the stop raised inside a C callback (numba's compile) cannot propagate: Python
        # would print it as "Exception ignored"; the command says it was stopped instead
        if not (stop.signum is not None and unraisable.exc_type is KeyboardInterrupt):
            hook(unraisable)

    sys.unraisablehook = quiet
    try:
        yield stop
    finally:
        sys.unraisablehook = hook
        for number, before in stop._installed.items():
            signal.signal(number, before)
