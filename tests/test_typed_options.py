"""Typed options: each option's type and range is declared once (nqmip.option_types, with
a method's own maxima on its row of nqmip.methods) and one validator checks it at every
door: nqmip.solve, nqmip.lex_first, count_solutions, the three commands and
nqmip-compare's --param. Cases are generated from the method table: every method x every
typed option it honours x sense x fixed, an invalid value refused by name; a valid value
taken by every method x option with both senses and with and without fixed queens (each
pair of values in the fast lane's covering rows). (tests/test_contract.py shows each
honoured option's effect; this file its range.)"""

from __future__ import annotations

import math
import warnings
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nqmip
from nqmip.cli.count import count_main
from nqmip.cli.solve import solve_weighted_main
from nqmip.compare import main as compare_main
from nqmip.enumeration.count import count_solutions
from nqmip.instance import InstanceError
from nqmip.methods import METHODS, Method
from nqmip.option_types import THREADS_MAX, TIME_LIMIT_MAX, TYPES, check_value
from nqmip.result import Status
from tests.test_inputs_environments import assert_one_line_refusal, run_main

#: Typed options: numbers and booleans (the others, "any", are checked where they are read:
#: tests/test_contract; "callable" and "path": tests/test_odd_api_inputs, test_record_doors).
TYPED = tuple(name for name, kind in TYPES.items()
              if kind.kind not in ("any", "callable", "path")
              and name not in ("unique", "workers", "time_limit"))


def valid(spec: Method, option: str) -> Any:
    """A value of ``option`` that ``spec`` takes, as a numpy scalar where it is a number
    (numpy's scalars are taken wherever Python's numbers are)."""
    value = {"seed": np.int64(3), "threads": np.int32(2), "mip_gap": np.float64(0.25),
             "strengthen": False, "bound_proof": np.bool_(True), "verbose": False,
             "target": np.float32(4.0), "work_limit": np.int64(20_000)}[option]
    if option == "work_limit" and spec.name in ("lns", "quota"):
        value = np.int64(3)  # a window or a stage is long
    return value


def invalid(spec: Method, option: str) -> list[Any]:
    """Values of ``option`` every method refuses: the wrong type, or out of range."""
    kind = TYPES[option]
    if kind.kind == "bool":
        return ["no", 1, "True"]
    high = spec.highest(option) or kind.high
    values: list[Any] = ["3", True, math.nan]
    if kind.low is not None:
        values.append(kind.low - 1 if kind.kind == "int" else -0.5)
    if high is not None and kind.above == "refuse":
        values.append(int(high) + 1 if kind.kind == "int" else high * 2)
    if kind.kind == "int":
        values.append(2.5)
    if option == "target":
        values.append(math.inf)
    return values


#: The (sense, fixed queens) a run can have.
SETTINGS: tuple[tuple[str, str | None], ...] = (("max", None), ("min", "e1"), ("max", "e1"),
                                                ("min", None))


def honoured() -> list[tuple[str, str]]:
    """Every (method, typed option it honours), from the method table."""
    return [(spec.name, option) for spec in METHODS.values() for option in TYPED
            if spec.honour(option)]


def covering() -> list[tuple[str, str, str, str | None]]:
    """Each (method, option) once, with the (sense, fixed) that meets the most pairs not
    yet met (greedy, in the table's order): every pair of values of the four parameters
    (method x sense, option x fixed, sense x fixed, ...) is in some row, checked here."""
    rows: list[tuple[str, str, str, str | None]] = []
    met: set[tuple[object, ...]] = set()

    def pairs(row: tuple[str, str, str, str | None]) -> set[tuple[object, ...]]:
        return {(i, row[i], j, row[j]) for i in range(4) for j in range(i + 1, 4)}

    for method, option in honoured():
        choices = [(method, option, sense, fixed) for sense, fixed in SETTINGS]
        row = max(choices, key=lambda r: len(pairs(r) - met))  # the first of the best
        rows.append(row)
        met |= pairs(row)
    values = [{r[i] for r in rows} for i in range(4)]
    wanted = {(i, a, j, b) for i in range(4) for j in range(i + 1, 4)
              for a in values[i] for b in values[j]}
    wanted -= {(0, m, 1, o) for m in values[0] for o in values[1]
               if (m, o) not in honoured()}  # an option the method refuses: not a case
    assert met >= wanted, sorted(wanted - met, key=str)
    return rows


