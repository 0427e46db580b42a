"""Ctrl-C and --time-limit keep their word, for the default method as for the others: the
command stops within a second of SIGINT, prints the best verified placement, and exits
with status 130 (SIGTERM and SIGHUP the same, with 143 and 129); a time limit bounds the
whole command. Each case is run once more if the first run misses its bound (a busy shared
core can steal a second; a real failure misses twice)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import nqmip
from nqmip.methods import METHODS

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "solve_weighted.py"
#: Seconds from SIGINT to exit that the test allows (the promise is 1 s; the rest is margin
#: for a loaded machine).
INTERRUPT_BOUND = 1.5


def interrupted_run(args: list[str], after: float) -> tuple[float, int, dict]:
    """Start the command, send SIGINT after ``after`` seconds; (seconds to exit, status,
    the JSON it printed)."""
    proc = subprocess.Popen([sys.executable, str(SCRIPT), *args, "--json"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(after)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    return time.perf_counter() - sent, proc.returncode, json.loads(out) if out else {}


def within(bound: float, run: object) -> tuple[float, int, dict]:
    first = run()  # type: ignore[operator]
    return first if first[0] <= bound else run()  # type: ignore[operator]


@pytest.mark.parametrize(("args", "after"), [
    (["--n", "300", "--time-limit", "30"], 4.0),          # auto, colour weights (quota)
    (["--n", "60", "--random-weights", "1"], 4.0),        # auto, MIP beside the annealing
    (["--n", "200", "--method", "sa", "--time-limit", "30"], 3.0),
    (["--n", "40", "--method", "highs", "--random-weights", "2"], 3.0),
])
@pytest.mark.timing
def test_ctrl_c_prints_the_best_placement_and_exits_130(args: list[str], after: float) -> None:
    seconds, status, data = within(INTERRUPT_BOUND, lambda: interrupted_run(args, after))
    assert status == 130
    assert seconds <= INTERRUPT_BOUND, f"{seconds:.2f} s from SIGINT to exit"
    assert data["termination"] in ("interrupted", "optimal")
    assert data["placement"] is not None and nqmip.is_solution(data["placement"])


def timed_run(args: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(SCRIPT), *args, "--quiet"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    return time.perf_counter() - start, done


@pytest.mark.parametrize("args", [
    ["--n", "200"], ["--n", "5000"], ["--n", "50", "--random-weights", "3"],
    ["--n", "300", "--method", "tabu"],
])
@pytest.mark.timing
def test_time_limit_bounds_the_whole_command(args: list[str]) -> None:
    limit = 2.0
    seconds, done = within(limit + 1.0, lambda: timed_run([*args, "--time-limit", str(limit)]))
    assert done.returncode == 0, done.stderr
    assert seconds <= limit + 1.0, f"{seconds:.2f} s for a {limit} s limit"
    status, *_, why = done.stdout.split()
    assert status in ("optimal", "feasible")
    assert (why == "stopped=time_limit") == (status == "feasible"), done.stdout  # said


def signalled_run(signum: signal.Signals, output: Path, after: float = 4.0
                  ) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Start a solve with ``--quiet --output``, send ``signum`` after ``after`` seconds;
    (seconds from the signal to exit, the finished process)."""
    output.unlink(missing_ok=True)
    command = [sys.executable, str(SCRIPT), "--n", "300", "--time-limit", "30", "--quiet",
               "--output", str(output)]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    time.sleep(after)
    sent = time.perf_counter()
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=30)
    return time.perf_counter() - sent, subprocess.CompletedProcess(command, proc.returncode,
                                                                   out, err)


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
@pytest.mark.timing
def test_sigterm_and_sighup_stop_the_solve_as_ctrl_c(name: str, tmp_path: Path) -> None:
    """What ``timeout``, a batch scheduler or ``docker stop`` (SIGTERM) and a closed
    terminal (SIGHUP) send: the best placement printed, --output written, 128 + signal
    (SIGINT on the same command: test_ctrl_c_prints_the_best_placement_and_exits_130)."""
    signum = getattr(signal, name)
    target = tmp_path / "r.json"
    seconds, done = within(INTERRUPT_BOUND, lambda: signalled_run(signum, target))
    assert done.returncode == 128 + signum, done.stderr
    assert seconds <= INTERRUPT_BOUND, f"{seconds:.2f} s from {name} to exit"
    assert done.stdout.split()[0] == "feasible", done.stdout
    data = json.loads(target.read_text())
    assert data["termination"] == "interrupted" and nqmip.is_solution(data["placement"])
    assert done.stdout.split()[1] == f"objective={data['objective']:g}"
    assert done.stdout.split()[-1] == "stopped=interrupted", done.stdout  # not the status only


