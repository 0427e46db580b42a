"""A named method's first run under a time limit (a heuristic, or the branch and bound):
its kernels compiled by a child process while this one climbs with numpy, as auto's first
runs do (:mod:`nqmip.auto.cold`). The branch and bound, and the heuristics on a
feasibility question, compiled in the command's process until the same change: every run
with a limit shorter than the compile answered the watchdog's stand-in, and cached nothing.

A heuristic compiled its kernels in the call's own process before its first step: on an
empty numba cache that took 5 to 10 s (more on a loaded machine), so ``--method sa --n 12
--random-weights 2 --time-limit 10`` answered at 9.1 s, 8.7 s of it compiling, and ``--method
lns --n 14 --random-weights 2 --minimize --time-limit 10`` answered the construction (the
search had not started). Now, when the method's kernels are not marked ready in the cache
(:func:`nqmip.warmup.is_ready`), a child compiles them (:class:`ColdKernels`) while this
process holds the explicit construction and climbs it by numpy swaps (an iterated local
search, :func:`nqmip.auto.cold.climb_while_compiling`); once they are compiled the method
loads them and searches for the time left, and the answer is the method's own, as on a
warm cache (the climbs stand in only when the kernels are not there in time; the steps are
said in ``provenance.plan``). The better of the two was answered before: a listed board's
climb proved its optimum where the method's own run does not (``--n 8 --method minconflicts
--random-weights 2 --time-limit 20``: optimal 55 on an empty numba cache, min-conflicts'
feasible 38 warm), and a comparison credited the method with the climb's placement.
Without a time limit, under a work limit (an answer that must not depend on the clock),
on a warm cache, or where the climb does not run (no weights, n < 4 or
n > ``swapclimb.MAX_N``), the method runs as before. With fixed queens the first
incumbent is the plain-Python completion (:func:`nqmip.auto.cold.quick_completion`) and the
climbs swap the free rows only: they compiled in the command's process before, and
``--method sa --n 14 --random-weights 2 --fix 0,1 --time-limit 3`` answered the
completion's 70 at the limit ("did not stop in time").
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from nqmip.budget import Deadline
from nqmip.instance import Instance
from nqmip.progress import ProgressCallback
from nqmip.result import Result, Status

#: Seconds a first run keeps for loading its kernels and a search: the climbs stop this
#: long before the limit unless the kernels are compiled sooner (sa's load from the cache
#: took 0.5 to 2.4 s; 1.5 s let a load run past a 6 s limit once in a full test run; auto
#: keeps ``nqmip.auto.kernels.LOAD_SECONDS`` too).
LOAD_SPARE = 3.0
#: The climbs before the kernels are there: at most this long, or this share of the time
#: (then the compile has the cores; the climbs go on at the end if it is not done): at
#: random n = 14, load 4, climbing all the time slowed sa's compile in the child past a
#: 10 s limit (the climb's 35 answered; in the command's process it compiled in 9 s and
#: answered 29); the climbs had their 35 within 0.1 s.
CLIMB_SECONDS = 2.0
CLIMB_SHARE = 0.3


def first_run(name: str, instance: Instance, deadline: Deadline, seed: int | None,
              on_progress: ProgressCallback | None,
              search: Callable[[Deadline], Result]) -> Result | None:
    """The method ``name`` on ``instance`` (the maximisation) with its kernels compiled
    beside (see the module), ``search(deadline)`` its own run once they are, or None where
    it runs as before (a warm cache, no limit, a board the climb does not take)."""
    from nqmip.auto.cold import ColdKernels
    from nqmip.heuristics.swapclimb import MAX_N
    from nqmip.methods import METHODS
    from nqmip.watchdog import loading

    if not deadline.limited or METHODS[name].warm_up is None or not 4 <= instance.n <= MAX_N:
        return None
    with loading():  # numba's import (kind_of): the watchdog answers at the limit
        if compiled(name, instance):
            return None
        kernels = ColdKernels([name], instance, on_progress)
        if not kernels.missing:
            return None
        kernels.start()
    return _climb_then_search(name, instance, deadline, 0 if seed is None else seed,
                              on_progress, search, kernels)


def compiled(name: str, instance: Instance) -> bool:
    """Whether ``name``'s kernels for ``instance``'s kind of weights are in numba's cache:
    a warm-up of them ran to its end here (:func:`nqmip.warmup.is_ready`), in a child or in
    a run of the method (:func:`nqmip.heuristics.kinds.mark_loaded`)."""
    from nqmip.heuristics.kinds import kind_of
    from nqmip.methods import METHODS
    from nqmip.warmup import is_ready

    target = METHODS[name].warm_up
    return target is None or is_ready(target, kind_of(instance))


def _climb_then_search(name: str, instance: Instance, deadline: Deadline, seed: int,
                       on_progress: ProgressCallback | None,
                       search: Callable[[Deadline], Result],
                       kernels: Any) -> Result:
    """The construction, climbed until ``name``'s kernels are compiled, then ``name``
    itself for the time left (when its kernels load in time): the better answer, labelled
    ``name``."""
    from nqmip.auto.cold import PLAIN_COMPLETION, climb_while_compiling, quick_completion
    from nqmip.auto.plans import FIRST_COMPLETION_SECONDS, FIRST_COMPLETION_SHARE
    from nqmip.auto.portfolio import Portfolio
    from nqmip.heuristics.common import explicit_result
    from nqmip.heuristics.exhaustive import small_bound

    begin = time.perf_counter()
    # the climbs' own deadline: their proof (below) ends them, not the method's run
    run = Portfolio(instance, deadline.sub(), seed, on_progress)
    run.kernels = kernels
    stood_in = False
    try:
        if instance.fixed:  # the first completion, in plain Python; the climbs keep them
            first = deadline.sub(FIRST_COMPLETION_SECONDS, share=FIRST_COMPLETION_SHARE)
            run.guard(PLAIN_COMPLETION, lambda: run.offer(
                quick_completion(instance, first, seed), PLAIN_COMPLETION))
        else:
            run.guard("explicit", lambda: run.offer(explicit_result(instance, seed),
                                                    "explicit"))
        # a listed board's optimum (nqmip.heuristics.exhaustive): a climb that reaches it
        # stops climbing (and stands in, proven, if the method's kernels do not come)
        run.tighten(small_bound(instance, deadline), "exhaustive")
        before_load = deadline.sub(max(deadline.remaining() - LOAD_SPARE, 0.0))
        climb_while_compiling(run, kernels.until_ready(name, before_load.sub(
            CLIMB_SECONDS, share=CLIMB_SHARE)))
        if kernels.background is not None:  # the cores to the compile
            kernels.background.wait_for(*kernels.groups[name], before_load)
        if _loaded(kernels, name, deadline):  # the method's own answer, as on a warm cache
            own = Portfolio(instance, deadline, seed, on_progress)
            own.plan, own.compile_time = list(run.plan), run.compile_time
            if run.bound_from == "exhaustive":
                own.tighten(run.bound, "exhaustive")
            started = time.perf_counter() - begin
            searched = search(deadline)  # verified by it; its failure is raised
            found = searched.timing.to_best  # on the call's clock, not the search's
            searched = searched.with_(timing=searched.timing.with_(to_best=started + (
                searched.timing.wall if found is None else found)))
            own.offer(searched, name)
            run = own
        else:  # not compiled in time: the climbs stand in, to the limit
            stood_in = True
            run.plan.append(f"{name} (not compiled yet)")
            climb_while_compiling(run, deadline)
    finally:
        kernels.stop()
    result = run.finish(begin).with_(method=name)
    if stood_in and result.status not in (Status.OPTIMAL, Status.INFEASIBLE):
        # what to do about it, in the answer
        result = result.with_(message=(
            f"{name}'s kernels were still compiling (numba, once per machine) and the numpy "
            f"climbs stood in; a longer limit, or --warm-up once, compiles them"))
    return result


def _loaded(kernels: Any, name: str, deadline: Deadline) -> bool:
    """``name``'s kernels loaded here from the child's cache, with ``LOAD_SPARE`` seconds
    left; a load that still runs at the limit is the watchdog's ``loading()``: the call
    answers then with the climbs' best, not after its overrun."""
    from nqmip.watchdog import loading

    with loading():
        return bool(kernels.get(name, deadline, wait=False, spare=LOAD_SPARE))
