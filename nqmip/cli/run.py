"""A solve under the command line's watchdog: Ctrl-C and ``--time-limit`` keep their word.

The solve runs in a worker thread with the command's one :class:`~nqmip.budget.Deadline`;
the main thread only waits, so it hears Ctrl-C at once, whatever the worker is doing
(a numba kernel, a compile, a MIP solver). On Ctrl-C, or when the whole command's time
is up, the deadline is cancelled and the solve gets :data:`GRACE` seconds to return its
own best placement. A solve that has not returned by then is abandoned: the answer is the
explicit construction of :mod:`nqmip.construct` (a verified placement found in
microseconds), said plainly in the result's message. An interrupted run exits with
:data:`EXIT_INTERRUPTED` (130, as for any command stopped by Ctrl-C).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nqmip.budget import MIN_SOLVER_SECONDS, Deadline
from nqmip.cli.parser import EXIT_INTERRUPTED as EXIT_INTERRUPTED  # run's exit status
from nqmip.instance import Instance
from nqmip.result import Result, Status, Termination

#: Seconds a solve cancelled by Ctrl-C has to return its own best placement.
GRACE = 0.6
#: Seconds of a ``--time-limit`` kept back for printing and exiting.
RESERVE = 0.15
#: At the time limit the watchdog cancels the solve this long before the command's time is
#: up and gives it as long again: with a cold cache a search may still be compiling, and
#: the command must end by the limit plus half a second all the same.
LIMIT_GRACE = 0.3
#: How often the main thread looks up from waiting.
POLL = 0.05


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
    """What the command prints: the result, and whether Ctrl-C or the watchdog ended it."""

    result: Result
    interrupted: bool = False
    abandoned: bool = False  # the solve did not return in time: the fallback answered


def solve_watched(instance: Instance, *, method: str, time_limit: float | None,
                  started: float, **kwargs: Any) -> Outcome:
    """Run :func:`nqmip.solve` for ``instance`` within ``time_limit`` seconds counted from
    ``started`` (``time.perf_counter()`` when the command began), stopping on Ctrl-C."""
    from nqmip.solve import solve

    budget = None
    if time_limit is not None:
        budget = max(time_limit - RESERVE - (time.perf_counter() - started),
                     MIN_SOLVER_SECONDS)
    deadline = Deadline(budget)
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["result"] = solve(instance, method=method, time_limit=deadline, **kwargs)
        except BaseException as exc:  # re-raised in the main thread
            box["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=work, name="nqmip-solve", daemon=True)
    worker.start()
    interrupted = False
    watchdog = None if time_limit is None else started + time_limit - LIMIT_GRACE
    try:
        while not done.wait(POLL):
            if watchdog is not None and time.perf_counter() > watchdog:
                deadline.cancel()
                done.wait(LIMIT_GRACE)
                break
    except KeyboardInterrupt:
        interrupted = True
        deadline.cancel()
        with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C: answer at once
            done.wait(GRACE)
    if done.is_set():
        if "error" in box:
            raise box["error"]
        result: Result = box["result"]
        if interrupted and result.termination not in (Termination.OPTIMAL,
                                                       Termination.INFEASIBLE):
            result = result.with_(termination=Termination.INTERRUPTED)
        if result.status is Status.UNKNOWN and not instance.fixed:
            # stopped before its search held a placement (a cold compile ate the time)
            return Outcome(fallback(instance, method, time.perf_counter() - started,
                                    interrupted, returned=True),
                           interrupted=interrupted, abandoned=True)
        return Outcome(result, interrupted=interrupted)
    return Outcome(fallback(instance, method, time.perf_counter() - started, interrupted),
                   interrupted=interrupted, abandoned=True)


def fallback(instance: Instance, method: str, elapsed: float, interrupted: bool,
             returned: bool = False) -> Result:
    """The verified explicit construction, or no placement where it does not apply
    (``returned``: the search did return, but with no placement)."""
    from nqmip.construct import explicit_solution
    from nqmip.heuristics.common import heuristic_result
    from nqmip.verify import VerificationError, verified

    why = "interrupted" if interrupted else "out of time"
    termination = Termination.INTERRUPTED if interrupted else Termination.TIME_LIMIT
    message = (f"{why}: the {method} search did not stop in time (a kernel may still have "
               "been compiling), so this is the explicit construction, not its best")
    if returned:
        message = (f"{why}: the {method} search stopped before it held a placement (a "
                   "kernel may have been compiling), so this is the explicit construction")
    placement = None if instance.fixed else explicit_solution(instance.n)
    if placement is not None:
        try:
            result = verified(instance, heuristic_result(
                instance, method, placement.astype("int32"), wall_time=elapsed, seed=None,
                termination=termination, solver="explicit construction"))
            return result.with_(message=message)
        except VerificationError:
            pass
    return Result(status=Status.UNKNOWN, termination=termination, n=instance.n,
                  method=method, solver="", objective=None, bound=None, placement=None,
                  wall_time=elapsed, weights_name=instance.name,
                  message=f"{why}: the {method} search had not returned a placement")
