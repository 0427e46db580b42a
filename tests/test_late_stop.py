"""A stop that comes after a command wrote its answer, as it leaves, ends it with 128 + the
signal (or, past the point of no return, its own status), never the signal's default
kill: ``nqmip-count --n 14`` sent SIGINT just as it printed its count exited -2 (2 of 3
at 0.96 s), its handlers put back to the interpreter's before it left."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

COMMANDS = {
    "count": [str(ROOT / "scripts" / "count_solutions.py"), "--n", "12", "--no-progress"],
    "solve": [str(ROOT / "scripts" / "solve_weighted.py"), "--n", "8", "--quiet"],
}


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_stop_as_the_command_leaves_is_not_a_kill(command: str, signum: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _ in range(4):
        process = subprocess.Popen([sys.executable, *COMMANDS[command]], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        assert process.stdout is not None
        first = process.stdout.readline()  # the answer: the signal comes as it leaves
        with contextlib.suppress(ProcessLookupError):  # it had already gone
            process.send_signal(signum)
        _, err = process.communicate(timeout=60)
        assert first.strip(), err
        assert process.returncode in (0, 128 + signum), (process.returncode, err)
        assert "Traceback" not in err, err
