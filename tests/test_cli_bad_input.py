"""Bad input, generated: every command answers it with exit status 2, exactly one line on
stderr, no traceback, nothing on stdout, within a second. The commands run in this
process (their ``main(argv)``), so hypothesis can try many cases quickly; the subprocess
cases of tests/test_cli.py check the same through a real process."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nqmip.cli.count import count_main
from nqmip.cli.solve import solve_weighted_main
from nqmip.compare import main as compare_main

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
)
COMPARE = st.one_of(
    st.tuples(st.just("--n"), st.one_of(non_positive, not_a_number)),
    st.tuples(st.just("--repeats"), st.one_of(non_positive, not_a_number)),
    st.tuples(st.just("--time-limit"), bad_seconds),
    st.tuples(st.just("--methods"), not_a_number),
    st.tuples(st.just("--grace"), st.one_of(negative, not_a_number)),
)
COUNT = st.one_of(
    st.tuples(st.just("--n"), st.one_of(non_positive, not_a_number)),
    st.tuples(st.just("--fix"), bad_queen),
    st.tuples(st.just("--workers"), st.one_of(non_positive, not_a_number)),
    st.tuples(st.just("--n"), st.integers(33, 10**6).map(str)),  # beyond the kernels
)
CASES = st.one_of(
    SOLVE.map(lambda a: ("solve", ["--n", "8", *a] if a[0] != "--n" else list(a))),
    COMPARE.map(lambda a: ("compare", ["--n", "8", "--methods", "highs", *a]
                           if a[0] != "--n" else [*a, "--methods", "highs"])),
    COUNT.map(lambda a: ("count", ["--n", "8", *a] if a[0] != "--n" else list(a))),
)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
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
