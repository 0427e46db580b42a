"""The package's one parent-death mechanism (:mod:`nqmip.parent_death`): a child started
by :func:`~nqmip.parent_death.start` that calls
:func:`~nqmip.parent_death.die_with_parent` outlives the thread that started it, and
ends when its parent process does, even while it holds the interpreter lock (toulbar2's
search does: pybind11). The warm-up's watcher thread (``os.getppid`` every 0.2 s) never
ran in such a child; toulbar2's ``PR_SET_PDEATHSIG``, asked from the calling thread,
killed the child when that thread ended."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The child: dies with its parent, then holds the interpreter lock (one long C call).
CHILD = ("import sys; from nqmip.parent_death import die_with_parent; "
         "die_with_parent(int(sys.argv[1])); sum(range(10**13))")

#: The parent: starts the child from a thread that ends, says its pid, waits, is killed.
PARENT = f"""
import os, sys, threading, time
from nqmip.parent_death import start
child = []
def run():
    child.append(start([sys.executable, "-c", {CHILD!r}, str(os.getpid())]))
    time.sleep(1.5)  # the child has asked to die with its parent by then
thread = threading.Thread(target=run)
thread.start()
thread.join()
print(child[0].pid, flush=True)
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG: Linux")
def test_child_outlives_its_thread_and_dies_with_its_process() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE,
                              env=env, text=True)
    pid: int | None = None
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        time.sleep(0.5)  # the thread that started it has ended
        assert _alive(pid), "the child died with the thread that started it"
        parent.kill()
        parent.wait()
        end = time.monotonic() + 10.0
        while _alive(pid) and time.monotonic() < end:
            time.sleep(0.05)
        assert not _alive(pid), "the child outlived its parent"
    finally:
        parent.kill()
        parent.wait()
        if pid is not None and _alive(pid):  # a failed run leaves no busy child behind
            os.kill(pid, 9)
