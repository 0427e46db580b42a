"""``method="auto"``: a portfolio that spends the whole time budget and never comes back
empty-handed.

One :class:`~nqmip.budget.Deadline` covers the call. Every branch first holds a cheap
verified placement (the incumbent), then runs the annealing (``sa``) in a thread to the
deadline *beside* whatever can prove or bound the optimum in this one: the numba kernels
release the GIL and the proofs and solvers run on one thread each, so on two cores each
part has a core and auto is never short of either part alone. The annealing is stopped
once the other part proves the optimum. It returns the best placement with the best bound
it knows:

- **Small boards** (n <= ``FAST_EXACT_MAX_N``, no fixed queens): HiGHS alone proves the
  optimum in hundredths of a second; nothing else is loaded (no numba, no CP-SAT).
- **Feasibility**: min-conflicts; with fixed queens it may fail, then an exact backend
  settles the completion (inside the exact range).
- **Weights constant per colour** (chess), n <= ``COLOUR_PROOF_MAX_N``: the colour proof
  (search at the colour bound, refutation by the line sets) beside the annealing; inside
  the exact range of the strengthened MIP, the MIP after the proof, warm-started; beyond
  it, with a limit of ``proof.SECOND_STREAM_MIN_SECONDS`` or more, the other core
  searches at the bound from another seed before the annealing, and the proof's core does
  too once the proof has moved below the bound.
- **Other weights**, n <= ``MIP_PORTFOLIO_MAX_N``: a short annealing for an incumbent,
  then the MIP (Gurobi where installed and licensed for n, else HiGHS) warm-started from it
  beside the annealing from the same placement.
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

import os
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from nqmip.backends.base import ProgressCallback, SolveOptions, get_backend
from nqmip.backends.gurobi import SIZE_LIMITED_MAX_N as GUROBI_SIZE_LIMITED_MAX_N
from nqmip.bounds import cheap_bound, colour_bound_applies
from nqmip.budget import Deadline
from nqmip.heuristics.common import explicit_result
from nqmip.instance import Instance, free_rows
from nqmip.result import DEFAULT_SEED, Result, Status, Termination
from nqmip.verify import verified

#: Largest n that "auto" hands straight to HiGHS with no fixed queens: HiGHS proves chess and
#: random 1..9 weights there in under 0.1 s, faster than loading numba for a heuristic.
FAST_EXACT_MAX_N = 12
#: Largest n for which "auto" runs an exact backend to a proof on other weights: HiGHS proved
#: random weights (1..9) up to n = 36 within 60 s (docs/benchmarks-warmstart.md).
AUTO_EXACT_MAX_N = 36
#: Largest n for which the MIP (Gurobi only, beyond ``AUTO_EXACT_MAX_N``) takes part in the
#: portfolio on other weights, warm-started from the heuristic. Measured (random 1..9):
#: n = 64, 5 s: GA alone 559, GA + HiGHS 549; n = 100, 20 s: GA 881, GA + HiGHS 877.
MIP_PORTFOLIO_MAX_N = 60
#: Colour weights: the strengthened MIP after the colour proof up to this n, the proof
#: itself up to ``COLOUR_PROOF_MAX_N`` (docs/frontier.md).
AUTO_COLOUR_EXACT_MAX_N = 64
COLOUR_PROOF_MAX_N = 128
#: The colour proof runs beside the annealing with the whole budget (without a limit:
#: ``COLOUR_PROOF_SECONDS``), or this share of it where the MIP follows it.
COLOUR_PROOF_SECONDS = 60.0
COLOUR_PROOF_EXACT_SHARE = 0.75
#: The MIP's incumbent: the annealing runs alone for this share of the budget, at most
#: ``INCUMBENT_SECONDS`` (without a limit: ``INCUMBENT_SECONDS``), then beside the MIP.
INCUMBENT_SHARE = 0.15
INCUMBENT_SECONDS = 2.0
#: Dense weights from ``TOPSQUARES_MIN_N`` on: the search on the heaviest squares runs beside
#: the annealing. Random 1..9 at n = 1000, 10^4 and 20,000 it reaches 9n (optimal) in 0.4 s,
#: 3.8 s and 20 s; below n = 1000 it stalls short of the annealing (n = 200, 20 s: 1703
#: against 1788).
TOPSQUARES_MIN_N = 1000
#: The exact backends "auto" prefers, among those installed and licensed for n: Gurobi
#: proved what HiGHS could not (chess n = 36, 37; random n = 40) and was faster elsewhere
#: (random n = 36: 12.7 s against 37.9 s; docs/benchmarks-warmstart.md). Else HiGHS.
AUTO_BACKENDS = ("gurobi", "highs")
#: The heuristic of the portfolio (incumbents, and the search beyond the MIP range): the
#: simulated annealing, sized to the time, is the strongest weighted search measured given
#: the same seconds (one seed, `python benchmarks/bench_anytime.py --methods sa ga quota`):
#: random 1..9, 20 s: n = 64 570 (GA 563), n = 100 887 (GA 881), n = 200 1788 (GA 1784);
#: chess, 20 s: n = 100 176 (quota 174), n = 200 352 (quota 348), n = 1000 1726 (quota
#: 1720); docs/anytime.md.
AUTO_HEURISTIC = "sa"
#: Dense weights beyond the MIP's range: the search on the second core, beside the
#: annealing, once the bound is computed: the window search (random 1..9, n = 100, 20 s,
#: seeds 0-2: auto 896/897/892 with it, 889/890/890 with the GA; docs/anytime.md).
SECOND_HEURISTIC = "lns"
#: For weights constant per colour beyond the colour proof's range: the colour quota search
#: on both cores, two seeds, one from a random start and one from the explicit solution (it
#: raises the count on the better colour two queens at a time, each board repaired by an
#: annealing over conflicts). Chess, one seed, 5 s, quota against
#: the annealing: n = 200 350 against 350, n = 400 704 against 610; 20 s: n = 1000 1766
#: against 1726; 60 s: n = 10^4 17,578 (the annealing after the old quota: 17,194).
AUTO_COLOUR_HEURISTIC = "quota"
COLOUR_QUOTA_MIN_N = 129


def pick_backend(n: int) -> str:
    for name in AUTO_BACKENDS:
        backend = get_backend(name)
        if not backend.available():
            continue
        if name == "gurobi" and n > GUROBI_SIZE_LIMITED_MAX_N:
            continue  # pip's licence; a full licence user can ask for method="gurobi"
        return name
    return "highs"


class _Portfolio:
    """The incumbent and bound of one auto call, and the plan that produced them."""

    def __init__(self, instance: Instance, deadline: Deadline, seed: int) -> None:
        self.instance = instance
        self.deadline = deadline
        self.seed = seed
        self.best: Result | None = None
        self.bound: float | None = None
        self.bound_from: str | None = None
        self.plan: list[str] = []
        self.last: Result | None = None
        self.infeasible: Result | None = None
        self.refuted: tuple[int, ...] = ()
        self.incumbent_source: str | None = None
        self.compile_time = 0.0
        # held by a thread offering while another may (a second stream beside a proof)
        self.lock = threading.Lock()

    def offer(self, result: Result, step: str) -> Result:
        """Keep ``result`` if it beats the incumbent; take its bound if it is tighter."""
        self.plan.append(step)
        self.last = result
        self.compile_time += result.compile_time or 0.0
        if result.status == Status.INFEASIBLE:
            self.infeasible = result  # proven: no placement (kept whatever ends after it)
            return result
        if result.placement is not None and (
            self.best is None
            or (result.objective or 0.0) > (self.best.objective or 0.0) + 1e-9
            # a tie goes to the result that proves it (the exact backend's, with its start)
            or (result.status == Status.OPTIMAL
                and (result.objective or 0.0) >= (self.best.objective or 0.0) - 1e-9)
        ):
            self.best = result
            self.incumbent_source = result.provenance.incumbent_source or step
        self.tighten(result.bound, result.provenance.bound_source or step)
        refuted = result.provenance.refuted_black_counts
        if refuted:
            self.refuted = tuple(refuted)
        return result

    def tighten(self, bound: float | None, source: str) -> None:
        if bound is not None and (self.bound is None or bound < self.bound - 1e-9):
            self.bound, self.bound_from = float(bound), source

    def heuristic(self, deadline: Deadline, method: str = AUTO_HEURISTIC, *,
                  from_best: bool = False) -> Result:
        """Run a heuristic until ``deadline``; ``from_best``: the annealing starts from the
        incumbent (a search fed by another's placement; its first best is that placement)."""
        params, step = self._start(from_best, method)
        return self.offer(self.search(deadline, method, params), step)

    def beside(self, deadline: Deadline, work: Callable[[], object], *,
               method: str = AUTO_HEURISTIC, from_best: bool = False,
               restart: bool = False,
               lead: Callable[[Deadline], object] | None = None) -> None:
        """Run the annealing (or ``method``) in a thread until ``deadline`` while ``work``
        (a proof, the MIP, a bound, a specialist search) runs in this one: the heuristics'
        kernels release the GIL, and the proofs, HiGHS, CP-SAT and Gurobi run on one thread
        each, so on two cores neither waits for the other (a single method never has less
        than it would alone).

        The annealing stops as soon as ``work`` has proven the optimum; with ``restart`` it
        stops when ``work`` ends, and starts again from the best placement with what is left
        (the specialist's placement may be the better start). ``lead(deadline)`` runs in the
        thread first (offering under :attr:`lock`), the heuristic after it."""
        from concurrent.futures import ThreadPoolExecutor

        search_deadline = deadline.sub()
        params, step = self._start(from_best, method)

        def thread() -> Result:
            if lead is not None:
                lead(search_deadline)
            return self.search(search_deadline, method, params)

        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="nqmip-auto") as pool:
            future = pool.submit(thread)
            try:
                work()
            finally:
                if restart or self.proven():
                    search_deadline.cancel()
                found = future.result()
        self.offer(found, step)  # both parts have ended: no lock needed
        if restart and not self.proven() and not deadline.expired():
            self.heuristic(deadline, from_best=True)

    def start_from_best(self) -> dict[str, Any]:
        """A heuristic's parameters to start from the incumbent."""
        return self._start(True, AUTO_HEURISTIC)[0]

    def _start(self, from_best: bool, method: str) -> tuple[dict[str, Any], str]:
        """The heuristic's parameters (``start``: the incumbent) and its step's name."""
        if from_best and self.best is not None and self.best.placement is not None:
            return ({"start": np.asarray(self.best.placement, dtype=np.int32)},
                    f"{method} from {self.incumbent_source}")
        return {}, method

    def search(self, deadline: Deadline, method: str, params: dict[str, Any], *,
               seed: int | None = None) -> Result:
        """One heuristic run to ``deadline`` (the run's seed unless one is given),
        verified; not offered (this may run in another thread)."""
        from nqmip.heuristics import run_heuristic

        return verified(self.instance, run_heuristic(
            method, self.instance, seed=self.seed if seed is None else seed,
            time_limit=deadline, **params))

    def proven(self) -> bool:
        return (self.best is not None and self.bound is not None
                and (self.best.objective or 0.0) >= self.bound - 1e-6 * max(1.0, abs(self.bound)))

    def finish(self, begin: float) -> Result:
        best = self.best
        if best is None:
            if self.infeasible is not None:
                return _as_auto(self.infeasible, begin, self)
            last = self.last
            assert last is not None
            return _as_auto(last.with_(bound=self.bound, status=Status.UNKNOWN,
                                       placement=None, objective=None), begin, self)
        proven = self.proven()
        termination = best.termination
        if proven:
            termination = Termination.OPTIMAL
        elif self.deadline.limited and self.deadline.expired():
            termination = Termination.TIME_LIMIT
        provenance = best.provenance.with_(
            bound_source=self.bound_from, refuted_black_counts=self.refuted,
            incumbent_source=self.incumbent_source,
            proof=({"colour_bound": "colour_bound", "solver": "solver"}.get(
                self.bound_from or "", "bound") if proven else None))
        result = verified(self.instance, best.with_(
            bound=self.bound, status=Status.OPTIMAL if proven else Status.FEASIBLE,
            termination=termination, provenance=provenance))
        return _as_auto(result, begin, self)


