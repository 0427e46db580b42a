"""The kernels of auto's plans: loaded before the clock's parts (:func:`warm_up`), or, for the
part that runs beside the first one, brought in while the first one already searches
(:class:`Beside`).

A first run on a machine (numba's cache empty) used to spend its whole short limit
compiling: ``python -m nqmip --n 100 --time-limit 5`` answered the explicit construction
(150 against the bound 200) because the colour proof's, the annealing's and
min-conflicts' kernels all compiled before any part started. Now the plan's first part
(the colour proof) starts at once and compiles only its own kernels, the explicit
construction is the incumbent from the first moment, and the annealing's kernels are
compiled by another process (:class:`nqmip.warmup.Background`: numba's compile holds the
GIL, a thread would slow the proof) into the shared cache; the annealing loads them from
there when they are ready, and starts from the incumbent while min-conflicts' kernels (its
usual start) are not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nqmip.auto.policy import COMPLETION_SEARCH_MAX_FREE, Plan
from nqmip.budget import Deadline
from nqmip.heuristics.kinds import KINDS, kind_of, stand_in  # noqa: F401 (their old home)
from nqmip.instance import Instance, free_rows
from nqmip.progress import ProgressCallback

if TYPE_CHECKING:
    from nqmip.warmup import Background


#: The completion search's warm-up, as a target of :mod:`nqmip.warmup` (its ready mark;
#: the solve command's ``--warm-up`` runs it: :data:`nqmip.methods.OTHER_KERNELS`).
COMPLETION_TARGET = "nqmip.enumeration.completion:warm_up"


def needs_completion(like: Instance | None) -> bool:
    """Whether a plan's first incumbent on ``like`` is the completion search's (fixed
    queens and weights, at most ``COMPLETION_SEARCH_MAX_FREE`` free rows)."""
    return (like is not None and bool(like.fixed) and not like.is_feasibility
            and free_rows(like) <= COMPLETION_SEARCH_MAX_FREE)


def load_completion(on_progress: ProgressCallback | None = None) -> float:
    """The completion search's kernels, in this process; marked ready; the seconds."""
    from nqmip.enumeration.completion import warm_up
    from nqmip.progress import load_kernels
    from nqmip.warmup import mark_ready

    seconds = load_kernels(warm_up, "completion search", "auto", on_progress)
    mark_ready(COMPLETION_TARGET, "any")
    return seconds


#: Seconds a part must have left to load kernels a child has just compiled: a load from
#: the cache holds the GIL (0.5 to 0.9 s a group on an idle machine, several seconds on a
#: loaded one), and a first random n = 100 with 15 s whose annealing's compile ended near
#: the limit answered past it, by the watchdog (random n = 36 too with 2 s left). With less
#: left (or less than twice this run's slowest load) the part does not run.
LOAD_SECONDS = 3.0


#: The kernels a plan lists that are not one method's: the annealing from a min-conflicts
#: start loads both; the colour proof's are its own.
KERNEL_METHODS = {"anneal-start": ("sa", "minconflicts")}
#: How the live line names each method's kernels.
KERNEL_WORDS = {"sa": "annealing", "minconflicts": "min-conflicts", "bnb": "branch and bound"}


#: Methods whose warm-up compiles only what a run on the given instance reads
#: (``warm_up(like)``): the swap searches' kernels read a strided view for colour weights and
#: a matrix otherwise, two compiles of which a run needs one; min-conflicts counts lines in
#: bytes only from 2^20 queens; the LNS keeps a kernel per layout of the weights.
WARM_UP_LIKE = ("sa", "tabu", "minconflicts", "lns")


