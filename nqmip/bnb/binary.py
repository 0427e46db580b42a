"""Binary branching on a square for the LP search (:mod:`nqmip.bnb.lpsearch`), after
SCIP's reliability branching on variables: an experiment, off by default
(:data:`nqmip.bnb.lpsearch.BINARY`; measured in docs/bnb.md, Part 9).

At a node the candidates are the live squares whose LP value is fractional. A square has
two children: up, a queen placed on it, and down, the square forbidden (its ``upper`` 0).
Each square keeps a pseudo-cost per direction: the mean loss of the LP value per unit of
the change of the square's value (``x`` down, ``1 - x`` up), over its children opened or
tried. A candidate's predicted losses are its pseudo-costs times its fractions (the mean
of all squares where it has none; up, at least its reduced cost); its score is the
product ``max(d0, EPS) * max(d1, EPS)``. Candidates best score first whose pseudo-costs
are not yet ``RELIABLE`` in both directions are tried (strong branching): both children by
the dual simplex from the node's basis within ``ITERATIONS`` iterations
(:meth:`nqmip.bnb.lp.NodeLP.trial`), their losses then the trials', until ``LOOKAHEAD``
trials in a row did not improve the best score, ``CANDIDATES`` were tried, or the trials
have used ``SHARE`` of the node LPs' iterations. A trial that shows an up child cannot
reach the incumbent rules the square out of the node's subtree (and, with ``RESOLVE``,
the node is solved again, as SCIP does after strong branching's domain reductions: its
one child is the node itself with the squares ruled out); a down child that cannot leaves
only the up child. The square of the best score is branched on, the child with
the better predicted value first; a child's bound (what prunes it) is its trial's value,
else the node's value (down) or the node's value less the reduced cost (up).

A child is coded by its square ``s`` (up) or ``~s`` (down).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nqmip.bnb.lp import NodeLP, NodeSolution

#: A square's pseudo-cost in a direction is trusted after this many children.
RELIABLE = 4
#: Dual simplex iterations of one trial (a child of a strong-branching candidate). N = 28
#: seed 1: 20 6,593 nodes, 50 5,663, 500 (and no ``SHARE``) 5,777.
ITERATIONS = 50
#: Candidates tried at a node at most.
CANDIDATES = 8
#: Stop trying after so many candidates in a row that did not improve the best score.
LOOKAHEAD = 4
#: The trials' dual simplex iterations at most this share of the node LPs' (SCIP: 0.5).
SHARE = 0.5
#: The product score's floor of a loss.
EPS = 1e-6
#: A node where the trials ruled squares out is solved again before it branches (N = 28
#: seed 1, ``ITERATIONS`` 50: 5,275 nodes with, 5,663 without).
RESOLVE = True
#: A square's LP value is fractional between ``FRAC`` and ``1 - FRAC``.
FRAC = 1e-6
#: As :data:`nqmip.bnb.reliability.SLACK`: a trial stopped by its iteration limit bounds
#: the child up to HiGHS's cost perturbation.
SLACK = 1e-5


def table(n: int) -> np.ndarray:
    """An empty pseudo-cost table: down sums, down counts, up sums, up counts (4 x n^2)."""
    return np.zeros((4, n * n))


def learn(pseudo: np.ndarray, child: int, value: float, frac: float, seen: float) -> None:
    """Count the loss of ``child`` (``s`` up, ``~s`` down) of a node of LP value ``value``
    whose square had LP value ``frac``: its own LP value (or the cut-off) ``seen``."""
    up = child >= 0
    square = child if up else ~child
    unit = (1.0 - frac) if up else frac
    if unit <= FRAC:
        return
    row = 2 if up else 0
    pseudo[row, square] += max(value - seen, 0.0) / unit
    pseudo[row + 1, square] += 1


def open_child(tree: Any, top: Any, child: int) -> None:
    """Open ``child`` of the level ``top`` of ``tree`` (a :class:`nqmip.bnb.lpsearch.Tree`):
    ``s`` a queen on ``s``, ``~s`` the square ``s`` forbidden; its loss counted."""
    assert top.branch is not None and tree.binary is not None
    if child >= 0:
        tree.place(child, 1)
        level = tree.open(top.upper, top.basis)
    else:
        upper = top.upper.copy()
        upper[~child] = 0
        level = tree.open(upper, top.basis)
    if tree.seen is not None:
        value, frac = top.branch
        learn(tree.binary, child, value, frac, tree.seen)
    if level is None:
        if child >= 0:
            tree.place(child, -1)
    else:
        level.queen = max(child, -1)
        tree.levels.append(level)


def choose(lp: NodeLP, sol: NodeSolution, lower: np.ndarray, upper: np.ndarray,
           live: np.ndarray, need: float,
           pseudo: np.ndarray) -> tuple[list[tuple[float, int]], float] | None:
    """The node's children as (bound, child) in the order to open them, and the LP value
    of the square branched on; None when no live square is fractional (the caller
    branches otherwise). ``upper`` loses the squares a trial ruled out (in place);
    ``pseudo`` (:func:`table`) gains the trials. An empty list: the node is closed."""
    x = sol.x
    cand = np.flatnonzero(live & (x > FRAC) & (x < 1.0 - FRAC))
    if cand.size == 0:
        return None
    value = sol.value
    up_bound = value - np.maximum(sol.rc, 0.0)
    d0, d1 = _predicted(pseudo, cand, x, value - up_bound)
    score = np.maximum(d0, EPS) * np.maximum(d1, EPS)
    down_pred, up_pred = value - d0, value - d1
    down_bound, up_valid = np.full(cand.size, value), up_bound[cand].copy()
    chosen = np.minimum(pseudo[1, cand], pseudo[3, cand]) >= RELIABLE  # reliable or tried
    top = float(score[chosen].max()) if chosen.any() else -np.inf
    ruled: list[int] = []
    tries = stale = 0
    lp.limit(ITERATIONS)
    try:
        for i in np.argsort(-score, kind="stable"):
            if tries >= CANDIDATES or stale >= LOOKAHEAD or \
                    lp.iterations[1] > SHARE * lp.iterations[0]:
                break
            if chosen[i]:
                continue
            s, frac = int(cand[i]), float(x[cand[i]])
            tries += 1
            down = _trial(lp, sol, lower, upper, s, False, value, need)
            up = _trial(lp, sol, lower, upper, s, True, float(up_bound[s]), need)
            for child, got in ((~s, down), (s, up)):
                if got != float("inf"):
                    learn(pseudo, child, value, frac, need if got is None else got)
            if up is not None and down is None:
                return [(float(min(up, up_bound[s])), s)], frac  # only the up child
            if up is None:
                upper[s] = 0  # the square cannot reach `need`: out of the subtree
                ruled.append(s)
                if down is None:
                    return [], frac  # neither child: the node is closed
                continue
            if down != float("inf"):
                down_bound[i] = down_pred[i] = down
            if up != float("inf"):
                up_valid[i] = up_pred[i] = up
            score[i] = max(value - down_pred[i], EPS) * max(value - up_pred[i], EPS)
            chosen[i] = True
            if score[i] > top:
                top, stale = float(score[i]), 0
            else:
                stale += 1
    finally:
        lp.limit(None)
    if not chosen.any():
        chosen[:] = True  # nothing reliable nor tried: the pseudo-costs' best
    chosen[[int(np.flatnonzero(cand == r)[0]) for r in ruled]] = False
    if (ruled and RESOLVE) or not chosen.any():  # the node again, re-solved
        return [(value, ~ruled[0])], 0.0
    best = int(np.flatnonzero(chosen)[np.argmax(score[chosen])])
    s = int(cand[best])
    kids = [(float(up_pred[best]), float(up_valid[best]), s),
            (float(down_pred[best]), float(down_bound[best]), ~s)]
    kids.sort(key=lambda kid: -kid[0])
    return [(b, child) for _, b, child in kids if b >= need], float(x[s])


def _predicted(pseudo: np.ndarray, cand: np.ndarray, x: np.ndarray,
               rc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The candidates' predicted losses down and up by their pseudo-costs (the mean of
    all squares where a square has none; 1 when none has any); up at least the reduced
    cost ``rc`` (per square)."""
    out = []
    for row in (0, 2):
        sums, counts = pseudo[row, cand], pseudo[row + 1, cand]
        total = pseudo[row + 1].sum()
        mean = pseudo[row].sum() / total if total > 0 else 1.0
        out.append(np.where(counts > 0, sums / np.maximum(counts, 1.0), mean))
    frac = x[cand]
    return out[0] * frac, np.maximum(out[1] * (1.0 - frac), rc[cand])


def _trial(lp: NodeLP, sol: NodeSolution, lower: np.ndarray, upper: np.ndarray,
           square: int, up: bool, cap: float, need: float) -> float | None:
    """A child's bound by a trial (at most ``cap``; ``inf``: nothing learnt), None when it
    cannot reach ``need``."""
    low, high = lower, upper
    if up:
        low = lower.copy()
        low[square] = 1
    else:
        high = upper.copy()
        high[square] = 0
    got = lp.trial(low, high, sol.basis, need)
    if got is None or got == float("inf"):
        return got
    got = min(got + SLACK * (1.0 + abs(got)), cap)
    return None if got < need else got