def solve_auto(
    instance: Instance,
    *,
    time_limit: float | Deadline | None,
    seed: int | None,
    threads: int | None = None,
    verbose: bool = False,
    on_progress: ProgressCallback | None = None,
    warm_start: Any = None,
    **params: Any,
) -> Result:
    from nqmip.exact import solve_exact

    if params:
        raise TypeError(f"unexpected parameters for 'auto': {', '.join(params)}")
    begin = time.perf_counter()
    deadline = Deadline.of(time_limit)
    seed = DEFAULT_SEED if seed is None else seed
    n = instance.n
    # With fixed queens the models hold only what is free (nqmip.instance.FreeBoard): the
    # exact range is judged on the free rows, not on n.
    size = free_rows(instance)
    run = _Portfolio(instance, deadline, seed)

    def exact(limit: Deadline, *, start: Any = None, bound_proof: bool = False,
              step: str | None = None, backend: str | None = None,
              threads: int | None = threads) -> Result:
        backend = backend or pick_backend(size)
        options = SolveOptions(deadline=limit, seed=seed, threads=threads, verbose=verbose,
                               on_progress=on_progress)
        result = solve_exact(instance, backend, options, warm_start=start,
                             bound_proof=bound_proof)
        label = step or backend
        if result.provenance.plan == ("colour proof",):  # proven without running the MIP
            label = "colour proof"
        return run.offer(result, label)

    # Small boards: HiGHS proves at once; loading the heuristics would cost more.
    if n <= FAST_EXACT_MAX_N and not instance.fixed and warm_start is None:
        exact(deadline, backend="highs")  # not Gurobi: starting its environment costs more
        return run.finish(begin)

    if warm_start is not None:
        # The caller's start (a placement, a Result or a heuristic's name) goes to the MIP.
        if n <= MIP_PORTFOLIO_MAX_N:
            exact(deadline, start=warm_start)
            return run.finish(begin)
        raise ValueError(f"auto takes a warm start only up to n = {MIP_PORTFOLIO_MAX_N} "
                         "(beyond it no exact backend runs)")

    if time_limit is not None and not isinstance(time_limit, Deadline):
        # As for every heuristic, import and numba's compile (or cache load) are reported
        # apart (compile_time) and the limit counts from their end: the kernels this plan
        # runs are loaded first.
        _warm_up_kernels(instance, size)
        run.compile_time += time.perf_counter() - begin
        deadline = run.deadline = Deadline(time_limit)

    if not instance.fixed:
        # Never empty-handed, at any n: the explicit O(n) solution is the first incumbent.
        run.offer(explicit_result(instance, seed), "explicit")
        if run.proven():  # feasibility: n queens is the optimum
            return run.finish(begin)

    if instance.is_feasibility and instance.fixed and size <= COMPLETION_SEARCH_MAX_FREE:
        # A completion: the complete first-fail search proves either way (CSPLib prob079,
        # n = 21, 14 M nodes in 4 s; docs/completion.md).
        from nqmip.enumeration.completion import search_result

        run.offer(search_result(instance, deadline, seed), "completion search")
        return run.finish(begin)

    if instance.is_feasibility:
        run.heuristic(deadline if not instance.fixed else deadline.sub(share=0.5),
                      "minconflicts")
        if run.best is None and size <= AUTO_EXACT_MAX_N and not deadline.expired():
            exact(deadline)
        return run.finish(begin)

    colour = colour_bound_applies(instance)
    if colour and n <= COLOUR_PROOF_MAX_N:
        _colour_plan(run, deadline, exact)
        return run.finish(begin)

    if _mip_plan(size):
        # A short annealing for an incumbent, then the MIP warm-started from it here and the
        # annealing from the same placement beside it, until the MIP proves or time is up.
        # Beyond the exact range only Gurobi's incumbents beat the heuristics in the grid
        # (random n = 40, 20 s: Gurobi alone 355, GA 345, HiGHS 344; docs/anytime.md).
        run.heuristic(deadline.sub(INCUMBENT_SECONDS, share=INCUMBENT_SHARE))

        def mip() -> None:
            if not deadline.expired():
                exact(deadline, start=run.best.placement if run.best is not None else None,
                      threads=threads if threads is not None else _spare_cores())
            if run.bound is None:
                run.tighten(*cheap_bound(instance, deadline.sub(2.0)))

        run.beside(deadline, mip, from_best=True)
        return run.finish(begin)

    if colour and n >= COLOUR_QUOTA_MIN_N:
        # Beyond the proof's range: the quota search from a random start at its count beside
        # it, and here from the explicit solution (another seed): at n = 10^6 the random
        # start takes most of a minute to repair, the explicit one none.
        def second_quota() -> None:
            run.tighten(*cheap_bound(instance))
            run.offer(run.search(deadline, AUTO_COLOUR_HEURISTIC, run.start_from_best(),
                                 seed=seed + 1), f"{AUTO_COLOUR_HEURISTIC} (second)")

        run.beside(deadline, second_quota, method=AUTO_COLOUR_HEURISTIC)
        return run.finish(begin)
    if instance.dense is not None and n >= TOPSQUARES_MIN_N:
        # Dense weights: the search on the heaviest squares, which reaches the bound outright
        # where the top weight is everywhere (random 1..9 from n ~ 1000: 9n), with the
        # annealing beside it; if it ends without a proof, the annealing goes on from the
        # better of the two placements.
        def specialist() -> None:
            run.tighten(*cheap_bound(instance))
            run.heuristic(deadline, "topsquares")

        run.beside(deadline, specialist, restart=True)
        return run.finish(begin)
    # The annealing to the deadline, and beside it the best bound affordable (the LP
    # relaxation takes 4 s at random n = 200: it no longer delays the search), then a
    # second search on the same core to the deadline: the window search (lns) for dense
    # weights, the annealing from another seed for colour weights.
    def second() -> None:
        run.tighten(*cheap_bound(instance, deadline))
        if not deadline.expired():
            method = SECOND_HEURISTIC if instance.dense is not None else AUTO_HEURISTIC
            run.offer(run.search(deadline, method, {}, seed=seed + 1), f"{method} (second)")

    run.beside(deadline, second)
    return run.finish(begin)


