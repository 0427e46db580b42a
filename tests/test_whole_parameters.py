"""A heuristic's whole parameter without a bound of its own is refused past
``nqmip.heuristics.common.MOST_WHOLE`` (10**12) at every door, in one line: 2**63 met
``OverflowError: int too big to convert`` inside the kernels (a 57-line traceback and exit
1 at the solve command, an 'error' cell of the compare after its sweep had started), and
quota's ``samples=2**62`` wrapped and ended its run at once. Generated from each
heuristic's declared bounds (``nqmip.heuristics.params.bounds_of``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import nqmip
from nqmip.heuristics.common import MOST_WHOLE
from nqmip.heuristics.params import bounds_of
from nqmip.methods import METHODS

#: Each heuristic's whole parameters with no upper bound of their own.
UNBOUNDED = [(name, param) for name, spec in METHODS.items() if spec.kind == "heuristic"
             for param, bound in bounds_of(name).items()
             if bound.whole and bound.high is None]


def _weights(method: str) -> list[str]:
    return [] if "dense" not in METHODS[method].weights else ["--random-weights", "1"]


def _solve_command(args: list[str]) -> int:
    from nqmip.cli.solve import solve_weighted_main

    return solve_weighted_main(args)


def _compare_command(args: list[str]) -> int:
    from nqmip.compare.cli import main

    return main(args)


DOORS: dict[str, Callable[[str, str, int], list[str]]] = {
    "solve": lambda m, p, v: ["--n", "12", *_weights(m), "--method", m, "--param", f"{p}={v}",
                              "--time-limit", "2"],
    "compare": lambda m, p, v: ["--n", "12", "--methods", m, "--param", f"{p}={v}",
                                "--time-limit", "2"],
}


def test_every_heuristic_has_such_parameters() -> None:
    assert len({m for m, _ in UNBOUNDED}) >= 6, UNBOUNDED


@pytest.mark.parametrize("method,param", UNBOUNDED, ids=[f"{m}-{p}" for m, p in UNBOUNDED])
def test_past_the_most_a_whole_parameter_is_refused_at_every_door(
        method: str, param: str, capsys: pytest.CaptureFixture[str]) -> None:
    for value in (MOST_WHOLE + 1, 2**63):
        with pytest.raises(ValueError, match=f"{param} must be at most"):
            nqmip.solve(12, "chess", method=method, time_limit=2, **{param: value})
        for door, args in DOORS.items():
            main = _solve_command if door == "solve" else _compare_command
            status = main(args(method, param, value))
            err = capsys.readouterr().err
            assert status == 2, (door, value, status, err)
            assert len(err.strip().splitlines()) == 1 and "at most" in err, (door, err)
