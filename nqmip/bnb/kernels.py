"""Numba kernels of the branch and bound over rows: the assignment bound with Lagrangian
multipliers on the diagonals, and the resumable depth-first search.

**The bound.** Drop the diagonal rows of the ILP into the objective with multipliers
``lam[d] >= 0`` (one per diagonal, then one per anti-diagonal): what is left is an
assignment problem (one queen per free row and free column, on squares no placed queen
attacks) with weights ``w[r, c] - lam[d(r, c)] - lam[a(r, c)]``, plus ``sum lam`` over the
diagonals. Its optimum, found by the Hungarian method in O(k^3) for k free rows, bounds
every completion for any multipliers; the best multipliers give the LP relaxation's value
(the assignment polytope is integral). A diagonal with at most one square left cannot be
violated: its multiplier is taken as 0 there. The multipliers are improved by subgradient
steps, many at the root and a few at each node, each node starting from its parent's.

**Reduced costs.** The Hungarian method's duals give each square its reduced cost: the
bound with a queen forced onto that square is the node's bound minus that cost. Children
whose bound cannot beat the incumbent are never created, and every square whose bound
cannot is ruled out for the whole subtree (reduced-cost fixing: its children's assignments
no longer use it, which halved the nodes: 306,126 to 160,717 at N = 28 of the toulbar2
family). The branching line is the row or column with the fewest children left (first
fail), and children are visited best bound first.

**Resumable.** The search state lives in arrays (one level per depth), so :func:`run`
stops after ``budget`` nodes and goes on from the same place at the next call: the caller
looks at its deadline in between. The open nodes' bounds (the untried children on the
stack) give a valid global bound whenever the search stops.

**State arrays** (numba takes them one by one): the board ``w`` (weights), ``rowf``,
``colf``, ``d1f``, ``d2f`` (1: line free), ``qcol`` (the queen's column per row, -1) and
``best`` (the incumbent's columns); per depth e (n + 1 levels) ``values[e]`` (the placed
queens' weight), ``lam1[e]``, ``lam2[e]`` (multipliers), ``U[e]``, ``V[e]``, ``RM[e]``
(the best step's duals and assignment), ``BLK[e]`` (squares ruled out by reduced costs),
``cand[e]``, ``est[e]`` (children as squares r * n + c and their bounds, best first),
``ncand[e]``, ``pos[e]`` (the next child) and ``brow[e]`` (the row of the queen placed at
e); ``fs`` (the incumbent and the margin a bound must clear), ``st`` (depth, nodes, has an
incumbent, subgradient steps per node); scratch rows ``work`` and ``iwork``.
"""

from __future__ import annotations

import numpy as np

from nqmip.numba_cache import njit
from nqmip.numba_consts import INT1, NO_ROW

#: Cost of a forbidden square in the Hungarian method (far above any weight used).
BIG = 1e15
INF = 1e300

# Slots of the float state ``fs``.
INCUMBENT, NEED_STEP = 0, 1
# Slots of the int state ``st``.
DEPTH, NODES, HAVE_INCUMBENT, NODE_ITERS = 0, 1, 2, 3


@njit(cache=True, nogil=True, inline="always")
def _cost(w: np.ndarray, r: int, c: int, d1f: np.ndarray, d2f: np.ndarray,
          lam1: np.ndarray, lam2: np.ndarray, blk: np.ndarray) -> float:
    """The assignment's cost of square (r, c): minus its Lagrangian weight, BIG if a placed
    queen attacks it or its reduced cost ruled it out above."""
    n = w.shape[0]
    e1 = r - c + n - 1
    e2 = r + c
    if d1f[e1] and d2f[e2] and not blk[r, c]:
        return lam1[e1] + lam2[e2] - w[r, c]
    return BIG