def _colour_plan(run: _Portfolio, deadline: Deadline, exact: Any) -> None:
    """Weights constant per colour within the colour proof's range: the plan of the module
    docstring (the annealing holds an incumbent within a second whatever the proof does)."""
    instance = run.instance
    n = instance.n
    # The strengthened MIP after the proof, warm-started, where it can still prove in the
    # time; beyond, the proof has the whole budget (HiGHS at chess n = 64: 96 after 20 s).
    mip_after = n <= AUTO_COLOUR_EXACT_MAX_N and (
        n <= AUTO_EXACT_MAX_N or bool(instance.fixed) or not deadline.limited)

    proof_limit = deadline.sub(None if deadline.limited else COLOUR_PROOF_SECONDS,
                               share=COLOUR_PROOF_EXACT_SHARE if mip_after else None)
    from nqmip.colour import proof

    refuted: list[int] = []  # by the proof, in order; each cancels the searches at the bound
    attempts: list[Deadline] = []

    def lowered(count: int) -> None:
        refuted.append(count)
        for attempt in list(attempts):
            attempt.cancel()

    def at_bound(seed: int, limit: Deadline, step: str) -> bool:  # proven?
        found = proof.search_at_bound(instance, seed=seed, time_limit=limit,
                                      refuted=lambda: tuple(refuted), attempts=attempts.append)
        if found is not None:
            with run.lock:
                run.offer(found, step)
        return run.proven()

    def prove() -> None:
        found = proof.proof_result(instance, seed=run.seed, time_limit=proof_limit,
                                   on_refuted=lowered)
        bound = cheap_bound(instance)
        with run.lock:
            if found is not None:
                run.offer(found, "colour proof")
            else:
                run.plan.append("colour proof")
            run.tighten(*bound)
        if mip_after and not run.proven() and not deadline.expired():
            exact(deadline, start=run.best.placement if run.best is not None else None)
        elif n > AUTO_COLOUR_EXACT_MAX_N and not run.proven() and not proof_limit.expired():
            # the proof has moved below the bound: this core searches at it too
            at_bound(run.seed + 2, proof_limit, "bound search (after the proof)")

    def second_stream(limit: Deadline) -> None:
        # Beyond the MIP's range with a budget worth sharing: the search at the bound from
        # another seed on the other core first, the annealing after; a placement at the
        # bound ends the proof and the annealing. Without a limit: the proof's seconds.
        if n <= AUTO_COLOUR_EXACT_MAX_N or limit.remaining() < proof.SECOND_STREAM_MIN_SECONDS:
            return
        stream = limit.sub(None if limit.limited else COLOUR_PROOF_SECONDS,
                           share=proof.SECOND_STREAM_SHARE)
        if at_bound(run.seed + 1, stream, "bound search (second stream)"):
            proof_limit.cancel()
            limit.cancel()

    run.beside(deadline, prove, lead=second_stream)