def warm_up(plan: Plan, on_progress: ProgressCallback | None = None,
            like: Instance | None = None, *, skip: tuple[str, ...] = ()) -> None:
    """Compile (or load from numba's cache) the kernels ``plan`` runs: the warm-ups the
    method table lists for them (the colour proof's apart), each group said to
    ``on_progress`` first (a first run's compile shows on the live line as what it is).
    ``like``: the instance the plan runs on, whose kind of weights is all the swap
    searches compile for (``WARM_UP_LIKE``). ``skip``: the plan's kernels that load
    elsewhere (:data:`LAZY`; ``"completion"``: the completion search's)."""
    from nqmip.progress import load_kernels

    if "completion" not in skip and needs_completion(like):  # its first incumbent's
        load_completion(on_progress)
    for kernel in plan.kernels:
        if kernel in skip:
            continue
        if kernel == "colour":
            from nqmip.colour.proof import warm_up as colour_warm_up

            load_kernels(colour_warm_up, "colour proof", "auto", on_progress)
            continue
        for name in KERNEL_METHODS.get(kernel, (kernel,)):
            load_method(name, like, on_progress)


def load_method(name: str, like: Instance | None,
                on_progress: ProgressCallback | None) -> float:
    """Compile or load method ``name``'s kernels in this process (for ``like``'s kind of
    weights where it compiles per kind: ``WARM_UP_LIKE``); the seconds it took."""
    from functools import partial

    from nqmip.methods import METHODS, resolve
    from nqmip.progress import load_kernels
    from nqmip.warmup import mark_ready

    target = METHODS[name].warm_up
    if target is None:
        return 0.0
    function = resolve(target)
    if like is not None and name in WARM_UP_LIKE:
        function = partial(function, like)
    seconds = load_kernels(function, KERNEL_WORDS.get(name, name), "auto", on_progress)
    mark_ready(target, kind_of(like if name in WARM_UP_LIKE else None))
    return seconds


#: The plans whose kernels load lazily, by kernel of :attr:`Plan.kernels`: ``"first"`` by
#: the plan's first part itself, when it starts (:func:`load_colour`); ``"beside"`` by the
#: part beside it (:class:`Beside`).
LAZY: dict[str, dict[str, str]] = {"colour-proof": {"colour": "first", "sa": "beside"}}


def load_colour(n: int | None = None, on_progress: ProgressCallback | None = None) -> float:
    """The colour proof's kernels, in this process (``n``: those a proof at that size
    starts with); the seconds it took. Marked ready where they are the line sets' (the
    proof's first kernel from n = 8, :data:`COLOUR_TARGET`)."""
    from functools import partial

    from nqmip.colour.proof import warm_up as colour_warm_up
    from nqmip.colour.search import LINE_SEARCH_MAX_N, LINE_SEARCH_MIN_N
    from nqmip.progress import load_kernels
    from nqmip.warmup import mark_ready

    seconds = load_kernels(partial(colour_warm_up, n), "colour proof", "auto", on_progress)
    if n is None or LINE_SEARCH_MIN_N <= n <= LINE_SEARCH_MAX_N:
        mark_ready(COLOUR_TARGET, "colour")
    return seconds


#: The colour proof's first kernel (the line sets' exact cover) as a target of
#: :mod:`nqmip.warmup`: a first run's child compiles it (:meth:`Beside.load_colour`).
COLOUR_TARGET = "nqmip.auto.kernels:colour_warm_up"


def colour_warm_up(like: Instance | None = None) -> None:
    """The colour proof's kernels a proof on ``like`` starts with (None: every one)."""
    from nqmip.colour.proof import warm_up as colour_warm_up

    colour_warm_up(None if like is None else like.n)