def signalled(command: list[str], signum: signal.Signals, after: float
              ) -> subprocess.CompletedProcess[str]:
    """Start ``command``, send ``signum`` after ``after`` seconds, once more 8 s in when
    a loaded machine was still importing it (no handler yet: killed by the signal)."""
    for wait in (after, 8.0):
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(wait)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
        if proc.returncode != -signum:
            break
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def assert_count_stopped(done: subprocess.CompletedProcess[str], signum: int) -> None:
    assert done.returncode == 128 + signum, done.stderr
    # one line; mid-count it says what the finished sub-trees hold, as a part
    assert done.stdout == "" and done.stderr.startswith("nqmip-count: interrupted")
    assert done.stderr.count("\n") == 1 and ("sub-trees" not in done.stderr
                                              or "not the total" in done.stderr)


def test_sighup_stops_the_count_as_ctrl_c() -> None:
    """A closed terminal's SIGHUP to ``python -m nqmip.cli.count`` (SIGTERM: the count's
    case of test_a_stopped_command_leaves_without_the_interpreters_teardown)."""
    done = signalled([sys.executable, "-m", "nqmip.cli.count", "--n", "17", "--workers", "2"],
                     signal.SIGHUP, 3.0)
    assert_count_stopped(done, signal.SIGHUP)


# a finaliser that prints at the interpreter's teardown, as LLVM's half-built objects did
# after a signal heard while numba compiled ("Exception ignored in: ObjectRef.__del__")
TEARDOWN = ("import atexit, sys; atexit.register(lambda: print('teardown ran', "
            "file=sys.stderr)); sys.argv[1:] = {argv!r}; from {module} import entry; entry()")


#: nqmip-compare's sweep of annealing runs of 20 s each, its runs kept in OUTPUT.
COMPARE = ["--n", "200", "--methods", "sa", "--repeats", "4", "--time-limit", "20",
           "--target", "none", "--output", "OUTPUT", "--no-progress"]


@pytest.mark.parametrize(("module", "argv", "after"), [
    ("nqmip.cli.count", ["--n", "17", "--workers", "2"], 3.0),
    ("nqmip.compare", COMPARE, 4.0),
], ids=["count", "compare"])
def test_a_stopped_command_leaves_without_the_interpreters_teardown(
        module: str, argv: list[str], after: float, tmp_path: Path) -> None:
    """Whatever the stop left half done cannot print after the command's one line (and
    SIGTERM stops each as Ctrl-C does: the count's one line, the compare's resume hint,
    143)."""
    output = tmp_path / "runs.jsonl"
    argv = [str(output) if part == "OUTPUT" else part for part in argv]
    done = signalled([sys.executable, "-c", TEARDOWN.format(argv=argv, module=module)],
                     signal.SIGTERM, after)
    assert done.returncode == 143, done.stderr
    assert "interrupted" in done.stderr and "teardown ran" not in done.stderr, done.stderr
    if module == "nqmip.cli.count":
        assert_count_stopped(done, signal.SIGTERM)
    else:
        # before its first run finished, or after (then the summary of those is printed)
        assert f"; resume with --resume {output}" in done.stderr, done.stderr