def _mip_plan(size: int) -> bool:
    """Whether auto runs the MIP on ``size`` free rows of dense weights."""
    return size <= AUTO_EXACT_MAX_N or (size <= MIP_PORTFOLIO_MAX_N
                                        and pick_backend(size) == "gurobi")


def _warm_up_kernels(instance: Instance, size: int) -> None:
    """Compile (or load from numba's cache) the kernels auto's plan may run."""
    from nqmip.heuristics import anneal, lns, minconflicts, quota, topsquares

    if instance.is_feasibility:
        minconflicts._warm_up()
        return
    anneal._warm_up_start()
    if colour_bound_applies(instance) and instance.n >= COLOUR_QUOTA_MIN_N:
        quota._warm_up()
    if instance.dense is not None and instance.n >= TOPSQUARES_MIN_N:
        topsquares._warm_up()
    elif instance.dense is not None and not _mip_plan(size):  # the second search
        lns._warm_up()


#: Most free rows for which auto answers a feasibility completion with the complete search
#: of :func:`nqmip.enumeration.completion.search_free_board` (its masks hold 62 columns).
COMPLETION_SEARCH_MAX_FREE = 62


def _spare_cores() -> int:
    """Threads for a solver that runs beside the annealing: the cores it leaves free."""
    cores = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
             else os.cpu_count() or 1)
    return max(1, cores - 1)


def _as_auto(result: Result, begin: float, run: _Portfolio) -> Result:
    plan = run.plan or ["auto"]
    return result.with_(
        method="auto",
        seed=run.seed,
        wall_time=time.perf_counter() - begin - run.compile_time,
        compile_time=run.compile_time or None,
        provenance=result.provenance.with_(plan=tuple(plan)),
    )

