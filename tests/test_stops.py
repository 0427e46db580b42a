"""Stops that say why: ``Deadline.cancel(reason)`` is said where the work stops (a proof,
the caller's target, Ctrl-C, the watchdog's limit) and ``Deadline.stopped_by()`` reads it
on every deadline made from the cancelled one; auto's termination is that reason."""

from __future__ import annotations

import threading
import time

import pytest

import nqmip
from nqmip.budget import Deadline
from nqmip.result import Termination


def test_the_earliest_cancel_says_why_every_deadline_made_from_it_stopped() -> None:
    call = Deadline(60)
    run = call.sub()
    part = run.sub(share=0.5)
    solver = part.own_clock(10)
    assert run.stopped_by() is None and solver.stopped_by() is None  # still running
    run.cancel("optimal")  # a proof ends the run
    time.sleep(0.001)
    call.cancel("time_limit")  # the watchdog's later cancel does not rename it
    assert (run.stopped_by(), part.stopped_by(), solver.stopped_by()) == ("optimal",) * 3
    assert call.stopped_by() == "time_limit"  # the caller's own deadline kept its word
    plain = Deadline(None)
    plain.cancel()
    assert plain.stopped_by() == "interrupted"  # a cancel with no other word
    short = Deadline(0.001)
    time.sleep(0.01)
    assert short.stopped_by() == "time_limit" and short.sub().stopped_by() == "time_limit"


@pytest.mark.timing
def test_auto_cancelled_by_its_caller_says_interrupted() -> None:
    # the caller's cancel is an interrupt, said by auto itself (it said time_limit)
    from nqmip.auto.plans import warm_up
    from nqmip.auto.policy import PLAN_BY_NAME
    from nqmip.instance import make_instance

    instance = make_instance(200, "random", weights_seed=1)
    warm_up(PLAN_BY_NAME["anneal"], like=instance)
    deadline = Deadline(60)
    box: dict[str, nqmip.Result] = {}
    worker = threading.Thread(
        target=lambda: box.setdefault("result", nqmip.solve(instance, time_limit=deadline)),
        daemon=True)
    worker.start()
    time.sleep(1.5)
    deadline.cancel()
    worker.join(30)
    result = box["result"]
    assert result.termination is Termination.INTERRUPTED
    assert result.placement is not None and nqmip.is_solution(result.placement)
    assert deadline.stopped_by() == "interrupted"


def test_a_proof_ends_auto_as_optimal_and_leaves_the_callers_deadline_running() -> None:
    # HiGHS proves a small board: the run's own deadline is cancelled with "optimal", the
    # caller's deadline (shared with other work) is not cancelled by auto
    deadline = Deadline(60)
    result = nqmip.solve(14, "random", time_limit=deadline)
    assert result.termination is Termination.OPTIMAL
    assert not deadline.cancelled() and deadline.stopped_by() is None


@pytest.mark.parametrize(("reason", "termination"), [
    ("time_limit", Termination.TIME_LIMIT), ("interrupted", Termination.INTERRUPTED),
    ("target", Termination.TARGET), ("optimal", Termination.INTERRUPTED),
    (None, Termination.TIME_LIMIT)])
def test_a_search_says_why_its_deadline_stopped_it(reason: str | None,
                                                    termination: Termination) -> None:
    """The chunked searches, the lex descent and bnb read the cancel's reason: the
    watchdog's cancel at the limit is a time limit (they had said 'interrupted' for any
    cancel), another part's proof an interrupt of this search (it proved nothing)."""
    from nqmip.chunks import stopped, why_stopped

    deadline = Deadline(None if reason is not None else 0.001)
    if reason is not None:
        deadline.cancel(reason)
    else:
        time.sleep(0.01)
    assert why_stopped(deadline.sub()) is termination
    assert stopped(deadline) is termination


def test_lex_first_at_its_time_limit_says_time_limit() -> None:
    result = nqmip.lex_first(200, time_limit=1.5)
    assert result.termination in (Termination.TIME_LIMIT, Termination.OPTIMAL)