class Beside:
    """The kernels of the annealing that runs beside a plan's first part (``methods``: the
    annealing's, then those of its start, if it has its own).

    Made when the run starts, it sees which groups are not marked ready in numba's cache
    (:func:`nqmip.warmup.is_ready`): :meth:`start` (the first part calls it once it has its
    own kernels) hands them to a child process, which compiles them into the cache in
    order. :meth:`ready` (in the annealing's thread, when it would start) waits for the
    annealing's group and loads what is ready in this process; it says whether the
    annealing starts from the incumbent (always, with no start of its own in ``methods``;
    else when that start's kernels are not ready yet). :meth:`stop` ends the child.

    Why the child starts after the first part's compile, not with the run: a proof that
    ends at once (chess n = 40 on a first run) would otherwise pay the annealing's compile
    in CPU (3.5 s) for nothing; and both compiles beside each other on a loaded machine
    only slow the first part's."""

    def __init__(self, like: Instance | None, on_progress: ProgressCallback | None = None,
                 methods: tuple[str, ...] = ("sa",), *, colour: bool = False) -> None:
        import threading

        from nqmip.methods import METHODS
        from nqmip.warmup import is_ready

        self.like, self.on_progress, self.methods = like, on_progress, methods
        self.groups = [(name, target, kind_of(like if name in WARM_UP_LIKE else None))
                       for name in methods if (target := METHODS[name].warm_up) is not None]
        self.missing = [(target, kind) for _, target, kind in self.groups
                        if not is_ready(target, kind)]
        #: ``colour``: the colour proof's first kernel is not in the cache either; the
        #: child compiles it first (:meth:`load_colour`), none compiles in this process.
        self.colour = colour and not (is_ready(COLOUR_TARGET, "colour")  # or --warm-up's:
                                      or is_ready("nqmip.colour.proof:warm_up", "any"))
        if self.colour:
            self.missing.insert(0, (COLOUR_TARGET, "colour"))
        #: Whether a child compiles (the cache lacked some of the groups).
        self.compiling = bool(self.missing)
        self.background: Background | None = None
        self.started = threading.Event()
        self.lock = threading.Lock()
        self.stopped = False
        if not self.missing:
            self.started.set()
        self.seconds = 0.0  # this process's load (or fallback compile) time

    def start(self) -> None:
        """Start the child on the missing groups (once; not after :meth:`stop`)."""
        from nqmip.warmup import Background

        with self.lock:
            try:
                if not self.started.is_set() and not self.stopped:
                    self.background = Background(self.missing, "nqmip.auto.kernels").start()
            except OSError:  # no child process here: ready() compiles in this one
                self.background = None
            finally:
                self.started.set()

    def load_colour(self, deadline: Deadline) -> float | None:
        """The colour proof's kernels in this process, the seconds it took: loaded from the
        cache, once the child has compiled them when they were not there (None: not by
        ``deadline``). A compile here would hold the GIL past the limit: a first chess
        n = 46 with 15 s answered past it, by the watchdog, its numpy climb's 78 (82 warm)."""
        if self.colour:
            self.start()
            if self.background is not None and not self.background.wait_for(
                    COLOUR_TARGET, "colour", deadline) and deadline.expired():
                return None
            if deadline.limited and deadline.remaining() < LOAD_SECONDS:
                return None
        seconds = load_colour(None if self.like is None else self.like.n, self.on_progress)
        self.seconds += seconds
        return seconds

    def ready(self, deadline: Deadline) -> bool | None:
        """Wait (until ``deadline``) for the first group and load every group that is ready;
        None if the first is not ready by then, else whether the search starts from the
        incumbent (no other group, or one not ready: the start those kernels make)."""
        from nqmip.warmup import POLL_SECONDS, is_ready

        first, *rest = self.groups
        while not self.started.wait(POLL_SECONDS):
            if deadline.expired():
                return None
        if self.background is not None and not self.background.wait_for(
                first[1], first[2], deadline) and deadline.expired():
            return None
        if self.compiling and deadline.limited and deadline.remaining() < LOAD_SECONDS:
            return None  # compiled just now: its load would hold the GIL past the limit
        # ready, or the child failed: compile it here then
        self.seconds += load_method(first[0], self.like, self.on_progress)
        from_best = not rest
        for name, target, kind in rest:
            if is_ready(target, kind):
                self.seconds += load_method(name, self.like, self.on_progress)
            else:
                from_best = True
        return from_best

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
            self.started.set()  # a ready() still waiting compiles nothing after the run
            if self.background is not None:
                self.background.stop()


if __name__ == "__main__":  # the child of Beside (nqmip.warmup.Background)
    import sys

    from nqmip.warmup import child_main

    child_main(sys.argv[1:], stand_in)
