"""The commands' standard output and error, whatever they are connected to.

- **A console that is not UTF-8** (``PYTHONIOENCODING=ascii``, a cp437 or latin-1
  console): :func:`plain_fallback` decides once, from each stream's encoding, whether it
  can write the few characters the commands print beyond ASCII (``GLYPHS``); where it
  cannot, each character it cannot encode is written as its ASCII stand-in (``·`` as
  ``-``, ``×`` as ``x``, ``≤`` as ``<=``, ``…`` as ``...``; any other as ``?``) instead of
  ending in a :class:`UnicodeEncodeError`. rich draws its tables with ASCII lines there.
- **An output that fails** (:func:`deliver`): the result files (``--output``, ``--svg``,
  ``--png``) are written before anything is printed, so that they hold the result
  whatever happens to standard output. A closed standard output (``>&-``) or one that
  fails to take the text (``> /dev/full``: no space left) ends in one line on standard
  error and exit status :data:`EXIT_IO_ERROR` (74, ``EX_IOERR`` of ``sysexits.h``); a
  reader that went away (``| head -1``) ends the command quietly with
  :data:`EXIT_BROKEN_PIPE` (141 = 128 + SIGPIPE, the status of a Unix tool that
  ``head`` stopped reading).
- **A result file that fails** (``--output /dev/full``, a disk full at the end): one line
  names it, and the command exits :data:`EXIT_IO_ERROR` too, at every door
  (:func:`final_status`): the same status as a standard output that fails, never the
  solver failure's 1.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TextIO

#: Standard output or a result file could not be written (closed, or the device full):
#: EX_IOERR.
EXIT_IO_ERROR = 74
#: The work itself failed (a solver's error, a failed run of a sweep).
EXIT_FAILED = 1
#: The reader of standard output went away (128 + SIGPIPE).
EXIT_BROKEN_PIPE = 141

#: The characters beyond ASCII the commands print, each with its ASCII stand-in.
GLYPHS = {"·": "-", "×": "x", "≤": "<=", "≥": ">=", "—": "--", "–": "-", "…": "...",
          "−": "-", "→": "->", "±": "+/-",
          # nqmip-compare's tables, legends and conclusions
          "τ": "tau", "★": "*", "₂": "2", "½": "1/2", "’": "'", "‘": "'", "“": '"',
          "”": '"', "é": "e", "è": "e", "ö": "o"}
#: The name of the codec error handler that writes the stand-ins.
PLAIN = "nqmip-plain"


def _stand_in(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start:exc.end]
    return "".join(GLYPHS.get(char, "?") for char in text), exc.end


codecs.register_error(PLAIN, _stand_in)


def can_write(stream: Any, text: str = "".join(GLYPHS)) -> bool:
    """Whether ``stream``'s encoding encodes every character of ``text``."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def plain_fallback(*streams: TextIO | None) -> None:
    """Each stream (by default standard output and error) whose encoding cannot write
    every one of ``GLYPHS`` writes the stand-ins of those it cannot (once, here)."""
    for stream in streams or (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if stream is not None and reconfigure is not None and not can_write(stream):
            reconfigure(errors=PLAIN)


class _SteadyErrors:
    """Standard error that never fails the command: a write or flush that fails (``2>
    /dev/full``) is dropped, the rest delegated to the stream."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text))
        except (OSError, ValueError):
            return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def steady_stderr() -> None:
    """A door's standard error, whatever it is connected to, never changes the command's
    exit status: ``2> /dev/full`` turned bad input (2) into an unprinted traceback and
    exit 1 (the one line's ``print`` raised), a finished sweep into 1; ``2>&-`` (no
    stream: ``print(file=None)`` writes to standard output) put the error line into the
    answer's stream. Its lines are lost then, the statuses kept."""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    elif not isinstance(sys.stderr, _SteadyErrors):
        sys.stderr = _SteadyErrors(sys.stderr)


def say(line: str) -> None:
    """One line on standard error, if it can be written at all."""
    try:
        if sys.stderr is not None:
            print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _silence_stdout() -> None:
    """Standard output from now on goes nowhere: the text still buffered (and the
    interpreter's flush at exit) cannot fail again."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


def deliver(show: Callable[[], None], prog: str, kept: str = "",
            what: str = "the result") -> int | None:
    """Run ``show`` (which prints ``what``) and flush standard output; None when it was
    all written, else the exit status (one line on standard error says why; ``kept``:
    where the result is kept all the same, e.g. "it is in --output r.json"). Every door
    prints its answer through it: the same statuses for the same console."""
    tail = f"; {kept}" if kept else ""
    if sys.stdout is None:
        say(f"{prog}: standard output is closed: {what} is not printed{tail}")
        return EXIT_IO_ERROR
    try:
        show()
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except (OSError, UnicodeError) as exc:
        _silence_stdout()
        why = getattr(exc, "strerror", None) or type(exc).__name__
        say(f"{prog}: {what} could not be printed ({why}){tail}")
        return EXIT_IO_ERROR
    return None


def final_status(*, failed: bool = False, printed: int | None = None,
                 written: bool = True) -> int:
    """A door's exit status once its answer is known: :data:`EXIT_FAILED` when the work
    failed (a run of a sweep), else the status :func:`deliver` gave for standard output
    (141, 74), else :data:`EXIT_IO_ERROR` when a result file could not be written
    (``written`` false), else 0."""
    if failed:
        return EXIT_FAILED
    if printed is not None:
        return printed
    return 0 if written else EXIT_IO_ERROR


def flush_all() -> None:
    """Flush standard output and error before a hard exit (``os._exit``), quietly: a
    failure here was reported by :func:`deliver` already."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            if stream is sys.stdout:
                _silence_stdout()


def leave(code: int) -> NoReturn:
    """End a command with ``code``, its output flushed. A command a stop signal ended
    (``code`` 128 + the signal, or a stop heard after its answer: :func:`late_status`)
    leaves at once (:func:`hard_exit`), without the interpreter's teardown: a signal heard
    while numba compiled leaves LLVM's objects half built, and their finalisers then print
    tracebacks ("Exception ignored in: ObjectRef.__del__") after the command's one line.
    Otherwise the teardown runs, and a stop during it ends the process with 128 + it
    (:func:`nqmip.cli.signals.stop_now_until_exit`), not the default's kill (a SIGINT
    just after the count was printed: exit -2)."""
    from nqmip.cli.signals import late_status, stop_now_until_exit

    code = late_status(code)
    if code >= 128:
        hard_exit(code)
    flush_all()
    stop_now_until_exit()
    sys.exit(code)


def hard_exit(code: int) -> NoReturn:
    """Leave at once with ``code`` (``os._exit``: no interpreter teardown), the output
    flushed and the children ended, multiprocessing's semaphores released
    (:func:`end_children`)."""
    from nqmip.cli.signals import late_status

    flush_all()
    end_children()
    os._exit(late_status(code))


def end_children() -> None:
    """Kill the processes this one started that still run, release multiprocessing's
    semaphores, and remove the temporary files Pyomo made for the children: what a
    solver's program (``glpsol``, started by Pyomo, its time limit a whole second at
    least) would otherwise leave behind a command that leaves by ``os._exit``. A SIGTERM
    2.5 s into ``--method glpk --time-limit 3`` left glpsol running after the command's
    answer, and its model and solution files in the temporary folder. The one place a
    leaving command kills its children, in this order: multiprocessing's (a local Dask
    cluster's nannies, a pool's workers; on every system), then its semaphores released
    (:func:`release_multiprocessing`: a child still starting would fail to open one
    already unlinked, and the resource tracker, a child too, must still run to hear of
    them), then every other child Linux lists in ``/proc`` (the resource tracker among
    them)."""
    # a module is looked at only once it is whole: a stop while a thread imported it
    # (the solve's, abandoned) leaves it half built in sys.modules
    active = getattr(sys.modules.get("multiprocessing"), "active_children", None)
    for child in active() if active is not None else []:  # loaded: its children may run
        with contextlib.suppress(OSError, ValueError, AttributeError):
            child.kill()
    # a local Dask cluster's scratch folders (nqmip.cluster.SCRATCH), its workers killed;
    # here, before the resource tracker is: the process leaves at once after it (waiting
    # for the killed children let Dask's threads go on, which then found the tracker gone,
    # started another, and it warned of leaked semaphores under the answer)
    cluster = sys.modules.get("nqmip.cluster")
    remove = getattr(cluster, "remove_scratch", None)
    if remove is not None:
        for folder in list(getattr(cluster, "SCRATCH", ())):
            remove(folder)
    release_multiprocessing()
    children: set[int] = set()
    for listing in Path("/proc/self/task").glob("*/children"):
        with contextlib.suppress(OSError, ValueError):
            children.update(int(pid) for pid in listing.read_text().split())
    for pid in children:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    # None, or not yet bound: a stop while Pyomo was still imported (the solve's thread
    # abandoned inside its import) left the module half built, and no file made
    main = getattr(sys.modules.get("pyomo.common.tempfiles"), "TempfileManager", None)
    if main is None:
        return
    # one manager per thread (the solve's is a worker thread's): each one's files
    managers = getattr(main, "_mtdict", None)
    for manager in list((managers or {}).values()) or [main]:
        with contextlib.suppress(Exception):  # whatever state a solve left it in
            manager.clear_tempfiles(remove=True)


def release_multiprocessing() -> None:
    """What the interpreter's exit does for multiprocessing, without its waits: the named
    semaphores of the locks and queues still alive here unlinked, each by its own
    finaliser (``SemLock._cleanup``); :func:`end_children` calls it once it has killed
    multiprocessing's children, before the resource tracker. A process that leaves by
    ``os._exit`` skipped it,
    and the resource tracker it had started warned after the command ended:
    "resource_tracker: There appear to be 12 leaked semaphore objects to clean up at
    shutdown": the two queues (three semaphores each) the nanny of each worker of a local
    Dask cluster holds (``--workers 2``), when the command left before the cluster was
    closed (at a time limit: closing it takes 0.6 s, more than the watchdog waits; after
    a stop signal)."""
    util = sys.modules.get("multiprocessing.util")
    # None, or half built (a stop while a thread imported it): no semaphore of it yet
    cleanup = getattr(getattr(sys.modules.get("multiprocessing.synchronize"), "SemLock",
                              None), "_cleanup", None)
    if util is None or cleanup is None:
        return
    registry = getattr(util, "_finalizer_registry", {})
    for finalizer in list(registry.values()):
        if getattr(finalizer, "_callback", None) is cleanup:
            with contextlib.suppress(OSError):  # unlinked already
                finalizer()
