"""What a worker of the LP search on Dask runs (:mod:`nqmip.bnb.distributed` is the caller).

A task is an open subtree: :func:`explore` searches it depth first with the thread's own
tree (its node LP built once a thread), until it is done, its node budget spent, or the
caller says others are idle; it gives back a :class:`Piece`: its nodes, its best
placement, its untried children and what it added to the pseudo-costs it started from.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqmip.bnb.common import bnb_weights
from nqmip.instance import Instance

#: Nodes a task searches before it hands its open nodes back (a killed worker loses at
#: most this much work).
NODE_BUDGET = 2000
#: A task asked to hand back (others idle) does so once it has searched this many nodes.
MIN_NODES = 16
#: How often a task reads the shared incumbent and the caller's word (seconds). A read
#: costs a worker about 1 ms of CPU (0.7 to 1.1 ms of its process, 0.35 to 0.5 ms of the
#: scheduler's; bench_cluster.py --sync). 0.05 against 0.1, toulbar2 N = 32 on 2 one-thread
#: workers, 8 runs each alternated (bench_cluster.py --n 32 --workers 2 --no-single
#: --sync 0.1,0.05 --repeat 4, twice): the same nodes (medians 7,183 and 7,184), the wall
#: no longer (23.7 s against 25.9 s), the workers' CPU 2 to 4 % more (21.8 s against
#: 21.1 s); N = 36, 4 runs each: 3.85 against 3.75 ms of the workers' CPU a node, the
#: nodes and wall the same. The idle workers of a large cluster wait less for a task to
#: hand back: the model of 32 workers on the recorded N = 48 run (simulate_cluster.py)
#: gives 80 % efficiency against 76 % (79 % with 2 ms charged a read; docs/cluster.md).
SYNC_SECONDS = 0.05

@dataclass(frozen=True)
class Spec:
    """What every task of one search shares: the board, the target of the round
    (``floor``, ``ceiling``: :mod:`nqmip.bnb.rounds`), the pruning step and the names of
    the shared Variables."""

    board: str  # the solve's (a worker's node LP is kept while it stays the same)
    token: str  # the round's (its Variables)
    instance: Instance
    floor: float | None
    ceiling: float | None
    mip_gap: float
    budget: int
    #: The pseudo-costs the task starts from, per square the sum of the losses and their
    #: count (None: no reliability branching, the children by their reduced costs).
    pseudo: tuple[np.ndarray, np.ndarray] | None = field(default=None, compare=False)


@dataclass
class Piece:
    """What a task gives back: its nodes, its best placement, its open nodes as (bound,
    queens, packed allowed squares), whether its incumbent reached the ceiling, its wall
    time and its thread's CPU time (their gap: the machine's other load)."""

    nodes: int
    value: float | None
    placement: tuple[int, ...] | None
    open: list[tuple[float, tuple[int, ...], bytes]]
    reached: bool
    seconds: float
    cpu: float = 0.0
    pseudo: tuple[np.ndarray, np.ndarray] | None = None  # what it added to the pseudo-costs


_LOCAL = threading.local()  # per worker thread: (token, tree)


def _tree_for(spec: Spec) -> Any:
    """This thread's tree of the search ``spec`` (its node LP built once a thread)."""
    from nqmip.bnb.lp import NodeLP
    from nqmip.bnb.lpsearch import _tree

    held = getattr(_LOCAL, "held", None)
    if held is None or held[0] != spec.board:
        inst = spec.instance
        w = weights_of(inst)
        tree = _tree(inst, w, NodeLP(w))
        assert tree is not None  # the caller checked the fixed queens
        _LOCAL.held = held = (spec.board, tree, tree.step)
    tree = held[1]
    tree.step = held[2]
    tree.floor, tree.ceiling = spec.floor, spec.ceiling
    tree.incumbent, tree.best, tree.levels, tree.nodes = None, None, [], 0
    tree.pseudo, tree.reliable = None, spec.pseudo is not None
    if spec.pseudo is not None:  # the task's own copy: what it adds is given back
        sums, counts = spec.pseudo
        tree.pseudo = np.stack([sums, counts]).astype(np.float64)
    return tree


