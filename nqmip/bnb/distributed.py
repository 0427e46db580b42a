"""The LP search (:mod:`nqmip.bnb.lpsearch`) on a Dask cluster (:mod:`nqmip.cluster`).

A task is an open subtree: the root board plus the queens that define it (and the squares
its parent's reduced costs ruled out), with its bound. A worker searches it depth first
(:func:`explore`) until it is done, or until its node budget is spent, or until the caller
says others are idle: then it hands its untried children back as new tasks. Nothing a task
did counts until its result is back, whole: a worker killed mid-task has the task rerun by
Dask elsewhere, and the proof is the same.

The caller keeps the open tasks best bound first and gives one to each worker thread at a
time. Ramp-up: the best open node is split (one LP each) in the caller until there are
:data:`TASKS_PER_WORKER` tasks a worker. The incumbent is shared through a
``distributed.Variable``: every task starts from the caller's, reads the shared one every
:data:`SYNC_SECONDS` and writes its own when better, and so prunes with the best anyone
found. A second Variable says when workers are idle (a task then stops after
:data:`MIN_NODES` and hands back its open nodes) and when the search is over. The bound of
a stopped search is the best bound among the open and running tasks (and the pruned ones,
as in one process: :func:`nqmip.bnb.common.global_bound`).

Reliability branching (:mod:`nqmip.bnb.reliability`): the caller keeps one pseudo-cost
table for the run; a task starts from it as it is when handed out (:attr:`Spec.pseudo`) and
gives back what it added (:attr:`Piece.pseudo`), which the caller adds to it, once. The
record (:mod:`nqmip.bnb.record`) keeps the table, and a run continued from it starts from it.
"""

from __future__ import annotations

import heapq
import itertools
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from nqmip.bnb.common import NONE_OPEN, Outcome, global_bound, need_step
from nqmip.bnb.tasks import (  # noqa: F401 (MIN_NODES, SYNC_SECONDS: the caller's names too)
    MIN_NODES,
    NODE_BUDGET,
    SYNC_SECONDS,
    Piece,
    Spec,
    explore,
    weights_of,
)
from nqmip.budget import Deadline
from nqmip.chunks import why_stopped
from nqmip.instance import Instance
from nqmip.result import Termination

#: Tasks a worker at the start (the ramp-up splits the root until there are this many).
TASKS_PER_WORKER = 4
#: How often the caller looks up from waiting on its tasks (seconds).
POLL_SECONDS = 0.1


@dataclass(order=True)
class _Open:
    key: float  # minus the bound: the heap's best first
    seq: int
    queens: tuple[int, ...] = field(compare=False)
    upper: bytes = field(compare=False)
    parent: int = field(default=-1, compare=False)  # the seq of the task that handed it back


