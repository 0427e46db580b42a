"""Behaviour combinations of the doors, generated from the method tables
(:data:`nqmip.methods.METHODS`, :data:`nqmip.methods.LEX_METHODS`), checked against the
brute force of tests/oracle.py. Classes of fault the sweep found:

- ``--lex-first --method cpsat-fixed`` answered a placement that is not the first in
  lexicographic order, as optimal: n = 4 gave 2,0,3,1 (the first is 1,3,0,2), n = 6
  4,2,0,5,3,1, n = 5 with ``--fix 2,4`` 3,1,4,2,0 (CP-SAT's presolve solved the small
  model outside the fixed search). Every lex method, every small board, with and without
  fixed queens, now against the oracle.
- A search ended by its work limit before its first placement answered nothing (status
  unknown, no placement, no message) where one ended by the clock answers a stand-in:
  ``solve(40, "chess", method="tabu", work_limit=1)``, and ga, minconflicts, quota and
  bnb alike. Now the stand-ins that do not depend on the clock (the explicit
  construction, a completion of the fixed queens), said in the message.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import nqmip
from nqmip.cli.solve import solve_weighted_main
from nqmip.methods import LEX_METHODS, METHODS, Method
from tests import oracle


def _lex_first(n: int, fixed: dict[int, int]) -> tuple[int, ...] | None:
    found = oracle.solutions(n)
    mask = np.ones(len(found), dtype=bool)
    for row, col in fixed.items():
        mask &= found[:, row] == col
    return min(map(tuple, found[mask].tolist())) if mask.any() else None


def _fixed_cases(n: int) -> list[dict[int, int]]:
    """No fixed queens, one in the last column, one that leaves no completion (n = 4)."""
    return [{}, {2: n - 1}, {1: 3}] if n > 4 else [{}, {0: 0}, {1: 3}]


#: The lex methods of the slow lane: those that solve a model per row (seconds per board)
#: and those with numba kernels to load (about 10 s on a loaded machine, cache or not).
_SLOW = tuple(m.name for m in LEX_METHODS.values()
              if m.name in ("cpsat", "highs-pyomo") or m.warm_up is not None)


def _check_lex(method: str) -> None:
    for n in range(4, 9):
        for fixed in _fixed_cases(n):
            result = nqmip.lex_first(n, fixed=fixed or None, method=method)
            want = _lex_first(n, fixed)
            got = None if result.placement is None else tuple(result.placement)
            assert got == want, (method, n, fixed, got, result.status)
            assert result.status == ("infeasible" if want is None else "optimal")


@pytest.mark.parametrize("method", [m for m in LEX_METHODS if m not in _SLOW])
def test_every_lex_method_answers_the_first_placement_of_every_small_board(
        method: str) -> None:
    _check_lex(method)


@pytest.mark.parametrize("method", _SLOW)
def test_every_slow_lex_method_answers_the_first_placement(method: str) -> None:
    _check_lex(method)


def _worked(methods: list[Method]) -> list[object]:
    return [pytest.param(m.name, fixed, id=f"{m.name}-{'fixed' if fixed else 'free'}",
                         marks=[pytest.mark.solver(m.name)] if m.kind == "exact" else [])
            for m in methods for fixed in ({}, {0: 1, 7: 30})]


#: The methods whose command runs in its own process beside the API's call (above).
BESIDE = ("highs", "highs-pyomo")
ROOT = Path(__file__).resolve().parent.parent


def _least_work(spec: Method) -> tuple[float, str]:
    return (0.01, "0.01") if spec.fractional_work else (1, "1")


def _check_work_stop(method: str, fixed: dict[int, int]) -> None:
    """Stopped by the least work it takes on a 40-board: a verified placement keeping the
    fixed queens, from the API and the command alike (the same answer: no clock in it)."""
    spec = METHODS[method]
    # an outside solver's first node is not counted: HiGHS's root on random weights at
    # n = 40 took 75-97 s at node limit 1 (load 12); chess weights keep it short
    weights = "random" if "dense" in spec.weights and spec.warm_up is not None else "chess"
    work, spelled = _least_work(spec)
    argv = ["--n", "40", "--method", method, "--work-limit", spelled, "--json",
            *(["--random-weights", "1"] if weights == "random" else []),
            *[a for row, col in fixed.items() for a in ("--fix", f"{row},{col}")]]
    # HiGHS's first node at n = 40 takes seconds (its root heuristics: 15-30 s on a loaded
    # machine): the command runs in its own process beside the call, on the other core
    command = subprocess.Popen([sys.executable, "-m", "nqmip.cli.solve", *argv],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT, env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                   filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
                               ) if method in BESIDE else None
    try:
        _check_both(method, fixed, weights, work, argv, command)
    finally:  # not left running by a failed check
        if command is not None and command.poll() is None:
            command.kill()
            command.communicate()


def _check_both(method: str, fixed: dict[int, int], weights: str, work: float,
                argv: list[str], command: subprocess.Popen[str] | None) -> None:
    result = nqmip.solve(40, weights, fixed=fixed or None, method=method, work_limit=work,
                         weights_seed=1 if weights == "random" else None)
    assert result.placement is not None, (result.status, result.message)
    assert nqmip.is_solution(result.placement)
    assert all(result.placement[row] == col for row, col in fixed.items())
    assert result.status in ("feasible", "optimal") and result.termination in (
        "iteration_limit", "optimal"), (result.status, result.termination)
    assert result.bound is None or result.bound >= result.objective - 1e-9
    if command is not None:
        stdout, stderr = command.communicate(timeout=600)
        status = command.returncode
    else:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = solve_weighted_main(argv)
        stdout, stderr = out.getvalue(), err.getvalue()
    assert status == 0, stderr
    printed = json.loads(stdout)
    assert printed["placement"] == list(result.placement), (printed["message"],
                                                             result.message)
    assert printed["objective"] == result.objective


@pytest.mark.parametrize(("method", "fixed"), _worked(
    [m for m in METHODS.values() if m.honour("work_limit") and m.warm_up is not None]))
def test_a_search_out_of_work_before_its_first_placement_answers_one(
        method: str, fixed: dict[int, int]) -> None:
    _check_work_stop(method, fixed)


@pytest.mark.parametrize(("method", "fixed"), _worked(
    [m for m in METHODS.values() if m.honour("work_limit") and m.warm_up is None]))
def test_a_solver_out_of_work_answers_a_placement(method: str,
                                                 fixed: dict[int, int]) -> None:
    _check_work_stop(method, fixed)


def _pairwise_cases() -> list[object]:
    from tests.pairwise import FACTORS, allpairs

    return [pytest.param(case, id=f"{i}-{case['method']}-{case['weights']}-{case['ctrl']}")
            for i, case in enumerate(allpairs(FACTORS, seed=2))]


@pytest.mark.parametrize("case", _pairwise_cases())
def test_the_commands_behaviour_pairs(case: dict[str, object]) -> None:
    """Each case of the covering: exit 0 with a verified answer (objective the weights'
    sum, optimal only at the oracle's optimum, the bound on its side, fixed queens kept,
    files written) or, for an option the method does not honour, exit 2 in one line."""
    from tests.pairwise import run

    argv, problems = run(case)
    assert not [p for p in problems if not p.startswith("ok-refused")], (argv, problems)
