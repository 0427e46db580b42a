"""The LP search's neighbourhood step (RINS, relaxation induced neighbourhood search): the
squares where a node's LP solution and the incumbent agree are kept, and the board that is
left is solved by the kernel's exact search (:mod:`nqmip.bnb.kernelsearch`) on a budget.

Why: the LP search proves bounds faster than it finds placements. Measured before this step
(toulbar2 family, ``auto`` on two cores): at N = 40 it proved the optimum in 96 s and
182 s but had the optimal placement only at 50.5 s and 126.3 s; at N = 48 seed 1 its bound
reached the optimum, 163, while its best placement stayed at 165 for minutes. The dives
(:mod:`nqmip.bnb.dive`) complete one node greedily; this step searches, exactly, every
placement that keeps the incumbent's queens on the squares the LP puts a whole queen on,
and uses only squares that the LP or the incumbent uses. That board has few free rows, on
few squares, which the kernel solves in milliseconds; an improvement is a new incumbent
and prunes the LP search from its next node. Measured on and off (docs/bnb.md): it found
the optimum of one board of six that the search without it did not have at 300 s (N = 40
seed 1), nothing the dives had not on the others, and costs up to a tenth of the time; so
the LP search runs it only when asked (``nqmip.bnb.lpsearch.NEIGHBOURHOOD``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from nqmip.bnb.kernelsearch import NODE_ITERS, kernel_search
from nqmip.budget import Deadline
from nqmip.instance import Instance
from nqmip.result import Termination

#: The kernel's nodes for one step (about 20 µs each on these small boards).
RINS_NODES = 2000
#: The LP search runs the step at most this often (nodes), and only while the steps have
#: taken less than ``RINS_SHARE`` of its time.
RINS_EVERY = 10
RINS_SHARE = 0.1
#: At most this long for one step (seconds).
RINS_SECONDS = 0.5
#: Subgradient steps at the small board's root (the kernel's default is 400, for a board
#: of 30 free rows; these have a handful).
ROOT_ITERS = 60
#: An LP value at least this is a whole queen.
WHOLE = 1.0 - 1e-6
#: Free rows of the neighbourhood: first ``FREE_START``, two more after a step the kernel
#: completed within its budget, two fewer after one it did not (between the limits).
FREE_START, FREE_MIN, FREE_MAX = 14, 8, 26


@dataclass
class Step:
    """What one step gave: a better placement with its value (or None), and whether the
    kernel searched the whole neighbourhood (else its budget ran out)."""

    found: tuple[float, tuple[int, ...]] | None
    complete: bool


def neighbourhood(x: np.ndarray, best: tuple[int, ...], free: int,
                  fixed: tuple[tuple[int, int], ...] = ()) -> list[tuple[int, int]]:
    """The queens of the placement ``best`` (a column per row) kept in the neighbourhood
    by the LP solution ``x`` (n x n): the board's ``fixed`` queens, and all but ``free`` of
    the others, those the LP agrees with most (the largest LP value on their square; on
    whole LP values, RINS's agreement)."""
    n = x.shape[0]
    cols = np.asarray(best, dtype=np.int64)
    agree = x[np.arange(n), cols].copy()
    agree[[r for r, _ in fixed]] = np.inf  # kept first, whatever the LP says
    order = np.argsort(-agree, kind="stable")[:max(n - free, len(fixed))]
    return sorted((int(r), int(cols[r])) for r in order)


def improve(w: np.ndarray, x: np.ndarray, best: tuple[int, ...], deadline: Deadline,
            free: int = FREE_START, nodes: int = RINS_NODES,
            fixed: tuple[tuple[int, int], ...] = ()) -> Step:
    """A placement better than ``best`` near the LP solution ``x`` (one value per square),
    searched by the kernel within ``nodes`` nodes and ``deadline`` in two neighbourhoods:
    the completions of the LP's whole queens (when they leave at most ``FREE_MAX`` rows
    free), then the incumbent's neighbourhood with ``free`` rows free (:func:`neighbourhood`).
    ``w``: the weights, maximised; ``fixed``: the board's fixed queens (``best`` has
    them), kept in both. ``complete`` says whether the second was searched whole."""
    n = w.shape[0]
    xs = x.reshape(n, n)
    value = float(w[np.arange(n), np.asarray(best, dtype=np.int64)].sum())
    whole = sorted(set(fixed) | {(int(r), int(np.argmax(xs[r]))) for r in range(n)
                                 if xs[r].max() >= WHOLE})
    found = None
    if n - len(whole) <= FREE_MAX:
        found, _ = _search(w, whole, best, value, deadline, nodes)
        if found is not None:
            best, value = found[1], found[0]
    better, complete = _search(w, neighbourhood(xs, best, free, fixed), best, value,
                               deadline, nodes)
    return Step(better or found, complete)


def _search(w: np.ndarray, keep: list[tuple[int, int]], best: tuple[int, ...], value: float,
            deadline: Deadline, nodes: int) -> tuple[tuple[float, tuple[int, ...]] | None,
                                                     bool]:
    """The best placement with the queens ``keep`` better than ``value`` (``best``'s), by
    the kernel within ``nodes`` and ``deadline``; and whether it searched them all."""
    n = w.shape[0]
    small = Instance(n=n, dense=w, fixed=tuple(keep), name="rins")
    out = kernel_search(small, deadline, tuple(best), 0.0, ROOT_ITERS, NODE_ITERS, None,
                        None, nodes)
    complete = out.termination is Termination.OPTIMAL
    if out.placement is None or out.objective is None or out.objective <= value + 1e-9:
        return None, complete
    placement = tuple(int(c) for c in out.placement)
    if any(placement[r] != c for r, c in keep):
        return None, complete
    return (float(w[np.arange(n), list(placement)].sum()), placement), complete


def next_free(free: int, step: Step) -> int:
    """The neighbourhood's free rows for the next step."""
    if step.complete:
        return min(FREE_MAX, free + 2)
    return max(FREE_MIN, free - 2)


@dataclass
class Rins:
    """When the neighbourhood step (:mod:`nqmip.bnb.rins`) runs: every ``RINS_EVERY``
    nodes at most, while the steps have taken less than ``RINS_SHARE`` of the search's
    time (as SCIP paces its heuristics); ``deadline`` is the search's."""

    deadline: Deadline
    began: float = field(default_factory=time.perf_counter)
    used: float = 0.0
    last: int = -RINS_EVERY
    calls: int = 0
    found: int = 0
    free: int = FREE_START  # the neighbourhood's free rows

    def due(self, nodes: int) -> bool:
        return nodes - self.last >= RINS_EVERY and \
            self.used <= RINS_SHARE * (time.perf_counter() - self.began)

    def spent(self, nodes: int, seconds: float, step: Step) -> None:
        self.last, self.used = nodes, self.used + seconds
        self.calls += 1
        self.found += int(step.found is not None)
        self.free = next_free(self.free, step)