def _added(tree: Any, start: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
    """What the task added to the pseudo-costs it started from (``start``)."""
    if start is None or tree.pseudo is None:
        return None
    delta = tree.pseudo - start
    return delta[0], np.rint(delta[1]).astype(np.int32)


def weights_of(instance: Instance) -> np.ndarray:
    return bnb_weights(instance)


class _Shared:
    """A task's view of the shared incumbent and of the caller's word (None: a task run in
    the caller, at the ramp-up)."""

    def __init__(self, token: str | None) -> None:
        self.inc: Any = None
        self.ctl: Any = None
        if token is not None:
            from distributed import Variable

            self.inc, self.ctl = Variable(f"{token}-inc"), Variable(f"{token}-ctl")
        self.last = time.perf_counter()
        self.hungry = self.stop = False

    def sync(self, tree: Any, mip_gap: float, base_step: float, force: bool = False) -> None:
        if self.inc is None or not (force or time.perf_counter() - self.last >= SYNC_SECONDS):
            return
        self.last = time.perf_counter()
        shared = self.inc.get()
        if shared is not None:
            tree.offer(float(shared[0]), tuple(shared[1]))
        if tree.incumbent is not None and tree.best is not None and \
                (shared is None or tree.incumbent > shared[0] + 1e-9):
            self.inc.set((tree.incumbent, tree.best))  # a race only weakens the pruning
        if mip_gap > 0.0 and tree.incumbent is not None:
            tree.step = max(base_step, mip_gap * abs(tree.incumbent))
        word = self.ctl.get()
        self.hungry, self.stop = bool(word["hungry"]), bool(word["stop"])


def explore(spec: Spec, queens: tuple[int, ...], upper: bytes, bound: float,
            incumbent: tuple[float, tuple[int, ...]] | None, budget: int,
            shared: bool = True) -> Piece:
    """Search the subtree of ``queens`` (bound ``bound``, allowed squares ``upper``
    packed) depth first from ``incumbent``, for at most ``budget`` nodes; what it found and
    its untried children. ``shared``: on a worker, with the search's shared Variables."""
    from nqmip.bnb.parallel import _abandon

    begin, cpu = time.perf_counter(), time.thread_time()
    tree = _tree_for(spec)
    start = None if tree.pseudo is None else tree.pseudo.copy()
    base_step = tree.step
    n = tree.n
    if incumbent is not None:
        tree.offer(float(incumbent[0]), tuple(incumbent[1]))
    link = _Shared(spec.token if shared else None)
    link.sync(tree, spec.mip_gap, base_step, force=True)
    for square in queens:
        tree.place(square, 1)
    left: list[tuple[float, tuple[int, ...], bytes]] = []
    try:
        need = tree.need()
        if not link.stop and (need is None or bound >= need):
            allowed = np.unpackbits(np.frombuffer(upper, np.uint8))[: n * n].astype(np.int8)
            level = tree.open(allowed, None)
            tree.levels = [] if level is None else [level]
        while tree.levels and tree.nodes < budget and not tree.reached():
            link.sync(tree, spec.mip_gap, base_step)
            if link.stop or (link.hungry and tree.nodes >= MIN_NODES):
                break
            tree.advance()
        if not link.stop:
            left = _hand_back(tree, queens)
    finally:  # the board as it was, whatever happened (the thread's tree serves again)
        _abandon(tree)
        for square in queens:
            tree.place(square, -1)
    link.sync(tree, spec.mip_gap, base_step, force=True)
    tree.step = base_step
    return Piece(tree.nodes, tree.incumbent, tree.best, left, tree.reached(),
                 time.perf_counter() - begin, time.thread_time() - cpu,
                 _added(tree, start))


def _hand_back(tree: Any, base: tuple[int, ...]) -> list[tuple[float, tuple[int, ...], bytes]]:
    """The untried children of every level of ``tree`` (below the task's ``base``), as
    (bound, queens, packed allowed squares)."""
    out = []
    path = list(base)
    for level in tree.levels:
        if level.queen >= 0:
            path.append(level.queen)
        if level.pos < len(level.children):
            packed = np.packbits(level.upper.astype(np.uint8)).tobytes()
            for child_bound, square in level.children[level.pos:]:
                out.append((child_bound, (*path, square), packed))
    return out
