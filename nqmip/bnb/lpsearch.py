"""The branch and bound with the LP relaxation at every node (maximisation), for boards
where the Lagrangian kernel's node bound falls too far below the LP.

Why: the kernel (:mod:`nqmip.bnb.kernels`) bounds a node by a few subgradient steps from
its parent's multipliers. Measured on the toulbar2 family (N = 32, seed 123456789), a
child's bound from its parent's *exact* LP multipliers stays at the parent's value after 10
steps while the child's LP is 4 to 7 higher, and the proof's tree grows with it (seed
123456789, the optimum given as the incumbent, one thread): at N = 32, 105,491 kernel
nodes in 12.4 s against 6,448 LP nodes in 10.5 s; N = 36, 134,043 kernel nodes (10 steps a
node: 44,101, 15.1 s) against 6,909 in 13.3 s; N = 40, 758,529 kernel nodes in 152 s (10
steps: 213,116 in 113 s) against 26,475 in 74 s. An LP node costs 10 to 20 times a kernel
node, and the tree is 6 to 29 times smaller; the LP search wins from N = 32 on.

The node: HiGHS's dual simplex from its parent's basis (:mod:`nqmip.bnb.lp`), stopped as
soon as it shows the node cannot beat the incumbent. Then, as in the kernel: every square
whose reduced cost puts its bound below the incumbent is ruled out for the subtree
(reduced-cost fixing); an integral LP solution is a placement (the incumbent, and the node
is closed); the branching line is the free row or column with the fewest squares left
(first fail), its squares best bound first (the node's value less the reduced cost, ties by
the LP's value of the square), those whose pseudo-costs are not yet reliable tried first
by a few dual simplex iterations, which rule out the squares that cannot reach the
incumbent (:mod:`nqmip.bnb.reliability`); every opened node dives for a
placement along its reduced costs (:mod:`nqmip.bnb.dive`), and, when switched on, now and
then the incumbent's neighbourhood by the node's LP is searched exactly
(:mod:`nqmip.bnb.rins`). Depth first
within a task, one level per placed queen, tasks best bound first among the workers
(:mod:`nqmip.bnb.parallel`); on whole weights in rounds of a falling target
(:mod:`nqmip.bnb.rounds`). The bound reported when it stops early is the best among the
untried children and tasks.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqmip.bnb import binary, conflicts, ordering, parallel, reliability
from nqmip.bnb.common import NONE_OPEN, Outcome, bnb_weights, global_bound, need_step
from nqmip.bnb.dive import DIVE_NODES, dive_at
from nqmip.bnb.lp import NodeLP, NodeSolution, OutOfTime, root_cliques
from nqmip.bnb.rins import RINS_SECONDS, Rins, improve
from nqmip.bnb.rounds import in_rounds
from nqmip.budget import Deadline
from nqmip.chunks import why_stopped
from nqmip.instance import Instance
from nqmip.result import Termination


@dataclass
class Level:
    """An opened node: the squares still allowed below it (``upper``, 0/1), its basis,
    its children as (bound, square) best first, the next one to try, and the square of
    the queen placed to reach it (-1 at the root)."""

    upper: np.ndarray
    basis: Any
    children: list[tuple[float, int]]
    pos: int = 0
    queen: int = -1
    est: np.ndarray | None = None  # reliability branching: its squares' estimates
    branch: tuple[float, float] | None = None  # binary: the node's LP value, the square's


#: Branching by pseudo-costs (the line with the fewest children predicted to reach the
#: incumbent): off, measured in docs/bnb.md (85,936 nodes against 73,310 over six boards
#: of N = 28 and 32, fewer on two of them); a benchmark's switch.
PSEUDO_COSTS = False
#: Reduced-cost fixing at every node (a benchmark's switch: 1.5 to 2.9 times the nodes
#: without it at N = 28).
REDUCED_COST_FIXING = True
#: Reliability branching (:mod:`nqmip.bnb.reliability`): the first-fail line's children
#: whose pseudo-costs are not yet reliable tried within an iteration limit, a child shown
#: below the incumbent ruled out. On (False: the line's children by their reduced costs
#: alone): toulbar2, seeds 123456789, 1, 2, one thread (docs/bnb.md), N = 28, 32 and 36
#: 65,915 nodes in 173.9 CPU s against 118,348 in 189.6; from N = 32 on, 0.60 times the
#: nodes in 0.97 times the CPU time (148.1 s against 153.4).
RELIABILITY = True
#: The neighbourhood step by default: off. Measured on and off alternated (docs/bnb.md,
#: toulbar2 N = 36 and 40, seeds 1-3): the median proof 1.01-1.03 times as long with it in
#: ``bnb``, 1.12 in auto's two workers (N = 36, seeds 1 and 2); it found the optimum of one
#: board of six (N = 40 seed 1, 137 against 139 at 300 s) and nothing the dives had not on
#: the others. ``lp_branch_and_bound(neighbourhood=True)`` turns it on.
NEIGHBOURHOOD = False
#: Conflict learning (:mod:`nqmip.bnb.conflicts`): a pruned node's duals give a nogood, a
#: set of its queens that no node holding them can make worth its need. Off: toulbar2,
#: seeds 123456789, 1, 2, N = 28 and 32, one thread (docs/bnb.md), 39,082 nodes in 100.0
#: CPU s against 39,119 in 94.1; nogoods of 5 to 6 queens, none pruned a node whole.
CONFLICTS = False
#: Binary branching on a fractional square instead of a line's children
#: (:mod:`nqmip.bnb.binary`): off. Toulbar2, seeds 123456789, 1, 2, N = 28, 32 and 36, the
#: optimum given, one thread (docs/bnb.md, Part 9): 48,447 nodes in 101.8 CPU s against
#: 41,213 in 108.0; N = 36 alone 1.27 times the nodes in as much time. Not on a cluster.
BINARY = False
#: Clique rows (:mod:`nqmip.bnb.cliques`): the root's, kept in every node's LP
#: (:func:`nqmip.bnb.lp.root_cliques`), and one round at the nodes less than
#: ``CLIQUE_DEPTH`` deep, kept for the subtree. On: toulbar2 N = 28-40, the optimum given,
#: one thread (docs/bnb.md, Part 11): 59,009 nodes in 211.0 CPU s against 80,121 in 238.4.
CLIQUES = True
CLIQUE_DEPTH = 4


@dataclass
class Tree:
    """The search's state: the board (queens placed, lines free), the levels of the
    depth-first search and the incumbent."""

    w: np.ndarray
    step: float
    lp: NodeLP
    lower: np.ndarray
    lines: np.ndarray  # per square: its row, column, diagonal and anti-diagonal (4 x n^2)
    free: list[np.ndarray]  # 1 where the row, column, diagonal, anti-diagonal is free
    levels: list[Level] = field(default_factory=list)
    incumbent: float | None = None
    best: tuple[int, ...] | None = None
    nodes: int = 0
    qcol: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # per row
    dives: int = DIVE_NODES  # nodes of the dive at every opened node (0: none)
    floor: float | None = None  # a target: only nodes that reach it are opened
    ceiling: float | None = None  # a proven bound: an incumbent that reaches it is optimal
    rins: Rins | None = None  # the neighbourhood step's state (None: no step)
    fixed: tuple[tuple[int, int], ...] = ()  # the board's fixed queens
    # pseudo-costs: per square, the sum and number of (child's estimate - child's LP)
    pseudo: np.ndarray | None = None
    seen: float | None = None  # the last opened node's LP value (None: infeasible)
    reliable: bool = False  # reliability branching (with ``pseudo``)
    nogoods: conflicts.Nogoods | None = None  # conflict learning's store (None: off)
    binary: np.ndarray | None = None  # binary branching's pseudo-costs (None: lines)

    def reached(self) -> bool:
        return self.ceiling is not None and self.incumbent is not None and \
            self.incumbent >= self.ceiling - 1e-9

    @property
    def n(self) -> int:
        return int(self.w.shape[0])

    def need(self) -> float | None:
        """What a node's bound must reach to be opened (None: anything)."""
        need = None if self.incumbent is None else self.incumbent + self.step
        if self.floor is not None and (need is None or need < self.floor):
            return self.floor
        return need

    def offer(self, value: float, placement: tuple[int, ...]) -> None:
        if self.incumbent is None or value > self.incumbent + 1e-9:
            self.incumbent = value
            self.best = placement

    def place(self, square: int, sign: int) -> None:
        """Put (sign 1) or take back (sign -1) a queen on ``square``."""
        self.lower[square] = 1 if sign > 0 else 0
        self.qcol[square // self.n] = square % self.n if sign > 0 else -1
        for kind in range(4):
            self.free[kind][self.lines[kind, square]] = 0 if sign > 0 else 1
        if self.nogoods is not None:
            self.nogoods.place(square, sign)

    def live(self, upper: np.ndarray) -> np.ndarray:
        """The squares a queen may still take: allowed, on four free lines."""
        ok = upper.astype(bool)
        for kind in range(4):
            ok &= self.free[kind][self.lines[kind]].astype(bool)
        return ok

    def open(self, upper: np.ndarray, basis: Any) -> Level | None:
        """Solve the node of the current board; its level, or None if it is closed
        (infeasible, bounded below the incumbent, or solved by an integral LP, or, with
        conflict learning, pruned by a nogood before its LP)."""
        need = self.need()
        if self.nogoods is not None:
            kept = self.nogoods.rule_out(upper, self.live, need)
            if kept is None:
                self.seen = None
                return None
            upper = kept
        self.nodes += 1
        if basis is None:  # a task's first node: no path's cliques below it
            self.lp.truncate(self.lp.base)
        sol = self.lp.solve(self.lower, upper, basis, need)
        self.seen = need if sol is None else sol.value
        if sol is None or (need is not None and sol.value < need):
            if self.nogoods is not None:
                self.nogoods.learn(self.lp, self.w, self.lines, self.lower, self.fixed, need)
            return None
        if CLIQUES and len(self.levels) < CLIQUE_DEPTH and not _integral(sol.x):
            sol = self.lp.strengthen(self.lower, upper, sol, need)
            if sol is None or (need is not None and sol.value < need):
                self.seen = need if sol is None else sol.value
                return None
            self.seen = sol.value
        if _integral(sol.x):
            self._take_integral(sol.x)
            return None
        upper = upper.copy()
        need = self.need()
        if need is not None and REDUCED_COST_FIXING:  # these squares cannot reach `need`
            upper[(sol.value - sol.rc < need) & (self.lower == 0)] = 0
        if self.dives:
            self._dive(sol, upper)
        if self.rins is not None and self.best is not None and self.rins.due(self.nodes):
            self._rins(sol)
        need = self.need()
        if self.binary is not None and need is not None and (picked := binary.choose(
                self.lp, sol, self.lower, upper, self.live(upper), need, self.binary)):
            return Level(upper, sol.basis, picked[0], branch=(sol.value, picked[1])) \
                if picked[0] else None
        if self.reliable and need is not None:
            return self._reliable(sol, upper, need)
        return Level(upper, sol.basis, self._children(sol, upper, need))

    def _reliable(self, sol: NodeSolution, upper: np.ndarray, need: float) -> Level | None:
        """The node's level with the line of reliability branching
        (:mod:`nqmip.bnb.reliability`); None if its trials closed it."""
        assert self.pseudo is not None
        n = self.n
        est = reliability.estimates(sol)
        squares, bounds = reliability.choose(
            self.lp, sol, est, self.lower, upper, self.live(upper).reshape(n, n),
            np.flatnonzero(self.free[0]), np.flatnonzero(self.free[1]), need, self.pseudo,
            self._learner(need))
        if squares.size == 0:
            return None
        order = ordering.children(sol, squares, bounds, self.pseudo)
        children = [(float(bounds[i]), int(squares[i])) for i in order]
        return Level(upper, sol.basis, children, est=est)

    def _learner(self, need: float) -> Callable[[int], None] | None:
        """What learns from a trial that ruled a square out (None: nothing)."""
        store = self.nogoods
        if store is None or not conflicts.TRIALS:
            return None
        return lambda square: store.learn(self.lp, self.w, self.lines, self.lower,
                                          self.fixed, need, square)

    def _dive(self, sol: NodeSolution, upper: np.ndarray) -> None:
        """A placement along the LP's reduced costs (:mod:`nqmip.bnb.dive`), offered."""
        n = self.n
        allowed = self.live(upper).reshape(n, n).astype(np.int8)
        key = ordering.dive_key(sol, self.pseudo).reshape(n, n)
        out = self.qcol.copy()
        if dive_at(allowed, key, self.w, self.need(), self.free, self.dives, out):
            self._offer_placement(out)

    def _rins(self, sol: NodeSolution) -> None:
        """The neighbourhood of the incumbent by the node's LP (:mod:`nqmip.bnb.rins`)."""
        assert self.rins is not None and self.best is not None
        began = time.perf_counter()
        step = improve(self.w, sol.x, self.best, self.rins.deadline.sub(RINS_SECONDS),
                       self.rins.free, fixed=self.fixed)
        self.rins.spent(self.nodes, time.perf_counter() - began, step)
        if step.found is not None:
            self._offer_placement(np.asarray(step.found[1]))

    def _take_integral(self, x: np.ndarray) -> None:
        self._offer_placement(np.argmax(x.reshape(self.n, self.n), axis=1))

    def _offer_placement(self, cols: np.ndarray) -> None:
        """A placement (a column per row) as the incumbent, if it is one and better."""
        n = self.n
        placement = tuple(int(c) for c in cols)
        if len(set(placement)) == n and len({r - c for r, c in enumerate(placement)}) == n \
                and len({r + c for r, c in enumerate(placement)}) == n:
            self.offer(float(self.w[np.arange(n), cols].sum()), placement)

    def _children(self, sol: NodeSolution, upper: np.ndarray,
                  need: float | None) -> list[tuple[float, int]]:
        """The squares of the free row or column with the fewest live squares (first
        fail; ties: the most fractional line, whose largest LP value is least), as (bound,
        square), best first. The tie rule, measured in nodes over the whole run from the
        explicit start (toulbar2 family, seed 123456789): N = 36 15,733 to 12,500; N = 32
        (optimum given) 9,881 to 7,798; N = 28 10,512 to 11,096."""
        n = self.n
        live = self.live(upper).reshape(n, n)
        rows = np.flatnonzero(self.free[0])
        cols = np.flatnonzero(self.free[1])
        if rows.size == 0:
            return []
        xs = sol.x.reshape(n, n)  # ties: the line whose largest LP value is least
        row_keys = live[rows].sum(axis=1) + 0.5 * xs[rows].max(axis=1)
        col_keys = live[:, cols].sum(axis=0) + 0.5 * xs[:, cols].max(axis=0)
        if self.pseudo is not None and need is not None:
            kept = live & self._predicted(sol, need)
            row_keys = row_keys + (n + 1) * kept[rows].sum(axis=1)
            col_keys = col_keys + (n + 1) * kept[:, cols].sum(axis=0)
        if col_keys.min() < row_keys.min():
            c = int(cols[np.argmin(col_keys)])
            squares = np.flatnonzero(live[:, c]) * n + c
        else:
            r = int(rows[np.argmin(row_keys)])
            squares = r * n + np.flatnonzero(live[r])
        est = sol.value - np.maximum(sol.rc[squares], 0.0)
        keep = est >= need if need is not None else np.ones(squares.size, bool)
        order = np.lexsort((-sol.x[squares[keep]], -est[keep]))
        return [(float(est[keep][i]), int(squares[keep][i])) for i in order]

    def _predicted(self, sol: NodeSolution, need: float) -> np.ndarray:
        """The squares whose child the pseudo-costs predict to reach ``need`` (n x n): the
        node's value less the reduced cost and the square's average loss so far (the
        average of all squares where it has none)."""
        assert self.pseudo is not None
        total, count = self.pseudo
        mean = total.sum() / max(count.sum(), 1.0)
        loss = np.where(count > 0, total / np.maximum(count, 1.0), mean)
        return (sol.value - np.maximum(sol.rc, 0.0) - loss >= need).reshape(self.n, self.n)

    def advance(self) -> bool:
        """Open the next node; True when nothing is left open."""
        while self.levels:
            top = self.levels[-1]
            need = self.need()
            if top.pos < len(top.children):
                bound, square = top.children[top.pos]
                top.pos += 1
                if need is not None and bound < need:
                    if top.branch is None and ordering.sorted_by_bound():  # the rest neither
                        top.pos = len(top.children)
                    continue
                if top.branch is not None:
                    binary.open_child(self, top, square)
                    return False
                self.place(square, 1)
                level = self.open(top.upper, top.basis)
                if self.pseudo is not None and self.seen is not None:
                    if top.est is not None:
                        bound = float(top.est[square])
                    self.pseudo[0, square] += max(bound - self.seen, 0.0)
                    self.pseudo[1, square] += 1
                if level is None:
                    self.place(square, -1)
                else:
                    level.queen = square
                    self.levels.append(level)
                return False
            done = self.levels.pop()
            if done.queen >= 0:
                self.place(done.queen, -1)
        return True

    def open_bound(self) -> float:
        """The best bound among the children not yet tried (``NONE_OPEN`` if none)."""
        top = NONE_OPEN
        for level in self.levels:
            if level.pos < len(level.children):
                left = level.children[level.pos:]  # binary, ordering: not by bound
                top = max(top, max(left)[0])
        return top


def _integral(x: np.ndarray) -> bool:
    return bool(np.all(np.abs(x - np.round(x)) < 1e-6))


def _tree(instance: Instance, w: np.ndarray, lp: NodeLP) -> Tree | None:
    """The search's state with the fixed queens placed; None if two of them attack."""
    n = instance.n
    r, c = np.divmod(np.arange(n * n), n)
    lines = np.stack([r, c, r - c + n - 1, r + c])
    free = [np.ones(n, np.int8), np.ones(n, np.int8), np.ones(2 * n - 1, np.int8),
            np.ones(2 * n - 1, np.int8)]
    tree = Tree(w, need_step(instance), lp, np.zeros(n * n, np.int8), lines, free,
                qcol=np.full(n, -1, np.int64), fixed=tuple(instance.fixed))
    for row, col in instance.fixed:
        square = row * n + col
        if not all(free[kind][lines[kind, square]] for kind in range(4)):
            return None
        tree.place(square, 1)
    return tree


def lp_branch_and_bound(instance: Instance, deadline: Deadline,
                        start: tuple[int, ...] | None = None, *, mip_gap: float = 0.0,
                        report: Callable[[float | None, float | None], None] | None = None,
                        incumbent: Callable[[], tuple[float, tuple[int, ...]] | None]
                        | None = None, rounds: bool = True, threads: int = 1,
                        spread: Callable[[np.ndarray, float], Any] | None = None,
                        state: dict[str, Any] | None = None,
                        neighbourhood: bool | None = None,
                        stats: dict[str, Any] | None = None) -> Outcome:
    """Solve ``instance`` (maximised) to optimality or until ``deadline``; the arguments
    are those of :func:`nqmip.bnb.search.branch_and_bound`. On whole weights (and no
    ``mip_gap``) the search runs in rounds of a falling target (:mod:`nqmip.bnb.rounds`)
    unless ``rounds`` is False; ``threads`` workers share the tree
    (:mod:`nqmip.bnb.parallel`); or ``spread(weights, root LP value)`` makes the engine
    that runs each search instead (:func:`nqmip.bnb.distributed.cluster_engine`: a Dask
    cluster's workers share the tree); ``state``: the rounds' (:func:`in_rounds`);
    ``neighbourhood``: the incumbent's neighbourhood step at the nodes
    (:mod:`nqmip.bnb.rins`; None: ``NEIGHBOURHOOD``); ``stats`` gets ``nogoods``, each
    worker's store of conflict learning (with ``CONFLICTS``), and ``lps``, the workers'
    node LPs (their iterations and hot starts)."""
    if neighbourhood is None:
        neighbourhood = NEIGHBOURHOOD
    if BINARY and spread is not None:
        raise ValueError("binary branching (lpsearch.BINARY) runs in threads, not on a cluster")
    n = instance.n
    w = bnb_weights(instance)
    value = None if start is None else float(w[np.arange(n), list(start)].sum())
    try:  # under the deadline: on a large board the LP's build and root are most of it
        lps = [NodeLP(w, deadline) for _ in range(max(1, threads))]
    except OutOfTime:
        return Outcome(why_stopped(deadline), start, value, None, 0, None)
    probe = _tree(instance, w, lps[0])
    if probe is None:
        return Outcome(Termination.INFEASIBLE, None, None, None, 0, None)
    try:  # under the deadline: on a large board the root LP is most of a short limit
        root = lps[0].solve(probe.lower, np.ones(n * n, np.int8), None, None,
                            seconds=deadline.seconds())
    except OutOfTime:
        return Outcome(why_stopped(deadline), start, value, None, 0, None)
    if CLIQUES and root is not None:
        root = root_cliques(lps, probe.lower, root, deadline.seconds)
    root_value = None if root is None else root.value
    shared = np.zeros((2, n * n))  # reliability branching's pseudo-costs
    signs = binary.table(n) if BINARY else None  # binary branching's
    stores = [conflicts.Nogoods(n) if CONFLICTS else None for _ in lps]  # kept all rounds
    if stats is not None:
        stats["nogoods"] = [store for store in stores if store is not None]
        stats["lps"] = lps

    def local(begin: tuple[int, ...] | None, floor: float | None,
               tell: Callable[[float | None, float | None], None] | None,
               ceiling: float | None) -> Outcome:
        trees = []
        for lp, store in zip(lps, stores, strict=True):
            tree = _tree(instance, w, lp)
            assert tree is not None  # as the probe
            if store is not None:
                store.attach(tree.lower)
                tree.nogoods = store
            tree.floor, tree.ceiling = floor, ceiling
            tree.rins = Rins(deadline) if neighbourhood else None
            tree.pseudo = np.zeros((2, n * n)) if PSEUDO_COSTS else None
            if RELIABILITY:  # one record for all rounds and workers
                tree.pseudo, tree.reliable = shared, True
            tree.binary = signs
            trees.append(tree)
        pool = parallel.Pool(len(trees))
        if begin is not None:
            pool.share(float(w[np.arange(n), list(begin)].sum()), tuple(begin))
        return _search(trees, pool, instance, deadline, mip_gap, root_value, tell, incumbent)

    engine: Any = local
    if spread is not None and root_value is not None:
        engine = spread(w, root_value)
    if not rounds or mip_gap > 0.0 or not instance.integral:
        return engine(start, None, report, None)
    low = float(w.min(axis=1).sum())
    return in_rounds(instance, deadline, start, value, root_value, low, engine, report,
                     state)


def _search(trees: list[Tree], pool: parallel.Pool, instance: Instance, deadline: Deadline,
            mip_gap: float, root: float | None,
            report: Callable[[float | None, float | None], None] | None,
            incumbent: Callable[[], tuple[float, tuple[int, ...]] | None] | None) -> Outcome:
    """One search of the whole tree by the workers of ``trees``, until it ends or
    ``deadline``."""
    n = trees[0].n
    base_step = trees[0].step
    root_bound = None if root is None else instance.rounded_bound(root)
    last = [time.perf_counter()]

    def bound() -> float | None:
        pruned = pool.incumbent
        floor = trees[0].floor
        if floor is not None:  # the nodes below the target were pruned too
            below = instance.rounded_bound(floor - trees[0].step)
            pruned = below if pruned is None else max(pruned, below)
        top = global_bound(pool.top(), pruned, trees[0].step, instance, mip_gap)
        if root_bound is not None:
            top = root_bound if top is None else min(top, root_bound)
        return top

    def tick() -> None:
        if incumbent is not None and (offer := incumbent()) is not None:
            pool.share(*offer)
        if mip_gap > 0.0 and pool.incumbent is not None:
            for tree in trees:
                tree.step = max(base_step, mip_gap * abs(pool.incumbent))
        if report is not None and time.perf_counter() - last[0] >= 0.2:
            last[0] = time.perf_counter()
            report(pool.incumbent, bound())

    tick()
    if root is None:
        why = Termination.OPTIMAL
    else:
        task = parallel.Task(-root, 0, (), np.ones(n * n, np.int8), None)
        why = parallel.run(list(trees), pool, task, deadline, tick)
    nodes = sum(tree.nodes for tree in trees)
    if why is Termination.OPTIMAL:
        if pool.best is None:
            return Outcome(Termination.INFEASIBLE, None, None, None, nodes, root_bound)
        return Outcome(Termination.OPTIMAL, pool.best, pool.incumbent, bound(), nodes,
                       root_bound)
    return Outcome(why, pool.best, pool.incumbent, bound(), nodes, root_bound)
