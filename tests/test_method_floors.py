"""The solve command's least ``--time-limit`` per method: glpk and highs-pyomo import Pyomo
and write their model before the solver starts (glpk at random n = 30 answered at
1.6-2.0 s under limits of 0.5-1.5 s), so below their floor the command refuses the limit in
one line naming the method and the floor (exit 2), before any work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nqmip.cli.parser import COMMAND_FLOOR, METHOD_FLOORS

ROOT = Path(__file__).resolve().parents[1]


def _command(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "solve_weighted.py"), *args],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("method", sorted(METHOD_FLOORS))
def test_a_limit_below_a_methods_floor_is_refused_in_one_line(method: str) -> None:
    floor = METHOD_FLOORS[method]
    assert floor > COMMAND_FLOOR
    for limit in (COMMAND_FLOOR, floor - 0.01):
        done = _command("--n", "30", "--random-weights", "1", "--method", method,
                        "--time-limit", f"{limit:g}", "--quiet")
        assert done.returncode == 2 and done.stdout == "", done
        assert done.stderr.count("\n") == 1, done.stderr
        assert f"at least {floor:g} s with --method {method}" in done.stderr, done.stderr
        assert "--time-limit" in done.stderr, done.stderr


def test_the_floor_is_the_methods_own() -> None:
    """Another method keeps the command's floor: sa with 0.5 s answers."""
    done = _command("--n", "8", "--random-weights", "1", "--method", "sa",
                    "--time-limit", f"{COMMAND_FLOOR:g}", "--quiet")
    assert done.returncode == 0 and done.stdout.startswith(("optimal", "feasible")), done