def cases(take: str) -> list[Any]:
    """(method, option, sense, fixed) for every typed option each method honours. "fast":
    the covering rows (each (method, option) once, every pair of values met); "more": each
    (method, option) again with the other sense and the other fixed queens, so that the
    two together run every (method, option) with both senses and with and without fixed
    queens; "all": the whole product (4 a pair), for the refusals, which cost no run."""
    rows = covering()
    if take == "more":
        flip = {"max": "min", "min": "max"}
        rows = [(m, o, flip[s], None if f else "e1") for m, o, s, f in rows]
    elif take == "all":
        rows = [(m, o, s, f) for m, o in honoured() for s, f in SETTINGS]
    out = []
    for method, option, sense, fixed in rows:
        marks = [pytest.mark.solver(method)] if METHODS[method].kind == "exact" else []
        out.append(pytest.param(method, option, sense, fixed, marks=marks,
                                id=f"{method}-{option}-{sense}-{fixed}"))
    return out


def _weights(spec: Method) -> str:
    return "chess" if "colour" in spec.weights else "random"


@pytest.mark.parametrize("method,option,sense,fixed", cases("all"))
def test_an_invalid_value_of_an_honoured_option_is_refused_by_name(
        method: str, option: str, sense: str, fixed: str | None) -> None:
    spec = METHODS[method]
    for value in invalid(spec, option):
        with pytest.raises((TypeError, ValueError), match=option) as info:
            nqmip.solve(10, _weights(spec), method=method, time_limit=5, sense=sense,
                        fixed=fixed, **{option: value})
        message = str(info.value)
        assert "\n" not in message and len(message) < 300, message
        assert "must be" in message, message  # the accepted values are said


def _valid_run(method: str, option: str, sense: str, fixed: str | None) -> None:
    spec = METHODS[method]
    n = 20 if method == "quota" else 8
    kwargs: dict[str, Any] = {option: valid(spec, option)}
    if option == "target" and sense == "min":  # a cost to reach from above: any placement
        kwargs["target"] = np.float32(9 * n)
    result = nqmip.solve(n, _weights(spec), method=method, sense=sense, fixed=fixed,
                         time_limit=0.5 if method in ("lns", "quota", "topsquares") else 20,
                         **kwargs)
    # taken, and answered: a placement, or (a heuristic out of time, topsquares on the small
    # board) none, said so
    assert result.placement is not None or result.status is Status.INFEASIBLE or (
        spec.kind == "heuristic" and result.status is Status.UNKNOWN), result
    if fixed is not None and result.placement is not None:
        assert result.placement[0] == 4  # e1 is row 0, column 4
    if option == "seed":
        assert result.seed == 3 and type(result.seed) is int


@pytest.mark.parametrize("method,option,sense,fixed", cases("fast"))
def test_a_valid_value_of_an_honoured_option_runs(method: str, option: str, sense: str,
                                                  fixed: str | None) -> None:
    """Each method x option once, every pair of values met (:func:`covering`); the slow
    test below runs each again with the other sense and fixed queens."""
    _valid_run(method, option, sense, fixed)


@pytest.mark.parametrize("method,option,sense,fixed", cases("more"))
def test_every_valid_value_of_the_table_runs(method: str, option: str, sense: str,
                                             fixed: str | None) -> None:
    _valid_run(method, option, sense, fixed)


# --- the held-back inputs, one by one ---------------------------------------------------------

def test_threads_beyond_the_most_are_refused_at_every_door() -> None:
    """--threads 100000: HiGHS started 24,292 threads, CP-SAT rejected the model with an
    empty reason; now one line naming the range, before any work."""
    for method in ("highs", "cpsat", "gurobi", "highs-pyomo", "bnb", "auto"):
        with pytest.raises(ValueError, match=f"threads must be a whole number from 1 to "
                                             f"{THREADS_MAX}"):
            nqmip.solve(12, "chess", method=method, threads=100_000)
        assert_one_line_refusal(*run_main(solve_weighted_main, [
            "--n", "12", "--method", method, "--threads", "100000"]), "--threads", "256")
    assert_one_line_refusal(*run_main(compare_main, [
        "--n", "8", "--methods", "highs", "--param", "threads=100000"]), "threads", "256")
    assert_one_line_refusal(*run_main(count_main, ["--n", "8", "--workers", "100000"]),
                            "--workers", "256")


