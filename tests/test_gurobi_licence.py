"""Gurobi past its licence (the size-limited one pip's gurobipy brings: 2,000 variables,
2,000 constraints): the command refuses the board in one line, exit 2, saying the limit
and what to do (it exited 1 with a BackendError); the API raises LicenceLimitError (a
ValueError), before a huge board's model is built; nqmip-compare skips gurobi on such
boards with a note (the sweep failed); a board whose fixed queens leave fewer free squares
than the limit is solved (the free squares and gurobipy's own error decide, not n)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

import nqmip
from nqmip.backends.base import LicenceLimitError

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.solver("gurobi")


@pytest.fixture(autouse=True)
def size_limited_licence() -> None:
    from nqmip.backends.gurobi import size_limited

    if not size_limited():
        pytest.skip("this machine's Gurobi licence is not the size-limited one")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, check=False)


def test_the_command_refuses_a_board_past_the_licence_in_one_line() -> None:
    done = run("-m", "nqmip", "--n", "50", "--method", "gurobi")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and done.stdout == "" and len(lines) == 1, done.stderr
    assert "2,000 variables and 2,000 constraints" in lines[0], lines[0]
    assert "full Gurobi licence" in lines[0] and "another method" in lines[0], lines[0]
    assert "2,500 free squares, a variable each (n = 50)" in lines[0], lines[0]


def test_a_huge_board_is_refused_before_its_model_is_built() -> None:
    # n = 1,000: a model of a million variables was built (8.5 s, 700 MB) to hear
    # gurobipy refuse it; the free squares alone decide now, the licence probed once
    begin = time.perf_counter()
    with pytest.raises(LicenceLimitError, match="1,000,000 free squares"):
        nqmip.solve(1000, "chess", method="gurobi")
    assert time.perf_counter() - begin < 4


def test_the_api_raises_the_licence_error_a_value_error() -> None:
    with pytest.raises(LicenceLimitError, match="size-limited licence") as caught:
        nqmip.solve(46, "chess", method="gurobi")
    assert isinstance(caught.value, ValueError) and "\n" not in str(caught.value)


def test_fixed_queens_that_shrink_the_model_under_the_limit_are_solved() -> None:
    placement = nqmip.solve(46, None, method="minconflicts", seed=1).placement
    assert placement is not None
    fixed = [(row, placement[row]) for row in range(10)]
    # 2,116 cells, under 2,000 free once ten queens are placed: gurobi runs (no refusal)
    result = nqmip.solve(46, "chess", method="gurobi", fixed=fixed, time_limit=2)
    assert result.method == "gurobi" and result.solver.startswith("gurobi"), result
    assert result.placement is None or nqmip.is_solution(result.placement)
    assert result.placement is None or all(result.placement[r] == c for r, c in fixed)


def test_compare_skips_gurobi_past_the_licence_with_a_note() -> None:
    done = run("-m", "nqmip.compare", "--n", "6,46", "--methods", "gurobi", "--time-limit",
               "5", "--no-progress", "--json")
    assert done.returncode == 0, done.stderr
    assert "note: gurobi skipped at n = 46: past Gurobi's size-limited licence" in done.stderr
    assert "failed" not in done.stderr, done.stderr
    alone = run("-m", "nqmip.compare", "--n", "46", "--methods", "gurobi", "--no-progress")
    lines = alone.stderr.strip().splitlines()
    assert alone.returncode == 2 and len(lines) == 1 and "every board is past" in lines[0]
