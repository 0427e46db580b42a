"""The commands' output whatever it goes to (issue 41): a console that is not UTF-8 gets
ASCII stand-ins instead of a UnicodeEncodeError; a closed or full standard output ends in
one line on stderr and exit status 74 with the result kept in --output (written before
anything is printed); a reader that goes away (``| head -1``) ends the command quietly
with 141 (128 + SIGPIPE), as a Unix tool."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import nqmip

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "solve_weighted.py"
COUNT = [sys.executable, "-m", "nqmip.cli.count"]
SOLVE = [sys.executable, str(SCRIPT)]
EXIT_IO_ERROR = 74
EXIT_BROKEN_PIPE = 141


def run_encoded(command: list[str], encoding: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    return subprocess.run(command, capture_output=True, timeout=120, cwd=ROOT, env=env)


#: (command, a text the output must hold) for each kind of output.
OUTPUTS = {
    "default": ([*SOLVE, "--n", "8"], "Proven optimal"),
    "costs": ([*SOLVE, "--costs", "docs/examples/weights6.csv"], "lower is better"),
    "quiet": ([*SOLVE, "--n", "8", "--quiet"], "optimal objective=12"),
    "json": ([*SOLVE, "--n", "8", "--json"], '"objective"'),
    "verbose": ([*SOLVE, "--n", "8", "--verbose", "--method", "highs"], "Proven optimal"),
    "count": ([*COUNT, "--n", "8", "--verbose"], "92"),
    "count-list": ([*COUNT, "--n", "6", "--list", "--unique"], "Q queen"),
}


def run_on_console(command: list[str], encoding: str) -> tuple[int, bytes, bytes]:
    """The command's ``main(argv)`` in this process, its standard output and error a
    console of ``encoding`` (as ``PYTHONIOENCODING`` makes them: output strict, errors
    backslashreplace); (status, the bytes of each)."""
    from nqmip.cli.count import count_main
    from nqmip.cli.solve import solve_weighted_main

    main, argv = ((count_main, command[len(COUNT):]) if command[:len(COUNT)] == COUNT
                  else (solve_weighted_main, command[len(SOLVE):]))
    out, err = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding=encoding, write_through=True)
    stderr = io.TextIOWrapper(err, encoding=encoding, errors="backslashreplace",
                              write_through=True)
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)  # the commands' relative paths, as the commands' runs below
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            status = main(argv)
        stdout.flush()
        stderr.flush()
    finally:
        os.chdir(cwd)
    return status, out.getvalue(), err.getvalue()


def check_encoded(kind: str, encoding: str, in_process: bool = True) -> None:
    command, expected = OUTPUTS[kind]
    if in_process:
        status, stdout, stderr = run_on_console(command, encoding)
    else:
        done = run_encoded(command, encoding)
        status, stdout, stderr = done.returncode, done.stdout, done.stderr
    err = stderr.decode(encoding)
    assert status == 0, err[-2000:]
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    out = stdout.decode(encoding)  # every byte in the console's own encoding
    assert expected in out
    if kind in ("default", "costs"):  # the legend's "·" as the encoding writes it
        assert ("gap: (" in out) and (" · gap" in out or " - gap" in out)


def test_an_ascii_console_gets_the_board_and_the_legend() -> None:
    command, _ = OUTPUTS["default"]
    done = run_encoded(command, "ascii")
    assert done.returncode == 0, done.stderr.decode("ascii", "replace")[-2000:]
    out = done.stdout.decode("ascii")
    board = [line for line in out.splitlines() if line[:2].strip().isdigit() and " Q" in line]
    assert len(board) == 8 and "objective  12" in out
    assert "score more - gap: (bound - objective) / objective" in out  # "·" as "-"
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize("encoding", ["ascii", "cp437", "latin-1"])
@pytest.mark.parametrize("kind", list(OUTPUTS))
def test_every_output_on_a_console_that_is_not_utf8(kind: str, encoding: str) -> None:
    """Each kind of output on each console, through the commands' ``main(argv)`` (the
    encoding is read from the streams when the command starts, as in a fresh process)."""
    check_encoded(kind, encoding)


@pytest.mark.parametrize(("kind", "encoding"), [("count-list", "cp437"),
                                                ("costs", "latin-1")])
def test_the_commands_started_on_a_console_that_is_not_utf8(kind: str, encoding: str
                                                            ) -> None:
    """The commands themselves, started with ``PYTHONIOENCODING`` (the solve command's
    board on an ASCII console: above)."""
    check_encoded(kind, encoding, in_process=False)


def test_stand_ins_for_what_an_encoding_cannot_write() -> None:
    from nqmip.cli.streams import PLAIN, can_write

    text = "gap 1.0% · 3 × 3 ≤ 9 — done…"
    assert text.encode("ascii", PLAIN) == b"gap 1.0% - 3 x 3 <= 9 -- done..."
    assert text.encode("latin-1", PLAIN).decode("latin-1") == "gap 1.0% · 3 × 3 <= 9 -- done..."
    assert text.encode("cp437", PLAIN).decode("cp437") == "gap 1.0% · 3 x 3 ≤ 9 -- done..."

    class Console:
        encoding = "cp437"

    assert not can_write(Console()) and can_write(sys.__stdout__ or Console(), "abc")


def test_a_closed_stdout_keeps_the_result_in_output(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    command = [*SOLVE, "--n", "8", "--output", str(target)]
    done = subprocess.run(command, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                          timeout=120, preexec_fn=lambda: os.close(1))
    assert done.returncode == EXIT_IO_ERROR, done.stderr
    assert done.stderr.splitlines() == [
        f"solve_weighted: standard output is closed: the result is not printed; it is in "
        f"--output {target}"]
    assert nqmip.is_solution(json.loads(target.read_text())["placement"])


@pytest.mark.parametrize("extra", [[], ["--json"], ["--quiet"]])
def test_a_full_stdout_keeps_the_result_in_output(tmp_path: Path, extra: list[str]) -> None:
    target, svg = tmp_path / "r.json", tmp_path / "r.svg"
    with open("/dev/full", "w") as full:
        done = subprocess.run([*SOLVE, "--n", "8", "--output", str(target), "--svg", str(svg),
                               *extra], stdout=full, stderr=subprocess.PIPE, text=True,
                              cwd=ROOT, timeout=120)
    assert done.returncode == EXIT_IO_ERROR, done.stderr
    assert done.stderr.splitlines() == [
        f"solve_weighted: the result could not be printed (No space left on device); it is "
        f"in --output {target}, --svg {svg}"]
    assert json.loads(target.read_text())["objective"] == 12
    assert svg.read_text().startswith("<svg")


def test_count_on_a_full_stdout_says_so_in_one_line() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run([*COUNT, "--n", "6"], stdout=full, stderr=subprocess.PIPE,
                              text=True, cwd=ROOT, timeout=120)
    assert done.returncode == EXIT_IO_ERROR, done.stderr
    assert done.stderr.splitlines() == [
        "nqmip-count: the result could not be printed (No space left on device)"]


@pytest.mark.parametrize("command", [[*SOLVE, "--n", "40", "--time-limit", "2"],
                                     [*COUNT, "--n", "7", "--list"]],
                         ids=["solve", "count-list"])
def test_a_reader_that_goes_away_ends_the_command_quietly(command: list[str]) -> None:
    import fcntl

    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)  # the output (6 KB or more) cannot all fit
    proc = subprocess.Popen(command, stdout=write, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    os.close(write)
    first = os.read(read, 100)  # as `| head -c 100`: a little, then the pipe is closed
    os.close(read)
    _, err = proc.communicate(timeout=120)
    assert first.strip()
    assert proc.returncode == EXIT_BROKEN_PIPE, err
    assert err == ""


def test_solves_side_by_side_give_stdout_back_in_any_order(
        capfd: pytest.CaptureFixture[str]) -> None:
    """Two solves inside the C-stdout redirect at once (auto's parts side by side) share
    it, and descriptor 1 is stdout again once both have left, the first in first out:
    before, the second saved the first's redirect as 'stdout' and put it back, and
    everything printed after went to stderr."""
    import threading

    from nqmip.backends.base import c_stdout_to_stderr

    entered, leave_first = threading.Barrier(2), threading.Event()

    def solve(first: bool) -> None:
        with c_stdout_to_stderr():
            entered.wait()
            if first:
                return
            leave_first.wait()

    second = threading.Thread(target=solve, args=(False,))
    second.start()
    solve(True)
    leave_first.set()
    second.join()
    os.write(1, b"after both\n")
    print("printed", flush=True)
    out, err = capfd.readouterr()
    assert out == "after both\nprinted\n" and "after" not in err


def test_a_solve_abandoned_inside_the_redirect_answers_on_stdout(
        monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    """A solver that does not hear the cancel (SCIP on Ctrl-C at 0.5 s, once) is abandoned
    by the watchdog while it sends C's stdout to stderr: the call's answer goes to stdout
    all the same. Before, `solve_weighted.py --n 12 --method scip --random-weights 3 --json`
    stopped by SIGTERM printed its JSON on stderr and nothing on stdout."""
    import threading
    import time

    from nqmip.backends.base import c_stdout_to_stderr
    from nqmip.backends.scip import ScipBackend

    release = threading.Event()

    def deaf(self: object, instance: object, options: object) -> object:
        with c_stdout_to_stderr():
            release.wait(10)  # hears no cancel
        raise AssertionError("abandoned: never read")

    monkeypatch.setattr(ScipBackend, "solve", deaf)
    begin = time.perf_counter()
    result = nqmip.solve(10, "random", method="scip", time_limit=0.5)
    assert time.perf_counter() - begin < 3 and nqmip.is_solution(result.placement)
    print(result.to_json(), flush=True)
    out, err = capfd.readouterr()
    release.set()
    assert json.loads(out)["placement"] == list(result.placement), err


#: The calls that go through Pyomo (the method table's ``highs-pyomo`` and ``glpk``, and
#: the lexicographic ``highs-pyomo``), each abandoned at a tiny limit: the board is too
#: big to be solved or even built in 0.05 s.
PYOMO_CALLS = {
    "highs-pyomo": "nqmip.solve(nqmip.make_instance(30, 'chess', fixed=FIXED[k]), "
                   "method='highs-pyomo', time_limit=0.05, seed=0).status",
    "glpk": "nqmip.solve(nqmip.make_instance(30, 'chess', fixed=FIXED[k]), "
            "method='glpk', time_limit=0.05).status",
    "lex-highs-pyomo": "nqmip.lex_first(30, FIXED[k], method='highs-pyomo', "
                       "time_limit=0.05).status",
}


@pytest.mark.parametrize(("method", "call"), [
    pytest.param(name, call, marks=pytest.mark.solver(name.removeprefix("lex-")), id=name)
    for name, call in PYOMO_CALLS.items()])
def test_calls_through_pyomo_given_up_on_leave_stdout_to_the_caller(method: str,
                                                                    call: str) -> None:
    """Pyomo's HiGHS interface swapped sys.stdout and descriptors 1 and 2 for the whole
    process while it built and solved (``capture_output``); a call the watchdog gave up
    on took the caller's stdout with it. Before: four abandoned ``highs-pyomo`` calls in
    one process, a line printed after each, and one or two of the five lines came out
    (exit 0). Each line printed after each call must reach stdout, and nothing of the
    solver's (HiGHS's banner "Running HiGHS", glpsol's log) may."""
    script = ("import nqmip\n"
              "FIXED = [[], [(0, 0), (1, 2), (2, 4)], [], [(0, 0), (1, 2), (2, 4)]]\n"
              "for k in range(4):\n"
              f"    print('line', k, {call}.value)\n"
              "print('end')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.rsplit(" ", 1)[0] for line in lines[:-1]] == [f"line {k}" for k in range(4)]
    assert lines[-1] == "end" and len(lines) == 5, done.stdout
    assert {line.rsplit(" ", 1)[1] for line in lines[:-1]} <= {"feasible", "unknown",
                                                              "optimal"}, done.stdout
    assert "HiGHS" not in done.stderr and "GLPSOL" not in done.stderr, done.stderr
