"""The LP search's tree shared by one or more workers (threads: HiGHS releases the GIL
while it solves, and a node is 80 % LP time at N = 32).

The root's children go to a shared heap of tasks, best bound first; a worker takes the best
task and searches its subtree depth first (:class:`nqmip.bnb.lpsearch.Tree`). A worker that
finds the heap empty while another works says it is hungry, and the busy one gives away the
untried children of its shallowest level with some left, as tasks. The incumbent is shared:
each worker takes the best one between nodes. The search is complete when the heap is
empty and no worker is busy; a search stopped early is bounded by the best bound of the
tasks left and of each worker's untried children.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqmip.bnb.common import NONE_OPEN
from nqmip.budget import Deadline
from nqmip.chunks import why_stopped
from nqmip.result import Termination

#: Every so many nodes of a task a worker gives all its untried children to the heap and
#: takes the best task there (a jump to the best bound; 0: depth first within a task until
#: it ends). Off: docs/bnb.md, Parts 13 and 14 (256: fewer nodes on four boards of five at
#: N = 36 and 40, but a node costs more; 0.86 to 1.54 times the CPU time).
JUMP_NODES = 0
#: The main worker looks at the caller's incumbent (auto's other part) every so many nodes.
OFFER_NODES = 8
#: A waiting worker looks at the deadline this often (seconds).
WAIT_SECONDS = 0.02


@dataclass(order=True)
class Task:
    """A node to search: the queens that make it (beyond the fixed ones), the squares
    still allowed, its parent's basis and its bound (the heap's key, best first)."""

    key: float
    seq: int
    queens: tuple[int, ...] = field(compare=False)
    upper: np.ndarray = field(compare=False)
    basis: Any = field(compare=False)


class Pool:
    """The shared state: the task heap, the incumbent, who is busy, and each worker's
    best untried bound."""

    def __init__(self, workers: int) -> None:
        self.cond = threading.Condition()
        self.heap: list[Task] = []
        self.seq = itertools.count()
        self.busy = 0
        self.hungry = 0
        self.open = [NONE_OPEN] * workers
        self.incumbent: float | None = None
        self.best: tuple[int, ...] | None = None
        self.stop = False
        self.reached = False  # an incumbent reached the proven bound: optimal

    def push(self, bound: float, queens: tuple[int, ...], upper: np.ndarray,
             basis: Any) -> None:
        with self.cond:
            heapq.heappush(self.heap, Task(-bound, next(self.seq), queens, upper, basis))
            self.cond.notify()

    def take(self, me: int, deadline: Deadline) -> Task | None:
        """The best task, waiting while another worker may still give some; None when
        the search is over (complete, stopped or past its deadline)."""
        with self.cond:
            self.busy -= 1
            self.open[me] = NONE_OPEN
            self.hungry += 1
            while not self.heap and self.busy > 0 and not self.stop and \
                    not deadline.expired():
                self.cond.wait(WAIT_SECONDS)
            self.hungry -= 1
            if not self.heap or self.stop or deadline.expired():
                self.cond.notify_all()
                return None
            self.busy += 1
            return heapq.heappop(self.heap)

    def share(self, value: float | None, placement: tuple[int, ...] | None,
              ) -> tuple[float | None, tuple[int, ...] | None]:
        """Offer an incumbent; the best one known, with its placement."""
        with self.cond:
            if value is not None and placement is not None and \
                    (self.incumbent is None or value > self.incumbent + 1e-9):
                self.incumbent, self.best = value, placement
            return self.incumbent, self.best

    def top(self) -> float:
        """The best bound of what is left open."""
        with self.cond:
            heap = -self.heap[0].key if self.heap else NONE_OPEN
            return max([heap, *self.open])


def run(trees: list[Any], pool: Pool, root: Task, deadline: Deadline,
        tick: Callable[[], None]) -> Termination:
    """Search from ``root`` with one worker per tree (the first in this thread), until the
    search is complete (``OPTIMAL``) or ``deadline``. ``tick()`` is called by the first
    worker between nodes (the caller's incumbent and progress report)."""
    pool.busy = len(trees)
    pool.push(-root.key, root.queens, root.upper, root.basis)
    threads = [threading.Thread(target=_work, args=(i, trees[i], pool, deadline, None),
                                daemon=True) for i in range(1, len(trees))]
    for thread in threads:
        thread.start()
    try:
        _work(0, trees[0], pool, deadline, tick)
    finally:
        with pool.cond:
            pool.stop = pool.stop or deadline.expired()
            pool.cond.notify_all()
        if deadline.expired():
            pool.stop = True
        for thread in threads:
            thread.join()
    if pool.reached or not (deadline.expired() or pool.heap
                            or any(bound > NONE_OPEN for bound in pool.open)):
        return Termination.OPTIMAL
    return why_stopped(deadline)


def _work(me: int, tree: Any, pool: Pool, deadline: Deadline,
          tick: Callable[[], None] | None) -> None:
    """One worker: tasks from the heap, each searched depth first."""
    count = 0
    last = time.perf_counter()
    while (task := pool.take(me, deadline)) is not None:
        for square in task.queens:
            tree.place(square, 1)
        tree.incumbent = _sync(tree, pool)
        need = tree.need()
        level = None if need is not None and -task.key < need else \
            tree.open(task.upper, task.basis)
        if level is not None:
            tree.levels = [level]
        while tree.levels:
            tree.incumbent = _sync(tree, pool)
            if tree.reached():
                with pool.cond:
                    pool.stop = pool.reached = True
            if pool.stop or deadline.expired():
                pool.open[me] = tree.open_bound()
                _abandon(tree)
                break
            if pool.hungry and not pool.heap:
                _give(tree, task.queens, pool)
            tree.advance()
            pool.open[me] = tree.open_bound()
            count += 1
            if JUMP_NODES and count % JUMP_NODES == 0 and tree.levels:
                while _give(tree, task.queens, pool):
                    pass
                _abandon(tree)
                pool.open[me] = NONE_OPEN
            if tick is not None and (count % OFFER_NODES == 0
                                     or time.perf_counter() - last > 0.2):
                last = time.perf_counter()
                tick()
        tree.incumbent = _sync(tree, pool)
        for square in task.queens:
            tree.place(square, -1)
        if pool.stop or deadline.expired():
            with pool.cond:
                pool.busy -= 1
            return
    return


def _sync(tree: Any, pool: Pool) -> float | None:
    """The tree's incumbent offered to the pool; the pool's best taken back."""
    best, placement = pool.share(tree.incumbent, tree.best)
    if best is not None and (tree.incumbent is None or best > tree.incumbent + 1e-9):
        tree.best = placement
    return best


def _give(tree: Any, base: tuple[int, ...], pool: Pool) -> bool:
    """The untried children of the shallowest level that has some, to the heap; False if
    no level has any."""
    path = list(base)
    for level in tree.levels:
        if level.queen >= 0:
            path.append(level.queen)
        if level.pos < len(level.children):
            for bound, square in level.children[level.pos:]:
                if square >= 0:
                    pool.push(bound, (*path, square), level.upper, level.basis)
                else:  # binary branching's down child: the square forbidden
                    upper = level.upper.copy()
                    upper[~square] = 0
                    pool.push(bound, tuple(path), upper, level.basis)
            del level.children[level.pos:]
            return True
    return False


def _abandon(tree: Any) -> None:
    """Take the queens of the levels back off the board (a stopped search)."""
    for level in reversed(tree.levels):
        if level.queen >= 0:
            tree.place(level.queen, -1)
    tree.levels = []
