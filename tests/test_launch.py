"""A stop signal at any moment of a command's start answers as a stop before the solve
started: every door (the scripts, ``python -m nqmip``, the console commands) hears it
from its first line (:mod:`nqmip.cli.launch`), before numpy, numba or a solver is
imported, and ``import nqmip`` itself stays light and installs no handler.

Before: SIGINT 0.2-0.4 s into ``scripts/solve_weighted.py`` (numpy's import) ended in a
``KeyboardInterrupt`` traceback and SIGTERM ended the process bare, nothing printed.

The moments are counted from the end of the interpreter's own start-up (its ``site``
module and the ``.pth`` files of the environment, which run before any program's first
line and which no program can make hear a signal): a ``sitecustomize`` put on the path
writes one byte to a pipe when it is over. What is asserted is what the command prints,
whatever the moment turned out to be on a loaded machine: no traceback, 128 + the
signal, and the solve's answer accepted by the verifier.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

import nqmip

ROOT = Path(__file__).resolve().parent.parent
#: Seconds after the interpreter's start-up at which the signal is sent: within the
#: imports (numpy, numba, the kernels' modules: 0.3 s and more) and just after them.
#: The launcher listens about 4 ms (``python -X importtime``) into the door's code.
MOMENTS = (0.1, 0.2, 0.35, 0.6)
SOLVE = ["--n", "12", "--method", "sa", "--random-weights", "3", "--time-limit", "8",
         "--json"]
#: What setuptools writes for a console command of [project.scripts] (pip's wrapper).
WRAPPER = """import re
import sys
from {module} import {function}
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit({function}())
"""
STARTED = """import os
fd = os.environ.pop("NQMIP_TEST_STARTED_FD", None)
if fd is not None:
    os.write(int(fd), b"1")
    os.close(int(fd))
