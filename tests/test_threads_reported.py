"""Threads asked beyond the cores run as many as there are, and the answer says so, at
every door, for every method of the table that takes ``threads``: the API's
``result.extra['threads']`` and the command's ``threads`` row. auto (n = 36, 64 threads)
and the others through auto's parts said nothing: only the backends that set it did."""

from __future__ import annotations

import contextlib
import io

import pytest

import nqmip
from nqmip.capacity import cores
from nqmip.methods import METHODS

THREADING = [m for m in METHODS.values() if m.honour("threads")]


def _params() -> list[object]:
    return [pytest.param(spec.name, id=spec.name, marks=[pytest.mark.solver(spec.name)]
                         if spec.kind == "exact" else []) for spec in THREADING]


@pytest.mark.parametrize("fixed", [None, {0: 0}], ids=["free", "fixed"])
@pytest.mark.parametrize("method", _params())
def test_threads_beyond_the_cores_are_reported(method: str, fixed: dict[int, int] | None
                                               ) -> None:
    sense = "min" if fixed else "max"
    result = nqmip.solve(8, "chess", fixed=fixed, method=method, sense=sense,
                         threads=cores() + 3, time_limit=30)
    assert result.status is nqmip.Status.OPTIMAL
    assert result.extra.get("threads") == cores(), result.extra
    asked = nqmip.solve(8, "chess", fixed=fixed, method=method, sense=sense, threads=1,
                        time_limit=30)
    assert "threads" not in asked.extra, asked.extra  # as asked: nothing to say


@pytest.mark.parametrize("method", _params())
def test_the_command_says_the_threads_that_ran(method: str) -> None:
    from nqmip.cli.solve import solve_weighted_main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = solve_weighted_main(["--n", "8", "--method", method,
                                      "--threads", str(cores() + 3)])
    assert status == 0, out.getvalue()
    rows = [line for line in out.getvalue().splitlines() if line.split()[:1] == ["threads"]]
    assert len(rows) == 1 and rows[0].split()[1] == str(cores()), out.getvalue()


@pytest.mark.parametrize("n", [36, 48])
def test_auto_says_the_threads_of_its_parts(n: int) -> None:
    """auto's answer from its parts (the annealing's placement, the LP search's bound)
    carried none of their figures: 64 threads at n = 36 ran two, and it said nothing."""
    result = nqmip.solve(n, "random", weights_seed=1, method="auto", threads=64,
                         time_limit=3)
    assert result.placement is not None
    assert result.extra.get("threads") == cores(), result.extra
