"""Backends as test parameters: skipped when missing on a user's machine, failed in CI."""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
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

# What the tests and the commands they start leave in the temporary folder goes to a folder
# of this test process, removed when it exits: a command killed on purpose (SIGKILL: Pyomo's
# .pyomo.lp and GLPK's files of its glpsol), hypothesis's generated folders, headless
# Chromium's profile, Dask's scratch space. A full run left 40 to 60 of them in /tmp before.
# pytest's own folders (tmp_path) stay in the system's temporary folder, kept as pytest keeps
# them. What a command leaves is tested where it matters (tests/moments.py looks in the
# TMPDIR it gives each stopped command).
os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", tempfile.gettempdir())
TEMPORARY = tempfile.mkdtemp(prefix="nqmip-tests-")
os.environ["TMPDIR"] = tempfile.tempdir = TEMPORARY
atexit.register(shutil.rmtree, TEMPORARY, True)

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


@pytest.fixture(autouse=True)
def _stop_handlers_put_back() -> Iterator[None]:
    """Each test leaves the stop signals' handlers as it found them: a command run in the
    test's process (its launcher, stops_as_ctrl_c) may leave its own, and a later test's
    Ctrl-C (``_thread.interrupt_main`` calls the handler in force) was then only recorded:
    a fast-lane run's count went on to its end ('DID NOT RAISE')."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    names = [getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
             if hasattr(signal, name)]
    before = {signum: signal.getsignal(signum) for signum in names}
    yield
    for signum, handler in before.items():
        if handler is not None and signal.getsignal(signum) is not handler:
            signal.signal(signum, handler)


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


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (its hook reads the marks)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the slow test functions: ``python -m pytest -m "not slow"`` is the fast lane.
    Under ``-n``, the tests of a module with a costly module fixture go to one worker
    (``--dist loadgroup``), which builds it once."""
    for item in items:
        if item.nodeid.split("[", 1)[0] in SLOW or _asks_for_a_slow_fixture(item):
            item.add_marker(pytest.mark.slow)
        if item.path.name in ONE_WORKER:
            item.add_marker(pytest.mark.xdist_group(item.path.stem))


#: Test files whose tests share a module (or the session's) fixture that takes seconds to
#: build: under ``-n 2 --dist loadgroup`` each goes whole to one worker, which builds the
#: fixture once (two workers would each build it).
ONE_WORKER = {"test_compare.py", "test_compare_report.py", "test_docs.py",
              "test_lex_cubes.py", "test_compile_size.py", "test_kernel_cache.py",
              "test_bnb_distributed.py", "test_docs_examples.py", "test_warmstart.py",
              "test_models.py", "test_drawing.py", "test_compare_files.py", "test_auto.py"}


def _run_lock(config: pytest.Config) -> Path | None:
    """The lock file the workers of this ``-n`` run share (None when not under xdist): in the
    run's own temporary folder, so that two runs on one machine never wait for each other."""
    if not hasattr(config, "workerinput"):
        return None
    factory: pytest.TempPathFactory = config._tmp_path_factory  # type: ignore[attr-defined]
    return factory.getbasetemp().parent / "serial.lock"


@contextlib.contextmanager
def _alone_or_shared(lock: Path, alone: bool) -> Iterator[None]:
    """A readers-writer lock over two files: a ``serial`` test holds ``lock`` exclusively (it
    runs alone on the machine), any other test shares it. The turnstile gives the serial test
    priority: it holds the turnstile while it waits, so no new test starts meanwhile."""
    turnstile = lock.with_suffix(".turnstile")
    with open(turnstile, "a") as gate, open(lock, "a") as held:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(held, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Under ``-n``, a test marked ``serial`` (it cannot share the machine: it times a run
    against a bound tighter than a second busy core allows, or loads the machine itself)
    waits for the other worker's test to end and runs alone; the others run side by side."""
    lock = _run_lock(item.config)
    if lock is None:
        return (yield)
    with _alone_or_shared(lock, item.get_closest_marker("serial") is not None):
        return (yield)


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
