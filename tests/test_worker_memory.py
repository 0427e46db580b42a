"""Worker processes that would not fit in memory are refused up front, at every door that
starts them: the solve command's and the API's ``workers`` (bnb's local Dask cluster,
lex-first's cubes), the count's, and the compare's ``--workers`` and ``--jobs``. The
machine's available memory is set low here (``nqmip.capacity.available_bytes``), so the
refusal comes at a small count; nothing starts. Before, ``--workers 256`` started 256
interpreters (about 200 MB each for a Dask worker: 50 GB on a 24 GB machine), and the
compare's ``--workers 200`` ended in a ``CapacityError`` traceback, exit 1.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import nqmip
from nqmip import capacity
from nqmip.capacity import CapacityError

#: The memory the machine is said to have: 1 GB (0.9 of it usable): 8 workers of a fresh
#: interpreter (256 MB each) are too many, 2 forked counting workers (128 MB each) fit.
LOW = 2**30
MANY = 8


@pytest.fixture
def low_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capacity, "available_bytes", lambda: LOW)


def _solve_command(args: list[str]) -> int:
    from nqmip.cli.solve import solve_weighted_main

    return solve_weighted_main(args)


def _count_command(args: list[str]) -> int:
    from nqmip.cli.count import count_main

    return count_main(args)


def _compare_command(args: list[str]) -> int:
    from nqmip.compare.cli import main

    return main(args)


#: Each door that starts worker processes, and how it is asked for too many.
COMMANDS: dict[str, tuple[Callable[[list[str]], int], list[str]]] = {
    "solve bnb --workers": (_solve_command, ["--n", "30", "--method", "bnb",
                                             "--random-weights", "1", "--workers", str(MANY)]),
    "solve --lex-first --workers": (_solve_command, ["--n", "30", "--lex-first",
                                                     "--workers", str(MANY)]),
    "count --workers": (_count_command, ["--n", "12", "--workers", str(2 * MANY)]),
    "compare --workers": (_compare_command, ["--n", "8", "--methods", "sa",
                                             "--workers", str(MANY)]),
    "compare --jobs": (_compare_command, ["--n", "6,7,8,9", "--methods", "sa,tabu",
                                          "--jobs", str(MANY), "--time-limit", "1"]),
}

API: dict[str, Callable[[], object]] = {
    "solve bnb": lambda: nqmip.solve(30, "random", method="bnb", workers=MANY, time_limit=5),
    "lex_first": lambda: nqmip.lex_first(30, workers=MANY, time_limit=5),
    "count_solutions": lambda: nqmip.count_solutions(12, workers=2 * MANY),
}


@pytest.mark.parametrize("door", list(COMMANDS))
def test_a_command_refuses_workers_past_the_memory_in_one_line(
        door: str, low_memory: None, capsys: pytest.CaptureFixture[str]) -> None:
    main, args = COMMANDS[door]
    status = main(args)
    out, err = capsys.readouterr()
    assert status == 2, (status, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "processes need about" in err and "at most" in err, err
    assert out == ""


@pytest.mark.parametrize("door", list(API))
def test_the_api_refuses_workers_past_the_memory(door: str, low_memory: None) -> None:
    with pytest.raises(CapacityError, match=r"processes need about .* at most \d+"):
        API[door]()


def test_workers_that_fit_run(low_memory: None) -> None:
    """Two forked counting workers fit in the same memory: the count runs, and is right."""
    assert nqmip.count_solutions(8, workers=2) == 92
