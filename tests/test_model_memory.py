"""toulbar2's model holds a cost table for each pair of free rows (free^4 / 2 entries), and
the memory check counts it (``Method.pair_tables``, :data:`nqmip.capacity.
BYTES_PER_PAIR_ENTRY`). Before, it was counted as any model of n^2 binaries: at n = 240 the
estimate was 0.6 GB, the process met ``std::bad_alloc`` past 7.5 GB, printed a traceback and
the command still answered the explicit construction, "stopped=time_limit", exit 0.

A process that fails so is said as it is (``Termination.ERROR``, exit 1, the failure in the
note), not as a time limit."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable

import pytest

import nqmip
from nqmip import capacity
from nqmip.capacity import CapacityError
from nqmip.result import Termination

#: The memory the machine is said to have (0.9 of it usable): n = 110's pair tables
#: (about 1.3 GB) are too many, its n^2 binaries alone (0.35 GB) were not.
LOW = 2**30
N = 110

#: The child's peak, measured in a process of its own (the pytest worker's other children
#: would count in RUSAGE_CHILDREN), against the estimate.
PEAK = """
import json, resource, nqmip
from nqmip.capacity import estimate_bytes
r = nqmip.solve({n}, "random", weights_seed=1, method="toulbar2", time_limit=3)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps([r.status.value, peak, estimate_bytes({n}, dense_weights=True,
                  exact_model=True, pair_tables=True)]))
"""


@pytest.mark.solver("toulbar2")
def test_the_estimate_holds_toulbar2s_measured_peak() -> None:
    """At n = 100 the search process peaked at 0.34 GB; n^2 binaries said 0.31 GB."""
    done = subprocess.run([sys.executable, "-c", PEAK.format(n=100)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    status, peak, estimate = json.loads(done.stdout.strip().splitlines()[-1])
    assert status in ("feasible", "optimal"), status  # the tables were built and searched
    assert peak <= estimate, (peak, estimate)


def _solve_command(args: list[str]) -> int:
    from nqmip.cli.solve import solve_weighted_main

    return solve_weighted_main(args)


def _compare_command(args: list[str]) -> int:
    from nqmip.compare.cli import main

    return main(args)


DOORS: dict[str, Callable[[], object]] = {
    "solve": lambda: nqmip.solve(N, "random", weights_seed=1, method="toulbar2",
                                 time_limit=5),
    "solve fixed": lambda: nqmip.solve(N + 2, "random", weights_seed=1, method="toulbar2",
                                       fixed={0: 0, 1: 2}, time_limit=5),
    "command": lambda: _solve_command(["--n", str(N), "--random-weights", "1",
                                       "--method", "toulbar2", "--time-limit", "5"]),
    "compare": lambda: _compare_command(["--n", str(N), "--methods", "toulbar2",
                                         "--time-limit", "5"]),
}


@pytest.mark.parametrize("door", list(DOORS))
def test_toulbar2s_pair_tables_past_the_memory_are_refused_up_front(
        door: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(capacity, "available_bytes", lambda: LOW)
    started: list[object] = []
    from nqmip.backends import toulbar2

    monkeypatch.setattr(toulbar2, "run_search", lambda *a: started.append(a) or ("killed",
                                                                               None, False))
    if door.startswith("solve"):
        with pytest.raises(CapacityError, match=r"needs about .* with method toulbar2"):
            DOORS[door]()
    else:
        status = DOORS[door]()
        err = capsys.readouterr().err
        assert status == 2, (status, err)
        assert "needs about" in err and len(err.strip().splitlines()) == 1, err
    assert not started  # refused before any search process


@pytest.mark.solver("toulbar2")
def test_a_search_process_that_fails_is_an_error_not_a_time_limit(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Its failure (here the one a process out of memory sends) at both doors."""
    from nqmip.backends import toulbar2

    monkeypatch.setattr(toulbar2, "run_search", lambda *a: (
        "error", "MemoryError: std::bad_alloc", False))
    result = nqmip.solve(12, "random", weights_seed=1, method="toulbar2")
    assert result.termination is Termination.ERROR, result
    assert "std::bad_alloc" in result.message
    status = _solve_command(["--n", "12", "--random-weights", "1", "--method", "toulbar2",
                             "--quiet"])
    out, err = capsys.readouterr()
    assert status == 1, (status, out, err)  # was 0: the construction, 'stopped=time_limit'
    assert "stopped=error" in out and "Traceback" not in err, (out, err)
    # the process ended by itself, nothing sent: the same
    monkeypatch.setattr(toulbar2, "run_search", lambda *a: ("killed", None, False))
    result = nqmip.solve(12, "random", weights_seed=1, method="toulbar2")
    assert result.termination is Termination.ERROR, result
