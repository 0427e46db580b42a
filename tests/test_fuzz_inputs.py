"""Fuzzing the doors: argument lists of the three commands (run in this process through
their main functions, good values and bad mixed) and the parameters of nqmip.solve. Every
case ends in one of two ways: exit status 2 (a ValueError or TypeError from the API) with
one line naming a parameter, or a verified answer; never a traceback, never a hang.
nqmip-compare's --param is fuzzed through its pre-sweep check: what it takes, nqmip.solve
runs. The fast lane runs a few dozen cases of each (about 20 s warm); the larger run is
tests/slow_tests.txt's."""

from __future__ import annotations

import contextlib
import io
import json
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nqmip
from nqmip.cli.count import count_main
from nqmip.cli.solve import solve_weighted_main
from nqmip.compare.checks import check_params
from nqmip.compare.grid import UsageError
from nqmip.methods import METHODS, OPTIONS
from nqmip.result import Status

#: Methods quick on small boards whatever the options (lns and quota improve until their
#: limit: they get one).
QUICK = ("highs", "cpsat", "scip", "gurobi", "glpk", "toulbar2", "bnb", "highs-pyomo",
         "auto", "sa", "tabu", "ga", "minconflicts", "topsquares")

garbage = st.sampled_from(["", "x", "-1", "0", "nan", "inf", "-inf", "1e400", "2.5", "1,2",
                           "e9", "10**6", "True", " 3", "0x10", "ä"])
small_int = st.integers(-3, 12).map(str)
big_int = st.sampled_from(["100000", str(2**31), str(2**63), str(2**64), "257", "256"])
number = st.one_of(st.floats(-1e3, 1e3, allow_nan=False).map(lambda v: f"{v:.3g}"),
                   st.sampled_from(["1e12", "1e-300", "0", "-0", "0.5"]))
value = st.one_of(garbage, small_int, big_int, number)
square = st.one_of(st.sampled_from(["e1", "a1", "h8", "i9", "z1", "a0", "0,0", "1,3",
                                    "7,7", "-1,0", "8,0", "0,8", "aa1"]), garbage)


def solve_argv() -> st.SearchStrategy[list[str]]:
    flags = st.one_of(
        st.tuples(st.just("--threads"), value), st.tuples(st.just("--seed"), value),
        st.tuples(st.just("--target"), value), st.tuples(st.just("--work-limit"), value),
        st.tuples(st.just("--time-limit"), st.one_of(garbage, st.sampled_from(
            ["0.5", "1", "-1", "0", "nan"]))),
        st.tuples(st.just("--fix"), square), st.tuples(st.just("--black"), value),
        st.tuples(st.just("--white"), value), st.tuples(st.just("--random-weights"), value),
        st.tuples(st.just("--param"), st.sampled_from(
            ["population=5", "cooling=0.5", "cooling=2", "tenure=-1", "x=1", "=", "a"])),
        st.tuples(st.sampled_from(["--minimize", "--feasibility", "--no-strengthen",
                                   "--no-warm-start", "--lex-first"])),
        st.tuples(st.just("--warm-start"), st.sampled_from(["sa", "tabu", "x"])))
    return st.tuples(st.integers(1, 8), st.sampled_from(QUICK),
                     st.lists(flags, max_size=4)).map(
        lambda t: ["--n", str(t[0]), "--method", t[1], "--time-limit", "2", "--json",
                   *[part for flag in t[2] for part in flag]])


#: --workers values: refused ones, 1 (the count in this process) and " 3" (a small pool),
#: not 256: a pool of 256 processes took 10 s for one case (nqmip-count --n 9 --workers
#: 256, against 0.05 s with --workers 1), reached by 8 cases in 2000 drawn: in about one
#: run of the 150 cases in two, one of the 25 in ten.
#: The pool itself is test_count's (workers=2, a killed pool process).
workers_value = st.one_of(garbage, big_int.filter(lambda text: text != "256"), st.just("1"))


def count_argv() -> st.SearchStrategy[list[str]]:
    flags = st.one_of(st.tuples(st.just("--fix"), square),
                      st.tuples(st.just("--workers"), workers_value),
                      st.tuples(st.just("--limit"), value),
                      st.tuples(st.sampled_from(["--unique", "--list", "--json"])))
    return st.tuples(st.one_of(st.integers(1, 9).map(str), garbage, big_int),
                     st.lists(flags, max_size=3)).map(
        lambda t: ["--n", t[0], *[part for flag in t[1] for part in flag]])


NAMES = ("--", "n ", "n =", "n must", "fixed", "queen", "row", "weights", "costs",
         "target", "method", "seed", "threads", "time_limit", "work_limit", "param",
         "black", "white", "square", "unique", "workers", "warm", "lex", "minimize",
         "feasibility", *OPTIONS)


def run(main: Callable[[Sequence[str]], int], argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exit_:  # --version, --help
            status = int(exit_.code or 0)
    return status, out.getvalue(), err.getvalue()


def assert_refused_or_answered(status: int, out: str, err: str, argv: list[str]) -> None:
    assert "Traceback" not in err, (argv, err)
    assert status in (0, 2), (argv, status, out, err)
    if status == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and out == "", (argv, out, err)
        params = [a.split("=", 1)[0] for a in argv if "=" in a and not a.startswith("-")]
        assert any(name in lines[0] for name in (*NAMES, *params)), (argv, lines[0])


def check_answer(out: str, argv: list[str]) -> None:
    """The solve command's JSON: a placement that is a permutation keeping its bound."""
    data = json.loads(out)
    placement, objective, bound = data["placement"], data["objective"], data["bound"]
    if placement is not None:
        assert sorted(placement) == sorted(set(placement)), argv
    if objective is not None and bound is not None and data["status"] != "infeasible":
        tolerance = 1e-6 * max(1.0, abs(bound))
        if data.get("sense", "max") == "min":
            assert bound <= objective + tolerance, (argv, data)
        else:
            assert bound >= objective - tolerance, (argv, data)


FAST = settings(max_examples=25, deadline=None,
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.function_scoped_fixture])
#: The larger run (tests/slow_tests.txt): the same properties, many more cases.
LONG = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.function_scoped_fixture])