def test_a_finished_command_ends_with_the_interpreters_teardown() -> None:
    """A command that finished still ends the usual way (its teardown runs)."""
    finished = subprocess.run(
        [sys.executable, "-c", TEARDOWN.format(argv=["--n", "6"], module="nqmip.cli.count")],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0 and finished.stdout == "4\n", finished.stderr
    assert "teardown ran" in finished.stderr


def test_sighup_stops_the_compare_as_ctrl_c(tmp_path: Path) -> None:
    """nqmip-compare (scripts/compare.py) stops as on Ctrl-C, saying how to resume, with
    128 + SIGHUP (SIGTERM: the compare's case of
    test_a_stopped_command_leaves_without_the_interpreters_teardown)."""
    output = tmp_path / "runs.jsonl"
    argv = [str(output) if part == "OUTPUT" else part for part in COMPARE]
    done = signalled([sys.executable, str(ROOT / "scripts" / "compare.py"), *argv],
                     signal.SIGHUP, 4.0)
    assert done.returncode == 128 + signal.SIGHUP, done.stderr
    assert "nqmip-compare: interrupted" in done.stderr, done.stderr
    assert f"; resume with --resume {output}" in done.stderr, done.stderr


def test_a_stop_while_the_count_compiles_is_a_stop(tmp_path: Path) -> None:
    """SIGTERM while numba compiles the count's kernels (an empty cache: a machine's first
    count) reaches numba inside a callback of its own, and numba failed with "no compiled
    object yet" (exit 1, a traceback; a CI run in a fresh venv met it): now one line, 143."""
    import os

    command = [sys.executable, "-m", "nqmip.cli.count", "--n", "17", "--workers", "2"]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    time.sleep(2.0)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    if proc.returncode == -signal.SIGTERM:  # still importing: no handler yet
        pytest.skip("the signal came before the command's handlers (a loaded machine)")
    assert proc.returncode == 143 and out == "", err
    assert err.startswith("nqmip-count: interrupted") and err.count("\n") == 1, err


def test_the_suite_hears_signals_however_it_was_started() -> None:
    """Started under nohup or as a background job (SIGHUP, SIGINT ignored), the suite
    restores a terminal's dispositions (tests/conftest.py): before, the Ctrl-C and SIGHUP
    tests failed when the suite was launched that way (the signals never arrived)."""
    import signal as sig

    probe = ("import signal, tests.conftest; "
             "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler, "
             "signal.getsignal(signal.SIGHUP) is signal.SIG_DFL)")

    def ignore() -> None:  # as nohup and a shell's background job leave them
        sig.signal(sig.SIGINT, sig.SIG_IGN)
        sig.signal(sig.SIGHUP, sig.SIG_IGN)

    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, preexec_fn=ignore, check=True)
    assert out.stdout.split() == ["True", "True"], out


def _argv_for(method: str) -> list[str]:
    weights = [] if "colour" in METHODS[method].weights else ["--random-weights", "1"]
    return ["--n", "10", "--method", method, *weights, "--json"]


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize("extra", [[], ["--minimize"], ["--fix", "0,2"]],
                         ids=["max", "min", "fixed"])
