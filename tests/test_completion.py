"""The completion problem: pre-placed queens never crash any method (a property test over
every method, weights and partial solutions, checked against brute force), and the
``--fixed FILE`` reader."""

from __future__ import annotations

import itertools
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nqmip
from nqmip.backends.base import EXACT_METHODS, get_backend
from nqmip.fixed_file import merge_fixed, parse_fixed, read_fixed
from nqmip.heuristics import HEURISTIC_METHODS
from nqmip.instance import InstanceError
from nqmip.result import Status
from tests.conftest import IN_CI

ROOT = Path(__file__).resolve().parents[1]
WEIGHTS = (None, "chess", "random")
#: Methods made for one kind of weights only refuse the others with a clear input error.
ONLY_FOR = {"topsquares": ("random",), "quota": ("chess",)}
HEURISTIC_LIMIT = 0.3


@cache
def _all_solutions(n: int) -> tuple[tuple[int, ...], ...]:
    """Every solution of the n-queens by brute force over permutations (n <= 8)."""
    return tuple(p for p in itertools.permutations(range(n))
                 if len({r + c for r, c in enumerate(p)}) == n
                 and len({r - c for r, c in enumerate(p)}) == n)


def _brute_force(instance: nqmip.Instance) -> float | None:
    """The optimum of a completion by enumeration (None: no completion)."""
    fixed = dict(instance.fixed)
    best: float | None = None
    for p in _all_solutions(instance.n):
        if all(p[r] == c for r, c in fixed.items()):
            value = instance.objective(p)
            best = value if best is None else max(best, value)
    return best


def _available(method: str) -> bool:
    if method not in EXACT_METHODS:
        return True
    if get_backend(method).available():
        return True
    if IN_CI:
        pytest.fail(f"CI=true and backend {method!r} is not available", pytrace=False)
    return False


@st.composite
def completions(draw: st.DrawFn) -> tuple[int, dict[int, int]]:
    """A board size and queens kept from one of its solutions (always completable), or,
    one time in four, queens that attack no one but may not complete."""
    n = draw(st.integers(4, 8))
    if draw(st.integers(0, 3)) == 0:
        rows = draw(st.lists(st.integers(0, n - 1), max_size=3, unique=True))
        queens: dict[int, int] = {}
        for row in rows:
            col = draw(st.integers(0, n - 1))
            if all(col != c and abs(row - r) != abs(col - c) for r, c in queens.items()):
                queens[row] = col
        return n, queens
    solution = draw(st.sampled_from(_all_solutions(n)))
    kept = draw(st.lists(st.integers(0, n - 1), max_size=n, unique=True))
    return n, {row: solution[row] for row in kept}


METHODS = ("auto", *EXACT_METHODS, *HEURISTIC_METHODS)


