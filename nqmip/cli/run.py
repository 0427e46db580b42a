"""A solve for the command line: ``--time-limit`` counts from the process's start, Ctrl-C
answers with the best placement, and the command never ends empty-handed where a placement
is known by construction.

:func:`nqmip.solve` already keeps the time limit and hears Ctrl-C (:mod:`nqmip.watchdog`):
the command gives it one :class:`~nqmip.budget.Deadline` that ends ``RESERVE`` seconds
before the command's limit (for printing and exiting). A run that was stopped before it
held a placement (a cold compile ate the time) answers with the verified explicit
construction of :mod:`nqmip.construct`, said plainly in the result's message. An
interrupted run exits with :data:`EXIT_INTERRUPTED` (130, as for any command stopped by
Ctrl-C).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nqmip.budget import MIN_SOLVER_SECONDS, Deadline
from nqmip.cli.parser import EXIT_INTERRUPTED as EXIT_INTERRUPTED  # run's exit status
from nqmip.instance import Instance
from nqmip.result import Result, Status, Termination

#: Seconds of a ``--time-limit`` kept back for printing and exiting (the solve itself
#: returns within about 0.4 s of its deadline, :mod:`nqmip.watchdog`).
RESERVE = 0.1


def process_started() -> float:
    """When this process started, on the ``time.perf_counter()`` clock (Linux: from
    ``/proc``), so that a time limit counts the interpreter's start-up too; now elsewhere."""
    now = time.perf_counter()
    try:
        stat = Path("/proc/self/stat").read_text()
        ticks = int(stat.rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        since = uptime - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return now
    return now - min(max(since, 0.0), 5.0)


@dataclass(frozen=True)
class Outcome:
    """What the command prints: the result, and whether Ctrl-C ended it."""

    result: Result
    interrupted: bool = False
    abandoned: bool = False  # the run held no placement: the fallback answered


def budget_seconds(time_limit: float | None, started: float) -> float | None:
    """The solve's seconds: the command's limit less what has passed and ``RESERVE``. The
    solve returns within ``OVERRUN + LAST_CALL`` of them whatever its method does
    (:mod:`nqmip.watchdog`), so the command ends within half a second of its limit."""
    if time_limit is None:
        return None
    spent = time.perf_counter() - started
    return max(time_limit - RESERVE - spent, MIN_SOLVER_SECONDS)


def solve_watched(instance: Instance, *, method: str, time_limit: float | None,
                  started: float, answered: Callable[[], None] | None = None,
                  **kwargs: Any) -> Outcome:
    """Run :func:`nqmip.solve` for ``instance`` within ``time_limit`` seconds counted from
    ``started`` (``time.perf_counter()`` when the command began), stopping on Ctrl-C;
    ``answered`` is called as soon as the solve has answered (the command's
    :meth:`~nqmip.cli.signals.Stop.hold`: a stop from then on does not lose the answer)."""
    from nqmip.solve import fallback_result, solve

    # the limit asked for read as such (auto's plan for a 30 s limit: Deadline.total)
    deadline = Deadline(budget_seconds(time_limit, started), asked=time_limit)
    result = solve(instance, method=method, time_limit=deadline, **kwargs)
    if answered is not None:
        answered()
    interrupted = result.termination is Termination.INTERRUPTED
    if result.status is Status.UNKNOWN and not instance.fixed \
            and result.termination is not Termination.ERROR:  # a failure is said as it is
        # stopped before its search held a placement (a cold compile ate the time)
        return Outcome(fallback_result(instance, method, time.perf_counter() - started,
                                       interrupted=interrupted),
                       interrupted=interrupted, abandoned=True)
    return Outcome(result, interrupted=interrupted)


def stopped_before(instance: Instance, method: str, started: float) -> Outcome:
    """The answer to a stop signal heard before the solve's own watchdog was listening
    (while a solver or the kernels' module was imported, the options checked): the
    explicit construction, as a solve stopped before it held a placement answers (none
    with fixed queens). Before, the command said 'interrupted before the solve started'
    and printed nothing."""
    from nqmip.solve import fallback_result

    return Outcome(fallback_result(instance, method, time.perf_counter() - started,
                                   interrupted=True), interrupted=True, abandoned=True)


def lex_first_outcome(instance: Instance, method: str, time_limit: float | None,
                      started: float, options: dict[str, Any],
                      stopped: bool = False) -> Outcome:
    """``--lex-first``: :func:`nqmip.lex_first`, within the command's time limit;
    ``stopped``: a stop came first (its answer, no row proven; before, nothing was
    printed, not even --json's object)."""
    from nqmip.lex.solve import lex_first

    limit: Any = budget_seconds(time_limit, started)
    if stopped:
        limit = Deadline(limit)
        limit.cancel()
    result = lex_first(instance, method=method, time_limit=limit, **options)
    return Outcome(result, interrupted=result.termination is Termination.INTERRUPTED)
