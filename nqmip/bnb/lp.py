"""The node LP of :mod:`nqmip.bnb.lpsearch`: the LP relaxation of the board, solved by
HiGHS's dual simplex from the parent's basis at every node.

One column per square (``k = r * n + c``), cost ``-w`` (HiGHS minimises; the search works
in the maximisation's terms), one row per row and column (``= 1``) and per diagonal and
anti-diagonal of two or more squares (``<= 1``). A node is the board with some squares
forced to 1 (its queens) and some to 0 (ruled out above it by reduced costs): only column
bounds change from node to node, so the parent's basis stays a dual feasible start and a
child needs a few dual simplex steps (29 a node on average at N = 28 of the toulbar2 family,
against 51 from whatever basis the last node left). With ``cutoff`` HiGHS stops as soon as
its dual objective shows that the node cannot beat the incumbent (``objective_bound``):
a quarter of the LP time at N = 28.

Clique rows (:mod:`nqmip.bnb.cliques`, with ``nqmip.bnb.lpsearch.CLIQUES``) come after the
lines: the root's, kept for good (:func:`root_cliques`), and a node's, kept for its
subtree. A basis remembers the rows it was taken with (their number and a stamp of the
last one); a node solved from its parent's basis first drops the rows added since
(:meth:`NodeLP.truncate`), so the LP holds the cliques of the root and of the node's path
only; a basis whose rows are gone (or another worker's) starts from HiGHS's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from nqmip import highs_threads
from nqmip.bnb import oddcycles
from nqmip.bnb.cliques import ROOT_ROUNDS, violated
from nqmip.formulation.matrix import pass_arrays

if TYPE_CHECKING:
    from nqmip.budget import Deadline

#: Odd-cycle rows at the root (:mod:`nqmip.bnb.oddcycles`), in the rounds of
#: :func:`root_cliques` that find no violated clique. Off: toulbar2 N = 28 and 32, the
#: optimum given, one thread (docs/bnb.md, Part 12), 16,251 nodes in 79.4 CPU s against
#: 14,656 in 63.6, though the root's bound rises by 0.4 to 1.4 more.
ODD_CYCLES = False
#: The dual simplex's pricing: Dantzig's rule (``simplex_dual_edge_weight_strategy = 0``)
#: against HiGHS's default (dual steepest edge): 7.7 s against 9.4 s of LP time over the
#: same 7,000 nodes at N = 28 of the toulbar2 family (Devex 9.0 s).
PRICING = 0
#: Hot start: a run asked to start from the basis HiGHS already holds (the one the last
#: optimal solve returned, no other run since: a node's first child, or its first trial)
#: skips ``setBasis``, which throws away HiGHS's factorization (``changeColsBounds`` keeps
#: it); the dual simplex goes on from its current basis. Off: it skips 59 % of the
#: setBasis calls and saves 0.09 ms a run at N = 40 (0.28 ms against 0.37 for a run of no
#: iteration), the same iterations a node (58.2 against 58.5), 2.48 against 2.45 CPU ms a
#: node over the nine boards of docs/bnb.md (N = 28, 32, 36): no gain, and its degenerate
#: LPs end on other optimal duals, which grew three trees of nine by half.
HOT_START = False
#: Only the columns whose bounds differ from those HiGHS holds are sent (``changeColsBounds``
#: on an index set): a node differs from the last run in a few dozen columns of n^2.
#: Measured in the search, one thread, the optimum given (docs/bnb.md, Part 8): the call
#: took 0.23 and 0.27 CPU ms a node at N = 36 and 40 with all columns, 0.03 and 0.04 with
#: the changed ones; a node 3.05 to 2.89 ms at N = 36, 3.61 to 3.35 at N = 40, the same
#: nodes and iterations. False: all columns every run (the same LPs; a benchmark's switch).
INCREMENTAL_BOUNDS = True


@dataclass
class NodeSolution:
    """A node's LP in the maximisation's terms: ``value`` (an upper bound on every
    completion), the squares' values ``x`` and reduced costs ``rc`` (a square's bound when
    forced to 1 is at most ``value - rc``), and the basis its children start from."""

    value: float
    x: np.ndarray
    rc: np.ndarray
    basis: Any


@dataclass
class _Basis:
    """HiGHS's basis ``hb`` of the LP ``owner`` when it had ``rows`` rows, the last one
    stamped ``top``."""

    hb: Any
    rows: int
    top: int
    owner: Any


class OutOfTime(Exception):
    """A solve given ``seconds`` (:meth:`NodeLP.solve`) ran out of them."""


class NodeLP:
    """The board's LP relaxation in HiGHS, re-solved under new column bounds."""

    def __init__(self, w: np.ndarray, deadline: Deadline | None = None) -> None:
        """The LP of the weights ``w``; :class:`OutOfTime` when ``deadline`` ends while
        its rows are handed to HiGHS (a 2,000-board's take 5 s)."""
        import highspy

        self._hs = highspy
        n = w.shape[0]
        self.n = n
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", 1)  # every run: highs_threads.prepare(1)
        h.setOptionValue("simplex_dual_edge_weight_strategy", PRICING)
        size = n * n
        self._all = np.arange(size, dtype=np.int32)
        lines = _lines(n)
        indptr = np.zeros(len(lines) + 1, dtype=np.int64)
        np.cumsum([count for _, _, count, _ in lines], out=indptr[1:])
        indices = np.fromiter((k for _, cells, _, _ in lines for k in cells),
                              dtype=np.int32, count=int(indptr[-1]))
        if not pass_arrays(h, highspy, -np.asarray(w, dtype=np.float64).ravel(),
                           np.zeros(size), np.ones(size),
                           np.array([lower for _, _, _, lower in lines]),
                           np.ones(len(lines)), indptr, indices, np.ones(indices.size),
                           integer=False, maximise=False, deadline=deadline):
            raise OutOfTime
        self.h = h
        self.rows = h.getNumRow()  # the lines, then the cliques added (:meth:`add_rows`)
        self.lines = self.rows  # the rows of the lines
        self._added: list[np.ndarray] = []  # the squares of the rows added, in order
        self._sides: list[float] = []  # their right sides
        # per row, a number no other row had (a basis knows its rows by its last one's)
        self._stamps = list(range(self.rows))
        self._stamp = self.rows
        # the dual simplex iterations of the solves, the trials and conflict learning's
        self.iterations = [0, 0, 0]
        self.cuts = 0  # the cliques added (:meth:`strengthen`)
        self.cycles = 0  # the odd cycles added (:func:`root_cliques`)
        self.hot = 0  # the runs that skipped setBasis (HOT_START)
        self._held: Any = None  # the basis object HiGHS holds now (None: not known)
        self._closed = (highspy.HighsModelStatus.kInfeasible,
                        highspy.HighsModelStatus.kObjectiveBound)
        # the column bounds HiGHS holds (0/1), as added above
        self._lower = np.zeros(size, np.int8)
        self._upper = np.ones(size, np.int8)
        self.base = self.rows  # the rows every node keeps (:meth:`keep`)

    def _bounds(self, lower: np.ndarray, upper: np.ndarray) -> None:
        """HiGHS's column bounds set to ``lower``, ``upper`` (0/1 per square): only the
        columns that differ from the bounds it holds, with ``INCREMENTAL_BOUNDS``."""
        if INCREMENTAL_BOUNDS:
            differ = np.not_equal(lower, self._lower)
            differ |= np.not_equal(upper, self._upper)
            cols = differ.nonzero()[0].astype(np.int32)
            if cols.size == 0:
                return
        else:
            cols = self._all
        self.h.changeColsBounds(cols.size, cols, lower.take(cols).astype(np.float64),
                                upper.take(cols).astype(np.float64))
        np.copyto(self._lower, lower)
        np.copyto(self._upper, upper)

    def _run(self, lower: np.ndarray, upper: np.ndarray, basis: Any, cutoff: float | None,
             count: int) -> Any:
        """The dual simplex under ``lower``, ``upper`` from ``basis`` (None: the last one),
        cut off below ``cutoff``; its iterations added to ``iterations[count]`` (0: the
        solves, 1: the trials). Returns HiGHS's model status."""
        h = self.h
        self._bounds(lower, upper)
        h.setOptionValue("objective_bound", self._hs.kHighsInf if cutoff is None else -cutoff)
        if basis is not None:
            held = self._prepared(basis)
            if HOT_START and basis is self._held:
                self.hot += 1
            elif held is not None:
                h.setBasis(held)
        self._held = None  # this run moves HiGHS's basis
        highs_threads.prepare(1)
        h.run()
        self.iterations[count] += int(h.getInfo().simplex_iteration_count)
        return h.getModelStatus()

    def add_rows(self, rows: list[np.ndarray], rhs: list[float] | None = None) -> None:
        """Rows ``sum of x over the squares <= 1`` (or ``<= rhs``), one per array of
        squares (the cliques of :mod:`nqmip.bnb.cliques`, the odd cycles of
        :mod:`nqmip.bnb.oddcycles`), after the others: HiGHS keeps its basis, the new
        rows' slacks basic. A basis taken before them cuts them off again
        (:meth:`_prepared`): a node's rows are kept for its subtree only."""
        if not rows:
            return
        sides = [1.0] * len(rows) if rhs is None else list(rhs)
        sizes = np.array([cells.size for cells in rows])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int32)
        index = np.concatenate(rows).astype(np.int32)
        self.h.addRows(len(rows), np.full(len(rows), -np.inf), np.asarray(sides),
                       index.size, starts, index, np.ones(index.size))
        self._stamps.extend(range(self._stamp, self._stamp + len(rows)))
        self._added.extend(rows)
        self._sides.extend(sides)
        self._stamp += len(rows)
        self.rows += len(rows)

    def strengthen(self, lower: np.ndarray, upper: np.ndarray, sol: NodeSolution,
                   cutoff: float | None, seconds: float | None = None) -> NodeSolution | None:
        """The LP just solved (``sol``) again with the cliques its solution violates
        added (:func:`nqmip.bnb.cliques.violated`), from the basis HiGHS holds (``sol``
        itself when none is violated); None when it is then shown below ``cutoff`` (or
        infeasible). ``seconds``: as :meth:`solve`'s."""
        cuts = violated(self.n, sol.x)
        if not cuts:
            return sol
        self.add_rows(cuts)
        self.cuts += len(cuts)
        return self.solve(lower, upper, None, cutoff, seconds=seconds)

    def keep(self, rows: list[np.ndarray], rhs: list[float] | None = None) -> None:
        """``rows`` (the root's cliques and odd cycles, when other rows are added; right
        sides ``rhs``, 1 if None) made part of the LP for good: no basis cuts them off."""
        self.add_rows(rows, rhs)
        self.base = self.rows

    def added(self) -> list[np.ndarray]:
        """The squares of every row added (:meth:`add_rows`) and held, in order."""
        return list(self._added)

    def sides(self) -> list[float]:
        """The right sides of the rows of :meth:`added`, in order."""
        return list(self._sides)

    def truncate(self, rows: int) -> None:
        """The rows past the first ``rows`` deleted (the cliques of a subtree left)."""
        if self.rows > rows:
            self.h.deleteRows(self.rows - rows, np.arange(rows, self.rows, dtype=np.int32))
            del self._stamps[rows:]
            del self._added[rows - self.lines:]
            del self._sides[rows - self.lines:]
            self.rows = rows

    def _prepared(self, basis: _Basis) -> Any:
        """HiGHS's basis of ``basis`` with the LP's rows cut back to those it was taken
        with; None (the rows cut back to the root's) when they are gone, or it is another
        LP's (a task from another worker)."""
        rows = basis.rows
        if basis.owner is self and self.base <= rows <= self.rows and \
                self._stamps[rows - 1] == basis.top:
            self.truncate(rows)
            return basis.hb
        self.truncate(self.base)
        return None

    def limit(self, iterations: int | None) -> None:
        """At most ``iterations`` dual simplex iterations a solve from now on (None: no
        limit, as HiGHS's default): for trials (:func:`trial`)."""
        self.h.setOptionValue("simplex_iteration_limit",
                              self._hs.kHighsIInf if iterations is None else iterations)

    def trial(self, lower: np.ndarray, upper: np.ndarray, basis: Any,
              cutoff: float) -> float | None:
        """A bound on the LP under ``lower``, ``upper``, from ``basis`` within the
        iteration limit (:func:`limit`): the dual simplex's objective where it stopped
        (the LP's value if it finished; ``inf`` if HiGHS said nothing usable), None when
        it is infeasible or shown below ``cutoff``."""
        h, hs = self.h, self._hs
        status = self._run(lower, upper, basis, cutoff, 1)
        if status in self._closed:
            return None
        if status in (hs.HighsModelStatus.kOptimal, hs.HighsModelStatus.kIterationLimit):
            return -float(h.getInfo().objective_function_value)
        return float("inf")

    def duals(self) -> np.ndarray | None:
        """The last run's row duals (HiGHS's, of the minimisation), also where a cut-off
        stopped it (None: HiGHS has none): for :mod:`nqmip.bnb.conflicts`."""
        solution = self.h.getSolution()
        return np.asarray(solution.row_dual) if solution.dual_valid else None

    def infeasible(self) -> bool:
        """Whether the last run found the LP infeasible."""
        return bool(self.h.getModelStatus() == self._hs.HighsModelStatus.kInfeasible)

    def ray(self) -> np.ndarray | None:
        """The last run's dual ray when it found the LP infeasible (None: none)."""
        _, has, values = self.h.getDualRay()
        return np.asarray(values) if has else None

    def solve(self, lower: np.ndarray, upper: np.ndarray, basis: Any,
              cutoff: float | None, count: int = 0,
              seconds: float | None = None) -> NodeSolution | None:
        """The LP under the column bounds ``lower``, ``upper`` (0/1 per square), from
        ``basis`` (None: the last one), its iterations counted in ``iterations[count]``.
        None when it is infeasible or, with ``cutoff``, when its value is shown to be
        below ``cutoff``. ``seconds``: HiGHS's time limit for this solve (the root's, which
        takes most of a short limit on a large board: n = 80, 0.4 s), past which
        :class:`OutOfTime` is raised."""
        h, hs = self.h, self._hs
        if seconds is not None:
            h.setOptionValue("time_limit", max(seconds, 1e-3))
        try:
            status = self._run(lower, upper, basis, cutoff, count)
        finally:
            if seconds is not None:
                h.setOptionValue("time_limit", hs.kHighsInf)
        if status == hs.HighsModelStatus.kTimeLimit:
            raise OutOfTime
        if status != hs.HighsModelStatus.kOptimal and status not in self._closed:
            h.clearSolver()  # numerical trouble: once more from scratch, before giving up
            h.run()
            status = h.getModelStatus()
        if status in self._closed:
            return None  # infeasible, or cut off by the bound
        if status != hs.HighsModelStatus.kOptimal:
            raise RuntimeError(f"HiGHS could not solve a node LP: {h.modelStatusToString(status)}")
        solution = h.getSolution()
        value = -float(h.getInfo().objective_function_value)
        basis = _Basis(h.getBasis(), self.rows, self._stamps[-1], self)
        self._held = basis
        return NodeSolution(value, np.asarray(solution.col_value),
                            np.asarray(solution.col_dual), basis)


