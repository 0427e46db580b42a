"""The watchdog under stress (issue 41): solves with random cheap methods of the method
table, small boards, random limits (0.2-2 s), targets, cancels from another thread, called
from the caller's thread or one of its own, and the solve command stopped by SIGINT or by
its time limit in a subprocess. Each returns within its limit (its cancel, its SIGINT)
+ 1 s, leaves no thread behind, and its result verifies (nqmip.verify.verified).

The draw and the runs are benchmarks/bench_watchdog_stress.py's (numpy's generator with a
fixed seed: a failure names its case, which the script reruns); the script prints the
figures. Two tests run the first cases of the script's draw, a third the next ones, to
every method of the draw.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent


def stress_module() -> ModuleType:
    return load_script("bench_watchdog_stress",
                       ROOT / "benchmarks" / "bench_watchdog_stress.py")


STRESS = stress_module()
#: The short draws: the first cases of the script's own (numpy's generator draws them in
#: turn), which the long stress does not run again.
SHORT_CALLS, SHORT_COMMANDS = 20, 2


def check(seed: int, calls: int, commands: int) -> None:
    figures = STRESS.stress(seed, calls, commands)
    print(figures)
    assert figures.calls == calls and figures.commands == commands
    assert figures.threads_left == 0, figures
    assert figures.longest_overrun <= STRESS.SLACK, figures
    assert figures.longest_command_overrun <= STRESS.SLACK, figures


def test_the_draw_is_reproducible_and_covers_every_kind_of_stop() -> None:
    cases = STRESS.draw(41, 300)
    assert cases == STRESS.draw(41, 300)
    assert {c.method for c in cases} == set(STRESS.methods())
    assert any(c.cancel_at is not None for c in cases)
    assert any(c.target is not None for c in cases)
    assert any(c.in_thread for c in cases) and not all(c.in_thread for c in cases)
    assert all(0.2 <= c.limit <= 2.0 for c in cases)
    kinds = [c.sigint_after is None for c in STRESS.draw_commands(41, 10)]
    assert any(kinds) and not all(kinds)


def test_a_short_stress_of_the_watchdog() -> None:
    check(41, SHORT_CALLS, 0)


def test_the_solve_command_under_sigint_and_its_time_limit() -> None:
    check(41, 0, SHORT_COMMANDS)


#: The long stress: the script's next cases after the short draws, as many as reach every
#: method of the draw (the short 20 leave out two) and both commands the short draw does
#: not run (benchmarks/bench_watchdog_stress.py runs its own 60 calls and 4 commands).
LONG_CALLS, LONG_COMMANDS = 30, 4


@pytest.mark.slow
def test_a_long_stress_of_the_watchdog(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cases after the short ones, to every method of the draw: with the two tests
    above, every method of the table and both kinds of command stop meet the watchdog."""
    draw, draw_commands = STRESS.draw, STRESS.draw_commands
    assert draw(41, LONG_CALLS)[:SHORT_CALLS] == draw(41, SHORT_CALLS)
    assert {c.method for c in draw(41, LONG_CALLS)} == set(STRESS.methods())
    assert draw_commands(41, LONG_COMMANDS)[:SHORT_COMMANDS] == draw_commands(
        41, SHORT_COMMANDS)
    monkeypatch.setattr(STRESS, "draw", lambda seed, count: draw(
        seed, count + SHORT_CALLS)[SHORT_CALLS:])
    monkeypatch.setattr(STRESS, "draw_commands", lambda seed, count: draw_commands(
        seed, count + SHORT_COMMANDS)[SHORT_COMMANDS:])
    check(41, LONG_CALLS - SHORT_CALLS, LONG_COMMANDS - SHORT_COMMANDS)
