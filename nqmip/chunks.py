"""The one chunk loop of every search: a :class:`Deadline` in, a :class:`Termination` out.

numba code cannot read the clock nor hear a signal, so every search runs its kernel in
chunks and looks between them: at its deadline (which may be cancelled from another
thread: auto stops the search beside a proof that way, the command line on Ctrl-C), at an
optional stop condition (a target reached elsewhere), and at what the chunk says (goal
reached, budget spent). Each chunk draws its kernel seed from the run's generator, so a run
with a budget and no time limit is the same whatever the machine's speed.

Chunks are sized so that one lasts well under 0.1 s at the sizes each search is meant for:
a cancel is heard within that time. The loop sits beside :mod:`nqmip.budget`, below every
search that uses it: the heuristics, the completion search (:mod:`nqmip.enumeration.completion`)
and the lexicographic search (:mod:`nqmip.lex.search`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from nqmip.budget import TARGET, TIME_LIMIT, Deadline
from nqmip.result import Termination

#: One chunk of work: None to go on, or why the search ends (goal reached: SOLUTION_FOUND
#: or OPTIMAL, budget spent: ITERATION_LIMIT).
Chunk = Callable[[], Termination | None]


def kernel_seed(rng: np.random.Generator) -> int:
    """A seed for numba's own generator (``np.random.seed`` inside a kernel), drawn from rng."""
    return int(rng.integers(0, 2**31 - 1))


def stopped(deadline: Deadline) -> Termination | None:
    """Why a search must stop now, or None: its deadline passed (``time_limit``) or was
    cancelled (``interrupted``). Setup steps between chunks ask this too."""
    if not deadline.expired():
        return None
    return why_stopped(deadline)


def why_stopped(deadline: Deadline) -> Termination:
    """The termination of a search its ended ``deadline`` stopped, from the reason of the
    cancel (:meth:`~nqmip.budget.Deadline.stopped_by`): ``time_limit`` for a limit reached
    or the watchdog's cancel at it, ``target`` for a target reached, ``interrupted`` for a
    Ctrl-C, a caller's cancel, or another part's proof (this search proved nothing)."""
    reason = deadline.stopped_by()
    if reason in (None, TIME_LIMIT):
        return Termination.TIME_LIMIT
    return Termination.TARGET if reason == TARGET else Termination.INTERRUPTED


def run_chunks(chunk: Chunk, deadline: Deadline, *,
               stop: Callable[[], bool] | None = None,
               progress: Callable[[], None] | None = None,
               before: Callable[[], None] | None = None) -> Termination:
    """Call ``chunk()`` until it says why the search ends, the deadline passes or is
    cancelled, or ``stop()`` turns true (``solution_found``: a target reached); Ctrl-C
    ends it as ``interrupted``. ``progress()``, if given, is called after every chunk, the
    last included (the search reports its incumbent there, throttled on its side);
    ``before()``, if given, before every chunk (a search takes a bound that arrived
    meanwhile).

    The deadline is read before every chunk, the first included: a search overshoots it by
    at most one chunk. Ctrl-C lands between chunks (numba code does not look at signals),
    so the caller's arrays hold a consistent search and it returns its best so far.
    """
    try:
        while True:
            why = stopped(deadline)
            if why is not None:
                return why
            if stop is not None and stop():
                return Termination.SOLUTION_FOUND
            if before is not None:
                before()
            why = chunk()
            if progress is not None:
                progress()
            if why is not None:
                return why
    except KeyboardInterrupt:
        return Termination.INTERRUPTED


def budgeted(kernel: Callable[[int, int], bool], rng: np.random.Generator,
             counters: np.ndarray, slot: int, budget: int, size: int) -> Chunk:
    """The chunk of a kernel ``kernel(seed, units) -> goal reached`` that counts its work in
    ``counters[slot]``: at most ``size`` units a call and ``budget`` in all."""

    def chunk() -> Termination | None:
        left = budget - int(counters[slot])
        if left <= 0:
            return Termination.ITERATION_LIMIT
        if kernel(kernel_seed(rng), min(size, left)):
            return Termination.SOLUTION_FOUND
        return None

    return chunk
