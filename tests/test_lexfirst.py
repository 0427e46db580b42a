"""The lexicographically first solution: the search, the models, the façade, the CLI.

Oracles: an independent plain backtracking in pure Python (below; no propagation, no
bitsets), and the rows of OEIS A141843 (https://oeis.org/A141843, "lexicographically
first solution of the n-queens problem", 1-based), n = 8 and n = 12 as printed there.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import nqmip
from nqmip.budget import Deadline
from nqmip.lex import first_solution
from nqmip.verify import is_solution

# OEIS A141843, rows n = 8 and n = 12 (1-based columns).
A141843 = {
    8: (1, 5, 8, 6, 3, 7, 2, 4),
    12: (1, 3, 5, 8, 10, 12, 6, 11, 2, 7, 9, 4),
}


def plain_first(n: int, fixed: dict[int, int] | None = None) -> tuple[int, ...] | None:
    """Textbook backtracking, rows in order, columns ascending: its first solution."""
    fixed = fixed or {}
    cols: list[int] = []

    def free(r: int, c: int) -> bool:
        return all(c != q and abs(c - q) != r - i for i, q in enumerate(cols))

    def go(r: int) -> bool:
        if r == n:
            return True
        for c in ([fixed[r]] if r in fixed else range(n)):
            if free(r, c):
                cols.append(c)
                if go(r + 1):
                    return True
                cols.pop()
        return False

    return tuple(cols) if go(0) else None


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 21, 23, 25])
def test_search_equals_plain_backtracking(n: int) -> None:
    found = first_solution(n)
    assert found.placement == plain_first(n)
    assert found.complete == (found.placement is not None)
    assert found.exhausted == (found.placement is None)


@pytest.mark.parametrize("n", [8, 12])
def test_oeis_rows(n: int) -> None:
    found = first_solution(n)
    assert tuple(c + 1 for c in found.placement or ()) == A141843[n]


@pytest.mark.parametrize("oracle_from", [-1, 0, 5])
def test_oracle_does_not_change_the_answer(oracle_from: int) -> None:
    for n in (12, 21, 23):
        assert first_solution(n, oracle_from=oracle_from, oracle_cap=50).placement \
            == plain_first(n)


@pytest.mark.parametrize("n,fixed", [(10, {1: 7}), (12, {0: 5, 11: 0}), (14, {3: 3}),
                                     (6, {0: 0}), (9, {0: 0, 2: 1})])
def test_fixed_queens(n: int, fixed: dict[int, int]) -> None:
    result = nqmip.lex_first(n, fixed=fixed)
    assert result.placement == plain_first(n, fixed)
    assert (result.status == "optimal") == (result.placement is not None)


def test_wide_boards_two_words() -> None:
    """n > 64 runs on two words per row; the answer is a verified solution."""
    from nqmip.construct import explicit_solution

    n = 70
    known = explicit_solution(n)
    assert known is not None
    fixed = {r: int(known[r]) for r in range(n) if r % 7 != 3}  # ten rows left free
    found = first_solution(n, fixed, Deadline(60.0))
    assert found.complete and found.placement is not None and is_solution(found.placement)
    assert all(found.placement[r] == c for r, c in fixed.items())


@pytest.mark.timing
def test_time_limit_gives_a_proven_prefix() -> None:
    # n = 34 takes far more than a second: the search stops with a prefix proven
    begin = Deadline(None)
    result = nqmip.lex_first(34, time_limit=1.0)
    assert begin.elapsed() < 30
    assert result.termination == "time_limit"
    rows = result.extra["proven_rows"]
    assert 0 <= rows < 34
    assert rows == 0 or result.placement is not None  # the prefix is the placement's
    if result.placement is not None:  # the smallest completion met, verified
        assert is_solution(result.placement)


@pytest.mark.parametrize("method", ["cpsat", "cpsat-fixed", "highs-pyomo"])
def test_models_agree(method: str) -> None:
    for n in (8, 11):
        result = nqmip.lex_first(n, method=method)
        assert result.status == "optimal"
        assert result.placement == plain_first(n)
        assert result.extra["proven_rows"] == n


def test_weighted_model_small_n() -> None:
    from nqmip.formulation.lex import weighted_cpsat
    from nqmip.instance import make_instance

    assert weighted_cpsat(make_instance(9)).placement == plain_first(9)
    with pytest.raises(ValueError):
        weighted_cpsat(make_instance(16))


def test_bad_requests() -> None:
    with pytest.raises(TypeError, match="lex_first"):  # the first solution's own door
        nqmip.solve(8, objective="lex-first")
    with pytest.raises(ValueError, match="without weights"):
        nqmip.lex_first(nqmip.make_instance(8, "chess"))
    with pytest.raises(ValueError, match="unknown method 'ga'"):
        nqmip.lex_first(8, method="ga")
    with pytest.raises(TypeError, match="oracle_cap"):
        nqmip.lex_first(8, method="cpsat", oracle_cap=5)


def test_cli_lex_first() -> None:
    out = subprocess.run([sys.executable, "-m", "nqmip.cli.solve", "--n", "8", "--lex-first",
                          "--json"], capture_output=True, text=True, check=True)
    import json

    data = json.loads(out.stdout)
    assert tuple(c + 1 for c in data["placement"]) == A141843[8]
    assert data["extra"]["proven_rows"] == 8


def test_checker_second_route() -> None:
    """tools/check_lexfirst.py proves the A141843 row for n = 8 and refutes a later
    solution (2 4 6 8 3 1 7 5 is a solution, not the first)."""
    from pathlib import Path

    tool = str(Path(__file__).resolve().parent.parent / "tools" / "check_lexfirst.py")
    good = subprocess.run([sys.executable, tool, "--n", "8", "--columns", "1 5 8 6 3 7 2 4"],
                          capture_output=True, text=True)
    assert good.returncode == 0, good.stdout + good.stderr
    late = subprocess.run([sys.executable, tool, "--n", "8", "--columns", "2 4 6 8 3 1 7 5"],
                          capture_output=True, text=True)
    assert late.returncode == 1
