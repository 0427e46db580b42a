"""The state of one ``auto`` call: the incumbent, the best bound and the plan that made
them (:class:`Portfolio`), shared by the parts that run side by side; it reports every
improvement to the caller's ``on_progress``."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from nqmip.auto.policy import AUTO_HEURISTIC
from nqmip.budget import Deadline
from nqmip.instance import Instance
from nqmip.progress import Progress, ProgressCallback
from nqmip.result import Result, Status, Termination
from nqmip.verify import verified

if TYPE_CHECKING:
    from nqmip.auto.cold import ColdKernels


class Portfolio:
    """The incumbent and bound of one auto call, and the plan that produced them."""

    def __init__(self, instance: Instance, deadline: Deadline, seed: int,
                 on_progress: ProgressCallback | None = None) -> None:
        self.instance = instance
        self.on_progress = on_progress
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
        #: A first run's kernels (some not in numba's cache): compiled by a child process,
        #: loaded as each part asks for them (:meth:`kernels_ready`); None: loaded before.
        self.kernels: ColdKernels | None = None
        #: The parts that failed (an exception: a solver refusing an option, a licence
        #: too small for the model, a crash), with what they raised: recorded, never
        #: raised while another part holds an answer (:meth:`guard`, :meth:`finish`).
        self.failures: list[tuple[str, Exception]] = []
        # taken by every offer and tighten (two parts may offer at once: the engine beside
        # the MIP, a second stream beside a proof); re-entrant, so a part may hold it
        # around several steps
        self.lock = threading.RLock()

    def offer(self, result: Result, step: str) -> Result:
        """Keep ``result`` if it beats the incumbent; take its bound if it is tighter. A
        proof (the optimum, or that there is no placement) ends every part at once."""
        with self.lock:
            offered = self._offer(result, step)
            self.stop_if_proven()
            return offered

    def stop_if_proven(self) -> None:
        """Cancel the run's deadline once it is proven: every part runs under it, so the
        annealing beside a proof, the MIP beside the branch and bound, all stop now."""
        if self.proven() and not self.deadline.cancelled():
            self.deadline.cancel(Termination.INFEASIBLE if self.infeasible is not None
                                 else Termination.OPTIMAL)

    def guard(self, step: str, work: Callable[[], Any]) -> Any:
        """``work()``, or None when it raises: the failure is recorded (the plan's step
        ``"<step> (failed)"``, the result's message) and the other parts' answer kept."""
        try:
            return work()
        except Exception as exc:  # any part's failure: the portfolio goes on without it
            with self.lock:
                self.failures.append((step, exc))
                self.plan.append(f"{step} (failed)")
            return None

    def _offer(self, result: Result, step: str) -> Result:
        self.plan.append(step)
        self.last = result
        self.compile_time += result.timing.compile or 0.0
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
        self._tighten(result.bound, result.provenance.bound_source or step)
        refuted = result.provenance.refuted_black_counts
        if refuted:
            self.refuted = tuple(refuted)
        self.report()
        return result

    def report(self) -> None:
        """Tell the caller the incumbent and the bound (the live line of the command)."""
        if self.on_progress is None:
            return
        best = self.best
        self.on_progress(Progress("auto", self.deadline.elapsed(),
                                  None if best is None else best.objective, self.bound,
                                  placement=None if best is None else best.placement,
                                  steps=tuple(self.plan),
                                  incumbent_source=self.incumbent_source,
                                  bound_source=self.bound_from))

    def tighten(self, bound: float | None, source: str) -> None:
        with self.lock:
            if self._tighten(bound, source):
                self.report()
                self.stop_if_proven()

    def _tighten(self, bound: float | None, source: str) -> bool:
        """Take ``bound`` if it is tighter; whether it was (the caller reports). On whole
        weights it is rounded to the whole number it implies (an LP's 99.71 says 99)."""
        if bound is None:
            return False
        bound = self.instance.rounded_bound(bound)
        if self.bound is None or bound < self.bound - 1e-9:
            self.bound, self.bound_from = float(bound), source
            return True
        return False

    def heuristic(self, deadline: Deadline, method: str = AUTO_HEURISTIC, *,
                  from_best: bool = False, wait: bool = True) -> Result | None:
        """Run a heuristic until ``deadline``; ``from_best``: the annealing starts from the
        incumbent (a search fed by another's placement; its first best is that placement).
        None when its kernels were not compiled in time (a first run; ``wait``: for them,
        until ``deadline``, else not at all)."""
        if not self.kernels_ready(method, deadline, wait=wait):
            return None
        params, step = self._start(from_best, method)
        return self.offer(self.search(deadline, method, params), step)

    def kernels_ready(self, method: str, deadline: Deadline, *, wait: bool = True) -> bool:
        """Whether ``method``'s kernels are loaded in this process: on a first run
        (:attr:`kernels`), once a child has compiled them (waiting until ``deadline`` with
        ``wait``); a method skipped for it is a step of the plan, ``"<method> (not
        compiled yet)"``. Warm: always (the plan loaded them before its parts)."""
        if self.kernels is None or self.kernels.get(method, deadline, wait=wait):
            return True
        with self.lock:
            self.plan.append(f"{method} (not compiled yet)")
        return False

    def beside(self, deadline: Deadline, work: Callable[[], object], *,
               method: str = AUTO_HEURISTIC, from_best: bool = False,
               restart: bool = False,
               lead: Callable[[Deadline], object] | None = None,
               ready: Callable[[Deadline], bool | None] | None = None) -> None:
        """Run the annealing (or ``method``) in a thread until ``deadline`` while ``work``
        (a proof, the MIP, a bound, a specialist search) runs in this one: the heuristics'
        kernels release the GIL, and the proofs, HiGHS, CP-SAT and Gurobi run on one thread
        each, so on two cores neither waits for the other (a single method never has less
        than it would alone).

        The annealing stops as soon as ``work`` has proven the optimum; with ``restart`` it
        stops when ``work`` ends, and starts again from the best placement with what is left
        (the specialist's placement may be the better start). ``lead(deadline)`` runs in the
        thread first, the heuristic after it. ``ready(deadline)``, when given, comes before the
        heuristic: it brings in its kernels (None: not by the deadline, the heuristic does not
        run; True: it starts from the incumbent, its own start's kernels are not ready)."""
        from concurrent.futures import ThreadPoolExecutor

        search_deadline = deadline.sub()
        params, step = self._start(from_best, method)

        def thread() -> tuple[Result | None, str]:
            if lead is not None:
                self.guard(part_name(lead), lambda: lead(search_deadline))
            started = params, step
            if ready is not None and not self.proven():
                short = self.guard(f"{method} kernels", lambda: ready(search_deadline))
                if short is None:
                    return None, step
                if short:
                    started = self._start(True, method)
            elif self.kernels is not None and not self.proven():
                if not self.kernels_ready(method, search_deadline):
                    return None, step
                started = self._start(from_best, method)  # the best of now, after the wait
            if self.proven():
                return None, step
            return self.guard(method, lambda: self.search(
                search_deadline, method, started[0])), started[1]

        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="nqmip-auto") as pool:
            future = pool.submit(thread)
            try:
                self.guard(part_name(work), work)
            finally:
                if restart or self.proven():
                    search_deadline.cancel()
                found, step = future.result()
        if found is not None:
            self.offer(found, step)  # both parts have ended: no lock needed
        if restart and not self.proven() and not deadline.expired():
            self.heuristic(deadline, from_best=True)

    def start_from_best(self) -> dict[str, Any]:
        """A heuristic's parameters to start from the incumbent."""
        return self._start(True, AUTO_HEURISTIC)[0]

    def _start(self, from_best: bool, method: str) -> tuple[dict[str, Any], str]:
        """The heuristic's parameters (``start``: the incumbent) and its step's name. On a
        first run the annealing starts from the incumbent while min-conflicts' kernels (its
        own start) are not compiled."""
        if method == AUTO_HEURISTIC and self.kernels is not None \
                and not self.kernels.ready("minconflicts"):
            from_best = True
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
            time_limit=deadline, on_progress=self.on_progress, **params))

    def proven(self) -> bool:
        """Whether the run is settled: no placement exists, or the incumbent meets the
        bound."""
        if self.infeasible is not None:
            return True
        return (self.best is not None and self.bound is not None
                and (self.best.objective or 0.0) >= self.bound - 1e-6 * max(1.0, abs(self.bound)))

    def _nothing(self, begin: float) -> Result:
        """The run's answer when no part answered: no placement (the call answers its
        stand-in, :func:`nqmip.solve.fallback`)."""
        from nqmip.heuristics.common import heuristic_result

        return heuristic_result(self.instance, "auto", None, seed=self.seed,
                                wall_time=time.perf_counter() - begin,
                                termination=_stopped(self))

    def finish(self, begin: float) -> Result:
        best = self.best
        if best is None:
            if self.infeasible is not None:
                return as_auto(self.infeasible, begin, self)
            last = self.last
            if last is None and self.failures:  # every part failed, none answered: say why
                raise self.failures[0][1]
            if last is None:  # no part had the time to answer (kernel loads ate the limit)
                return as_auto(self._nothing(begin), begin, self)
            return as_auto(last.with_(bound=self.bound, status=Status.UNKNOWN,
                                       placement=None, objective=None,
                                       termination=_stopped(self)), begin, self)
        proven = self.proven()
        termination = best.termination
        # why the run stopped, as whoever stopped it said (Deadline.cancel's reason): a
        # proof here, the caller's target or Ctrl-C, the limit (or the watchdog's)
        stopped_by = self.deadline.stopped_by()
        if proven:
            termination = Termination.OPTIMAL
        elif stopped_by in STOPS:
            termination = Termination(stopped_by)
        provenance = best.provenance.with_(
            bound_source=self.bound_from, refuted_black_counts=self.refuted,
            incumbent_source=self.incumbent_source,
            proof=({"colour_bound": "colour_bound", "solver": "solver",
                    "exhaustive": "exhaustive"}.get(
                self.bound_from or "", "bound") if proven else None))
        result = verified(self.instance, best.with_(
            bound=self.bound, status=Status.OPTIMAL if proven else Status.FEASIBLE,
            termination=termination, provenance=provenance))
        return as_auto(result, begin, self)