def root_cliques(lps: list[NodeLP], lower: np.ndarray, root: NodeSolution,
                 seconds: Callable[[], float | None]) -> NodeSolution | None:
    """The root's LP (``root``, of the first of ``lps``, under ``lower``) again with the
    cliques it violates, in rounds (``ROOT_ROUNDS``), and, with ``ODD_CYCLES``, in a round
    without a violated clique the odd cycles it violates (:mod:`nqmip.bnb.oddcycles`),
    until none is or ``seconds()`` (the time left) runs out, the last round's LP then left
    out; the rows kept for good in every one of ``lps``. The last LP (None: infeasible)."""
    first = lps[0]
    upper = np.ones(lower.size, np.int8)
    out: NodeSolution | None = root
    for _ in range(ROOT_ROUNDS):
        rows = first.rows
        try:
            again = first.strengthen(lower, upper, root, None, seconds=seconds())
            if again is not None and first.rows == rows and ODD_CYCLES:
                cycles = oddcycles.violated(first.n, again.x)
                first.add_rows([cells for cells, _ in cycles], [rhs for _, rhs in cycles])
                first.cycles += len(cycles)
                if cycles:
                    again = first.solve(lower, upper, None, None, seconds=seconds())
        except OutOfTime:
            break
        out = again
        if again is None or first.rows == rows:
            break
        root = again
    added, sides = first.added(), first.sides()
    first.keep([])
    for other in lps[1:]:
        other.keep(added, sides)
    return out