@settings(max_examples=90, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(board=completions(), weights=st.sampled_from(WEIGHTS),
       method=st.sampled_from(METHODS))
def test_every_method_completes_pre_placed_queens(
    board: tuple[int, dict[int, int]], weights: str | None, method: str
) -> None:
    n, fixed = board
    if method in ONLY_FOR and weights not in ONLY_FOR[method]:
        with pytest.raises(ValueError):
            nqmip.solve(n, weights, fixed=fixed, method=method, weights_seed=1)
        return
    if not _available(method):
        return
    instance = nqmip.make_instance(n, weights, fixed, weights_seed=1)
    exact = method in EXACT_METHODS or method == "auto"
    r = nqmip.solve(instance, method=method, seed=0,
                    time_limit=None if exact else HEURISTIC_LIMIT)
    optimum = _brute_force(instance)
    if r.placement is not None:
        placement = [int(c) for c in r.placement]
        assert placement in [list(p) for p in _all_solutions(n)], (method, placement)
        assert all(placement[row] == col for row, col in fixed.items()), (method, placement)
        assert optimum is not None
        assert r.objective == pytest.approx(instance.objective(placement))
        assert r.objective <= optimum + 1e-9
    if r.status == Status.INFEASIBLE:
        assert optimum is None, (method, fixed)
    if exact:
        # exact methods without a limit settle it: the optimum, or infeasible
        if optimum is None:
            assert r.status == Status.INFEASIBLE, (method, fixed, r.status)
        else:
            assert r.status == Status.OPTIMAL, (method, fixed, r.status)
            assert r.objective == pytest.approx(optimum), (method, fixed)
    else:
        assert r.status in (Status.OPTIMAL, Status.FEASIBLE, Status.UNKNOWN,
                            Status.INFEASIBLE), r.status


# --- the --fixed FILE reader ---------------------------------------------------------

def test_lines_with_comments_and_either_separator() -> None:
    read = parse_fixed("# a comment\n0,0\n\n 1 4  # trailing\n2, 7\n")
    assert read.queens == ((0, 0), (1, 4), (2, 7))
    assert read.n is None


def test_csplib_letting_format() -> None:
    text = "letting n =  8\nletting init =  [[0, 0], [1, 4],\n\t\t[2, 7]]\n"
    read = parse_fixed(text)
    assert read.n == 8
    assert read.queens == ((0, 0), (1, 4), (2, 7))


@pytest.mark.parametrize("text", ["0,0\n1;4\n", "0,0,1\n", "a,b\n",
                                  "letting n = 8\n", "letting init = [[0, 0], [1, x]]"])
def test_unreadable_files_are_input_errors(text: str) -> None:
    with pytest.raises(InstanceError):
        parse_fixed(text)


def test_a_file_size_fills_or_must_agree_with_n(tmp_path: Path) -> None:
    path = tmp_path / "c.param"
    path.write_text("letting n = 8\nletting init = [[0, 0]]\n")
    assert merge_fixed(None, [(1, 4)], [path]) == (8, [(1, 4), (0, 0)])
    assert merge_fixed(8, [(0, 0)], [path]) == (8, [(0, 0)])
    with pytest.raises(InstanceError, match="n = 8"):
        merge_fixed(9, [], [path])
    with pytest.raises(InstanceError):
        read_fixed(tmp_path / "missing.txt")


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args],
                          capture_output=True, text=True, timeout=120)


def test_cli_reads_a_fixed_file_and_keeps_its_queens(tmp_path: Path) -> None:
    path = tmp_path / "init.param"
    path.write_text("letting n = 10\nletting init = [[0, 1], [3, 0]]\n")
    out = _run("solve_weighted.py", "--fixed", str(path), "--method", "highs", "--json")
    assert out.returncode == 0, out.stderr
    import json

    r = json.loads(out.stdout)
    assert r["n"] == 10
    assert r["placement"][0] == 1 and r["placement"][3] == 0
    counted = _run("count_solutions.py", "--fixed", str(path))
    direct = nqmip.count_solutions(10, fixed={0: 1, 3: 0})
    assert counted.returncode == 0, counted.stderr
    assert int(counted.stdout.split()[0]) == direct


@pytest.mark.parametrize("script", ["solve_weighted.py", "count_solutions.py"])
def test_cli_bad_fixed_file_is_one_line_exit_2(tmp_path: Path, script: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("0,0\n1;4\n")
    out = _run(script, "--n", "8", "--fixed", str(path))
    assert out.returncode == 2
    assert "line 2" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "Traceback" not in out.stderr


def test_clashing_queens_from_a_file_are_named(tmp_path: Path) -> None:
    path = tmp_path / "clash.txt"
    path.write_text("0,0\n1,1\n")
    out = _run("solve_weighted.py", "--n", "8", "--fixed", str(path))
    assert out.returncode == 2
    assert "(0, 0)" in out.stderr or "0,0" in out.stderr or "row 0" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_brute_force_oracle_matches_the_known_counts() -> None:
    # the oracle itself can fail: 4 -> 2, 5 -> 10, 6 -> 4, 7 -> 40, 8 -> 92 (OEIS A000170)
    assert [len(_all_solutions(n)) for n in range(4, 9)] == [2, 10, 4, 40, 92]
    assert np.isclose(_brute_force(nqmip.make_instance(8, "chess")) or 0, 12)
