"""Backends as test parameters: skipped when missing on a user's machine, failed in CI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from nqmip.backends.base import EXACT_METHODS, get_backend

# A suite started under nohup, or as a background job of a shell without job control,
# inherits SIGHUP or SIGINT ignored, and Python leaves an ignored SIGINT ignored (no
# KeyboardInterrupt): the tests of Ctrl-C, SIGTERM and SIGHUP would then test how the suite
# was launched. The suite and every command it starts get a terminal's dispositions.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# A falsifying example found in CI is never lost: hypothesis prints it with the blob that
# replays it (``@reproduce_failure``) and keeps it in the example database (.hypothesis/ at
# the repository's root) for the next run to try first. Hypothesis's own profile under CI
# would derandomize (the same examples on every run) and keep no database: here the search
# stays random, so each run tries new examples, and what fails is kept.
settings.register_profile(
    "ci", derandomize=False, print_blob=True, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=DirectoryBasedExampleDatabase(
        Path(__file__).resolve().parents[1] / ".hypothesis" / "examples"))
if IN_CI:
    settings.load_profile("ci")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Pyomo binds its log handler to the stderr of the moment it is first imported: a test
    capturing stderr with ``capfd`` would leave it a closed file, so it is imported first."""
    import pyomo.environ  # noqa: F401


def options_for(method: str, **options: object) -> dict[str, object]:
    """The options of a test that runs one body over many methods, without those the
    method does not honour (tests/test_contract.py checks each of those is refused)."""
    from nqmip.methods import METHODS

    return {name: value for name, value in options.items() if METHODS[method].honour(name)}


def backend_params(names: tuple[str, ...] = EXACT_METHODS) -> list[object]:
    return [pytest.param(name, marks=pytest.mark.solver(name), id=name) for name in names]


#: Test functions the fast lane leaves out (tools/slow_tests.py lists them from a run).
SLOW = {line.strip() for line in
        (Path(__file__).parent / "slow_tests.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")}


#: Shared fixtures whose setup takes seconds: :func:`compare_sweep` (12 runs, each its own
#: process), tests/test_docs.py's ``site`` (mkdocs builds the site), tests/test_lex_cubes.py's
#: ``pool`` (two processes load the kernels). The first test that asks for one pays it, and
#: a run's durations show only that one: the fast lane paid the setup through whichever
#: other test it ran first (the sweep, 25 s, through test_compare_report.py's). Every test
#: that asks for one of them is slow. (fixture: the test file it is defined in, None: this one)
SLOW_FIXTURES = {"compare_sweep": None, "site": "test_docs.py", "pool": "test_lex_cubes.py"}


def _asks_for_a_slow_fixture(item: pytest.Item) -> bool:
    names = getattr(item, "fixturenames", ())
    return any(name in names and (where is None or item.path.name == where)
               for name, where in SLOW_FIXTURES.items())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the slow test functions: ``python -m pytest -m "not slow"`` is the fast lane."""
    for item in items:
        if item.nodeid.split("[", 1)[0] in SLOW or _asks_for_a_slow_fixture(item):
            item.add_marker(pytest.mark.slow)


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers(name="solver"):
        name = mark.args[0]
        backend = get_backend(name)
        if not backend.available():
            message = f"backend {name!r} is not available: {backend.install_hint}"
            if IN_CI:
                pytest.fail(f"CI=true and {message}", pytrace=False)
            pytest.skip(message)


@pytest.fixture(params=backend_params())
def backend(request: pytest.FixtureRequest) -> str:
    """Each exact backend in turn; the solver mark makes a missing one skip (fail in CI)."""
    name = request.param
    backend = get_backend(name)
    if not backend.available():
        message = f"backend {name!r} is not available: {backend.install_hint}"
        if IN_CI:
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)
    return name


#: One small sweep of nqmip-compare, run once for the tests of its rows, resume, plots,
#: report and Dask run (tests/test_compare.py, tests/test_compare_report.py): the exact
#: runs first on each board, the heuristics aiming at their optimum.
COMPARE_GRID = ("--n", "5,6", "--methods", "highs,sa,minconflicts", "--repeats", "2",
                "--time-limit", "10")


@pytest.fixture(scope="session")
def compare_sweep(tmp_path_factory: pytest.TempPathFactory) -> tuple[
        Path, subprocess.CompletedProcess[str]]:
    """:data:`COMPARE_GRID` swept by the real command: its folder (runs.jsonl, report.html,
    the t*.svg plots, summary.csv) and the finished command (the JSON summary on stdout).
    Two runs at once (``--jobs 2``, a core each; still the exact runs of a board first,
    its heuristics after them, aiming at their optimum): the twelve runs, each its own
    process, took 26.3 s one at a time, 19.7 s two at a time (the command alone, side by
    side, on a machine loaded by other jobs)."""
    root = Path(__file__).resolve().parents[1]
    folder = tmp_path_factory.mktemp("sweep")
    return folder, subprocess.run(
        [sys.executable, str(root / "scripts" / "compare.py"), *COMPARE_GRID, "--jobs", "2",
         "--output", str(folder / "runs.jsonl"), "--report", str(folder / "report.html"),
         "--plot", str(folder / "t.svg"), "--json", "--csv", str(folder / "summary.csv")],
        capture_output=True, text=True, timeout=300, cwd=root)