@dataclass
class Board:
    """One search's state in the caller: the open tasks, the running ones and the
    incumbent."""

    instance: Instance
    w: np.ndarray
    step: float
    floor: float | None
    heap: list[_Open] = field(default_factory=list)
    running: dict[Any, _Open] = field(default_factory=dict)
    incumbent: float | None = None
    best: tuple[int, ...] | None = None
    nodes: int = 0
    seq: Any = field(default_factory=itertools.count)
    seconds: list[float] = field(default_factory=list)
    ramp_up: float = 0.0  # seconds of the split in the caller
    cpu: float = 0.0  # the tasks' CPU seconds
    #: tasks sent to the workers (a task cancelled once a shared incumbent closed the
    #: search is sent, not finished: ``seconds`` holds only the finished ones)
    submitted: int = 0
    #: per task, as ``seconds``: (its seq, its parent's seq or -1, its nodes, the open
    #: nodes it handed back) (benchmarks/simulate_cluster.py replays them)
    trace: list[tuple[int, int, int, int]] = field(default_factory=list)
    pseudo: np.ndarray | None = None  # the run's pseudo-costs (2 x n^2: sums, counts)

    def need(self) -> float | None:
        need = None if self.incumbent is None else self.incumbent + self.step
        if self.floor is not None and (need is None or need < self.floor):
            return self.floor
        return need

    def push(self, bound: float, queens: tuple[int, ...], upper: bytes,
             parent: int = -1) -> None:
        need = self.need()
        if need is None or bound >= need:
            heapq.heappush(self.heap, _Open(-bound, next(self.seq), queens, upper, parent))

    def offer(self, placement: tuple[int, ...] | None) -> bool:
        """A task's placement, checked and valued here; True if it is the new best."""
        if placement is None:
            return False
        n = self.instance.n
        cols = list(placement)
        if len(cols) != n or len(set(cols)) != n or \
                len({r - c for r, c in enumerate(cols)}) != n or \
                len({r + c for r, c in enumerate(cols)}) != n:
            raise RuntimeError(f"a task gave back a placement that is not one: {placement}")
        value = float(self.w[np.arange(n), cols].sum())
        if self.incumbent is None or value > self.incumbent + 1e-9:
            self.incumbent, self.best = value, tuple(int(c) for c in cols)
            return True
        return False

    def shared(self) -> tuple[float, tuple[int, ...]] | None:
        """The incumbent as the tasks take it."""
        if self.best is None or self.incumbent is None:
            return None
        return self.incumbent, self.best

    def costs(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The pseudo-costs as a task takes them (:attr:`Spec.pseudo`)."""
        if self.pseudo is None:
            return None
        return self.pseudo[0].copy(), np.rint(self.pseudo[1]).astype(np.int32)

    def take(self, piece: Piece, task: _Open | None = None) -> None:
        """What ``task`` (None: a split in the caller) gave back."""
        self.nodes += piece.nodes
        self.seconds.append(piece.seconds)
        self.cpu += piece.cpu
        seq = -1 if task is None else task.seq
        self.trace.append((seq, -1 if task is None else task.parent, piece.nodes,
                           len(piece.open)))
        if piece.pseudo is not None and self.pseudo is not None:
            self.pseudo[0] += piece.pseudo[0]
            self.pseudo[1] += piece.pseudo[1]
        self.offer(piece.placement)
        for bound, queens, upper in piece.open:
            self.push(bound, queens, upper, seq)

    def top(self) -> float:
        """The best bound of what is open or running."""
        bounds = [-o.key for o in self.heap] + [-o.key for o in self.running.values()]
        return max(bounds, default=NONE_OPEN)


def cluster_engine(instance: Instance, w: np.ndarray, cluster: Any, deadline: Deadline,
                   mip_gap: float, root: float,
                   incumbent: Callable[[], tuple[float, tuple[int, ...]] | None] | None,
                   stats: dict[str, Any], record: Path | None = None,
                   state: dict[str, Any] | None = None,
                   pseudo: np.ndarray | None = None) -> Callable[..., Outcome]:
    """The engine of :func:`nqmip.bnb.rounds.in_rounds` (one search from the root) on
    ``cluster`` (:class:`nqmip.cluster.Cluster`); ``root`` is the root's LP value.
    ``stats`` gathers the tasks' count, seconds, nodes, open nodes handed back and
    parent (the index of the task whose hand-back it was, -1 for the ramp-up's), and per
    search (a round) its tasks, its ramp-up's seconds in the caller and its wall time.
    ``record``: the file of the search's state (:mod:`nqmip.bnb.record`), continued where
    it holds the round that starts; ``state`` the rounds' (:func:`nqmip.bnb.rounds.in_rounds`);
    ``pseudo`` the pseudo-costs (2 x n^2: sums, counts; None: the record's, else new) the
    tasks share (``RELIABILITY``); the record keeps them, and ``stats["pseudo_resumed"]``
    is the count of the record's table a run continued from."""
    from nqmip.bnb import lpsearch
    from nqmip.bnb import record as rec

    board_key = uuid.uuid4().hex
    state = {} if state is None else state
    job = rec.job_key(w, instance.fixed, mip_gap)
    resume = [None if record is None else rec.read(record, job)]
    kept = None if resume[0] is None else resume[0].pseudo
    if not lpsearch.RELIABILITY:
        pseudo = None
    elif pseudo is None and kept is not None:  # the table the record kept
        pseudo = kept.copy()
        stats["pseudo_resumed"] = int(kept[1].sum())
    elif pseudo is None:  # one table for all the rounds, as in one process
        pseudo = np.zeros((2, instance.n * instance.n))

    def save(board: Board) -> None:
        if record is not None:
            left = [(-o.key, o.queens, o.upper) for o in [*board.heap, *board.running.values()]]
            rounds = dict(state) if state.get("proven") is not None else None
            rec.write(record, job, rec.Snapshot(rounds, board.floor, board.shared(), left,
                                                board.nodes, board.pseudo))

    def engine(begin: tuple[int, ...] | None, floor: float | None,
               tell: Callable[[float | None, float | None], None] | None,
               ceiling: float | None) -> Outcome:
        board = Board(instance, w, need_step(instance), floor, pseudo=pseudo)
        if begin is not None:
            board.offer(tuple(begin))
        seeded, resume[0] = _resumed(board, resume[0]), None
        spec = Spec(board_key, f"nqmip-bnb-{uuid.uuid4().hex[:12]}", instance, floor,
                    ceiling, mip_gap, NODE_BUDGET)
        began = time.perf_counter()
        why = _drive(board, spec, cluster, deadline, root, tell, incumbent, mip_gap,
                     seeded, save)
        at = {seq: i + stats.get("tasks", 0) for i, (seq, *_) in enumerate(board.trace)}
        stats.setdefault("task_nodes", []).extend(t[2] for t in board.trace)
        stats.setdefault("task_handed", []).extend(t[3] for t in board.trace)
        stats.setdefault("task_parent", []).extend(at.get(t[1], -1) for t in board.trace)
        stats["tasks"] = stats.get("tasks", 0) + len(board.seconds)
        stats["submitted"] = stats.get("submitted", 0) + board.submitted
        stats.setdefault("task_seconds", []).extend(round(s, 4) for s in board.seconds)
        stats["task_cpu"] = round(stats.get("task_cpu", 0.0) + board.cpu, 3)
        if pseudo is not None:
            stats["pseudo_costs"] = int(pseudo[1].sum())
        stats.setdefault("rounds", []).append({
            "tasks": len(board.seconds), "ramp_up": round(board.ramp_up, 4),
            "wall": round(time.perf_counter() - began, 4)})
        root_bound = instance.rounded_bound(root)
        bound = _bound(board, instance, mip_gap, root_bound)
        if why is Termination.OPTIMAL:
            if board.best is None:
                return Outcome(Termination.INFEASIBLE, None, None, None, board.nodes,
                               root_bound)
            return Outcome(Termination.OPTIMAL, board.best, board.incumbent, bound,
                           board.nodes, root_bound)
        return Outcome(why, board.best, board.incumbent, bound, board.nodes, root_bound)

    return engine


def _bound(board: Board, instance: Instance, mip_gap: float, root_bound: float) -> float | None:
    """The bound of the search so far: open and running tasks, and what was pruned."""
    pruned = board.incumbent
    if board.floor is not None:  # the nodes below the target were pruned too
        below = instance.rounded_bound(board.floor - board.step)
        pruned = below if pruned is None else max(pruned, below)
    top = global_bound(board.top(), pruned, board.step, instance, mip_gap)
    return root_bound if top is None else min(top, root_bound)


def _drive(board: Board, spec: Spec, cluster: Any, deadline: Deadline, root: float,
           tell: Callable[[float | None, float | None], None] | None,
           incumbent: Callable[[], tuple[float, tuple[int, ...]] | None] | None,
           mip_gap: float, seeded: bool, save: Callable[[Board], None]) -> Termination:
    """Run the search of ``board`` on the cluster until nothing is open (``OPTIMAL``), an
    incumbent reaches the ceiling (``OPTIMAL``) or ``deadline``; from the root unless
    ``seeded`` (a record's open subtrees). ``save`` is given the board every
    :data:`nqmip.bnb.record.RECORD_SECONDS` and at the end."""
    from distributed import Variable, wait

    from nqmip.bnb.record import RECORD_SECONDS

    client = cluster.client
    n = board.instance.n
    if not seeded:
        board.push(root, (), np.packbits(np.ones(n * n, np.uint8)).tobytes())
    began = time.perf_counter()
    _ramp_up(board, spec, cluster.refresh() * TASKS_PER_WORKER)
    board.ramp_up = time.perf_counter() - began
    board.seconds.clear()  # the split's pieces ran here, not as tasks
    board.trace.clear()
    board.cpu = 0.0
    inc, ctl = Variable(f"{spec.token}-inc", client), Variable(f"{spec.token}-ctl", client)
    inc.set(board.shared())
    word = {"hungry": False, "stop": False}
    ctl.set(word)
    last = saved = time.perf_counter()
    reached = False
    failed = True  # until the loop ends without an exception: nothing is proven
    try:
        while (board.heap or board.running) and not deadline.expired() and not reached:
            slots = cluster.refresh()
            need = board.need()
            while len(board.running) < slots and board.heap:
                task = heapq.heappop(board.heap)
                if need is not None and -task.key < need:
                    continue
                best = board.shared()
                future = client.submit(explore, replace(spec, pseudo=board.costs()),
                                       task.queens, task.upper, -task.key, best,
                                       spec.budget, pure=False,
                                       key=f"{spec.token}-{task.seq}")
                board.running[future] = task
                board.submitted += 1
            hungry = not board.heap and len(board.running) < slots
            if hungry != word["hungry"]:
                word = {"hungry": hungry, "stop": False}
                ctl.set(word)
            done = _finished(wait, list(board.running))
            for future in done:
                # a failure (not a lost worker: Dask reruns) raises, the task still
                # running: the record keeps its subtree open
                piece = future.result()
                task = board.running.pop(future)
                board.take(piece, task)
                reached = reached or piece.reached
            got = None if incumbent is None else incumbent()
            if got is not None:
                board.offer(tuple(got[1]))
            shared = inc.get()
            if shared is not None:
                board.offer(tuple(shared[1]))
            if board.best is not None and (shared is None or board.incumbent > shared[0] + 1e-9):
                inc.set((board.incumbent, board.best))
            if mip_gap > 0.0 and board.incumbent is not None:
                board.step = max(need_step(board.instance), mip_gap * abs(board.incumbent))
            if spec.ceiling is not None and board.incumbent is not None and \
                    board.incumbent >= spec.ceiling - 1e-9:
                reached = True
            if time.perf_counter() - saved >= RECORD_SECONDS:
                save(board)
                saved = time.perf_counter()
            if tell is not None and time.perf_counter() - last >= 0.2:
                last = time.perf_counter()
                tell(board.incumbent, _bound(board, board.instance, mip_gap,
                                             board.instance.rounded_bound(root)))
        failed = False
    finally:
        ctl.set({"hungry": False, "stop": True})
        for future in board.running:
            future.cancel()
        over = not failed and (reached or not (board.heap or board.running))
        if over:  # what is still open cannot beat the ceiling the incumbent reached
            board.heap.clear()
            board.running.clear()
        save(board)
    return Termination.OPTIMAL if over else why_stopped(deadline)


def _resumed(board: Board, snap: Any) -> bool:
    """The open subtrees and incumbent of a record (:class:`nqmip.bnb.record.Snapshot`) put
    on ``board``, if it holds the round that starts; True if so."""
    if snap is None or snap.floor != board.floor:
        return False
    if snap.incumbent is not None:
        board.offer(snap.incumbent[1])
    for bound, queens, upper in snap.open:
        board.push(bound, queens, upper)
    board.nodes = snap.nodes
    return True


def _ramp_up(board: Board, spec: Spec, want: int) -> None:
    """Split the best open node here (one LP each) until ``want`` tasks are open."""
    while board.heap and len(board.heap) < want:
        task = heapq.heappop(board.heap)
        need = board.need()
        if need is not None and -task.key < need:
            continue
        best = board.shared()
        piece = explore(replace(spec, pseudo=board.costs()), task.queens, task.upper,
                        -task.key, best, 1, shared=False)
        board.take(piece)


def _finished(wait: Any, futures: list[Any]) -> set[Any]:
    """The futures done within :data:`POLL_SECONDS` (none running: none)."""
    if not futures:
        time.sleep(POLL_SECONDS / 10)
        return set()
    try:
        return set(wait(futures, timeout=POLL_SECONDS, return_when="FIRST_COMPLETED").done)
    except TimeoutError:
        return set()
