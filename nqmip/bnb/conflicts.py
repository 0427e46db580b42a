"""Conflict learning for the LP search (:mod:`nqmip.bnb.lpsearch`): a node its LP prunes
gives, from the LP's duals, a smaller set of its queens that no completion can take past
the bound either (a nogood), and every later node that holds such a set is pruned before
its LP.

Why it is valid: for any prices ``z`` of the LP's lines (free on the rows and columns,
``z >= 0`` on the diagonals, which are ``<= 1``) and a square's reduced value
``D_j = w_j - sum of z over its four lines``, every x of the LP under column bounds
``l <= x <= u`` has ``w.x <= sum(z) + sum_j max(D_j l_j, D_j u_j)`` (weak duality). A node
that holds the queens ``C`` (and the board's fixed queens ``F``) has, in its LP, ``x = 1``
on them, ``x = 0`` on every square they attack (the lines force it) and anything between
0 and 1 elsewhere; so its LP value, whatever else it holds or has ruled out, is at most

    value(C) = sum(z) + sum_{q in C + F} D_q + sum_{j free of C + F} max(D_j, 0)

with the duals of any LP whatever. When a node's LP (or its cut-off) shows it below what
it needs, its duals give ``value(Q) < need`` for its queens ``Q`` (up to the squares ruled
out above it, which count here as free: the nogood must not lean on them); then the queens
whose release raises the value least are dropped one by one while it stays below
``need``. What is left is the nogood ``C`` with ``value(C)``: a later node whose queens
hold ``C`` cannot reach anything above ``value(C)``. An infeasible LP gives its Farkas
ray instead (the same sum with the weights left out, below 0: ``C`` alone has no
placement; its value is ``-inf``).

The nogoods are kept per worker across the rounds, indexed by square, with the number of
their squares not on the board (and the sum of those squares) kept as queens come and go:
a nogood with none missing prunes the node, one with one missing rules that square out
of the node's subtree, as reduced-cost fixing does. At most ``CAPACITY``; when full the
older half goes.

Beside the clique rows (``lpsearch.CLIQUES``) only the lines' prices are used (any prices
of the lines bound the LP of the lines, which holds the LP with the cliques): valid, but a
node pruned by the cliques' rows seldom gives a nogood.

Measured (docs/bnb.md, toulbar2 N = 28 and 32, seeds 123456789, 1, 2): 1.00 times the
nodes, 1.06 times the CPU time. The cut-off proves a node below its need by a hair (a
median margin of 0.09 at N = 28), releasing a queen costs units, so a nogood keeps nearly
the whole path (5 to 6 queens) and is seldom met again: off by default. The variants
(``TRIALS``, ``SHALLOW_FIRST``, ``EXACT``) did no better (docs/bnb.md, Part 5).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from nqmip.bnb.lp import NodeLP, line_rows

#: Nogoods a worker keeps at most (the older half dropped when full).
CAPACITY = 4000
#: A nogood's value must be this far (relative) below what a node needs to prune it.
TOL = 1e-7
#: Also learn from the children that reliability branching's trials rule out.
TRIALS = False
#: The queens dropped in the order they were placed, each if the bound stays below the
#: need (False: the one whose release raises the bound least, again and again).
SHALLOW_FIRST = False
#: The queens dropped by solving the node's LP again without each (shallowest first,
#: every other square allowed), where the duals alone drop only the queens whose release
#: costs nothing: one LP a queen, for the pruned nodes (not the trials' children).
EXACT = False


@dataclass
class Nogoods:
    """One worker's nogoods and, for its board, how many of each one's squares are not
    placed (``missing``) and their sum (``rest``: the square when one is missing)."""

    n: int
    members: list[np.ndarray] = field(default_factory=list)
    values: np.ndarray = field(default_factory=lambda: np.zeros(CAPACITY))
    missing: np.ndarray = field(default_factory=lambda: np.zeros(CAPACITY, np.int64))
    rest: np.ndarray = field(default_factory=lambda: np.zeros(CAPACITY, np.int64))
    by_square: list[list[int]] = field(default_factory=list)
    learned: int = 0  # nogoods learnt in all
    sizes: int = 0  # their squares in all
    order: list[int] = field(default_factory=list)  # the board's queens as placed
    pruned: int = 0  # nodes pruned before their LP
    ruled: int = 0  # live squares ruled out by a nogood with one square missing

    def __post_init__(self) -> None:
        self.by_square = [[] for _ in range(self.n * self.n)]
        self.rows = line_rows(self.n)

    def reset(self, lower: np.ndarray) -> None:
        """The counts for the board whose queens are ``lower`` (0/1 per square)."""
        self.by_square = [[] for _ in range(self.n * self.n)]
        for k, members in enumerate(self.members):
            for square in members:
                self.by_square[int(square)].append(k)
            out = members[lower[members] == 0]
            self.missing[k], self.rest[k] = out.size, int(out.sum())

    def attach(self, lower: np.ndarray) -> None:
        """The store on a new board whose queens, ``lower``, are the fixed ones."""
        self.order = []
        self.reset(lower)

    def place(self, square: int, sign: int) -> None:
        """A queen put on (sign 1) or taken back from (sign -1) ``square``."""
        if sign > 0:
            self.order.append(square)
        else:
            self.order.remove(square)
        ids = self.by_square[square]
        if ids:
            self.missing[ids] -= sign
            self.rest[ids] -= sign * square

    def check(self, need: float) -> tuple[bool, np.ndarray]:
        """Whether a nogood prunes the board's node, and the squares the nogoods with one
        square missing rule out, for a node that needs ``need``."""
        k = len(self.members)
        below = self.values[:k] < need - TOL * (1.0 + abs(need))
        if not below.any():
            return False, self.rest[:0]
        missing = self.missing[:k]
        if bool((below & (missing == 0)).any()):
            return True, self.rest[:0]
        return False, self.rest[:k][below & (missing == 1)]

    def rule_out(self, upper: np.ndarray, live: Callable[[np.ndarray], np.ndarray],
                 need: float | None) -> np.ndarray | None:
        """``upper`` less the live squares (``live(upper)``) the nogoods rule out for a
        node that needs ``need``; None when a nogood prunes the node."""
        dead, ruled = self.check(-1e300 if need is None else need)
        if dead:
            self.pruned += 1
            return None
        ruled = ruled[live(upper)[ruled]]
        if ruled.size:
            upper = upper.copy()
            upper[ruled] = 0
            self.ruled += int(ruled.size)
        return upper

    def learn(self, lp: NodeLP, w: np.ndarray, lines: np.ndarray, lower: np.ndarray,
              fixed: tuple[tuple[int, int], ...], need: float | None,
              extra: int = -1) -> None:
        """The nogood of the node on the board ``lower`` (with a queen on ``extra`` too,
        if one: a trial's child) just pruned by its LP ``lp`` (``lines``: per square its
        four lines; ``fixed``: the board's fixed queens), kept."""
        n = self.n
        held = np.array([r * n + c for r, c in fixed], np.int64)
        queens = np.array(self.order + ([extra] if extra >= 0 else []), np.int64)
        if EXACT and extra < 0:
            found = exact(lp, w, self.rows, lines, queens, held, need)
        else:
            found = learn(lp, w, self.rows, lines, queens, held, need)
        if found is not None:
            self.add(found[0], found[1], lower)

    def add(self, members: np.ndarray, value: float, lower: np.ndarray) -> None:
        """A nogood learnt on the board ``lower`` (which holds it)."""
        if len(self.members) >= CAPACITY:
            self.members = self.members[CAPACITY // 2:]
            self.values[:CAPACITY - CAPACITY // 2] = self.values[CAPACITY // 2:].copy()
            self.reset(lower)
        k = len(self.members)
        self.members.append(members)
        out = members[lower[members] == 0]
        self.values[k], self.missing[k], self.rest[k] = value, out.size, int(out.sum())
        for square in members:
            self.by_square[int(square)].append(k)
        self.learned += 1
        self.sizes += members.size


def attacks(lines: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """Per square of ``squares``, the squares it attacks (len x n^2, itself not)."""
    out = np.zeros((squares.size, lines.shape[1]), bool)
    for kind in range(4):
        out |= lines[kind][None, :] == lines[kind, squares][:, None]
    out[np.arange(squares.size), squares] = False
    return out


def exact(lp: NodeLP, w: np.ndarray, rows: np.ndarray, lines: np.ndarray,
          queens: np.ndarray, fixed: np.ndarray,
          need: float | None) -> tuple[np.ndarray, float] | None:
    """As :func:`learn`, by the LP solved again (from the last basis) with the queens
    dropped one at a time, the first placed first, each kept dropped if the LP's duals
    still show the value below ``need``; the value of the last LP that did."""
    if need is None:
        return None
    size = w.size
    upper = np.ones(size, np.int8)
    board = np.zeros(size, np.int8)
    board[fixed], board[queens] = 1, 1
    keep = np.ones(queens.size, bool)
    best = None
    for i in range(-1, queens.size):
        if i >= 0:
            board[queens[i]], keep[i] = 0, False
        lp.solve(board, upper, None, need, count=2)
        found = learn(lp, w, rows, lines, queens[keep], fixed, need, drop=False)
        if found is not None:
            best = found
        elif i < 0:
            return None
        else:
            board[queens[i]], keep[i] = 1, True
    assert best is not None
    return best


def learn(lp: NodeLP, w: np.ndarray, rows: np.ndarray, lines: np.ndarray,
          queens: np.ndarray, fixed: np.ndarray, need: float | None,
          drop: bool = True) -> tuple[np.ndarray, float] | None:
    """The nogood of the node whose LP was just solved (or cut off, or found infeasible)
    and pruned: its queens beyond the fixed ones ``queens``, the fixed ``fixed``; a subset
    of ``queens`` and its value (below ``need``; ``-inf`` from a Farkas ray), or None if
    the duals show nothing; ``drop`` False: all of ``queens``, if they are below."""
    count = int(rows.max()) + 1  # the clique rows' prices left out (any prices bound)
    if lp.infeasible():
        ray = lp.ray()
        if ray is None:
            return None
        ray = ray[:count]
        for sign in (1.0, -1.0):
            scale = max(float(np.abs(ray).max()), 1e-12)
            found = _greedy(sign * ray / scale, np.zeros_like(w.ravel()), rows, lines,
                            queens, fixed, -1e-7, drop)
            if found is not None:
                return found[0], float("-inf")
        return None
    y = lp.duals()
    if y is None or need is None:
        return None
    return _greedy(-y[:count], w.ravel(), rows, lines, queens, fixed,
                   need - TOL * (1.0 + abs(need)), drop)


def _greedy(z: np.ndarray, w: np.ndarray, rows: np.ndarray, lines: np.ndarray,
            queens: np.ndarray, fixed: np.ndarray, below: float,
            drop: bool = True) -> tuple[np.ndarray, float] | None:
    """The queens kept, and ``value``, dropping the cheapest while it stays below
    ``below``; None when all of them are not below it."""
    n2 = w.size
    first = 2 * int(np.sqrt(n2))  # the rows and columns: free prices; diagonals: >= 0
    z = z.copy()
    z[first:] = np.maximum(z[first:], 0.0)
    zz = np.append(z, 0.0)  # row -1: no line
    d = w - zz[rows].sum(axis=0)
    gain = np.maximum(d, 0.0)
    held = np.concatenate([queens, fixed])
    att = attacks(lines, held)
    count = att.sum(axis=0)
    on = np.zeros(n2, bool)
    on[held] = True
    value = float(z.sum() + d[held].sum() + gain[(count == 0) & ~on].sum())
    if not value < below:
        return None
    keep = np.ones(queens.size, bool)
    if not drop:
        return queens, value
    if SHALLOW_FIRST:
        for i in range(queens.size):
            alone = (count == 1) & ~on
            rise = float(gain[queens[i]] - d[queens[i]] + att[i] @ np.where(alone, gain, 0.0))
            if value + rise < below:
                value += rise
                keep[i] = False
                on[queens[i]] = False
                count -= att[i]
        return np.sort(queens[keep]), value
    while keep.any():
        idx = np.flatnonzero(keep)
        alone = (count == 1) & ~on
        rise = gain[queens[idx]] - d[queens[idx]] + att[idx] @ np.where(alone, gain, 0.0)
        best = int(np.argmin(rise))
        if not value + rise[best] < below:
            break
        i = int(idx[best])
        value += float(rise[best])
        keep[i] = False
        on[queens[i]] = False
        count -= att[i]
    return np.sort(queens[keep]), value