"""


def console_command(name: str, folder: Path) -> list[str]:
    """The console command ``name`` of pyproject.toml, as the wrapper pip generates."""
    target = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"][name]
    module, function = target.split(":")
    path = folder / name
    path.write_text(WRAPPER.format(module=module, function=function))
    return [sys.executable, str(path)]


def doors(folder: Path) -> dict[str, tuple[list[str], str]]:
    """Each door: its command line, and what it is (solve, compare or count)."""
    python = sys.executable
    return {
        "solve-script": ([python, str(ROOT / "scripts" / "solve_weighted.py"), *SOLVE],
                         "solve"),
        "python-m-nqmip": ([python, "-m", "nqmip", *SOLVE], "solve"),
        # the module the docs' examples run (it imported numpy before any handler)
        "python-m-cli-solve": ([python, "-m", "nqmip.cli.solve", *SOLVE], "solve"),
        "solve-weighted": ([*console_command("solve-weighted", folder), *SOLVE], "solve"),
        # a sweep of 10 s, far past the latest moment: the cost of a signal not heard
        # (see the retry in test_a_stop_at_any_moment_of_the_start_is_answered)
        "compare-script": ([python, str(ROOT / "scripts" / "compare.py"), "--n", "200",
                            "--methods", "sa", "--repeats", "2", "--time-limit", "5",
                            "--target", "none", "--no-progress", "--output",
                            str(folder / "runs.jsonl")], "compare"),
        "count-script": ([python, str(ROOT / "scripts" / "count_solutions.py"), "--n", "17",
                          "--no-progress"], "count"),
        # the first queens: a stop before their search printed nothing, not even --json's
        "lex-first-script": ([python, str(ROOT / "scripts" / "solve_weighted.py"), "--n",
                              "60", "--lex-first", "--method", "sat", "--time-limit", "20",
                              "--json"], "lex"),
    }


def stopped_at(command: list[str], signum: int, moment: float,
               folder: Path) -> subprocess.CompletedProcess[str]:
    """Run ``command``, send ``signum`` ``moment`` seconds after the interpreter's own
    start-up is over; the finished process."""
    hook = folder / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(STARTED)
    read, write = os.pipe()
    paths = [str(hook), str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths),
           "NQMIP_TEST_STARTED_FD": str(write)}
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, pass_fds=(write,))
    os.close(write)
    try:
        ready, _, _ = select.select([read], [], [], 120)
        assert ready and os.read(read, 1) == b"1", "the interpreter did not start"
    finally:
        os.close(read)
    time.sleep(moment)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def check_answer(door: str, kind: str, done: subprocess.CompletedProcess[str],
                 name: str, moment: float) -> None:
    where = f"{door}, {name} {moment} s after start-up: status {done.returncode}\n{done.stderr}"
    assert done.returncode == 128 + getattr(signal, name), where
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, where
    if kind == "solve":
        data = json.loads(done.stdout)
        assert data["termination"] == "interrupted", where
        placement = data["placement"]
        assert placement is not None and nqmip.is_solution(placement), where
        weights = nqmip.make_instance(12, "random", weights_seed=3).dense
        assert weights is not None
        assert data["objective"] == pytest.approx(float(weights[range(12), placement].sum()))
    elif kind == "lex":  # the rows proven so far, none when it stopped before them
        data = json.loads(done.stdout)
        assert data["termination"] == "interrupted", where
        assert data["placement"] is None or nqmip.is_solution(data["placement"]), where
    elif kind == "compare":
        assert done.stdout == "", where
        assert done.stderr.startswith(
            "nqmip-compare: interrupted before any run finished; resume with --resume")
        assert done.stderr.count("\n") == 1, where
    else:
        # before the count started, or (a fast start) after its first sub-trees: one line
        assert done.stdout == "" and done.stderr.count("\n") == 1, where
        assert done.stderr == "nqmip-count: interrupted\n" or done.stderr.startswith(
            "nqmip-count: interrupted after "), where


DOORS = ["solve-script", "python-m-nqmip", "python-m-cli-solve", "solve-weighted",
         "compare-script", "count-script", "lex-first-script"]
SIGNALS = ("SIGINT", "SIGTERM")


@pytest.mark.parametrize("door", DOORS)
def test_a_stop_at_any_moment_of_the_start_is_answered(door: str, tmp_path: Path) -> None:
    """Every door at every moment, the two signals in turn (every pair of door, moment and
    signal is met: each door hears both signals, each moment both at some doors; the
    launcher's handler is one for both)."""
    command, kind = doors(tmp_path)[door]
    for index, moment in enumerate(MOMENTS):
        name = SIGNALS[(index + DOORS.index(door)) % len(SIGNALS)]
        # (a sweep once ran to its end through a SIGINT 0.35 s after start-up, exit 0: the
        # warm-up's search had absorbed it; tests/test_stop_moments.py stops it there)
        done = stopped_at(command, getattr(signal, name), moment, tmp_path)
        if done.returncode == -getattr(signal, name):  # killed by the signal's default:
            # it came before the launcher's handler, the interpreter not yet past its
            # first imports (a loaded CI: python -m nqmip, SIGTERM 0.1 s after start-up,
            # status -15); the same moment once more
            done = stopped_at(command, getattr(signal, name), moment, tmp_path)
        check_answer(door, kind, done, name, moment)


def test_every_console_command_starts_at_its_launcher() -> None:
    """pyproject's commands point at nqmip.cli.launch (the wrapper pip generates imports
    the module named there first: nqmip.cli.solve imported numpy before any handler)."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"solve-weighted": "nqmip.cli.launch:solve",
                       "nqmip-solve": "nqmip.cli.launch:solve",
                       "nqmip-compare": "nqmip.cli.launch:compare",
                       "nqmip-count": "nqmip.cli.launch:count"}


def test_import_nqmip_is_light_and_leaves_the_handlers_alone() -> None:
    """A notebook's ``import nqmip`` installs no signal handler, and neither it nor the
    launcher's module imports numpy, numba, Pyomo or a solver (it imported numpy, 0.1 s
    and more, before a command could listen); the API still works once asked."""
    probe = ("import signal, sys, nqmip; "
             "print(signal.getsignal(signal.SIGTERM) is signal.SIG_DFL, "
             "signal.getsignal(signal.SIGINT) is signal.default_int_handler); "
             "import nqmip.cli.launch; "
             "print(sorted(m for m in ('numpy', 'numba', 'pyomo', 'ortools', 'highspy', "
             "'scipy') if m in sys.modules)); "
             "from nqmip.solve import fallback_result; "
             "print(nqmip.solve(6).status.value, callable(nqmip.solve))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True)
    assert out.stdout.split("\n")[:3] == ["True True", "[]", "optimal True"], out


@pytest.fixture
def launched() -> Iterator[None]:
    """This process as a command's: the launcher's recorder is left in place once the
    command ends (a stop as it leaves is its exit status, nqmip.cli.signals.late_status);
    the test process gets its own handlers back after."""
    from nqmip.cli import signals

    before = {signum: signal.getsignal(signum) for signum in signals.STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
        signals._EARLY.clear()
        signals._EARLY_HEARD.clear()


@pytest.mark.usefixtures("launched")
def test_a_stop_heard_at_the_start_is_answered_before_a_read_that_may_wait() -> None:
    """A stop the launcher recorded is raised on entering an interruptible read (the
    solve command's --weights -, --fixed -): it was kept pending past it, and a
    ``timeout`` (one SIGTERM) on a command whose standard input never closed left it
    waiting for the input."""
    from nqmip.cli.signals import listen_early, stops_as_ctrl_c

    listen_early()
    try:
        signal.raise_signal(signal.SIGTERM)  # only recorded: the launcher's handler
    finally:
        with stops_as_ctrl_c(deferred=True) as stop:  # takes over, restores the handlers
            with stop.interruptible():  # a read that cannot wait: answered after it
                pass
            with pytest.raises(KeyboardInterrupt), stop.interruptible(waits=True):
                pass
            stop.replay()  # answered once: nothing left to raise
    assert stop.signum == signal.SIGTERM and stop.status == 143
    from nqmip.cli.signals import _record, late_status

    # the launcher's recorder until the process leaves: a stop now is its status
    assert signal.getsignal(signal.SIGTERM) is _record and late_status(0) == 0
    signal.raise_signal(signal.SIGTERM)
    assert late_status(0) == 143


@pytest.mark.usefixtures("launched")
def test_a_stop_heard_at_the_start_with_a_weights_file_answers_with_the_board(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file that cannot keep the command waiting (a regular file) is read with the stop
    deferred: the stop is answered once the board is known, with the explicit
    construction (as with --random-weights), not 'interrupted before the solve started'."""
    from nqmip.cli.signals import listen_early
    from nqmip.cli.solve import solve_weighted_main

    weights = tmp_path / "w.csv"
    weights.write_text("\n".join(",".join(str(1 + (i * 8 + j) % 5) for j in range(8))
                                 for i in range(8)) + "\n")
    listen_early()
    signal.raise_signal(signal.SIGTERM)  # only recorded: the launcher's handler
    status = solve_weighted_main(["--weights", str(weights), "--method", "sa", "--json"])
    out, err = capsys.readouterr()
    assert status == 143, err
    data = json.loads(out)
    assert data["termination"] == "interrupted" and nqmip.is_solution(data["placement"])
    from nqmip.cli.signals import _record

    assert signal.getsignal(signal.SIGTERM) is _record  # the launcher's, to the exit


def test_a_function_that_uses_nqmip_pickles_as_dask_sends_it() -> None:
    # the package's module class (nqmip.solve stays the function) is not the plain
    # module type cloudpickle and pickle know: 'cannot pickle _Package object' for any
    # function sent to Dask workers that named nqmip (client.run(lambda: nqmip.solve(...)))
    import pickle

    import nqmip

    cloudpickle = pytest.importorskip("cloudpickle")  # Dask's

    def uses_nqmip() -> float | None:
        return nqmip.solve(6, "chess", method="bnb").objective

    assert cloudpickle.loads(cloudpickle.dumps(uses_nqmip))() == 10.0
    assert pickle.loads(pickle.dumps(nqmip)) is nqmip
