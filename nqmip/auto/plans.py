"""The plans of ``method="auto"``, one function each: a portfolio that spends the whole
time budget and never comes back empty-handed.

One :class:`~nqmip.budget.Deadline` covers the call. Every branch first holds a cheap
verified placement (the incumbent), then runs the annealing (``sa``) in a thread to the
deadline *beside* whatever can prove or bound the optimum in this one: the numba kernels
release the GIL and the proofs and solvers run on one thread each, so on two cores each
part has a core and auto is never short of either part alone. The annealing is stopped
once the other part proves the optimum. It returns the best placement with the best bound
it knows:

- **Small boards** (``FAST_EXACT_MAX_N`` free rows; ``FIRST_RUN_EXACT_MAX_FREE`` on a first
  run under a limit): HiGHS alone proves the optimum or infeasibility; nothing else loads.
- **Feasibility**: min-conflicts; with fixed queens it may fail, then an exact backend
  settles the completion (inside the exact range).
- **Weights constant per colour** (chess), n <= ``COLOUR_PROOF_MAX_N``: the colour proof
  (search at the colour bound, refutation by the line sets) beside the annealing; inside
  the exact range of the strengthened MIP, the MIP after the proof, warm-started; beyond
  it, with a limit of ``proof.SECOND_STREAM_MIN_SECONDS`` or more, the other core
  searches at the bound from another seed before the annealing, and the proof's core does
  too once the proof has moved below the bound.
- **Other weights**, n <= ``MIP_PORTFOLIO_MAX_N``: a short annealing for an incumbent,
  then the MIP (Gurobi where installed and licensed for n, else HiGHS) warm-started from
  it; on the other core, up to ``BNB_PORTFOLIO_MAX_N`` free rows, nqmip's own branch and
  bound (:mod:`nqmip.bnb`) from the start, and the first to prove stops the other; beyond,
  the annealing from the MIP's start.
- **Larger boards**: for dense weights from ``TOPSQUARES_MIN_N``, the search on the
  heaviest squares (``topsquares``, which proves the optimum where every row's top weight
  fits) beside the annealing; for colour weights from ``COLOUR_QUOTA_MIN_N`` (beyond the
  proof's range), the colour quota search on both cores (a random start, and the explicit
  solution); elsewhere the annealing beside the best cheap bound (the colour bound, the LP
  relaxation up to ``nqmip.bounds.LP_BOUND_MAX_N``, else the row- or column-maximum sums),
  then the window search (``lns``, dense weights) or an annealing from another seed.

Without a time limit each part runs to its own end (a proof, or the heuristic's default
budget). The measured anytime curves are in docs/anytime.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from nqmip.auto.call import Call
from nqmip.auto.cold import (
    CLIMB_SHARE,
    PLAIN_COMPLETION,
    ColdKernels,
    anneal_until_compiled,
    climb_completion,
    climb_while_compiling,
    first_climb,
    first_run,
    quick_completion,
    stand_in_climb,
)
from nqmip.auto.colour_plan import colour_proof
from nqmip.auto.kernels import (  # noqa: F401 (warm_up and its tables: their old home)
    KERNEL_METHODS,
    KERNEL_WORDS,
    LAZY,
    WARM_UP_LIKE,
    Beside,
    load_colour,
    warm_up,
)
from nqmip.auto.policy import (
    AUTO_COLOUR_HEURISTIC,
    AUTO_EXACT_MAX_N,
    AUTO_HEURISTIC,
    BNB_PORTFOLIO_MAX_N,
    COMPLETION_SEARCH_MAX_FREE,
    FAST_EXACT_MAX_N,
    FIRST_RUN_EXACT_MAX_FREE,
    INCUMBENT_SECONDS,
    INCUMBENT_SHARE,
    MIP_PORTFOLIO_MAX_N,
    SECOND_HEURISTIC,
    Plan,
    choose_plan,
    pick_backend,
    scip_beside,
)
from nqmip.auto.portfolio import Portfolio, spare_cores
from nqmip.backends.base import SolveOptions
from nqmip.bnb.common import LP_MIN_FREE
from nqmip.bounds import cheap_bound
from nqmip.budget import Deadline
from nqmip.heuristics.common import explicit_result
from nqmip.instance import Instance, free_rows
from nqmip.methods import METHODS
from nqmip.progress import ProgressCallback
from nqmip.result import DEFAULT_SEED, Result


def solve_auto(
    instance: Instance,
    *,
    time_limit: float | Deadline | None,
    seed: int | None,
    threads: int | None = None,
    verbose: bool = False,
    on_progress: ProgressCallback | None = None,
    warm_start: Any = None,
    scheduler: Any = None,
    **params: Any,
) -> Result:
    """Run the plan :func:`~nqmip.auto.policy.choose_plan` picks for ``instance`` within
    ``time_limit`` and return the best verified placement with the best bound known. With
    ``scheduler`` (a Dask scheduler's address or Client) the plan is the same, and its
    branch and bound, where the plan runs one, runs on that cluster's workers."""
    from nqmip.exact import solve_exact

    if params:
        raise TypeError(f"unexpected parameters for 'auto': {', '.join(params)}")
    begin = time.perf_counter()
    # The run's own deadline, made from the caller's: a proof cancels it (every part stops
    # at once), and the caller's deadline is left as it was.
    given = Deadline.of(time_limit)
    deadline = given.sub()
    seed = DEFAULT_SEED if seed is None else seed
    # With fixed queens the models hold only what is free (nqmip.board.FreeBoard): the
    # exact range is judged on the free rows, not on n.
    size = free_rows(instance)
    run = Portfolio(instance, deadline, seed, on_progress)
    plan = choose_plan(instance, warm_start=warm_start is not None,
                       backend=pick_backend(size),
                       budget=given.total(),  # the limit asked for, not what is left
                       first_run=FAST_EXACT_MAX_N < size <= FIRST_RUN_EXACT_MAX_FREE
                       and deadline.limited and first_run(instance))  # no numba before
    if plan.name == "warm-start" and instance.n > MIP_PORTFOLIO_MAX_N:
        raise ValueError(f"auto takes a warm start only up to n = {MIP_PORTFOLIO_MAX_N} "
                         "(beyond it no exact backend runs)")

    def shared_incumbent() -> tuple[float, tuple[int, ...]] | None:
        """The portfolio's best placement, for a backend that takes one while it runs."""
        best = run.best
        if best is None or best.placement is None or best.objective is None:
            return None
        return best.objective, tuple(int(c) for c in best.placement)

    def exact(limit: Deadline, *, start: Any = None, bound_proof: bool = False,
              step: str | None = None, backend: str | None = None,
              threads: int | None = threads) -> Result | None:
        """One exact part, given only the options its method honours (the method table),
        offered to the portfolio; None when it failed (recorded, the run goes on)."""
        backend = backend or pick_backend(size)
        honour = METHODS[backend].honour
        spread = scheduler if backend == "bnb" else None
        options = SolveOptions(deadline=limit, seed=seed if honour("seed") else None,
                               threads=threads if honour("threads") and spread is None
                               else None, verbose=verbose, on_progress=on_progress,
                               incumbent=shared_incumbent, scheduler=spread)
        result = run.guard(step or backend, lambda: solve_exact(
            instance, backend, options, warm_start=start if honour("warm_start") else None,
            bound_proof=bound_proof and honour("bound_proof")))
        if result is None:
            return None
        label = step or backend
        if result.provenance.plan == ("colour proof",):  # proven without running the MIP
            label = "colour proof"
        return run.offer(result, label)

    if plan.name == "small":  # HiGHS (Gurobi's start costs more); a first run's wider range:
        exact(deadline, backend="highs" if size <= FAST_EXACT_MAX_N else None)  # pick_backend
        return run.finish(begin)
    if plan.name == "warm-start":  # the caller's start (placement, Result, heuristic) to the MIP
        exact(deadline, start=warm_start)
        return run.finish(begin)
    if _completion_first(run, size) and run.proven():  # feasibility, or no completion
        return run.finish(begin)
    # This plan's kernels load first (numba's compile or cache load, inside the one clock:
    # reported as compile_time), so that the parts beside each other do not both compile;
    # a plan of ``LAZY`` starts its first part at once instead, which loads its own, and
    # the part beside it waits for a child process to compile its kernels (kernels.Beside).
    # On a first run under a limit every kernel compiles in a child process (cold.py):
    # without one, a compile here keeps no deadline waiting and is the quickest.
    lazy, limited = LAZY.get(plan.name, {}), deadline.limited
    beside = (Beside(instance, on_progress, colour=limited and lazy.get("colour") == "first")
              if "beside" in lazy.values() else None)
    run.kernels = ColdKernels.of(plan, instance, on_progress, skip=tuple(lazy)) \
        if limited else None
    loading = time.perf_counter()
    warm_up(plan, on_progress, like=instance,
            skip=tuple(lazy) if run.kernels is None else (*plan.kernels, "completion"))
    run.compile_time = time.perf_counter() - loading
    try:
        return _run_plan(plan, Call(run, deadline, exact, threads, size, beside), begin)
    finally:
        for child in (beside, run.kernels):
            if child is not None:
                child.stop()


def _completion_first(run: Portfolio, size: int) -> bool:
    """Never empty-handed with fixed queens either: under a limit, the plain-Python
    first-fail search's first completion (or its proof that there is none) is offered
    before any kernel loads or child process starts (the plan's kernels took 0.56 s from
    numba's cache at n = 44, and a 1 s command answered no placement; the search took
    milliseconds). Whether it ran."""
    instance, deadline = run.instance, run.deadline
    if not (instance.fixed and deadline.limited and size <= COMPLETION_SEARCH_MAX_FREE):
        return False
    run.offer(quick_completion(instance, deadline.sub(
        FIRST_COMPLETION_SECONDS, share=QUICK_COMPLETION_SHARE), run.seed),
        PLAIN_COMPLETION)
    return True


def _run_plan(plan: Plan, call: Call, begin: float) -> Result:
    """The incumbent first, then the plan's parts (:data:`RUNNERS`)."""
    run, instance, deadline, seed = call.run, call.run.instance, call.deadline, call.run.seed
    if not instance.fixed:
        # Never empty-handed, at any n: the explicit O(n) solution is the first incumbent,
        # climbed at once (a part's kernels may load past a short limit)
        run.offer(explicit_result(instance, seed), "explicit")
        stand_in_climb(run, deadline)
        if run.kernels is not None and plan.name == "mip":  # a first run: the MIP soon
            first_climb(run, deadline)
        elif run.kernels is not None:  # a first run: numpy searches while they compile
            leading = next(iter(run.kernels.groups))
            climb_while_compiling(run, run.kernels.until_ready(  # time left for the bound
                leading, deadline.sub(share=CLIMB_SHARE)))
    elif plan.name != "completion" and call.size <= COMPLETION_SEARCH_MAX_FREE:
        # With fixed queens, the first completion (or the proof that there is none)
        # (under a limit the plain-Python search's may be there: solve_auto)
        first = deadline.sub(FIRST_COMPLETION_SECONDS, share=FIRST_COMPLETION_SHARE)
        if run.kernels is None or run.kernels.get("completion", deadline, wait=False):
            if run.best is None:
                run.offer(first_completion(instance, first, seed), "completion search")
        else:  # a first run: the search in plain Python while the kernels compile
            if run.best is None and PLAIN_COMPLETION not in run.plan:  # solve_auto's
                run.offer(quick_completion(instance, first, seed), PLAIN_COMPLETION)
            climb_completion(run, plan.name, deadline)
    elif plan.name != "completion":  # beyond the completion search's free rows
        # min-conflicts repairs a completion of the fixed queens (n = 10^6, one fixed queen:
        # 0.9 s), where the quota search's random start found none in 8 s: no placement
        run.heuristic(deadline.sub(share=REPAIR_SHARE), "minconflicts", wait=False)
    if run.proven():  # feasibility: n queens is the optimum; or no completion exists
        return run.finish(begin)
    RUNNERS[plan.name](call)
    for kernels in (call.beside, run.kernels):
        if kernels is not None:
            run.compile_time += kernels.seconds
    return run.finish(begin)


#: With fixed queens (and weights), the first incumbent is the completion search's first
#: completion, in at most this many seconds or this share of the budget: the explicit
#: solution's part where it cannot be used (a completion of 2 fixed queens at 44 free rows
#: takes under 0.01 s; the annealing alone found none in 0.3 s on a loaded machine).
FIRST_COMPLETION_SECONDS = 1.0
#: Beyond the completion search, min-conflicts' share of the budget for the first
#: completion (it ends at its first placement).
REPAIR_SHARE = 0.5
FIRST_COMPLETION_SHARE = 0.1
#: The plain-Python search's share before any kernel loads (the only incumbent there is:
#: 0.03 s at n = 44 with 8 fixed queens, where a 1 s command has some 0.6 s).
QUICK_COMPLETION_SHARE = 0.3


def first_completion(instance: Instance, deadline: Deadline, seed: int) -> Result:
    """The complete first-fail search's first completion of the fixed queens, as a
    feasible placement of the weighted instance (not proven: the search ignores the
    weights), or the proof that none exists (infeasible: its tree is exhausted)."""
    from nqmip.enumeration.completion import search_free_board
    from nqmip.outcome import make_result
    from nqmip.result import Counters, Termination, Timing

    found = search_free_board(instance, deadline)
    # exhausted with a placement: the fixed queens fill the board (the only placement)
    termination = (Termination.OPTIMAL if found.exhausted and found.placement is not None
                   else Termination.INFEASIBLE if found.exhausted
                   else Termination.SOLUTION_FOUND if found.placement is not None
                   else found.stopped_by or Termination.TIME_LIMIT)
    return make_result(instance, "completion search", found.placement, termination,
                       proven=found.exhausted, seed=seed, timing=Timing(wall=found.seconds),
                       counters=Counters(nodes=found.nodes),
                       message="no completion: the search tree is exhausted"
                       if found.exhausted else "")


def _completion(call: Call) -> None:
    """A completion: the complete first-fail search proves either way (CSPLib prob079,
    n = 21, 14 M nodes in 4 s; docs/completion.md)."""
    from nqmip.enumeration.completion import search_result

    call.run.offer(search_result(call.run.instance, call.deadline, call.run.seed),
                   "completion search")


def _feasibility(call: Call) -> None:
    run, deadline = call.run, call.deadline
    run.heuristic(deadline if not run.instance.fixed else deadline.sub(share=0.5),
                  "minconflicts")
    if run.best is None and call.size <= AUTO_EXACT_MAX_N and not deadline.expired():
        call.exact(deadline)


def _mip(call: Call) -> None:
    """A short annealing for an incumbent, then the MIP warm-started from it, until it
    proves or time is up; on the other core the branch and bound from the first moment
    (up to ``BNB_PORTFOLIO_MAX_N`` free rows: the first proof stops the other part), else
    the annealing from the MIP's start. Beyond the exact range only Gurobi's incumbents beat
    the heuristics in the grid (random n = 40, 20 s: Gurobi alone 355, GA 345, HiGHS 344;
    docs/anytime.md)."""
    run, deadline = call.run, call.deadline
    engine = call.size <= BNB_PORTFOLIO_MAX_N
    backend = None  # pick_backend's
    if engine and call.size >= LP_MIN_FREE and pick_backend(call.size) != "gurobi":
        if not scip_beside(call.size):
            _lp_search(call)
            return
        backend = "scip"  # the MIP, beside the LP search on one worker

    def solve_mip(limit: Deadline) -> None:
        if not limit.expired() and not run.proven():
            call.exact(limit, start=run.best.placement if run.best is not None else None,
                       backend=backend,
                       threads=call.threads if call.threads is not None else spare_cores())
        if run.bound is None:
            run.tighten(*cheap_bound(run.instance, deadline.sub(2.0)))

    if not engine:  # (on a first run not waiting for the kernels: the MIP's start is ready)
        run.heuristic(deadline.sub(INCUMBENT_SECONDS, share=INCUMBENT_SHARE), wait=False)
        run.beside(deadline, lambda: solve_mip(deadline), from_best=True)
        return
    mip_deadline = deadline.sub()  # the branch and bound's proof cancels it

    def mip() -> None:
        run.heuristic(mip_deadline.sub(INCUMBENT_SECONDS, share=INCUMBENT_SHARE), wait=False)
        solve_mip(mip_deadline)

    def branch_and_bound(limit: Deadline) -> None:
        anneal_until_compiled(run, "bnb", limit)
        if not run.kernels_ready("bnb", limit):
            return
        call.exact(limit, backend="bnb", threads=None,
                   start=run.best.placement if run.best is not None else None)
        if run.proven():  # the MIP (and its annealing) stop, and so does this thread
            mip_deadline.cancel()
            limit.cancel()

    run.beside(deadline, mip, lead=branch_and_bound)


def _lp_search(call: Call) -> None:
    """From ``LP_MIN_FREE`` free rows without Gurobi (and below ``SCIP_MIN_FREE`` or without
    SCIP): nqmip's LP search (the LP at every node, in rounds of a falling target, a dive for
    placements at every node) on every core, its workers sharing one tree, beside a short
    annealing for the first incumbent (as the MIP plan's). The second core went to the
    heuristics in 10 s slices first: toulbar2 N = 44, 300 s, they reached 157 where the LP
    search's dives reach the optimum's neighbourhood within seconds (N = 40 seed 1: 139 at
    16.5 s). HiGHS's MIP is left out: N = 40, HiGHS alone proved in 176 s where the LP
    search alone takes 100 s (docs/bnb.md)."""
    run, deadline = call.run, call.deadline
    anneal = deadline.sub(INCUMBENT_SECONDS, share=INCUMBENT_SHARE)

    def branch_and_bound(limit: Deadline) -> None:
        # the annealing's core and the MIP's threads, as the MIP plan uses them
        workers = (call.threads if call.threads is not None else spare_cores()) + 1
        anneal_until_compiled(run, "bnb", limit)
        if not run.kernels_ready("bnb", limit):
            return
        call.exact(limit, backend="bnb", threads=workers,
                   start=run.best.placement if run.best is not None else None)
        if run.proven():  # the annealing stops, and so does this thread
            anneal.cancel()
            limit.cancel()

    run.beside(deadline, lambda: run.heuristic(anneal), lead=branch_and_bound)


def _colour_quota(call: Call) -> None:
    """Beyond the proof's range: the quota search from a random start at its count beside
    it, and here from the explicit solution (another seed): at n = 10^6 the random start
    takes most of a minute to repair, the explicit one none."""
    run, deadline = call.run, call.deadline

    def second_quota() -> None:
        run.tighten(*cheap_bound(run.instance))
        if not run.kernels_ready(AUTO_COLOUR_HEURISTIC, deadline):
            return
        run.offer(run.search(deadline, AUTO_COLOUR_HEURISTIC, run.start_from_best(),
                             seed=run.seed + 1), f"{AUTO_COLOUR_HEURISTIC} (second)")

    run.beside(deadline, second_quota, method=AUTO_COLOUR_HEURISTIC)


def _topsquares(call: Call) -> None:
    """Dense weights: the search on the heaviest squares, which reaches the bound outright
    where the top weight is everywhere (random 1..9 from n ~ 1000: 9n), with the annealing
    beside it; if it ends without a proof, the annealing goes on from the better of the
    two placements."""
    run, deadline = call.run, call.deadline

    def specialist() -> None:
        run.tighten(*cheap_bound(run.instance))
        run.heuristic(deadline, "topsquares")

    run.beside(deadline, specialist, restart=True)


def _anneal(call: Call) -> None:
    """The annealing to the deadline, and beside it the best bound affordable (the LP
    relaxation takes 4 s at random n = 200: it no longer delays the search), then a second
    search on the same core to the deadline: the window search (lns) for dense weights,
    the annealing from another seed for colour weights."""
    run, deadline = call.run, call.deadline

    def second() -> None:
        run.tighten(*cheap_bound(run.instance, deadline))
        method = SECOND_HEURISTIC if run.instance.dense is not None else AUTO_HEURISTIC
        if not deadline.expired() and run.kernels_ready(method, deadline):
            run.offer(run.search(deadline, method, _second_params(method, run.instance.n,
                                                                  deadline),
                                 seed=run.seed + 1), f"{method} (second)")

    run.beside(deadline, second)


def _second_params(method: str, n: int, deadline: Deadline) -> dict[str, Any]:
    """The second search's budget: without a limit, lns's whole long run (200·n + 10^4
    windows), not its default that ends a few million nodes after its last gain (random
    n = 30: 255 after 15,600 windows, 253 after 750)."""
    if method != "lns" or deadline.limited:
        return {}
    from nqmip.heuristics.lns import long_run_steps

    return {"max_steps": long_run_steps(n)}


#: One function per plan of :data:`nqmip.auto.policy.PLANS` that runs after the explicit
#: incumbent ("small" and "warm-start" are one exact solve each, in :func:`solve_auto`).
RUNNERS: dict[str, Callable[[Call], None]] = {
    "completion": _completion, "feasibility": _feasibility, "colour-proof": colour_proof,
    "mip": _mip, "colour-quota": _colour_quota, "topsquares": _topsquares,
    "anneal": _anneal,
}
