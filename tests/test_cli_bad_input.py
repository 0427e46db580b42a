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