@FAST
@given(solve_argv())
def test_fuzzed_solve_command_lines_are_refused_by_name_or_answered(argv: list[str]) -> None:
    status, out, err = run(solve_weighted_main, argv)
    assert_refused_or_answered(status, out, err, argv)
    if status == 0:
        check_answer(out, argv)


@FAST
@given(count_argv())
def test_fuzzed_count_command_lines_are_refused_by_name_or_answered(argv: list[str]) -> None:
    status, out, err = run(count_main, argv)
    assert_refused_or_answered(status, out, err, argv)


api_value = st.one_of(st.none(), st.booleans(), st.integers(-5, 300),
                      st.sampled_from([2**31, 2**63, 10**6, -1]),
                      st.floats(allow_nan=True, allow_infinity=True),
                      st.sampled_from(["1", "no", "e1", b"1", (1,), [1]]),
                      st.integers(-5, 300).map(np.int64),
                      st.floats(-5, 300).map(np.float64), st.booleans().map(np.bool_))
API_OPTIONS = ("seed", "threads", "mip_gap", "target", "strengthen", "bound_proof",
               "work_limit", "time_limit", "verbose", "fixed", "sense", "weights_seed")


@FAST
@given(st.integers(1, 8), st.sampled_from(QUICK), st.sampled_from(["chess", "random", None]),
       st.dictionaries(st.sampled_from(API_OPTIONS), api_value, max_size=3))
def test_fuzzed_solve_parameters_are_refused_by_name_or_answered(
        n: int, method: str, weights: str | None, options: dict[str, Any]) -> None:
    options = dict(options)
    limit = options.pop("time_limit", 2)
    numeric = isinstance(limit, int | float | np.number) and not isinstance(limit,
                                                                          bool | np.bool_)
    if limit is None or (numeric and not math.isnan(limit) and limit > 2):
        limit = 2  # a valid limit, kept short (inf and 1e12 are tested on their own)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            result = nqmip.solve(n, weights, method=method, time_limit=limit, **options)
    except (TypeError, ValueError) as exc:
        message = str(exc)
        assert message and "\n" not in message, message
        assert any(name in message for name in (*API_OPTIONS, "method", "weights", "n ",
                                                "n must", "queen", "time_limit")), message
        return
    assert result.placement is not None or result.status in (Status.INFEASIBLE,
                                                             Status.UNKNOWN)
    if result.objective is not None and result.bound is not None:
        tolerance = 1e-6 * max(1.0, abs(result.bound))
        assert (result.bound <= result.objective + tolerance if result.sense == "min"
                else result.bound >= result.objective - tolerance), result


param_name = st.sampled_from(["population", "cooling", "tenure", "samples", "cycles",
                              "threads", "mip_gap", "strengthen", "noise", "t_start",
                              "max_iterations", "preset"])
param_value = st.one_of(st.integers(-3, 300), st.floats(allow_nan=False, min_value=-2,
                                                        max_value=2),
                        st.booleans(), st.none(), st.sampled_from(["abc", "default"]))


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["ga", "sa", "tabu", "highs"]), param_name, param_value)
def test_what_compare_takes_as_a_param_solve_runs(method: str, name: str,
                                                  value: Any) -> None:
    """The pre-sweep check and the run agree: a --param value nqmip-compare takes,
    nqmip.solve runs with (a value it refuses names the parameter)."""
    try:
        check_params([(method, name, value)], [method])
    except UsageError as exc:
        assert str(exc).startswith("--param") and name in str(exc), str(exc)
        return
    try:
        result = nqmip.solve(6, "random" if method == "topsquares" else "chess",
                             method=method, time_limit=1, **{name: value})
    except ValueError as exc:  # a range of the heuristic's own, checked by its run
        assert name in str(exc) and METHODS[method].kind == "heuristic", str(exc)
        return
    assert result.placement is not None or result.status is Status.UNKNOWN, result
    assert not math.isnan(result.objective or 0.0)


@LONG
@given(solve_argv())
def test_many_fuzzed_solve_command_lines(argv: list[str]) -> None:
    test_fuzzed_solve_command_lines_are_refused_by_name_or_answered.hypothesis.inner_test(
        argv)


@LONG
@given(count_argv())
def test_many_fuzzed_count_command_lines(argv: list[str]) -> None:
    test_fuzzed_count_command_lines_are_refused_by_name_or_answered.hypothesis.inner_test(
        argv)


@LONG
@given(st.integers(1, 8), st.sampled_from(QUICK), st.sampled_from(["chess", "random", None]),
       st.dictionaries(st.sampled_from(API_OPTIONS), api_value, max_size=4))
def test_many_fuzzed_solve_parameters(n: int, method: str, weights: str | None,
                                      options: dict[str, Any]) -> None:
    test_fuzzed_solve_parameters_are_refused_by_name_or_answered.hypothesis.inner_test(
        n, method, weights, options)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["ga", "sa", "tabu", "highs", "topsquares", "lns"]), param_name,
       param_value)
def test_many_fuzzed_compare_params(method: str, name: str, value: Any) -> None:
    test_what_compare_takes_as_a_param_solve_runs.hypothesis.inner_test(method, name, value)
