"""A Ctrl-C while an exact solver runs reaches the process, whichever solver it is: a
solver that catches SIGINT itself (gurobipy while it optimizes, SCIP unless told not to)
stopped alone, and the call did not hear it. In auto that part stopped and the others went
on: random n = 40, SIGINT 10 s into ``solve_weighted.py --random-weights 1 --time-limit 60``
(Gurobi beside bnb): the proof came 16 s later, exit 0.

Generated from the method table: every installed exact method, SIGINT sent from the first
report of a bound (the solver is running then) in a child process whose SIGINT handler
records the signal and raises KeyboardInterrupt, as Python's own does (the solvers that
report their bound only at their end are skipped: glpk, highs-pyomo, toulbar2, whose
search runs in a process of its own)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nqmip.backends.base import get_backend
from nqmip.methods import METHODS

ROOT = Path(__file__).resolve().parent.parent
EXACT = [name for name, method in METHODS.items() if method.kind == "exact"]

CHILD = """
import json, os, signal, sys, time
import nqmip
heard, sent = [], []
def handler(signum, frame):
    heard.append(time.perf_counter())
    raise KeyboardInterrupt
signal.signal(signal.SIGINT, handler)
def report(progress):
    # the solver's own report while it runs (not the closing one: at the limit)
    if progress.bound is not None and progress.elapsed < 5 and not sent:
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)
board = nqmip.make_instance(40, "random", weights_seed=1)
begin = time.perf_counter()
result = nqmip.solve(board, method=sys.argv[1], time_limit=8, on_progress=report)
print(json.dumps({"sent": bool(sent), "heard": bool(heard),
                  "termination": result.termination.value,
                  "after": time.perf_counter() - sent[0] if sent else None}))
"""


@pytest.mark.timing
@pytest.mark.parametrize("method", EXACT)
def test_a_ctrl_c_while_the_solver_runs_reaches_the_process(method: str) -> None:
    if not get_backend(method).available():
        pytest.skip(f"{method} is not installed")
    done = subprocess.run([sys.executable, "-c", CHILD, method], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    if not said["sent"]:
        pytest.skip(f"{method} reports no bound while it runs")
    assert said["heard"], f"{method} took the Ctrl-C itself: {said}"
    assert said["termination"] in ("interrupted", "optimal"), said
    assert said["after"] < 3.0, said
