"""glpsol ended by a signal (``timeout -s TERM`` sends it to the whole process group) is a
stop, not Pyomo's ``ApplicationError: Solver (glpk) did not exit normally``: that error
reached the command as a traceback, nothing on stdout, exit 1 (11 of 11 group signals at
2-7.5 s into a 20 s run of n = 36). Here a glpsol that ends itself by SIGTERM as soon as
it is asked to solve, in place of the real one."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

import nqmip
from nqmip.result import Termination


@pytest.mark.solver("glpk")
def test_glpsol_ended_by_a_signal_is_a_stop_with_the_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nqmip.backends import glpk

    fake = tmp_path / "glpsol"
    fake.write_text("#!/bin/sh\nkill -TERM $$\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    until = glpk._until

    def ends_itself(deadline: Any, tee: bool) -> Any:  # Pyomo's command, glpsol swapped
        run = until(deadline, tee)

        def go(command: Any) -> Any:
            command.cmd = [str(fake), *command.cmd[1:]]
            return run(command)
        return go

    monkeypatch.setattr(glpk, "_until", ends_itself)
    result = nqmip.solve(20, "random", weights_seed=1, method="glpk", time_limit=30)
    assert "ended by signal 15" in result.message, result.message
    assert result.termination in (Termination.TIME_LIMIT, Termination.INTERRUPTED), result
    assert result.placement is not None and nqmip.is_solution(result.placement)  # its start
    assert result.wall_time < 10  # not waiting for the limit