def test_a_stop_before_the_solve_started_still_answers(
        method: str, extra: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A Ctrl-C (or SIGTERM) that lands after the board is read but before the solve's
    watchdog listens (a solver's or the kernels' module being imported: SIGTERM 0.5 s into
    `--n 12 --method lns --random-weights 3`) answers with the explicit construction, its
    JSON printed and 130, as one that lands while the kernels compile; with fixed queens
    with a completion of them (a short search: nqmip.construct.stand_in; it said no
    placement was known). Before: 'interrupted before the solve started', nothing on
    stdout."""
    import nqmip.cli.solve as command

    def stopped(method: str) -> None:
        raise KeyboardInterrupt  # where the signal landed

    monkeypatch.setattr(command, "check_available", stopped)
    status = command.solve_weighted_main([*_argv_for(method), *extra])
    data = json.loads(capsys.readouterr().out)
    assert status == 130 and data["termination"] == "interrupted" and data["method"] == method
    assert data["sense"] == ("min" if extra == ["--minimize"] else "max")
    assert nqmip.is_solution(data["placement"]) and data["objective"] is not None
    if extra[:1] == ["--fix"]:
        # 9 free rows: the best of every completion, listed (a larger board: a short
        # search's completion)
        assert data["placement"][0] == 2 and data["solver"].startswith(
            ("completion", "every placement"))


#: The compare whose warm-up hears SIGTERM inside numba's compile: numba catches the stop in
#: a callback of its own and fails with a RuntimeError (as a full CI run saw, the cache
#: half warm: "no compiled object yet for <Library 'record_best'>", exit 1, a traceback).
BROKEN_COMPILE = """
import os, signal, sys, time
import nqmip.compare.runners as runners

def warm_kernels(todo):
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
    except KeyboardInterrupt:
        raise RuntimeError("no compiled object yet for <Library 'record_best'>") from None
    return 0.0

runners.warm_kernels = warm_kernels
sys.argv[1:] = {argv!r}
from nqmip.compare import entry
entry()
"""


def test_a_stop_that_breaks_the_compares_compile_is_still_a_stop(tmp_path: Path) -> None:
    argv = ["--n", "8", "--methods", "sa", "--time-limit", "5", "--no-progress",
            "--output", str(tmp_path / "runs.jsonl")]
    done = subprocess.run([sys.executable, "-c", BROKEN_COMPILE.format(argv=argv)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 143, done.stderr
    assert done.stderr.startswith("nqmip-compare: interrupted"), done.stderr
    assert "Traceback" not in done.stderr


#: The count whose kernels' load hears SIGINT and absorbs it, as a C callback of llvmlite
#: does (a full CI run: SIGINT 0.35 s into ``nqmip-count --n 17`` on a loaded machine
#: printed the whole count, 95815104, after it, with exit 130).
ABSORBED_COUNT = """
import os, signal, sys, time
import nqmip.enumeration.count as count

loaded = count.warm_up

def warm_up(which="all"):
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
    except KeyboardInterrupt:
        pass  # absorbed where it was raised
    return loaded(which)

count.warm_up = warm_up
sys.argv[1:] = {argv!r}
from nqmip.cli.count import entry
entry()
"""


@pytest.mark.parametrize("argv", [["--n", "14", "--no-progress"],
                                  ["--n", "14", "--workers", "2", "--no-progress"],
                                  ["--n", "14", "--unique", "--no-progress"]],
                         ids=["alone", "workers", "unique"])
def test_a_stop_the_counts_kernels_absorbed_still_stops_it(argv: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", ABSORBED_COUNT.format(argv=argv)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 130, done.stderr
    assert done.stdout == "" and done.stderr.startswith("nqmip-count: interrupted"), done


TORN = """
import signal, sys
from nqmip.cli.signals import stops_as_ctrl_c

class Half:  # as llvmlite's OutputString: its __del__ reads what its __init__ sets
    def __init__(self, stop):
        if stop:
            signal.raise_signal(signal.SIGINT)
        raise ValueError
        self._ptr = None

    def __del__(self):
        if self._ptr is not None:
            pass

stop = sys.argv[1] == "stop"
try:
    with stops_as_ctrl_c():
        Half(stop)
except (KeyboardInterrupt, ValueError):
    pass
print("one line", file=sys.stderr)
"""


@pytest.mark.parametrize("stop", ["stop", "none"])
def test_an_object_a_stop_tore_is_freed_quietly(stop: str) -> None:
    """A stop in an object's ``__init__`` (SIGINT as numba compiled a kernel in the
    command's thread: llvmlite's ``OutputString``) leaves it half made; its ``__del__``'s
    error, freed after the stop's block, printed a traceback above the command's one line
    (CI: ``nqmip-compare`` stopped in its warm-up). Without a stop, the same error is still
    shown."""
    done = subprocess.run([sys.executable, "-c", TORN, stop], capture_output=True,
                          text=True, timeout=60)
    if stop == "stop":
        assert done.stderr == "one line\n", done.stderr
    else:
        assert "AttributeError" in done.stderr and done.stderr.endswith("one line\n"), \
            done.stderr