@pytest.mark.parametrize("method", ["glpk", "toulbar2", "highs"])
def test_a_time_limit_beyond_any_solvers_is_no_limit_with_a_note(
        method: str, capsys: pytest.CaptureFixture[str]) -> None:
    """--time-limit 1e12: glpk printed a 41-line traceback, toulbar2 pybind11's
    'incompatible function arguments'; now the run has no limit and a note says so."""
    status = solve_weighted_main(["--n", "6", "--method", method, "--time-limit", "1e12",
                                  "--quiet"])
    out, err = capsys.readouterr()
    assert status == 0 and out.startswith("optimal objective=10"), (out, err)
    assert err.count("\n") == 1 and "without a time limit" in err and "Traceback" not in err, err
    with pytest.warns(UserWarning, match="without a time limit"):
        result = nqmip.solve(6, "chess", method=method, time_limit=1e12)
    assert result.status is Status.OPTIMAL
    # a Deadline of the caller's reaches the solver, at most what it takes
    result = nqmip.solve(6, "chess", method=method, time_limit=nqmip.Deadline(1e12))
    assert result.status is Status.OPTIMAL


def test_numpy_scalars_are_taken_wherever_python_numbers_are() -> None:
    result = nqmip.solve(8, "chess", method="sa", seed=np.int64(3), time_limit=np.float64(20),
                         target=np.float32(12))
    assert result.seed == 3 and type(result.seed) is int and result.objective == 12
    result = nqmip.solve(np.int64(8), "chess", method="highs", threads=np.int64(2),
                         mip_gap=np.float64(0.0), strengthen=np.bool_(True))
    assert result.objective == 12
    assert nqmip.lex_first(8, time_limit=np.float64(60)).placement == (0, 4, 7, 5, 2, 6, 1, 3)
    assert count_solutions(8, workers=np.int64(1)) == 92
    assert count_solutions(np.int64(8), unique=np.bool_(True)) == 12


@pytest.mark.parametrize("call,name", [
    ({"unique": "no"}, "unique"), ({"unique": 1}, "unique"), ({"workers": 0}, "workers"),
    ({"workers": 1000}, "workers"), ({"workers": 2.0}, "workers")])
def test_count_solutions_takes_booleans_only_as_booleans(call: dict[str, Any],
                                                        name: str) -> None:
    """count_solutions(8, unique="no") counted the classes (12) before."""
    with pytest.raises(ValueError, match=f"{name} must be"):
        count_solutions(8, **call)


@pytest.mark.parametrize("option", ["strengthen", "verbose", "bound_proof"])
def test_a_string_is_not_a_boolean(option: str) -> None:
    with pytest.raises(TypeError, match=f"{option} must be True or False"):
        nqmip.solve(8, "chess", method="highs", **{option: "no"})


def test_the_api_takes_the_commands_notation_for_queens() -> None:
    """nqmip.solve(8, "chess", fixed=["e1"]) as --fix e1 (it said 'row must be an integer,
    got e')."""
    for fixed in (["e1"], "e1", ["0,4"], [(0, 4)], {0: 4}):
        result = nqmip.solve(8, "chess", method="highs", fixed=fixed)
        assert result.fixed == ((0, 4),) and result.placement is not None
        assert result.placement[0] == 4
    with pytest.raises(InstanceError, match="ROW,COL"):
        nqmip.solve(8, fixed=["e"])


