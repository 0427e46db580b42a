"""Bad input, generated: every command answers it with exit status 2, exactly one line on
stderr, no traceback, nothing on stdout, within a second. The commands run in this
process (their ``main(argv)``), so hypothesis can try many cases quickly; the subprocess
cases of tests/test_cli.py check the same through a real process."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nqmip.cli.count import count_main
from nqmip.cli.solve import solve_weighted_main
from nqmip.compare import main as compare_main
from nqmip.compare.grid import WEIGHT_CHOICES, known_methods
from nqmip.compare.store import RUN_STATUSES

COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "solve": solve_weighted_main, "compare": compare_main, "count": count_main}

not_a_number = st.text(alphabet="abcxyz-_,.;!", min_size=1, max_size=6).filter(
    lambda t: not t.lstrip("-").replace(".", "", 1).isdigit())
non_positive = st.integers(max_value=0).map(str)
negative = st.integers(max_value=-1).map(str)
bad_seconds = st.one_of(st.floats(max_value=0.0, allow_nan=False).map(repr),
                        st.sampled_from(["nan", "inf", "-inf"]), not_a_number)
bad_queen = st.one_of(not_a_number, st.tuples(negative, st.integers(0, 7).map(str)).map(
    ",".join), st.tuples(st.integers(8, 10**6), st.integers(0, 7)).map(
        lambda rc: f"{rc[0]},{rc[1]}"))

SOLVE = st.one_of(
    st.tuples(st.just("--n"), st.one_of(non_positive, not_a_number)),
    st.tuples(st.just("--time-limit"), bad_seconds),
    st.tuples(st.just("--seed"), st.one_of(negative, not_a_number)),
    st.tuples(st.just("--random-weights"), st.one_of(negative, not_a_number)),
    st.tuples(st.just("--threads"), st.one_of(non_positive, not_a_number)),
    st.tuples(st.just("--fix"), bad_queen),
    st.tuples(st.just("--method"), not_a_number),
    st.tuples(st.just("--black"), st.one_of(not_a_number, st.sampled_from(["nan", "inf"]))),
    st.tuples(st.just("--n"), st.integers(10**10, 10**15).map(str)),  # no memory for it
    # beyond what a solver can use: HiGHS started 24,292 threads for --threads 100000
    st.tuples(st.just("--threads"), st.integers(257, 10**12).map(str)),
    st.tuples(st.just("--work-limit"), bad_seconds),
    st.tuples(st.just("--target"), st.sampled_from(["nan", "inf", "-inf", "1000"])),
)
COMPARE = st.one_of(
    st.tuples(st.just("--n"), st.one_of(non_positive, not_a_number)),
    st.tuples(st.just("--repeats"), st.one_of(non_positive, not_a_number)),
    st.tuples(st.just("--time-limit"), bad_seconds),
    st.tuples(st.just("--methods"), not_a_number),
    st.tuples(st.just("--grace"), st.one_of(negative, not_a_number)),
    # values a run would refuse, refused before the sweep
    st.tuples(st.just("--param"), st.sampled_from([
        "threads=100000", "threads=0", "mip_gap=5", "mip_gap=-1", 'strengthen="no"',
        "seed=1", "black=nan", 'sense="up"', "threads=2.5"])),
)
COUNT = st.one_of(
    st.tuples(st.just("--n"), st.one_of(non_positive, not_a_number)),
    st.tuples(st.just("--fix"), bad_queen),
    st.tuples(st.just("--workers"), st.one_of(non_positive, not_a_number)),
    st.tuples(st.just("--n"), st.integers(33, 10**6).map(str)),  # beyond the kernels
    st.tuples(st.just("--workers"), st.integers(257, 10**9).map(str)),
)
CASES = st.one_of(
    SOLVE.map(lambda a: ("solve", ["--n", "8", *a] if a[0] != "--n" else list(a))),
    COMPARE.map(lambda a: ("compare", ["--n", "8", "--methods", "highs", *a]
                           if a[0] != "--n" else [*a, "--methods", "highs"])),
    COUNT.map(lambda a: ("count", ["--n", "8", *a] if a[0] != "--n" else list(a))),
)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@pytest.mark.timing
@given(CASES)
def test_generated_bad_input_is_refused_in_one_line(
        capsys: pytest.CaptureFixture[str], case: tuple[str, list[str]]) -> None:
    command, argv = case
    begin = time.perf_counter()
    status = COMMANDS[command](argv)
    seconds = time.perf_counter() - begin
    out, err = capsys.readouterr()
    assert status == 2, (command, argv, out, err)
    assert out == "", (command, argv, out)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, (command, argv, err)
    assert seconds < 1.0 + 1.0, (command, argv, seconds)  # 1 s, with a loaded machine's margin


def test_the_generator_makes_only_bad_input() -> None:
    # a good command line passes the same checks' first step: the test can tell them apart
    assert solve_weighted_main(["--n", "4", "--quiet", "--method", "highs"]) == 0


# --- files the commands read back: generated corrupt --resume and --record files -----------

junk_line = st.text(max_size=40).map(lambda t: t.replace("\n", " ").replace("\r", " ")).filter(
    lambda t: t.strip() != "")
json_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
              st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8).map(json.dumps)
RUN_ROW = {"n": 4, "method": "highs", "weights": "chess", "seed": 0, "warm_start": None,
           "params": None, "time_limit": 5.0, "status": "optimal", "objective": 6.0,
           "bound": 6.0, "wall_time": 0.03}
wrong_value = st.one_of(st.none(), st.booleans(), st.text(max_size=4),
                        st.lists(st.integers(), max_size=2), st.integers(max_value=0))
# a run's row with one field of the wrong type: read as a finished cell, it would be shown


def _wrong_for(field: str, value: object) -> bool:
    """Whether ``value`` is wrong in ``field`` (None and integers are right for numbers; a
    method, status or weights the sweep itself writes is right: "sa", "none")."""
    numeric = field in ("seed", "objective", "bound", "wall_time", "time_limit")
    right_names = {"method": known_methods(), "status": RUN_STATUSES,
                   "weights": WEIGHT_CHOICES}.get(field, ())
    return not ((numeric and (value is None or type(value) is int)) or value in right_names)


near_run_row = st.tuples(
    st.sampled_from(["n", "method", "status", "weights", "seed", "objective", "bound",
                     "wall_time", "time_limit"]), wrong_value).filter(
    lambda kv: _wrong_for(*kv)).map(lambda kv: json.dumps({**RUN_ROW, kv[0]: kv[1]}))
# a finished sub-tree of nqmip-count --n 8 with one part wrong (another count, no depth, ...)
near_record_line = st.sampled_from([
    {"job": "n=9 fixed= by=classes", "depth": 2, "task": [0, 2], "value": [1, 0, 0]},
    {"job": "n=8 fixed= by=classes", "task": [0, 2], "value": [1]},
    {"job": "n=8 fixed= by=classes", "depth": "two", "task": [0, 2], "value": [1]},
    {"job": "n=8 fixed= by=classes", "depth": 2, "task": "0,2", "value": [1]},
]).map(json.dumps)
CORRUPT = st.tuples(
    st.sampled_from(["compare", "count"]),
    st.lists(st.one_of(junk_line, json_value, near_run_row, near_record_line), min_size=1,
             max_size=4))


@pytest.mark.timing
@settings(max_examples=60, deadline=None)
@given(CORRUPT)
def test_a_generated_corrupt_file_is_refused_naming_the_option_or_line(
        case: tuple[str, list[str]]) -> None:
    command, lines = case
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "runs.jsonl"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        before = path.read_bytes()
        argv = (["--n", "8", "--methods", "highs", "--time-limit", "5", "--resume", str(path),
                 "--no-progress"] if command == "compare"
                else ["--n", "8", "--record", str(path), "--no-progress"])
        for attempt in (1, 2):  # a loaded machine may eat the margin once: measured again
            out = io.StringIO()
            err = io.StringIO()
            begin = time.perf_counter()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = COMMANDS[command](argv)
            seconds = time.perf_counter() - begin
            if seconds < 1.0 + 1.0 or attempt == 2:
                break
        assert status == 2, (command, lines, out.getvalue(), err.getvalue())
        assert out.getvalue() == "", (command, lines)
        message = err.getvalue().strip().splitlines()
        assert len(message) == 1 and "Traceback" not in err.getvalue(), (lines, message)
        assert "line " in message[0] or "another count" in message[0], message
        assert path.read_bytes() == before  # nothing appended to, nothing cut from the file
        assert seconds < 1.0 + 1.0, (command, lines, seconds)


@settings(max_examples=20, deadline=None)
@given(st.text(alphabet="abcxyz_-", min_size=1, max_size=10),
       st.sampled_from(["--output", "--plot"]))
def test_compare_never_creates_a_missing_folder(name: str, option: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        missing = Path(folder) / name
        target = missing / ("runs.jsonl" if option == "--output" else "t.png")
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = compare_main(["--n", "8", "--methods", "highs", option, str(target)])
        assert status == 2 and len(err.getvalue().strip().splitlines()) == 1, err.getvalue()
        assert option in err.getvalue() and not missing.exists()


@pytest.mark.timing
@pytest.mark.parametrize("command", ["nqmip.cli.count", "nqmip.compare"])
def test_a_corrupt_file_is_refused_by_the_real_command_before_anything_compiles(
        tmp_path: Path, command: str) -> None:
    path = tmp_path / "corrupt.jsonl"
    path.write_text("garbage\n")
    option = "--record" if command == "nqmip.cli.count" else "--resume"
    extra = [] if command == "nqmip.cli.count" else ["--methods", "highs"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    for _ in range(2):  # a busy core stole the time: once more
        begin = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", command, "--n", "10", *extra, option,
                            str(path)], capture_output=True, text=True, env=env, timeout=60)
        seconds = time.perf_counter() - begin
        if seconds < 1.0 + 2.0:
            break
    assert p.returncode == 2 and p.stdout == "", (p.stdout, p.stderr)
    assert p.stderr.count("\n") == 1 and "line 1" in p.stderr, p.stderr
    assert "delete that line" in p.stderr or "remove that line" in p.stderr, p.stderr
    assert seconds < 1.0 + 2.0, seconds  # 1 s and an interpreter's start on a loaded machine


@pytest.mark.parametrize(("argv", "words"), [
    (["--n", "8", "--fix", "z9"], "--fix z9 (8,25) is off the 8 x 8 board"),
    (["--n", "8", "--fix", "9,9"], "--fix 9,9 is off the 8 x 8 board"),
    (["--n", "7", "--fix", "h8"], "--fix h8 (7,7) is off the 7 x 7 board"),
    (["--n", "8", "--fix", "e1", "--fix", "0,4"], "--fix 0,4 is given twice (first as "
                                                   "--fix e1)"),
])
@pytest.mark.parametrize("command", ["solve", "count"])
def test_a_refused_fixed_queen_is_named_as_it_was_written(
        argv: list[str], words: str, command: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A chess square is refused under the name the user gave it, with the row and
    column it stands for, by both commands that take --fix (before: '--fix 8,25 is off
    the board' for '--fix z9', and nqmip-count's 'fixed queen (8, 25) ...')."""
    assert COMMANDS[command](argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err


# --- the sweep's table: doors x kinds of bad input that got through ------------------------
# Each row is one kind of bad input as each door takes it: the command line (run in this
# process, as above) or the API call, and the words its one-line refusal must hold. Every
# row failed before its fix: the count command counted 8 completions of two queens in one
# row (it kept the last); '-inf' was 'expected one argument'; nqmip-compare overflowed on
# --repeats/--memory-limit 2**63 (tracebacks), hung on --workers 2**63, built 10^9 sizes for
# --n 1:10**9 and failed each run of a seed out of range or a board too large (exit 1, after
# the sweep); the lex-first search, build_model and the GA's population met numpy's
# MemoryError (OverflowError at 2**63); an empty weights file said '<_io.StringIO object>'.
HUGE = str(2**63)
COMMAND_TABLE: list[tuple[str, str, list[str], str]] = [
    # (kind, door, argv, words)
    ("two queens in one row", "count", ["--n", "8", "--fix", "0,0", "--fix", "0,1"],
     "row 0 is given two fixed queens"),
    ("two queens in one row", "solve", ["--n", "8", "--fix", "0,0", "--fix", "0,1"],
     "row 0 is given two fixed queens"),
    ("-inf", "solve", ["--seed", "-inf"], "--seed: takes a whole number from 0 to"),
    ("-inf", "solve", ["--n", "-inf"], "--n: takes a whole number"),
    ("-inf", "count", ["--n", "8", "--workers", "-inf"], "--workers: takes a whole number"),
    ("-inf", "compare", ["--n", "8", "--methods", "highs", "--time-limit", "-inf"],
     "--time-limit: takes a positive number of seconds, at most 1e+09"),
    ("-inf", "compare", ["--n", "8", "--methods", "highs", "--grace", "-INF"],
     "--grace: takes a number of seconds from 0 to 1e+09"),
    ("-1e3", "solve", ["--seed", "-1e3"], "--seed: takes a whole number from 0 to"),
    ("-1e3", "solve", ["--n", "4", "--black", "-1e299", "--method", "highs"],
     "can total 4e+299, not below 2^53"),
    ("-1e3", "compare", ["--n", "8", "--methods", "highs", "--jobs", "-1E3"],
     "--jobs: takes a whole number from 1 to 256, got '-1E3'"),
    ("a picture named as another format", "solve", ["--n", "4", "--png", "board.svg"],
     "--png writes PNG, but board.svg names another format; give a .png name"),
    ("a picture named as another format", "solve", ["--n", "4", "--svg", "board.pdf"],
     "--svg writes SVG, but board.pdf names another format"),
    ("an output that cannot be written", "solve", ["--n", "4", "--method", "highs",
                                                   "--output", "/proc/version"],
     "--output: cannot write /proc/version"),
    ("huge", "compare", ["--n", "8", "--methods", "highs", "--repeats", HUGE],
     "--repeats: takes a whole number from 1 to 100000"),
    ("huge", "compare", ["--n", "8", "--methods", "highs", "--memory-limit", HUGE],
     "--memory-limit: takes a whole number of MB from 16 to"),
    ("huge", "compare", ["--n", "8", "--methods", "highs", "--workers", HUGE],
     "--workers: takes a whole number from 1 to 256"),
    ("huge", "compare", ["--n", "8", "--methods", "highs", "--jobs", "1000"],
     "--jobs: takes a whole number from 1 to 256"),
    ("huge", "compare", ["--n", "8", "--methods", "highs", "--hard-limit", "1e300"],
     "--hard-limit: takes a positive number of seconds"),
    ("huge", "compare", ["--n", "1:1000000000", "--methods", "highs"],
     "spans 1,000,000,000 sizes; a grid takes at most 100,000 runs"),
    ("huge", "compare", ["--n", "1:40000", "--methods", "highs,sa,tabu"],
     "span 120,000 runs; a grid takes at most 100,000"),
    ("an ignored option", "compare", ["--n", "8", "--methods", "highs", "--weights", "none",
                                      "--param", "black=3"],
     "--param black: black and white set the chess colours' values; --weights none"),
    ("an ignored option", "solve", ["--n", "8", "--feasibility", "--black", "3"],
     "--black set the chess colours' values: --feasibility has no colours"),
    ("an ignored option", "count", ["--n", "8", "--workers", "2", "--scheduler",
                                    "tcp://127.0.0.1:1"],
     "argument --scheduler: not allowed with argument --workers"),
    ("an ignored option", "compare", ["--n", "8", "--methods", "highs,auto", "--target", "5"],
     "--target applies to the heuristics (the exact methods and auto run without one); "
     "none is in --methods"),
    ("seed out of range", "compare", ["--n", "8", "--methods", "highs", "--seeds", "0,-1"],
     "--seeds takes whole numbers from 0 to 9223372036854775807, got -1"),
    ("seed out of range", "compare", ["--n", "8", "--methods", "highs", "--seeds", HUGE],
     "--seeds takes whole numbers from 0 to 9223372036854775807"),
    # a fractional work limit for a method counting whole units: every run of the sweep
    # failed ('counts whole units'), exit 1, after it had started
    ("not whole", "compare", ["--n", "8", "--methods", "highs", "--param", "work_limit=1.5"],
     "work_limit of 'highs' counts whole units"),
    ("not whole", "compare", ["--n", "8", "--methods", "sa,highs", "--param",
                              "highs:work_limit=1e-9"],
     "work_limit of 'highs' counts whole units"),
    ("not a number", "compare", ["--n", "8", "--methods", "highs", "--jobs", "two"],
     "--jobs: takes a whole number from 1 to 256, got 'two'"),
    ("not a number", "compare", ["--n", "8", "--methods", "highs", "--time-limit", ""],
     "--time-limit: takes a positive number of seconds"),
    ("no memory for it", "compare", ["--n", "200000", "--methods", "highs,tabu"],
     "--n 200000 --methods highs: n = 200000 needs about"),
    ("no memory for it", "compare", ["--n", "8", "--methods", "ga", "--param",
                                     "population=100000000000"],
     "of it for its own parameters"),
    ("no memory for it", "solve", ["--n", "50", "--method", "ga", "--param",
                                   "population=100000000000"],
     "of it for its own parameters"),
    ("no memory for it", "solve", ["--n", "200000", "--lex-first", "--method", "search"],
     "with lex_first method 'search'"),
    ("no memory for it", "solve", ["--n", "200000", "--method", "highs"],
     "n = 200000 needs about"),
    ("no memory for it", "count", ["--n", "100000", "--fix", "0,0"], "free rows"),
    # colour values whose totals pass 2^53: the solve command refused them, nqmip-compare
    # ran the sweep and failed every run (exit 1, after it)
    ("huge", "compare", ["--n", "5", "--methods", "sa", "--black", "1e30"],
     "weights up to 1e+30 on the 5 x 5 board can total 5e+30, not below 2^53"),
    ("huge", "compare", ["--n", "5,50", "--methods", "sa", "--white", "1e15"],
     "on the 50 x 50 board can total 5e+16"),
    ("huge", "compare", ["--n", "5", "--methods", "sa", "--param", "sa:black=1e30"],
     "weights up to 1e+30 on the 5 x 5 board"),
    ("huge", "solve", ["--n", "5", "--method", "sa", "--black", "1e30"],
     "weights up to 1e+30 on the 5 x 5 board can total 5e+30, not below 2^53"),
]


@pytest.mark.parametrize("command", ["solve", "count"])
def test_a_queen_of_a_fixed_file_off_the_board_is_named_as_the_files(
        tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A queen read from --fixed FILE is named as the file's, not as a --fix the user
    never wrote (was '--fix 0,9 is off the 8 x 8 board')."""
    path = tmp_path / "queens.txt"
    path.write_text("0,9\n")
    assert COMMANDS[command](["--n", "8", "--fixed", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"queen 0,9 of --fixed {path} is off the 8 x 8" in err, err


@pytest.mark.parametrize(("kind", "door", "argv", "words"), COMMAND_TABLE,
                         ids=[f"{door}-{kind}-{' '.join(argv)[:40]}"
                              for kind, door, argv, words in COMMAND_TABLE])
def test_the_sweeps_bad_input_is_refused_at_every_door_in_one_line(
        kind: str, door: str, argv: list[str], words: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    begin = time.perf_counter()
    status = COMMANDS[door](argv)
    out, err = capsys.readouterr()
    assert status == 2 and out == "", (kind, argv, status, out, err)
    assert err.count("\n") == 1 and "Traceback" not in err and words in err, (kind, err)
    assert time.perf_counter() - begin < 10, (kind, argv)  # refused before any work


API_TABLE: list[tuple[str, str, str]] = [
    # (kind, call, words): the same kinds through the API, a ValueError in one line
    ("two queens in one row", "nqmip.count_solutions(8, fixed=[(0, 0), (0, 1)])",
     "row 0 is given two fixed queens"),
    ("no memory for it", "nqmip.build_model(200000)",
     "n = 200000 needs about"),
    ("no memory for it", f"nqmip.build_model({HUGE}, backend='matrix')",
     f"n = {HUGE} needs about"),
    ("no memory for it", "nqmip.build_model(16000, 'chess', backend='cpsat')",
     "with build_model backend 'cpsat'"),
    ("no memory for it", "nqmip.enumerate_optimal(16000, weights='chess')",
     "with enumerate_optimal engine 'cpsat'"),
    ("no memory for it", "nqmip.lex_first(200000, method='search')",
     "with lex_first method 'search'"),
    ("no memory for it", "nqmip.solve(50, method='ga', population=10**11)",
     "of it for its own parameters"),
    # the published families' readers and generators
    ("no memory for it", "nqmip.random_weights(200000)", "n = 200000 needs about"),
    ("no memory for it", "families.toulbar2_tutorial(200000)", "n = 200000 needs about"),
    ("no memory for it", "families.aaai26_board(200000, 1)", "n = 200000 needs about"),
    ("no memory for it", "families.pb06_board(1, n=200000)", "n = 200000 needs about"),
    ("no memory for it", "csplib.generate_diagonals(200000)", "n = 200000 needs about"),
    ("a boolean seed", "families.pb06_board(True)", "seed must be a whole number"),
    ("seed out of range", f"families.pb06_board({HUGE})", "seed must be a whole number"),
    ("seed out of range", "families.toulbar2_tutorial(8, seed=-1)",
     "seed must be a whole number from 0 to"),
    ("a missing file", "opb.read_opb('/nonexistent/board.opb')",
     "OPB file: cannot read /nonexistent/board.opb"),
    ("a folder as a file", "opb.read_opb('/tmp')", "OPB file: /tmp is a folder"),
    ("a board of no rows", "csplib.parse_diagonals('n = 0\\ndiags = []')",
     "n = 0; a board has at least 1 row"),
    # an option the chosen weights ignore: refused as the command refuses --black with
    # --feasibility (solve(8, black=3) solved the feasibility problem, black unsaid)
    ("an ignored option", "nqmip.solve(8, black=3, method='highs')",
     "black set the chess colours' values: weights=None has no colours"),
    ("an ignored option", "nqmip.make_instance(8, 'random', white=3)",
     "white set the chess colours' values: weights='random' has no colours"),
    ("an ignored option", "nqmip.build_model(4, [[1] * 4] * 4, black=1)",
     "weights=an array has no colours"),
    ("an ignored option", "nqmip.enumerate_optimal(6, None, black=2, white=1)",
     "black and white set the chess colours' values"),
    ("an ignored option", "nqmip.count_solutions(8, workers=2, scheduler='tcp://127.0.0.1:1')",
     "workers and scheduler exclude each other"),
    ("ragged weights", "nqmip.solve(4, [[1, 2], [3]], method='highs')",
     "weights must be an n x n array of numbers, got rows of different lengths"),
    # the weights' seed named as the caller's (seed is the method's own): quota's look at
    # the first rows before the draw said 'seed must be ...'
    ("seed out of range", "nqmip.solve(8, 'random', weights_seed=-1, method='quota')",
     "weights_seed must be a whole number from 0 to"),
    ("seed out of range", "nqmip.solve(8, 'random', weights_seed=-1, method='sa')",
     "weights_seed must be a whole number from 0 to"),
]


@pytest.mark.parametrize(("kind", "call", "words"), API_TABLE,
                         ids=[call[:50] for _, call, _ in API_TABLE])
def test_the_sweeps_bad_input_is_refused_by_the_api_in_the_same_words(
        kind: str, call: str, words: str) -> None:
    import nqmip
    from nqmip.instances import csplib, families, opb

    begin = time.perf_counter()
    with pytest.raises(ValueError) as refused:
        eval(call, {"nqmip": nqmip, "families": families, "csplib": csplib, "opb": opb})
    message = str(refused.value)
    assert "\n" not in message and words in message, (kind, message)
    assert time.perf_counter() - begin < 10, call  # refused before any allocation


def test_a_search_with_its_copy_of_dense_weights_is_refused_before_they_are_drawn() -> None:
    """A board whose random costs fit once but not twice: the searches hold the
    maximisation's copy (sa, tabu peaked at 1.8 GB at n = 10,000, a 0.8 GB matrix), so
    nqmip.solve and the command refuse it before drawing the matrix, naming the copy; an
    exact method is refused for its model. (Weights to maximise have no copy since the
    kernels read them as they are: tests/test_capacity_costs.py.)"""
    from nqmip.capacity import BYTES_PER_WEIGHT, available_bytes

    have = available_bytes()
    if have is None:
        pytest.skip("no /proc/meminfo: the machine's memory is unknown")
    n = int((0.55 * have / BYTES_PER_WEIGHT) ** 0.5)  # one matrix: 55% of what is free
    import nqmip

    begin = time.perf_counter()
    with pytest.raises(ValueError, match="its copy of the weights"):
        nqmip.solve(n, weights="random", method="sa", sense="min")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = solve_weighted_main(["--n", str(n), "--random-weights", "1", "--method",
                                      "tabu", "--minimize"])
    assert status == 2 and "its copy of the weights" in err.getvalue(), err.getvalue()
    assert time.perf_counter() - begin < 5  # nothing drawn: 10^9 numbers take a minute


@pytest.mark.parametrize("data", ["", "\n\n", "  \n"])
def test_an_empty_weights_file_is_refused_as_empty(tmp_path: Path, data: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "w.csv"
    path.write_text(data)
    assert solve_weighted_main(["--weights", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path} is empty" in err and "object at" not in err, err


# --- one input, every door: the same answer (accepted, or refused in the same words) ---
# Each door reads a fixed-queen file, a number and a queen through the one reader of
# nqmip.cli.parser and nqmip.instances; these tables are the classes the sweep found open:
# nqmip-compare answered a --fixed file it could not read with a traceback (the solve and
# count commands in one line), a file that is not UTF-8 gave no byte position (a weights
# file did), a file in UTF-16 or of squares such as e1 was refused where a weights file and
# --fix take them, and int() took '1_0' and other scripts' digits ('\u0663') where the
# files' readers refuse them.


def _plan_only(argv: Sequence[str]) -> int:
    """nqmip-compare up to its plan: every check before the sweep, and no run."""
    from nqmip.compare import build_parser as compare_parser
    from nqmip.compare.cli import make_plan
    from nqmip.compare.grid import UsageError

    try:
        plan = make_plan(compare_parser().parse_args(argv))
    except UsageError as exc:
        print(f"nqmip-compare: error: {exc}", file=sys.stderr)
        return 2
    if plan.writer is not None:
        plan.writer.close()
    return 0


#: The doors of a --fixed file: the command line each adds to ``--n 6 --fixed FILE``.
FIXED_DOORS: dict[str, tuple[Callable[[Sequence[str]], int], list[str]]] = {
    "solve": (solve_weighted_main, ["--method", "highs", "--quiet"]),
    "count": (count_main, []),
    "compare": (_plan_only, ["--methods", "highs"]),
}
#: Files of fixed queens: (content, None when every door reads it, else the words of the
#: one-line refusal every door gives).
FIXED_FILES: dict[str, tuple[bytes, str | None]] = {
    "rows": (b"0,0\n2,1\n", None),
    "squares": (b"a1\nc2  # e1 notation, as --fix takes it\n", None),
    "bom and crlf": (b"\xef\xbb\xbf0,0\r\n2,1\r\n", None),
    "utf-16": ("0,0\n2,1\n".encode("utf-16"), None),
    "essence be": (b"language Essence 1.3\nletting n be 6\nletting init be [[0, 0]]\n",
                   None),
    "latin-1": (b"0,0\n\xe9,1\n", "is not UTF-8 text (byte 0xE9 at row 2, character 1)"),
    "three numbers": (b"0,0,0\n", "line 1: a fixed queen takes ROW,COL"),
    "other digits": ("\u0660,\u0661\n".encode(), "line 1: a fixed queen takes ROW,COL"),
    "twice": (b"0,0\n0,0\n", "line 2: queen 0,0 is given twice (line 1 too)"),
    "no n": (b"letting init = [[0, 0]]\n", "no 'letting n = ...' line"),
    "other n": (b"letting n = 7\nletting init = [[0, 0]]\n", "--n 6 but --fixed"),
    "n twice": (b"letting n = 6\nletting n = 7\nletting init = [[0, 0]]\n",
                "'letting n' is given 2 times"),
    "init twice": (b"letting n = 6\nletting init = [[0, 0]]\nletting init = [[2, 1]]\n",
                   "'letting init' is given 2 times"),
}


@pytest.mark.parametrize(("kind", "door"), [(k, d) for k in FIXED_FILES for d in FIXED_DOORS])
def test_a_fixed_file_is_read_alike_at_every_door(
        tmp_path: Path, kind: str, door: str, capsys: pytest.CaptureFixture[str]) -> None:
    data, words = FIXED_FILES[kind]
    path = tmp_path / "queens.txt"
    path.write_bytes(data)
    main, extra = FIXED_DOORS[door]
    status = main(["--n", "6", "--fixed", str(path), *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    if words is None:
        assert status == 0, (kind, door, err)
    else:
        assert status == 2 and out == "" and err.count("\n") == 1 and words in err, \
            (kind, door, err)


@pytest.mark.parametrize("door", ["solve", "compare"])
def test_a_fixed_file_of_another_n_than_the_weights_file_names_the_weights_file(
        tmp_path: Path, door: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The n came from --weights: the refusal names it, not a --n never typed."""
    weights, queens = tmp_path / "w.csv", tmp_path / "q.txt"
    weights.write_text("1,2,3,4\n" * 4)
    queens.write_text("letting n = 6\nletting init = [[0, 0]]\n")
    main, extra = FIXED_DOORS[door]
    assert main(["--weights", str(weights), "--fixed", str(queens), *extra]) == 2
    err = capsys.readouterr().err
    assert f"--weights {weights} is 4 x 4 but --fixed {queens} says n = 6" in err, err
    assert "--n" not in err, err


#: The number options of each door (parsed, not run), with a valid value written plainly.
NUMBER_OPTIONS: dict[str, tuple[str, dict[str, str]]] = {
    "solve": ("nqmip.cli.solve", {
        "--n": "8", "--seed": "5", "--threads": "2", "--random-weights": "5",
        "--workers": "2", "--time-limit": "20", "--work-limit": "20", "--target": "5",
        "--black": "5", "--white": "5", "--fix": "2,3"}),
    "count": ("nqmip.cli.count", {"--n": "8", "--workers": "2", "--limit": "5",
                                  "--fix": "2,3"}),
    "compare": ("nqmip.compare.cli", {
        "--n": "8", "--repeats": "2", "--seeds": "5", "--jobs": "2", "--workers": "2",
        "--memory-limit": "20", "--time-limit": "20", "--grace": "20", "--hard-limit": "90",
        "--target": "5", "--black": "5", "--white": "5", "--fix": "2,3"}),
}
#: How a number may be written: accepted at every door (a sign, spaces around), or refused
#: at every door (other scripts' digits, underscores: NumPy's reader of the weights files
#: refuses both, Python's int() took them).
SPELLINGS: dict[str, tuple[Callable[[str], str], bool]] = {
    "plain": (lambda v: v, True),
    "a plus sign": (lambda v: ",".join(f"+{p}" for p in v.split(",")), True),
    "spaces around": (lambda v: f" {v} ", True),
    "arabic-indic digits": (lambda v: v.translate(str.maketrans("0123456789",
                                                                "\u0660\u0661\u0662\u0663"
                                                                "\u0664\u0665\u0666\u0667"
                                                                "\u0668\u0669")), False),
    "an underscore": (lambda v: ",".join(f"{p[0]}_{p[1:] or '0'}" for p in v.split(",")),
                      False),
}


@pytest.mark.parametrize(("door", "option", "spelling"), [
    (door, option, spelling) for door, (_, options) in NUMBER_OPTIONS.items()
    for option in options for spelling in SPELLINGS])
def test_a_number_is_read_alike_at_every_door(door: str, option: str, spelling: str) -> None:
    import importlib

    from nqmip.cli.parser import UsageError
    from nqmip.compare.cli import make_plan

    module, options = NUMBER_OPTIONS[door]
    write, accepted = SPELLINGS[spelling]
    text = write(options[option])
    parser = importlib.import_module(module).build_parser()
    try:  # nqmip-compare reads --n, --seeds and --target in its plan
        args = parser.parse_args([f"{option}={text}", *(
            ["--methods", "sa"] if door == "compare" else [])])
        writer = make_plan(args).writer if door == "compare" else None
        if writer is not None:
            writer.close()
    except UsageError as exc:
        assert not accepted, (door, option, text, str(exc))
        assert option in str(exc) and "\n" not in str(exc), str(exc)
    else:
        assert accepted, (door, option, text)


def _group_cases() -> list[tuple[str, str, str]]:
    from nqmip.cli.count import build_parser as count_parser
    from nqmip.cli.solve import build_parser as solve_parser
    from nqmip.compare import build_parser as compare_parser

    cases = []
    for door, build in (("solve", solve_parser), ("count", count_parser),
                        ("compare", compare_parser)):
        for group in build()._mutually_exclusive_groups:
            flags = [a.option_strings[0] for a in group._group_actions]
            cases += [(door, a, b) for a in flags for b in flags if a != b]
    return cases


@pytest.mark.parametrize(("door", "first", "second"), _group_cases())
def test_options_that_exclude_each_other_are_refused_together_whatever_the_value(
        door: str, first: str, second: str) -> None:
    """Every pair of a mutually exclusive group, the first given its default's value
    (argparse tells a given value from the default by identity: '--jobs 1 --workers 2'
    of nqmip-compare passed, --jobs dropped unsaid)."""
    import importlib

    from nqmip.cli.parser import UsageError

    module = {"solve": "nqmip.cli.solve", "count": "nqmip.cli.count",
              "compare": "nqmip.compare.cli"}[door]
    parser = importlib.import_module(module).build_parser()
    actions = {a.option_strings[0]: a for a in parser._actions if a.option_strings}

    def given(flag: str) -> list[str]:
        action = actions[flag]
        if action.nargs == 0:
            return [flag]
        default = action.default
        return [flag, "1" if default is None or isinstance(default, bool) else str(default)]

    with pytest.raises(UsageError, match="not allowed with argument"):
        parser.parse_args([*given(first), *given(second)])


#: Every reader of an input file (the API's and the commands' doors to them).
READERS = ("weights", "fixed", "diagonals", "opb")
#: A file no reader can read, and the words each reader's one-line refusal holds.
UNREADABLE: dict[str, tuple[bytes | None, str]] = {
    "a folder": (None, "is a folder"),
    "latin-1": (b"n = 4\n\xe9\n", "is not UTF-8 text (byte 0xE9 at row 2, character 1)"),
}


@pytest.mark.parametrize(("reader", "kind"), [(r, k) for r in READERS for k in UNREADABLE])
def test_every_reader_refuses_a_file_it_cannot_read_in_the_same_words(
        tmp_path: Path, reader: str, kind: str) -> None:
    """The text of every input file is read by one function (a folder was '[Errno 21]' for
    the excluded diagonals, a byte that is not UTF-8 had no position but in weights)."""
    import nqmip
    from nqmip.instances import csplib, opb

    data, words = UNREADABLE[kind]
    path = tmp_path if data is None else tmp_path / "input.txt"
    if data is not None:
        path.write_bytes(data)
    read = {"weights": nqmip.read_weights, "fixed": csplib.read_fixed,
            "diagonals": csplib.read_diagonals, "opb": opb.read_opb}[reader]
    with pytest.raises(ValueError) as refused:
        read(path)
    message = str(refused.value)
    assert "\n" not in message and words in message and str(path) in message, message


@pytest.mark.parametrize(("door", "option"), [
    (door, option) for door, (_, options) in NUMBER_OPTIONS.items() for option in options
    if option != "--fix"])
def test_an_option_given_twice_with_two_values_is_refused(door: str, option: str) -> None:
    """argparse kept the last value: 'nqmip-compare --time-limit 1 --time-limit 2' ran
    2 s, 'solve --n 5 --n 6' solved n = 6, the first dropped unsaid. The same value twice
    drops nothing and is taken."""
    import importlib

    from nqmip.cli.parser import UsageError

    module, options = NUMBER_OPTIONS[door]
    parser = importlib.import_module(module).build_parser()
    value = options[option]
    parser.parse_args([option, value, option, value])
    with pytest.raises(UsageError, match=f"argument {option}: given twice"):
        parser.parse_args([option, value, f"{option}={value}1"])


@pytest.mark.parametrize("door", ["solve", "count", "compare"])
def test_every_option_of_one_value_refuses_a_second(door: str) -> None:
    """Every option that stores one value is argparse's store refusing a second (an
    option added later with another action class fails here)."""
    import argparse
    import importlib

    from nqmip.cli.parser import _StoreOnce

    module = {"solve": "nqmip.cli.solve", "count": "nqmip.cli.count",
              "compare": "nqmip.compare.cli"}[door]
    parser = importlib.import_module(module).build_parser()
    stores = [a for a in parser._actions if isinstance(a, argparse._StoreAction)]
    assert stores and all(isinstance(a, _StoreOnce) for a in stores), [
        a.option_strings for a in stores if not isinstance(a, _StoreOnce)]


def _valued_options() -> list[tuple[str, str]]:
    """(door, option) for every option of every door that takes a value, from the
    doors' own parsers (a new option is in the test the day it is added)."""
    from nqmip.cli.count import build_parser as count_parser
    from nqmip.cli.solve import build_parser as solve_parser
    from nqmip.compare.cli import build_parser as compare_parser

    cases = []
    for door, parser in (("solve", solve_parser()), ("count", count_parser()),
                         ("compare", compare_parser())):
        for action in parser._actions:
            if action.option_strings and action.nargs != 0 and action.dest not in (
                    "help", "version", "worker"):
                cases.append((door, action.option_strings[-1]))
    return cases


#: A valid command of each door that an option given an empty value is added to.
_BASES = {"solve": ["--n", "6", "--time-limit", "3", "--quiet"], "count": ["--n", "6"],
          "compare": ["--n", "5", "--methods", "sa", "--time-limit", "1", "--no-progress"]}


@pytest.mark.parametrize(("door", "option"), _valued_options())
def test_an_empty_value_is_refused_by_every_option_of_every_door(
        door: str, option: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``nqmip-count --n 6 --plot ''`` printed the count and drew nothing (exit 0): the
    empty name read as no --plot."""
    monkeypatch.chdir(tmp_path)
    base = list(_BASES[door])
    if option in base:  # the option itself is in the base command: given empty there
        at = base.index(option)
        del base[at:at + 2]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = COMMANDS[door]([*base, option, ""])
        except SystemExit as exc:
            status = exc.code  # type: ignore[assignment]
    lines = err.getvalue().strip().splitlines()
    assert status == 2 and len(lines) == 1, (door, option, status, lines)
    assert option in lines[0], lines  # named: "--scheduler ''" was Dask's "missing port"
    assert "Traceback" not in err.getvalue() and out.getvalue() == ""
    assert list(tmp_path.iterdir()) == []


def _cluster_options() -> list[tuple[str, str, str]]:
    """(door, option, blank value) for every door's --scheduler and --workers, from the
    doors' own parsers."""
    return [(door, option, value) for door, option in _valued_options()
            if option in ("--scheduler", "--workers") for value in ("", " ", "\t")]


def test_every_door_has_the_cluster_options() -> None:
    found = {(door, option) for door, option, _ in _cluster_options()}
    assert found == {(d, o) for d in ("solve", "count", "compare")
                     for o in ("--scheduler", "--workers")}


@pytest.mark.parametrize(("door", "option", "value"), _cluster_options())
def test_a_blank_cluster_option_is_refused_naming_it_and_what_it_takes(
        door: str, option: str, value: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``nqmip-count --n 8 --scheduler ''`` and nqmip-compare's were refused with Dask's
    "missing port number in address ''", and the solve command ran ``--scheduler ' '``
    here, unsaid: one line naming the option and what it takes."""
    monkeypatch.chdir(tmp_path)
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            status = COMMANDS[door]([*_BASES[door], option, value])
        except SystemExit as exc:
            status = exc.code  # type: ignore[assignment]
    lines = err.getvalue().strip().splitlines()
    assert status == 2 and len(lines) == 1, (door, option, status, lines)
    assert f"argument {option}: takes " in lines[0] and "port" not in lines[0], lines
