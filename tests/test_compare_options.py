"""nqmip-compare's options two by two: a pair where one option would do nothing beside
the other is refused in one line (exit 2), not dropped (found by a pairwise sweep of the
parser's options with real runs on boards up to n = 10)."""

from __future__ import annotations

import contextlib
import io

import pytest

from nqmip.compare import main


@pytest.mark.parametrize(("args", "words"), [
    # --hard-limit decided alone: --grace was dropped unsaid
    (["--grace", "5", "--hard-limit", "20"], "--hard-limit: not allowed with argument --grace"),
    # a Dask sweep runs as many at once as its workers: --jobs was dropped unsaid
    (["--jobs", "2", "--workers", "2"], "--workers: not allowed with argument --jobs"),
    (["--jobs", "2", "--scheduler", "tcp://127.0.0.1:1"],
     "--scheduler: not allowed with argument --jobs"),
])
def test_an_option_the_other_makes_idle_is_refused(args: list[str], words: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["--n", "5", "--methods", "highs", "--time-limit", "1", *args])
        except SystemExit as stop:
            status = int(stop.code or 0)
    lines = err.getvalue().strip().splitlines()
    assert status == 2 and out.getvalue() == ""
    assert len(lines) == 1 and lines[0].startswith("nqmip-compare: error:"), lines
    assert words in lines[0]


#: (--time-limit, --hard-limit): each run would be killed at or before its solver's own
#: limit (found by the input sweep: --time-limit 2 --hard-limit 1 ran, every run a
#: 'timeout', exit 1).
CONTRADICTING_LIMITS = [("2", "1"), ("2", "2"), ("60", "0.5"), ("1e9", "1e3")]


@pytest.mark.parametrize(("time_limit", "hard_limit"), CONTRADICTING_LIMITS)
def test_a_hard_limit_not_above_the_time_limit_is_refused(time_limit: str,
                                                           hard_limit: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["--n", "5", "--methods", "highs", "--time-limit", time_limit,
                           "--hard-limit", hard_limit])
        except SystemExit as stop:
            status = int(stop.code or 0)
    lines = err.getvalue().strip().splitlines()
    assert status == 2 and out.getvalue() == "", lines
    assert len(lines) == 1 and "--hard-limit" in lines[0] and "--time-limit" in lines[0], lines
