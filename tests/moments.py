"""Stop a command at a named moment: when one of its threads enters a given function.

A ``sitecustomize`` put on the command's path starts a thread that looks at every thread's
frames (``sys._current_frames``) until one is in the function named by
``NQMIP_TEST_MOMENT``; then it writes one byte to the pipe ``NQMIP_TEST_MOMENT_FD``. The
test, in its own process, sends the signals then (a solver that keeps the GIL cannot hold
the sender up); or, asked to (``own``), a trace function sees the function's first call
and the command signals itself there. Only what the command does is looked at: nothing of
it is replaced. The
variables are taken out of the environment at once: the command's own processes (the
sweep's cells, a pool's workers) do not watch.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WATCH = """import os
_at = os.environ.pop("NQMIP_TEST_MOMENT", None)
_fd = os.environ.pop("NQMIP_TEST_MOMENT_FD", None)
_own = os.environ.pop("NQMIP_TEST_MOMENT_SIGNALS", "")
if _at is not None and _fd is not None:
    import sys, threading, time

    _done = []
    _pid = os.getpid()  # a forked child (a pool's worker) inherits the profile: not its

    def _reached():
        if _done or os.getpid() != _pid:
            return
        _done.append(1)
        os.write(int(_fd), b"1")  # first: a signal may raise in this very thread
        os.close(int(_fd))
        for i, signum in enumerate(_own.split(",") if _own else []):
            time.sleep(0.05 if i else 0.0)
            os.kill(os.getpid(), int(signum))

    def _call(frame, event, arg):  # every call of every thread: none is missed
        if not _done and frame.f_code.co_name == _at:
            _reached()
        # None: no line events in the frame. A trace function hears only the calls of
        # Python functions, where a profile function hears every return and every call
        # of a C function too: a command's start took 0.1-0.3 s less of CPU

    def _watch():  # a look at every thread's frames each millisecond
        me = threading.get_ident()
        while not _done:
            for ident, frame in sys._current_frames().items():
                while ident != me and frame is not None:
                    if frame.f_code.co_name == _at:
                        return _reached()
                    frame = frame.f_back
            time.sleep(0.001)

    def _unwatched():  # a forked child (a pool's worker) never signals: not traced
        sys.settrace(None)
        threading.settrace(None)

    if _own:  # the signals from within the function's first call
        sys.settrace(_call)
        threading.settrace(_call)
        os.register_at_fork(after_in_child=_unwatched)
    else:
        threading.Thread(target=_watch, daemon=True, name="test-moment").start()
"""


@dataclass
class Stopped:
    """The finished command: status, output, seconds from the signal to its exit, whether
    the moment came, and what it left (processes of its own, files in its TMPDIR)."""

    status: int | None
    out: str
    err: str
    after: float
    reached: bool
    processes: list[str]
    files: list[str]


def _own_processes(tag: str, kill: bool = True) -> list[str]:
    """The processes whose environment holds ``tag`` (this run's, its children's), killed
    unless ``kill`` is false."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if tag.encode() in (entry / "environ").read_bytes():
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:200])
                if kill:
                    os.kill(int(entry.name), signal.SIGKILL)  # not left to the next test
        except OSError:
            continue
    return found


def stop_at(argv: list[str], moment: str, signals: list[int], folder: Path, *,
            delay: float = 0.0, gap: float = 0.05, timeout: float = 120.0,
            own: bool = False) -> Stopped:
    """Run ``python argv`` (from the repository's root), send ``signals`` (``gap`` seconds
    apart) ``delay`` seconds after one of its threads entered the function ``moment``
    (none if it never does). ``own``: the command sends them itself from the function's
    first call (0.05 s apart; a profile function sees every call: slower Python code)."""
    hook = folder / "moment-hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(WATCH)
    tmp = folder / f"tmp-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    tag = f"NQMIP_TEST_RUN_{uuid.uuid4().hex}"
    read, write = os.pipe()
    paths = [str(hook), str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "TMPDIR": str(tmp),
           "NQMIP_TEST_MOMENT": moment, "NQMIP_TEST_MOMENT_FD": str(write), tag: "1",
           "NQMIP_TEST_MOMENT_SIGNALS": ",".join(str(int(s)) for s in signals) if own else ""}
    proc = subprocess.Popen([sys.executable, *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, pass_fds=(write,))
    os.close(write)
    sent = time.perf_counter()
    try:
        reached = False
        while proc.poll() is None and not reached:
            ready, _, _ = select.select([read], [], [], 0.05)
            reached = bool(ready) and os.read(read, 1) == b"1"
        if not reached:  # it may have ended (the signal's work) before the byte was read
            ready, _, _ = select.select([read], [], [], 0)
            reached = bool(ready) and os.read(read, 1) == b"1"
    finally:
        os.close(read)
    if reached and not own:
        time.sleep(delay)
        sent = time.perf_counter()
        for i, signum in enumerate(signals):
            if i:
                time.sleep(gap)
            if proc.poll() is None:
                proc.send_signal(signum)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    after = time.perf_counter() - sent
    return Stopped(proc.returncode, out, err, after, reached, _left(tag),
                   sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*")))


def _left(tag: str, grace: float = 0.3) -> list[str]:
    """The processes of the run still there ``grace`` seconds after the command's exit
    (killed): a child killed with the command is gone by then. Looked at every 20 ms: as
    soon as none is left, none is (a fixed 0.3 s wait was 0.3 s a case)."""
    deadline = time.perf_counter() + grace
    while _own_processes(tag, kill=False) and time.perf_counter() < deadline:
        time.sleep(0.02)
    return _own_processes(tag)
