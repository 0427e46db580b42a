"""A plan's kernels on a first run (numba's cache empty): compiled by a child process while
the run searches with what needs no compile, and loaded here as each group is ready.

The plans other than the colour proof's loaded every kernel of their plan in this process
before any part started (:func:`nqmip.auto.kernels.warm_up`). On an empty cache that was
the annealing's, min-conflicts' and the branch and bound's compile, one after another
(random n = 36: 6.4 + 5.3 + about 7 s on an idle machine): ``python -m nqmip --n 36
--random-weights 3 --time-limit 15`` had not started a part at its limit, and the command
answered the explicit construction climbed by numpy swaps (gap 25.6 %) past its deadline.

Now (:class:`ColdKernels`), when a group of the plan is not marked ready in the cache, a
child process (:class:`nqmip.warmup.Background`) compiles the missing groups into the
shared cache, in the order the plan needs them, while this process holds the explicit
construction, climbs it by numpy swaps and runs what needs no kernel (the MIP solver, the
bounds). A part that runs a numba method asks :meth:`ColdKernels.get` first: it waits for
that group (until the part's deadline) and loads it from the cache, or says it is not
there in time, and the part is skipped (the annealing beside a part is a search to the
deadline: it waits; the MIP's short incumbent search does not, the MIP starts from the
climbed construction). The annealing starts from the incumbent while min-conflicts' kernels
(its usual start) are not ready; they compile last.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from nqmip.auto.kernels import (
    COLOUR_TARGET,
    COMPLETION_TARGET,
    KERNEL_METHODS,
    LOAD_SECONDS,
    WARM_UP_LIKE,
    kind_of,
    load_completion,
    load_method,
    needs_completion,
)
from nqmip.auto.policy import FIRST_CLIMB_SECONDS, FIRST_CLIMB_SHARE
from nqmip.budget import Deadline
from nqmip.instance import Instance
from nqmip.progress import ProgressCallback

if TYPE_CHECKING:
    from nqmip.auto.kernels import Beside
    from nqmip.auto.policy import Plan
    from nqmip.result import Result
    from nqmip.warmup import Background

#: The label of the plain-Python completion search (:func:`quick_completion`): a first
#: run with fixed queens offers it once (it is deterministic: what found nothing once
#: would find nothing again).
PLAIN_COMPLETION = "completion (python)"


class Portfolio(Protocol):
    """What the climbs here use of an auto call's state (:class:`nqmip.auto.portfolio.
    Portfolio`, which holds a :class:`ColdKernels`: named by its shape, not imported)."""

    instance: Instance
    seed: int
    best: Result | None
    kernels: ColdKernels | None

    def offer(self, result: Result, step: str) -> Result: ...

    def guard(self, step: str, work: Callable[[], Any]) -> Any: ...

    def heuristic(self, deadline: Deadline, method: str = ..., *,
                  from_best: bool = False, wait: bool = True) -> Result | None: ...

    def proven(self) -> bool: ...


#: The groups a child compiles last: what a first run can do without (the annealing
#: starts from the incumbent instead of min-conflicts' placement).
LAST = ("minconflicts",)


def plan_methods(plan: Plan, *, skip: tuple[str, ...] = ()) -> list[str]:
    """The methods whose kernels ``plan`` runs (``Plan.kernels``, ``anneal-start``
    expanded; not the colour proof's, nor ``skip``), in the order a child compiles them:
    the annealing (the plans' search beside every other part) first, ``LAST`` last."""
    names: list[str] = []
    for kernel in plan.kernels:
        if kernel in skip or kernel == "colour":
            continue
        for name in KERNEL_METHODS.get(kernel, (kernel,)):
            if name not in names:
                names.append(name)
    names.sort(key=lambda name: name in LAST)
    return names


def first_run(like: Instance) -> bool:
    """Whether some kernel of the plan that proves a weighted ``like`` (the colour proof's,
    else the MIP plan's) is not in numba's cache yet: its run would be a first run (a child
    compiling while it climbs with numpy)."""
    from nqmip.auto.policy import PLAN_BY_NAME
    from nqmip.bounds import colour_bound_applies
    from nqmip.formulation.line_model import COLOUR_PROOF_MAX_N
    from nqmip.warmup import is_ready

    if like.is_feasibility:
        return False
    if colour_bound_applies(like) and like.n <= COLOUR_PROOF_MAX_N:
        if not (is_ready(COLOUR_TARGET, "colour")
                or is_ready("nqmip.colour.proof:warm_up", "any")):
            return True
        plan = PLAN_BY_NAME["colour-proof"]
    else:
        plan = PLAN_BY_NAME["mip"]
    return bool(ColdKernels(plan_methods(plan), like).missing)


class ColdKernels:
    """The kernel groups of one run's plan, those missing from numba's cache compiled by a
    child process (started at once), each loaded in this process when a part asks for it
    (:meth:`get`). Made by :meth:`of`, which answers None when every group is ready (a
    warm cache: the plan loads them before its parts, as it always did)."""

    def __init__(self, methods: list[str], like: Instance | None,
                 on_progress: ProgressCallback | None = None) -> None:
        from nqmip.methods import METHODS
        from nqmip.warmup import is_ready

        self.like, self.on_progress = like, on_progress
        targets = {name: COMPLETION_TARGET if name == "completion" else METHODS[name].warm_up
                   for name in methods}
        self.groups = {name: (target, kind_of(like if name in WARM_UP_LIKE else None))
                       for name, target in targets.items() if target is not None}
        self.missing = [group for group in self.groups.values() if not is_ready(*group)]
        self.loaded: set[str] = set()
        self.seconds = 0.0  # this process's load (or fallback compile) time
        self.slowest = 0.0  # its slowest load: twice it is what a later load needs left
        self.lock = threading.Lock()
        self.background: Background | None = None

    @classmethod
    def of(cls, plan: Plan, like: Instance, on_progress: ProgressCallback | None = None, *,
           skip: tuple[str, ...] = ()) -> ColdKernels | None:
        """The plan's kernels if some are not in the cache (their child started), else
        None."""
        methods = plan_methods(plan, skip=skip)
        if needs_completion(like):  # the first incumbent's search, first
            methods.insert(0, "completion")
        if not methods:
            return None
        cold = cls(methods, like, on_progress)
        if not cold.missing:
            return None
        return cold.start()

    @property
    def compiling(self) -> bool:
        """Whether a child compiles (or compiled) this run's missing groups."""
        return bool(self.missing)

    def start(self) -> ColdKernels:
        from nqmip.warmup import Background

        try:
            self.background = Background(self.missing, "nqmip.auto.kernels").start()
        except OSError:  # no child process here: get() compiles in this one
            self.background = None
        return self

    def ready(self, name: str) -> bool:
        """Whether ``name``'s kernels are loaded here or marked ready in the cache (a method
        that is not the plan's: never, it would compile here)."""
        from nqmip.warmup import is_ready

        return name in self.loaded or (name in self.groups and is_ready(*self.groups[name]))

    def get(self, name: str, deadline: Deadline, *, wait: bool = True,
            spare: float = LOAD_SECONDS) -> bool:
        """``name``'s kernels loaded in this process: at once when ready, else (``wait``)
        once the child has compiled them, if that is before ``deadline`` with ``spare``
        seconds left for the load; whether they are. A method the plan does not list, or
        one whose child failed, compiles here."""
        if name in self.loaded:
            return True
        group = self.groups.get(name)
        background = self.background
        if group is not None and background is not None:
            if not self.ready(name):
                if not wait:
                    return False
                if not background.wait_for(*group, deadline) and deadline.expired():
                    return False
            if deadline.remaining() < max(spare, 2 * self.slowest):
                return False  # the load would hold the GIL past the limit
        with self.lock:
            if name not in self.loaded:
                seconds = (load_completion(self.on_progress) if name == "completion"
                           else load_method(name, self.like, self.on_progress))
                self.seconds += seconds
                self.slowest = max(self.slowest, seconds)
                self.loaded.add(name)
        return True

    def until_ready(self, name: str, limit: Deadline) -> Deadline:
        """A deadline under ``limit`` that ends when ``name``'s kernels are ready (a
        thread watches the cache's ready marks)."""
        from nqmip.budget import TIME_LIMIT

        group, background = self.groups.get(name), self.background
        if group is None or background is None or self.ready(name):
            until = limit.sub()
            until.cancel(TIME_LIMIT)
            return until
        return until_ready(background, group, limit)

    def stop(self) -> None:
        """End the child (what it compiled stays in the cache)."""
        if self.background is not None:
            self.background.stop()


def stand_in_climb(run: Portfolio, deadline: Deadline) -> None:
    """The explicit incumbent climbed for ``swapclimb.STAND_IN_SECONDS`` by numpy swaps
    (where :func:`nqmip.heuristics.swapclimb.climbs`), what a stopped call would answer:
    auto at chess n = 44 (black 3, white -1), 3 s, answered the construction's 44, the
    colour proof's kernels loading past the limit on a first run."""
    from nqmip.heuristics.swapclimb import STAND_IN_SECONDS, climb_result, climbs

    best, instance = run.best, run.instance
    if not climbs(instance) or best is None or best.placement is None:
        return
    limit = deadline.sub(STAND_IN_SECONDS)
    run.guard("swap climb", lambda: run.offer(climb_result(
        instance, np.asarray(best.placement), limit, run.seed), "swap climb"))


def first_climb(run: Portfolio, deadline: Deadline) -> None:
    """A first run: the numpy swap search from the incumbent (``FIRST_CLIMB_SECONDS``),
    while the annealing's kernels compile in another process."""
    from nqmip.heuristics.swapclimb import MAX_N, climb_result

    best = run.best
    if run.instance.is_feasibility or run.instance.n > MAX_N or best is None \
            or best.placement is None:
        return
    limit = deadline.sub(FIRST_CLIMB_SECONDS, share=FIRST_CLIMB_SHARE)
    run.guard("swap climb", lambda: run.offer(climb_result(
        run.instance, np.asarray(best.placement), limit, run.seed), "swap climb"))


def until_ready(background: Background, group: tuple[str, str], limit: Deadline) -> Deadline:
    """A deadline under ``limit`` that ends when ``background`` has compiled ``group`` (or
    has ended): a thread watches the cache's ready marks."""
    from nqmip.budget import TIME_LIMIT

    until = limit.sub()

    def watch() -> None:
        background.wait_for(*group, until)
        until.cancel(TIME_LIMIT)

    threading.Thread(target=watch, name="nqmip-kernels", daemon=True).start()
    return until


def anneal_until_compiled(run: Portfolio, name: str, limit: Deadline) -> None:
    """A first run: the annealing from the incumbent (its kernels compile first) until
    ``name``'s kernels are compiled too, or ``limit``; nothing on a warm cache."""
    kernels = run.kernels
    if kernels is not None and not kernels.ready(name) and not run.proven():
        run.heuristic(kernels.until_ready(name, limit), from_best=True)


def quick_completion(instance: Instance, deadline: Deadline, seed: int) -> Result:
    """A first run's first incumbent with fixed queens, while the completion search's
    kernels compile: the plain-Python first-fail search of :func:`nqmip.construct.
    completion` (no kernel), for at most ``deadline``'s time; infeasible when it exhausts
    its tree."""
    import time

    from nqmip.construct import completion
    from nqmip.outcome import make_result
    from nqmip.result import Termination, Timing

    begin = time.perf_counter()
    placement, exhausted = completion(instance.n, instance.fixed, deadline.remaining())
    termination = (Termination.INFEASIBLE if exhausted and placement is None
                   else Termination.SOLUTION_FOUND if placement is not None
                   else Termination.TIME_LIMIT)
    return make_result(instance, PLAIN_COMPLETION, placement, termination,
                       proven=(exhausted and placement is None)
                       or (placement is not None and instance.is_feasibility), seed=seed,
                       timing=Timing(wall=time.perf_counter() - begin))


#: The share of a first run's budget the numpy climbs may take at most (the rest: the
#: plan's bound and its searches, if their kernels come).
CLIMB_SHARE = 0.8
#: Random swaps that start each climb after the first, per queen (at least 2): the
#: climbs while a first run's kernels compile are an iterated local search.
KICK_SHARE = 0.1


def climb_while_compiling(run: Portfolio, limit: Deadline) -> None:
    """A first run of a plan whose searches all wait for a kernel: the numpy swap search
    from the incumbent, then again from the best after a few random swaps, until ``limit``
    (the first kernel compiled by the child). Random n = 100: 838 after the first climb
    of 1 s, 849 after 5 s of them."""
    from nqmip.heuristics.common import heuristic_result
    from nqmip.heuristics.swapclimb import MAX_N, swap_climb
    from nqmip.result import Termination

    instance, n = run.instance, run.instance.n
    if instance.is_feasibility or not 4 <= n <= MAX_N:
        return
    rng = np.random.default_rng(run.seed)
    rows, kicks = np.arange(n), 0
    free = np.setdiff1d(rows, [row for row, _ in instance.fixed])  # the rows it swaps
    if free.size < 2:
        return
    while not limit.expired() and not run.proven():
        best = run.best
        if best is None or best.placement is None:
            return
        start = np.asarray(best.placement, dtype=np.int64).copy()
        for _ in range(max(2, int(KICK_SHARE * n)) if kicks else 0):
            i, k = rng.choice(free, 2, replace=False)
            start[i], start[k] = start[k], start[i]
        placement, weight, _ = swap_climb(instance, start, limit, run.seed + kicks)
        kicks += 1
        valid = (np.unique(rows - placement).size == n and np.unique(rows + placement).size == n)
        if valid and weight > (best.objective or 0.0) + 1e-9 * max(1.0, abs(weight)):
            run.offer(heuristic_result(instance, "swap climb", placement.astype(np.int32),
                                       wall_time=0.0, seed=run.seed,
                                       termination=Termination.SOLUTION_FOUND,
                                       solver="swap climb (numpy)"), "swap climb")


def climb_until_colour(run: Portfolio, beside: Beside, deadline: Deadline) -> None:
    """A first run of the colour-proof plan with the proof's kernels not in the cache: the
    child compiles them from now, and numpy searches climb until they are ready (at most
    ``CLIMB_SHARE`` of the time): black 3, white -1, n = 44, 15 s on a loaded machine
    answered the first climb's 76 (92 warm), the proof's compile ending at the limit."""
    beside.start()
    if beside.background is not None:
        climb_while_compiling(run, until_ready(beside.background, (COLOUR_TARGET, "colour"),
                                               deadline.sub(share=CLIMB_SHARE)))


def climb_completion(run: Portfolio, plan: str, deadline: Deadline) -> None:
    """A first run with fixed queens, from the plain-Python completion: the numpy swap
    search over the free rows, once for the MIP's plan (its start), else again and again
    until the plan's first search has its kernels (random n = 48, two fixed queens, 15 s:
    the completion's 231 was the answer, 411 warm). The colour proof's plan climbs while
    its own kernel compiles (:func:`climb_until_colour`)."""
    kernels = run.kernels
    rest = [name for name in kernels.groups if name != "completion"] if kernels else []
    if kernels is None or not rest:
        return
    if plan == "mip":
        first_climb(run, deadline)
    else:
        climb_while_compiling(run, kernels.until_ready(rest[0],
                                                       deadline.sub(share=CLIMB_SHARE)))