#: The reasons a run stops short of a proof (:meth:`nqmip.budget.Deadline.stopped_by`).
STOPS = frozenset({Termination.INTERRUPTED, Termination.TARGET, Termination.TIME_LIMIT})


def part_name(part: Callable[..., object]) -> str:
    """A part's name in the plan's steps (a lambda's: "part")."""
    name = getattr(part, "__name__", "part")
    return "part" if name == "<lambda>" else name.replace("_", " ")


def spare_cores() -> int:
    """Threads for a solver that runs beside the annealing: the cores it leaves free."""
    from nqmip.capacity import cores

    return max(1, cores() - 1)


def _stopped(run: Portfolio) -> Termination:
    """Why the run stopped, as whoever stopped it said; the limit when nobody did."""
    stopped_by = run.deadline.stopped_by()
    return Termination(stopped_by) if stopped_by in STOPS else Termination.TIME_LIMIT


def as_auto(result: Result, begin: float, run: Portfolio) -> Result:
    plan = run.plan or ["auto"]
    message = result.message
    if run.failures:  # the parts that failed, said beside the answer the others gave
        failed = "; ".join(f"{step} failed ({type(exc).__name__}: "
                           f"{(str(exc).strip().splitlines() or [''])[0]})"
                           for step, exc in run.failures)
        message = f"{message}; {failed}" if message else failed
    return result.with_(
        method="auto",
        message=message,
        seed=run.seed,
        timing=result.timing.with_(wall=time.perf_counter() - begin,
                                   compile=run.compile_time or None),
        provenance=result.provenance.with_(plan=tuple(plan)),
    )