def test_a_queen_given_twice_is_refused_by_file_by_flag_and_by_the_api(
        tmp_path: Path) -> None:
    twice = tmp_path / "twice.txt"
    twice.write_text("0,1\n0,1\n")
    assert_one_line_refusal(*run_main(solve_weighted_main, [
        "--n", "6", "--fixed", str(twice)]), "0,1", "twice")
    assert_one_line_refusal(*run_main(count_main, ["--n", "6", "--fixed", str(twice)]),
                            "0,1", "twice")
    once = tmp_path / "once.txt"
    once.write_text("0,1\n")
    assert_one_line_refusal(*run_main(solve_weighted_main, [
        "--n", "6", "--fix", "0,1", "--fixed", str(once)]), "0,1", "twice")
    assert_one_line_refusal(*run_main(solve_weighted_main, [
        "--n", "6", "--fix", "0,1", "--fix", "0,1"]), "0,1", "twice")
    with pytest.raises(InstanceError, match=r"\(0, 1\) is given twice"):
        nqmip.solve(6, fixed=[(0, 1), (0, 1)])


def test_files_as_spreadsheets_write_them(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A UTF-8 byte-order mark at the start of a weights file and of a --fixed file."""
    weights = tmp_path / "w.csv"
    weights.write_bytes(b"\xef\xbb\xbf1,2,3,4\r\n4,3,2,1\r\n1,2,3,4\r\n4,3,2,1\r\n")
    fixed = tmp_path / "f.txt"
    fixed.write_bytes(b"\xef\xbb\xbf0,1\n")
    assert solve_weighted_main(["--weights", str(weights), "--method", "highs",
                                "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("optimal objective=14")
    assert solve_weighted_main(["--n", "6", "--fixed", str(fixed), "--method", "highs",
                                "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("optimal objective=8")


def test_a_dash_reads_standard_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import sys

    def stdin(data: bytes) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))

    stdin(b"1,2,3,4\n4,3,2,1\n1,2,3,4\n4,3,2,1\n")
    assert solve_weighted_main(["--weights", "-", "--method", "highs", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("optimal objective=14")
    stdin(b"0,1\n")
    assert solve_weighted_main(["--n", "6", "--fixed", "-", "--method", "highs",
                                "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("optimal objective=8")
    stdin(b"0,1\n")
    assert count_main(["--n", "6", "--fixed", "-"]) == 0
    assert capsys.readouterr().out.strip().endswith("1")
    assert_one_line_refusal(*run_main(solve_weighted_main, [
        "--weights", "-", "--fixed", "-"]), "standard input")


@pytest.mark.parametrize("argv,main", [
    (["--weights", "{dir}"], solve_weighted_main), (["--costs", "{dir}"], solve_weighted_main),
    (["--fixed", "{dir}"], solve_weighted_main), (["--fixed", "{dir}"], count_main)])
def test_a_folder_given_as_a_file_is_refused_as_a_folder(argv: list[str], main: Any,
                                                         tmp_path: Path) -> None:
    argv = [a.replace("{dir}", str(tmp_path)) for a in argv]
    assert_one_line_refusal(*run_main(main, argv), argv[0], "is a folder")


@pytest.mark.parametrize("param,names", [
    ("population=-5", ("population", "at least 1")), ("population=abc", ("population",)),
    ("sa:cycles=abc", ("cycles", "whole number")), ("sa:cooling=-1", ("cooling",)),
    ("mip_gap=5", ("mip_gap", "below 1")), ("threads=0", ("threads", "from 1 to 256")),
    ("highs:strengthen=\"no\"", ("strengthen", "True or False")),
    ("sa:start=1", ("start", "a string or null"))])
def test_compare_refuses_a_param_value_before_the_sweep(param: str,
                                                        names: tuple[str, ...]) -> None:
    """nqmip-compare ran --param population=-5 (each run failing, or hanging) instead of
    refusing it."""
    methods = "ga,sa" if not param.startswith("highs") and "gap" not in param \
        and "threads" not in param else "highs"
    assert_one_line_refusal(*run_main(compare_main, [
        "--n", "8", "--methods", methods, "--param", param]), "--param", *names)


@pytest.mark.parametrize("sense,target,word", [("max", 1000, "above 16"),
                                               ("min", 1, "below 8")])
def test_a_target_no_placement_reaches_is_refused(sense: str, target: float,
                                                  word: str) -> None:
    """--target 1000 on the 8-board (the most is 16): sa ran to its time limit."""
    with pytest.raises(ValueError, match=word):
        nqmip.solve(8, "chess", method="sa", sense=sense, target=target, time_limit=5)
    flags = ["--minimize"] if sense == "min" else []
    assert_one_line_refusal(*run_main(solve_weighted_main, [
        "--n", "8", "--method", "sa", "--target", str(target), *flags]), "target", word)


@pytest.mark.parametrize("call,name", [
    ({"n": -1}, "n"), ({"n": 4, "seed": -1}, "seed"), ({"n": 4, "low": 5, "high": 1}, "low"),
    ({"n": 4.5}, "n"), ({"n": 4, "seed": "x"}, "seed")])
def test_random_weights_refuses_in_its_own_words(call: dict[str, Any], name: str) -> None:
    """numpy said 'negative dimensions are not allowed'."""
    with pytest.raises(InstanceError, match=f"{name} must"):
        nqmip.random_weights(**call)


def test_exact_numbers_are_taken_as_weights_and_others_named() -> None:
    result = nqmip.solve(4, [[Fraction(1, 3)] * 4] * 4, method="highs")
    assert result.objective == pytest.approx(4 / 3)
    result = nqmip.solve(4, [[Decimal("1.5")] * 4] * 4, method="highs")
    assert result.objective == 6.0
    with pytest.raises(InstanceError, match=r"got str 'a' at \[0, 1\]"):
        nqmip.solve(2, [[Fraction(1), "a"], [1, 1]])


@pytest.mark.parametrize("scale", [1e-12, 1e-300])
def test_tiny_weights_never_give_a_bound_below_the_placement(scale: float) -> None:
    """Weights of 1e-300 were read as whole numbers, their bound rounded down to 0, below
    the placement's 8e-300; the exact solvers cannot tell such placements apart and are
    refused by name, the heuristics answer with a bound at least their placement."""
    w = np.full((8, 8), scale)
    w[0, 0] = 2 * scale
    for method in ("highs", "cpsat", "toulbar2", "auto"):
        with pytest.raises(ValueError, match=f"method '{method}' cannot take these "
                                             "weights: the largest"):
            nqmip.solve(8, w, method=method)
    result = nqmip.solve(8, w, method="sa", time_limit=20)
    assert result.bound is not None and result.objective is not None
    assert result.bound >= result.objective > 0


def test_weights_at_the_least_an_exact_method_takes_are_solved_right() -> None:
    w = np.full((8, 8), 1e-4)
    w[0, 0] = 2e-4
    for method in ("highs", "cpsat", "scip"):
        result = nqmip.solve(8, w, method=method)
        assert result.status is Status.OPTIMAL and result.objective == pytest.approx(9e-4)
        assert result.bound is not None and result.bound >= result.objective * (1 - 1e-9)


def test_the_validator_turns_numpy_into_python_and_refuses_by_name() -> None:
    assert type(check_value("seed", np.uint8(3))) is int
    assert type(check_value("mip_gap", np.float16(0.5))) is float
    assert check_value("strengthen", np.bool_(False)) is False
    assert check_value("time_limit", 1e12) == 1e12  # above the most: no limit, said so
    with pytest.raises(TypeError, match="threads must be a whole number from 1 to 256"):
        check_value("threads", np.float64(2.0))
    with pytest.raises(ValueError, match="threads must be a whole number from 1 to 4 for "
                                         "'x', got 5"):
        check_value("threads", 5, most=4, who="'x'")
    assert TIME_LIMIT_MAX == 1e9
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="without a time limit"):
            nqmip.lex_first(8, time_limit=1e12)


def test_a_completion_count_too_wide_is_refused_before_its_board_is_built() -> None:
    """Found by the slow fuzzing: nqmip-count --n 100000 --fix e1 asked numpy for 74.5 GiB
    (a MemoryError traceback) before refusing its 99,999 free rows."""
    assert_one_line_refusal(*run_main(count_main, ["--n", "100000", "--fix", "e1"]),
                            "n = 100000", "free rows", "62")
    with pytest.raises(InstanceError, match="99999 free rows"):
        count_solutions(100_000, fixed=[(0, 4)])