@njit(cache=True, nogil=True)
def hungarian(a: np.ndarray, k: int, u: np.ndarray, v: np.ndarray, p: np.ndarray,
              way: np.ndarray, minv: np.ndarray, used: np.ndarray) -> None:
    """Minimum-cost perfect assignment of the k x k matrix ``a[1:k+1, 1:k+1]`` (1-based,
    row 0 and column 0 unused), by shortest augmenting paths: on return ``p[j]`` is the
    row assigned to column j, and ``u``, ``v`` are feasible duals, tight on the
    assignment."""
    for j in range(k + 1):
        u[j] = 0.0
        v[j] = 0.0
        p[j] = 0
        way[j] = 0
    for i in range(1, k + 1):
        p[0] = i
        j0 = 0
        for j in range(k + 1):
            minv[j] = INF
            used[j] = 0
        while True:
            used[j0] = 1
            i0 = p[j0]
            delta = INF
            j1 = 0
            for j in range(1, k + 1):
                if not used[j]:
                    cur = a[i0, j] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(k + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break


@njit(cache=True, nogil=True)
def assignment(w: np.ndarray, rows: np.ndarray, cols: np.ndarray, k: int,
               d1f: np.ndarray, d2f: np.ndarray, lam1: np.ndarray, lam2: np.ndarray,
               blk: np.ndarray, u: np.ndarray, v: np.ndarray, rm: np.ndarray, a: np.ndarray,
               lu: np.ndarray, lv: np.ndarray, p: np.ndarray, way: np.ndarray,
               minv: np.ndarray, used: np.ndarray) -> float:
    """The cheapest assignment of the free rows to the free columns under the Lagrangian
    costs (``rm``: row to column, board indices) and its duals ``u``, ``v`` (board
    indices).

    Returns the dual value ``sum u + sum v`` with ``u`` recomputed as each row's least
    reduced cost, so the duals are feasible whatever the rounding: a valid lower bound on
    the cost (equal to it at the optimum). ``INF`` when no assignment avoids the attacked
    squares. (Repairing the parent's assignment instead of solving from scratch was
    measured slower: 4.2 s against 1.0 s at N = 24 of the toulbar2 family.)"""
    for ii in range(k):
        for jj in range(k):
            a[ii + 1, jj + 1] = _cost(w, rows[ii], cols[jj], d1f, d2f, lam1, lam2, blk)
    hungarian(a, k, lu, lv, p, way, minv, used)
    for jj in range(1, k + 1):
        if a[p[jj], jj] >= BIG:  # only through an attacked square
            return INF
        rm[rows[p[jj] - 1]] = cols[jj - 1]
        v[cols[jj - 1]] = lv[jj]
    dual = 0.0
    for ii in range(k):
        r = rows[ii]
        low = INF
        for jj in range(k):
            cur = a[ii + 1, jj + 1] - lv[jj + 1]
            if cur < low:
                low = cur
        u[r] = low
        dual += low
    for jj in range(k):
        dual += lv[jj + 1]
    return dual


@njit(cache=True, nogil=True)
def lagrangian(w: np.ndarray, rows: np.ndarray, cols: np.ndarray, k: int,
               d1f: np.ndarray, d2f: np.ndarray, lam1: np.ndarray, lam2: np.ndarray,
               blk: np.ndarray,
               iters: int, target: float, theta: float, u: np.ndarray, v: np.ndarray,
               rm: np.ndarray, a: np.ndarray, lu: np.ndarray, lv: np.ndarray,
               p: np.ndarray, way: np.ndarray, minv: np.ndarray, used: np.ndarray,
               bu: np.ndarray, bv: np.ndarray, brm: np.ndarray,
               cnt1: np.ndarray, cnt2: np.ndarray, g1: np.ndarray, g2: np.ndarray,
               bl1: np.ndarray, bl2: np.ndarray) -> tuple[float, bool]:
    """The best Lagrangian bound over ``iters`` subgradient steps (at least one solve) on
    the k free rows ``rows`` and columns ``cols``, from the multipliers ``lam1``, ``lam2``
    and the assignment state ``u, v, rm`` (both left at the best step's: ``bu, bv, brm``
    get its duals and matching). Returns the bound (``-INF``: no assignment) and whether
    the best step's assignment also respects every diagonal (a completion).

    ``target``: the value to prove out of reach (steps aim at it, and the loop ends as soon
    as the bound falls below it); ``-INF`` when there is no incumbent yet."""
    n = w.shape[0]
    m = 2 * n - 1
    # Diagonals with two or more allowed squares: only they take a multiplier.
    for d in range(m):
        cnt1[d] = 0
        cnt2[d] = 0
    for ii in range(k):
        r = rows[ii]
        for jj in range(k):
            c = cols[jj]
            if d1f[r - c + n - 1] and d2f[r + c] and not blk[r, c]:
                cnt1[r - c + n - 1] += 1
                cnt2[r + c] += 1
    for d in range(m):
        if cnt1[d] < 2:
            lam1[d] = 0.0
        if cnt2[d] < 2:
            lam2[d] = 0.0
    best = INF
    feasible = False
    stall = 0
    for it in range(max(iters, 1)):
        const = 0.0
        for d in range(m):
            const += lam1[d] + lam2[d]
        dual = assignment(w, rows, cols, k, d1f, d2f, lam1, lam2, blk, u, v, rm, a, lu, lv, p,
                          way, minv, used)
        if dual >= INF:
            return -INF, False
        value = const - dual
        for d in range(m):
            g1[d] = 1.0 if cnt1[d] >= 2 else 0.0
            g2[d] = 1.0 if cnt2[d] >= 2 else 0.0
        for ii in range(k):
            r = rows[ii]
            c = rm[r]
            if cnt1[r - c + n - 1] >= 2:
                g1[r - c + n - 1] -= 1.0
            if cnt2[r + c] >= 2:
                g2[r + c] -= 1.0
        feasible = True
        norm = 0.0
        for d in range(m):
            if g1[d] < 0.0 or g2[d] < 0.0:
                feasible = False
            norm += g1[d] * g1[d] + g2[d] * g2[d]
        if value < best:
            best = value
            stall = 0
            for ii in range(k):
                r = rows[ii]
                bu[r] = u[r]
                brm[r] = rm[r]
            for jj in range(k):
                bv[cols[jj]] = v[cols[jj]]
            for d in range(m):
                bl1[d] = lam1[d]
                bl2[d] = lam2[d]
        else:
            stall += 1
            if stall >= 20:  # no progress: shorter steps
                theta *= 0.5
                stall = 0
        if feasible or best < target or it == iters - 1 or norm == 0.0:
            break
        aim = target if target > -INF else best - 0.05 * abs(best) - 1.0
        step = theta * (value - aim) / norm
        if step <= 0.0:
            step = theta * 1e-3 * (abs(value) + 1.0) / norm
        for d in range(m):
            if cnt1[d] >= 2:
                lam1[d] = max(0.0, lam1[d] - step * g1[d])
            if cnt2[d] >= 2:
                lam2[d] = max(0.0, lam2[d] - step * g2[d])
    for d in range(m):  # the multipliers of the best bound, which the duals belong to
        lam1[d] = bl1[d]
        lam2[d] = bl2[d]
    return best, feasible


@njit(cache=True, nogil=True)
def _free_lines(rowf: np.ndarray, colf: np.ndarray, rows: np.ndarray,
                cols: np.ndarray) -> int:
    """The free rows and columns into ``rows``, ``cols``; their number (-1 if they differ)."""
    n = rowf.size
    k = 0
    for r in range(n):
        if rowf[r]:
            rows[k] = r
            k += 1
    m = 0
    for c in range(n):
        if colf[c]:
            cols[m] = c
            m += 1
    return k if k == m else -1


@njit(cache=True, nogil=True)
def _place(r: int, c: int, sign: int, rowf: np.ndarray, colf: np.ndarray,
           d1f: np.ndarray, d2f: np.ndarray, qcol: np.ndarray) -> None:
    n = rowf.size
    free = 1 if sign < 0 else 0
    rowf[r] = free
    colf[c] = free
    d1f[r - c + n - 1] = free
    d2f[r + c] = free
    qcol[r] = -1 if sign < 0 else c


@njit(cache=True, nogil=True)
def _need(fs: np.ndarray) -> float:
    """The bound a node must reach to be worth opening."""
    return fs[INCUMBENT] + fs[NEED_STEP]


@njit(cache=True, nogil=True)
def expand(w: np.ndarray, rowf: np.ndarray, colf: np.ndarray, d1f: np.ndarray,
           d2f: np.ndarray, qcol: np.ndarray, best: np.ndarray, value: float, e: int,
           lam1: np.ndarray, lam2: np.ndarray, U: np.ndarray, V: np.ndarray,
           RM: np.ndarray, BLK: np.ndarray, cand: np.ndarray, est: np.ndarray,
           ncand: np.ndarray,
           pos: np.ndarray, fs: np.ndarray, st: np.ndarray, iters: int, theta: float,
           work: np.ndarray, iwork: np.ndarray) -> float:
    """Open the node at depth ``e`` (placed queens worth ``value``; ``lam*[e]``, ``U[e]``,
    ``V[e]``, ``RM[e]``, ``BLK[e]`` hold its parent's final state): its bound, an incumbent
    if its assignment is a completion, the squares its reduced costs rule out for the
    subtree (``BLK[e]``), and its children (possibly none). Returns the bound."""
    n = w.shape[0]
    rows = iwork[0]
    cols = iwork[1]
    rm = iwork[2]
    p = iwork[3]
    way = iwork[4]
    used = iwork[5]
    cnt1 = iwork[6]
    cnt2 = iwork[7]
    u = work[0]
    v = work[1]
    minv = work[2]
    g1 = work[3]
    g2 = work[4]
    bl1 = work[5]
    bl2 = work[6]
    lu = work[7]
    lv = work[8]
    a = work[9:].reshape((n + 1, 2 * n + 1))
    ncand[e] = 0
    pos[e] = 0
    st[NODES] += 1
    k = _free_lines(rowf, colf, rows, cols)
    if k <= 0:  # a full placement
        if k == 0 and (st[HAVE_INCUMBENT] == 0 or value > fs[INCUMBENT]):
            fs[INCUMBENT] = value
            st[HAVE_INCUMBENT] = 1
            for r in range(n):
                best[r] = qcol[r]
        return value if k == 0 else -INF
    for i in range(n):
        u[i] = U[e, i]
        v[i] = V[e, i]
        rm[i] = RM[e, i]
    have = st[HAVE_INCUMBENT] != 0
    need = _need(fs) if have else -INF
    target = need - value if have else -INF
    lb, complete = lagrangian(w, rows, cols, k, d1f, d2f, lam1[e], lam2[e], BLK[e], iters,
                              target,
                              theta, u, v, rm, a, lu, lv, p, way, minv, used, U[e], V[e],
                              RM[e],
                              cnt1, cnt2, g1, g2, bl1, bl2)
    if lb == -INF:
        return -INF
    bound = value + lb
    if complete:  # the last assignment respects the diagonals: a completion
        total = value
        for ii in range(k):
            total += w[rows[ii], rm[rows[ii]]]
        if not have or total > fs[INCUMBENT]:
            fs[INCUMBENT] = total
            st[HAVE_INCUMBENT] = 1
            for r in range(n):
                best[r] = qcol[r]
            for ii in range(k):
                best[rows[ii]] = rm[rows[ii]]
        have = True
        need = _need(fs)
    if have and bound < need:
        return bound
    # every square's reduced cost, once; reduced-cost fixing: a square whose bound cannot
    # reach `need` is ruled out for the subtree
    red = work[9:].reshape((n + 1, 2 * n + 1))
    blk = BLK[e]
    for ii in range(k):
        r = rows[ii]
        for jj in range(k):
            c = cols[jj]
            cost = _cost(w, r, c, d1f, d2f, lam1[e], lam2[e], blk)
            if cost >= BIG * 0.5:
                red[ii, jj] = BIG
                continue
            red[ii, jj] = cost - U[e, r] - V[e, c]
            if have and bound - red[ii, jj] < need:
                blk[r, c] = 1
                red[ii, jj] = BIG
    _children(red, rows, cols, k, n, bound, e, cand, est, ncand, cnt1, cnt2)
    return bound


@njit(cache=True, nogil=True)
def _children(red: np.ndarray, rows: np.ndarray, cols: np.ndarray, k: int, n: int,
              bound: float, e: int, cand: np.ndarray, est: np.ndarray, ncand: np.ndarray,
              rowcount: np.ndarray, colcount: np.ndarray) -> None:
    """The children of the node at depth ``e``: the squares left (``red`` below BIG: their
    reduced costs) of the free line, row or column, with the fewest of them (first fail),
    best bound (the node's minus the reduced cost) first."""
    for ii in range(k):
        rowcount[ii] = 0
        colcount[ii] = 0
    for ii in range(k):
        for jj in range(k):
            if red[ii, jj] < BIG * 0.5:
                rowcount[ii] += 1
                colcount[jj] += 1
    bestcount = n + 1
    bestline = -1
    isrow = True
    for ii in range(k):  # rows first: a column must have strictly fewer
        if rowcount[ii] < bestcount:
            bestcount, bestline = rowcount[ii], ii
    for jj in range(k):
        if colcount[jj] < bestcount:
            bestcount, bestline, isrow = colcount[jj], jj, False
    t = 0
    for b in range(k):
        ii = bestline if isrow else b
        jj = b if isrow else bestline
        if red[ii, jj] >= BIG * 0.5:
            continue
        child = bound - red[ii, jj]
        q = t  # insertion by bound, best first
        while q > 0 and est[e, q - 1] < child:
            est[e, q] = est[e, q - 1]
            cand[e, q] = cand[e, q - 1]
            q -= 1
        est[e, q] = child
        cand[e, q] = rows[ii] * n + cols[jj]
        t += 1
    ncand[e] = t


@njit(cache=True, nogil=True)
def run(w: np.ndarray, rowf: np.ndarray, colf: np.ndarray, d1f: np.ndarray,
        d2f: np.ndarray, qcol: np.ndarray, best: np.ndarray, values: np.ndarray,
        lam1: np.ndarray, lam2: np.ndarray, U: np.ndarray, V: np.ndarray, RM: np.ndarray,
        BLK: np.ndarray, brow: np.ndarray, cand: np.ndarray, est: np.ndarray, ncand: np.ndarray,
        pos: np.ndarray, fs: np.ndarray, st: np.ndarray, theta: float, budget: int,
        work: np.ndarray, iwork: np.ndarray) -> bool:
    """Go on with the search for at most ``budget`` nodes; True when it is complete (the
    incumbent, if any, is optimal). The node at ``st[DEPTH]`` has been opened."""
    n = w.shape[0]
    start = st[NODES]
    e = st[DEPTH]
    while True:
        if st[NODES] - start >= budget:
            st[DEPTH] = e
            return False
        if pos[e] < ncand[e]:
            j = pos[e]
            pos[e] += 1
            if st[HAVE_INCUMBENT] and est[e, j] < _need(fs):
                pos[e] = ncand[e]  # sorted: the rest cannot reach it either
                continue
            r = cand[e, j] // n
            c = cand[e, j] % n
            brow[e] = r
            _place(r, c, INT1, rowf, colf, d1f, d2f, qcol)
            values[e + 1] = values[e] + w[r, c]
            for d in range(2 * n - 1):
                lam1[e + 1, d] = lam1[e, d]
                lam2[e + 1, d] = lam2[e, d]
            for i in range(n):
                U[e + 1, i] = U[e, i]
                V[e + 1, i] = V[e, i]
                RM[e + 1, i] = RM[e, i]
                for j2 in range(n):
                    BLK[e + 1, i, j2] = BLK[e, i, j2]
            e += 1
            expand(w, rowf, colf, d1f, d2f, qcol, best, values[e], e, lam1, lam2, U, V, RM,
                   BLK, cand, est, ncand, pos, fs, st, st[NODE_ITERS], theta, work, iwork)
            continue
        if e == 0:
            st[DEPTH] = 0
            return True
        e -= 1
        _place(brow[e], qcol[brow[e]], NO_ROW, rowf, colf, d1f, d2f, qcol)


@njit(cache=True, nogil=True)
def open_bound(est: np.ndarray, ncand: np.ndarray, pos: np.ndarray, depth: int) -> float:
    """The best bound among the children not yet tried (``-INF`` if none)."""
    top = -INF
    for e in range(depth + 1):
        if pos[e] < ncand[e] and est[e, pos[e]] > top:
            top = est[e, pos[e]]
    return top
