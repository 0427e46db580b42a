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


#: A command that starts glpsol on a board it cannot prove for minutes, then is killed.
GLPK_PARENT = """
import nqmip
nqmip.solve(40, weights="random", weights_seed=1, method="glpk")
"""


def _children_named(parent: int, name: str | None) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        comm = text[text.index("(") + 1:text.rindex(")")]
        if name in (None, comm) and int(text.rsplit(")", 1)[1].split()[1]) == parent:
            found.append(int(stat.parent.name))
    return found


def _children_outlive(script: str, name: str | None, count: int, at_work: float,
                      grace: float) -> str:
    """Run ``script`` in a process, wait for ``count`` children of it (named ``name``;
    None: any), let them work ``at_work`` s, kill the process; what outlived it by
    ``grace`` s ("" when nothing did). A failed run leaves no busy child behind."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    parent = subprocess.Popen([sys.executable, "-c", script], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children: list[int] = []
    try:
        end = time.monotonic() + 60.0
        while len(children) < count and parent.poll() is None and time.monotonic() < end:
            time.sleep(0.05)
            children = _children_named(parent.pid, name)
        if len(children) < count:
            return f"the children never started: {children}"
        time.sleep(at_work)
        parent.kill()
        parent.wait()
        end = time.monotonic() + grace
        while any(_alive(pid) for pid in children) and time.monotonic() < end:
            time.sleep(0.05)
        alive = [pid for pid in children if _alive(pid)]
        return f"{alive} outlived their caller" if alive else ""
    finally:
        parent.kill()
        parent.wait()
        for pid in children:
            if _alive(pid):
                os.kill(pid, 9)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG: Linux")
def test_glpsol_dies_with_a_killed_caller() -> None:
    """glpsol, a program started through Pyomo, ends when the command that started it
    is killed (it searched on for 35 minutes before, slowing the rest of a CI run)."""
    import shutil

    if shutil.which("glpsol") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("glpsol is not on PATH under CI=true")
        pytest.skip("glpsol is not installed")
    failed = _children_outlive(GLPK_PARENT, "glpsol", 1, 0.0, grace=10.0)
    assert not failed, failed


#: A count on a pool of two processes that runs for minutes, then is killed.
COUNT_PARENT = """
import nqmip
print(nqmip.count_solutions(19, workers=2), flush=True)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="os.getppid: POSIX")
def test_pool_processes_end_with_a_killed_caller() -> None:
    """The count's pool processes end when the command that forked them is killed: they
    waited for work forever before (the fork keeps their queue's pipe open)."""
    failed = _children_outlive(COUNT_PARENT, None, 2, 1.0, grace=15.0)  # killed at work
    assert not failed, failed
