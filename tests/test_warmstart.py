"""Warm starts reach every exact backend through its real mechanism; bad starts are refused;
method="auto" and Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import nqmip
from nqmip.auto.policy import AUTO_HEURISTIC, pick_backend
from nqmip.backends.base import get_backend
from nqmip.methods import METHODS
from nqmip.result import Status, Termination
from nqmip.warmstart import WarmStartError

ROOT = Path(__file__).resolve().parent.parent
ACCEPTS_STARTS = {"highs": True, "highs-pyomo": True, "gurobi": True, "cpsat": True,
                  "glpk": False, "scip": True, "toulbar2": True, "bnb": True}


@pytest.fixture(scope="module")
def start30() -> nqmip.Result:
    # below the colour bound (52): a start at it is optimal, and the solver stops at its
    # first report of it (nqmip.colour.stop), whatever it did with the start
    r = nqmip.solve(30, "chess", method="sa", seed=5, work_limit=3000)
    assert r.placement is not None and r.bound is not None and r.objective < r.bound
    return r


def solved_in_time(method: str, start: object, limit: float, takes: bool) -> nqmip.Result:
    """``nqmip.solve`` of chess n = 30 from ``start`` within ``limit`` seconds, once more
    with 5 times the limit when a busy core ate the first before the solver had reported
    the start: the solver never ran (``start_accepted`` None: the limit ended as its model
    was built or its kernels loaded, and the result is the construction climbed), or
    (``takes``: a solver that reports the start as its first incumbent) it ran but had
    reported nothing yet, and the result is the start itself (incumbent_source
    "warm_start": CP-SAT reports a complete hint as its first solution when presolve ends,
    0.06 s unloaded; at 1 s under a load of 8 on 2 cores it had not)."""
    for seconds in (limit, 5 * limit):
        r = nqmip.solve(30, "chess", method=method, warm_start=start, time_limit=seconds)
        if r.provenance.start_accepted is not None and not (
                takes and r.provenance.incumbent_source == "warm_start"):
            break
    return r


def test_start_is_taken_by_the_solver(backend: str, start30: nqmip.Result) -> None:
    # With almost no time, what comes back is the start itself (or better): the solver
    # took it as its first incumbent, and says so.
    takes = ACCEPTS_STARTS[backend] and backend != "toulbar2"  # toulbar2: a bound, not a
    r = solved_in_time(backend, start30.placement,  # placement to start from
                       1 if backend in ("glpk", "cpsat") else 0.5, takes)
    assert r.provenance.start_accepted is ACCEPTS_STARTS[backend]
    assert r.provenance.start_objective == start30.objective
    assert r.placement is not None and nqmip.is_solution(r.placement)
    assert r.objective >= start30.objective
    if takes:
        assert r.provenance.incumbent_source != "warm_start", r.provenance


def test_a_start_outlives_a_limit_that_ends_before_the_solver_runs(
        backend: str, start30: nqmip.Result) -> None:
    # 0.01 s: the solver may never run; the answer is then the caller's start (it was the
    # construction climbed, worse than the start), whatever the machine's load
    r = nqmip.solve(30, "chess", method=backend, warm_start=start30.placement,
                    time_limit=0.01)
    assert r.placement is not None and nqmip.is_solution(r.placement)
    assert r.objective >= start30.objective


def test_no_start_means_none(backend: str) -> None:
    r = nqmip.solve(6, "chess", method=backend)
    assert r.provenance.start_accepted is None and r.provenance.start_objective is None


def test_named_heuristic_start_is_timed() -> None:
    # no limit: the annealing runs its default budget (under a limit its share of the time
    # decides how far it gets, which a loaded machine changes). Random weights: on chess
    # it reaches the colour bound, and the solver has nothing left to do
    board = nqmip.make_instance(16, "random", weights_seed=1)  # HiGHS proves it in ~1 s
    r = nqmip.solve(board, method="highs", warm_start="sa", seed=5)
    assert r.provenance.start_accepted is True
    assert r.timing.start is not None and r.timing.start > 0
    assert r.timing.solve is not None and r.timing.solve > 0
    assert r.wall_time >= r.timing.solve
    # same seed, same heuristic run
    assert r.provenance.start_objective == nqmip.solve(board, method="sa", seed=5).objective


def test_result_as_start(start30: nqmip.Result) -> None:
    r = solved_in_time("cpsat", start30, 0.5, takes=False)
    assert r.provenance.start_accepted is True and r.objective >= start30.objective


@pytest.mark.parametrize(
    ("start", "message"),
    [
        ((0, 2, 4, 1), "has 4 queens"),
        ((0, 1, 2, 3, 4, 5, 6, 7), "attacking pairs"),
        ((0, 1, 2, 3, 4, 5, 6, 9), "off the 8 x 8 board"),
        ((0, 4, 7, 5, 2, 6, 1, 3.5), "integer"),
        ((0, 4, 7, 5, 2, 6, True, 3), "integer"),  # was read as column 1 and solved
        ("simplex", "unknown warm-start heuristic"),
    ],
)
def test_invalid_start_is_refused_before_solving(
    monkeypatch: pytest.MonkeyPatch, start: object, message: str
) -> None:
    backend = get_backend("highs")

    def must_not_run(*_: object) -> None:
        raise AssertionError("the solver ran with an invalid start")

    # on the class: undone on the cached instance, the bound method stayed in its __dict__
    # and hid every later patch of the class (test_contract's Spy saw no solve)
    monkeypatch.setattr(type(backend), "solve", must_not_run)
    with pytest.raises(WarmStartError, match=message):
        nqmip.solve(8, "chess", method="highs", warm_start=start)  # type: ignore[arg-type]


def test_start_that_moves_fixed_queens_is_refused() -> None:
    with pytest.raises(WarmStartError, match="fixed"):
        nqmip.solve(8, "chess", fixed={0: 1}, method="highs",
                    warm_start=(0, 4, 7, 5, 2, 6, 1, 3))


def test_heuristics_take_no_start() -> None:
    # (a heuristic's own start is its parameter: sa, quota and lns take ``start``)
    with pytest.raises(ValueError, match="'tabu' does not take warm_start"):
        nqmip.solve(8, method="tabu", warm_start=(0, 4, 7, 5, 2, 6, 1, 3))


def test_auto_proves_small_boards() -> None:
    r = nqmip.solve(8, "chess", method="auto")
    assert r.status == Status.OPTIMAL and r.objective == 12 and r.method == "auto"
    # the plan's kernels compiled first, as a warm run has them (on an empty cache the MIP
    # proves before a child has compiled the branch and bound's: no bnb in the plan)
    from nqmip.auto.kernels import warm_up
    from nqmip.auto.policy import PLAN_BY_NAME

    warm_up(PLAN_BY_NAME["mip"], like=nqmip.make_instance(20, "random", weights_seed=4))
    r = nqmip.solve(20, "random", weights_seed=4, method="auto", seed=1, time_limit=60)
    assert r.status == Status.OPTIMAL and r.provenance.start_accepted is True
    backend = pick_backend(20)
    # the explicit incumbent (climbed by numpy swaps), then nqmip's branch and bound on one
    # core from it, beside the annealing and the MIP warm-started from it on the other:
    # the first to prove wins
    # (bnb, in about 0.3 s, unless a loaded machine lets the MIP start first)
    plan = r.provenance.plan
    assert plan[0] == "explicit" and "bnb" in plan
    assert set(plan[1:]) <= {"bnb", AUTO_HEURISTIC, backend, "swap climb"}
    assert r.solver.split()[0] in ("bnb", backend)
    assert backend == ("gurobi" if get_backend("gurobi").available() else "highs")
    assert r.objective == nqmip.solve(20, "random", weights_seed=4, method="highs").objective


def test_auto_chess_uses_the_colour_bound() -> None:
    # n = 20, the optimum from another exact solver: CP-SAT proves it in about a second
    # (plain HiGHS took 4-8 s under load; n = 24 took 11 s)
    plain = nqmip.solve(20, "chess", method="cpsat")
    assert plain.status == Status.OPTIMAL
    r = nqmip.solve(20, "chess", method="auto", seed=1, time_limit=60)
    assert r.status == Status.OPTIMAL and r.objective == plain.objective
    assert r.provenance.start_accepted is None  # a start would skip the proof by the bound
    # the colour bound is auto's before any search: a limit of 1 s (as in
    # test_auto_returns_a_verified_placement_within_a_one_second_limit) answers with it
    far = nqmip.solve(100, "chess", method="auto", seed=1, time_limit=1)
    assert far.status in (Status.OPTIMAL, Status.FEASIBLE)
    assert nqmip.is_solution(far.placement)
    assert far.bound is not None and far.objective <= far.bound <= 200
    assert far.bound < 200  # the colour bound, far below 2n (every queen on black)


def test_auto_feasibility_is_optimal_at_once() -> None:
    r = nqmip.solve(500, method="auto", seed=2)
    assert r.status == Status.OPTIMAL and r.objective == 500 and r.bound == 500
    assert r.provenance.plan == ("explicit",)  # n queens: optimal at once


@pytest.mark.timing
def test_auto_beyond_exact_range_returns_incumbent_bound_and_gap() -> None:
    r = nqmip.solve(120, "random", weights_seed=3, method="auto", seed=1, time_limit=4)
    assert r.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert nqmip.is_solution(r.placement)
    assert r.bound is not None and r.bound >= r.objective and r.gap is not None
    assert r.wall_time < 4 + 5  # the limit covers heuristic and bound, with small overhead


def test_auto_answers_infeasible_completion() -> None:
    # no clash, but no completion either (n = 4 has two solutions, neither with (0, 0))
    r = nqmip.solve(4, "chess", fixed={0: 0}, method="auto")
    assert r.status == Status.INFEASIBLE


@pytest.mark.timing
def test_auto_time_limit_end_to_end() -> None:
    r = nqmip.solve(40, "chess", method="auto", seed=1, time_limit=3)
    assert r.wall_time < 3 + 3
    assert r.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert r.bound is not None and r.bound >= r.objective


@pytest.mark.parametrize("method", ["highs", "cpsat", "gurobi"])
def test_ctrl_c_returns_best_incumbent(method: str) -> None:
    if not get_backend(method).available():
        pytest.skip(f"{method} not installed")  # conftest's CI rule covers the fixture ones
    # Instances these solvers cannot prove within seconds (Gurobi's pip licence: n <= 44).
    n, weights = (40, "chess") if method == "gurobi" else (60, "random")
    code = (
        "import nqmip, json, sys\n"
        "heard = []\n"
        "def report(p):\n"
        "    if p.incumbent is not None and not heard:\n"
        "        heard.append(p)\n"
        "        print('incumbent', file=sys.stderr, flush=True)\n"
        f"r = nqmip.solve({n}, {weights!r}, weights_seed=1, method={method!r}, "
        "time_limit=120, on_progress=report)\n"
        "print(json.dumps([r.termination, r.objective, r.placement is not None]))"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stderr is not None
    # the solver has its first incumbent (it said so): the interrupt comes a second later,
    # not after a fixed sleep (it was 6 s) that a cold or loaded start may outlast
    before = []
    while (line := proc.stderr.readline()) not in ("incumbent\n", ""):
        before.append(line)
    assert line == "incumbent\n", "".join(before) + proc.stderr.read()
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    termination, objective, has_placement = json.loads(out)  # stdout holds only the JSON
    assert termination in (Termination.INTERRUPTED, Termination.OPTIMAL)
    assert has_placement and objective is not None


@pytest.mark.parametrize(("method", "param"), [("sa", "max_iterations"),
                                               ("tabu", "max_iterations"),
                                               ("ga", "max_evaluations")])
def test_ctrl_c_stops_a_heuristic_with_its_best(method: str, param: str) -> None:
    code = (
        "import nqmip, json, sys\n"
        "def heard(p):\n"
        "    if p.incumbent is not None:\n"
        "        print('searching', file=sys.stderr, flush=True)\n"
        f"r = nqmip.solve(300, 'random', weights_seed=1, method={method!r}, seed=1, "
        f"{param}=10**12, on_progress=heard)\n"
        "print(json.dumps([r.termination, r.objective, r.placement is not None]))"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stderr is not None
    # the search has a placement (its first progress report): the interrupt comes a second
    # into the search, not after a fixed sleep that a cold or loaded start may outlast
    first = proc.stderr.readline()
    assert first == "searching\n", first + proc.stderr.read()
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    termination, objective, has_placement = json.loads(out)
    assert termination == Termination.INTERRUPTED
    assert has_placement and objective is not None


#: Starts no run can use, on the 8 x 8 chess board (feasibility for lns), and the refusal.
UNUSABLE = [("chess", (0, 2, 4, 1), "has 4 queens"),
            ("chess", (0, 1, 2, 3, 4, 5, 6, 7), "attacking pairs"),
            ("chess", "simplex", "unknown warm-start heuristic"),
            ("chess", "topsquares", "takes a weight matrix"),
            (None, "lns", "not no weights"),
            ("random", "quota", "weights constant per colour")]


@pytest.mark.parametrize("method", [
    pytest.param(m.name, marks=[pytest.mark.solver(m.name)] if m.kind == "exact" else [],
                 id=m.name)
    for m in METHODS.values() if m.honour("warm_start")])
def test_an_unusable_start_is_refused_whatever_the_time_limit(method: str) -> None:
    """Refused before the run, by every method that takes a start, even when the limit is
    gone before the solver is ready: before, the refusal came from inside the run and the
    limit's answer hid it (`warm_start="simplex"`, glpk or gurobi, `time_limit=0.001`:
    'feasible', the explicit construction; warm_start="topsquares" on chess weights: the
    same with highs)."""
    for weights, start, message in UNUSABLE:
        with pytest.raises(WarmStartError, match=message):
            nqmip.solve(8, weights, method=method, warm_start=start,  # type: ignore[arg-type]
                        time_limit=0.001)


@pytest.mark.parametrize("method", [
    pytest.param(m.name, marks=[pytest.mark.solver(m.name)] if m.kind == "exact" else [],
                 id=m.name)
    for m in METHODS.values() if m.honour("warm_start")])
def test_a_start_given_as_an_iterator_is_read_once(method: str) -> None:
    """A generator was read by the check before the run, and the run found it empty: 'the
    warm start has 0 queens, the board needs 8'."""
    start = (0, 4, 7, 5, 2, 6, 1, 3)
    given = nqmip.solve(8, "chess", method=method, warm_start=(c for c in start),
                        time_limit=30)
    listed = nqmip.solve(8, "chess", method=method, warm_start=start, time_limit=30)
    assert given.placement is not None and listed.placement is not None
    assert (given.status, given.objective) == (listed.status, listed.objective)