def line_rows(n: int) -> np.ndarray:
    """Per square (4 x n^2), the LP row of its row, column, diagonal and anti-diagonal in
    :class:`NodeLP`'s order (-1: a one-square diagonal, which has no row)."""
    out = np.full((4, n * n), -1, np.int64)
    for index, (kind, cells, _, _) in enumerate(_lines(n)):
        out[kind, cells] = index
    return out


def _lines(n: int) -> list[tuple[int, list[int], int, float]]:
    """Every row of the model, in :class:`NodeLP`'s order: its kind (0 row, 1 column, 2
    diagonal, 3 anti-diagonal), its squares, their number and its lower side (1 for the
    rows and columns, -inf for the diagonals)."""
    out: list[tuple[int, list[int], int, float]] = []
    for r in range(n):
        out.append((0, [r * n + c for c in range(n)], n, 1.0))
    for c in range(n):
        out.append((1, [r * n + c for r in range(n)], n, 1.0))
    for d in range(-(n - 1), n):
        cells = [r * n + (r - d) for r in range(n) if 0 <= r - d < n]
        if len(cells) > 1:
            out.append((2, cells, len(cells), -np.inf))
    for s in range(2 * n - 1):
        cells = [r * n + (s - r) for r in range(n) if 0 <= s - r < n]
        if len(cells) > 1:
            out.append((3, cells, len(cells), -np.inf))
    return out
