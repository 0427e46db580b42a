"""The first solution on a first run: the plain search of nqmip.lex.plain (pure Python, no
compile) answers it where it settles the question within its slice, the same solution as
the descent's. On an empty numba cache ``--lex-first --n 20 --time-limit 5`` answered a
solution with no row proven (its limit spent compiling the descent's kernels)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import nqmip
from nqmip.budget import Deadline
from nqmip.instance import make_instance
from nqmip.lex.plain import plain_first

ROOT = Path(__file__).resolve().parent.parent
FIXED = [None, [(0, 1)], [(1, 3)], [(2, 0), (5, 4)], [(0, 0), (1, 2)]]


@pytest.mark.parametrize("n", range(1, 13))
@pytest.mark.parametrize("fixed", FIXED, ids=str)
def test_the_plain_search_finds_the_descents_first_solution(n: int, fixed: list | None) -> None:
    fixed = [(r, c) for r, c in fixed or [] if r < n and c < n]
    try:
        instance = make_instance(n, None, fixed)
    except ValueError:  # fixed queens that attack each other: not a question
        return
    found = plain_first(instance, Deadline(None))
    descent = nqmip.lex_first(n, fixed)
    if descent.status == "infeasible":
        assert found.exhausted and found.placement is None
    else:
        assert not found.exhausted
        assert found.placement == tuple(descent.placement)


def test_a_first_run_under_a_limit_answers_the_first_solution_proven(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "solve_weighted.py"),
                           "--n", "20", "--lex-first", "--time-limit", "5", "--json"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    data = json.loads(done.stdout)
    assert data["status"] == "optimal" and data["extra"]["proven_rows"] == 20, data["message"]
    assert data["placement"] == list(nqmip.lex_first(20).placement)
