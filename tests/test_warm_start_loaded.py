"""A named warm start passes a placement on even from a process that has not loaded its
kernels yet, on a loaded machine: the kernels are loaded before its clock starts, and its
slice is at least ``exact.WARM_START_MIN_SECONDS``.

Before: ``nqmip.solve(10, "chess", method="gurobi", time_limit=30, warm_start="sa")`` in a
fresh process beside three busy processes (two cores) said ``start_objective None`` in 5
runs of 5: sa's weighted start (min-conflicts) loaded its kernels inside the slice of
0.05 s and the annealing made no iteration; minconflicts' slice alone was too short too.

Generated from the method table: every heuristic that takes the weights, as the start of
HiGHS."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nqmip.instance import make_instance
from nqmip.methods import HEURISTIC_METHODS, METHODS, check_instance_weights

ROOT = Path(__file__).resolve().parent.parent
CODE = """
import json, sys, nqmip
r = nqmip.solve(10, sys.argv[1], method="highs", time_limit=30, warm_start=sys.argv[2])
p = r.provenance
print(json.dumps([p.warm_start, p.start_objective, p.start_accepted]))
"""
BUSY = "while True: pass"


def takes(method: str, weights: str) -> bool:
    try:
        check_instance_weights(METHODS[method], make_instance(10, weights))
    except ValueError:
        return False
    return True


CASES = [(method, weights) for method in HEURISTIC_METHODS for weights in ("chess", "random")
         if takes(method, weights)]


@pytest.mark.serial  # it loads the machine itself (three busy processes beside it)
@pytest.mark.timing
@pytest.mark.parametrize("method,weights", CASES)
def test_a_named_warm_start_passes_a_placement_on_from_a_fresh_loaded_process(
        method: str, weights: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(3)]
    try:
        out = subprocess.run([sys.executable, "-c", CODE, weights, method], env=env,
                             capture_output=True, text=True, timeout=180, check=True)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    source, objective, accepted = json.loads(out.stdout.strip().splitlines()[-1])
    assert source == method
    assert objective is not None, f"{method} on {weights}: the start passed nothing on"
    assert accepted is True
