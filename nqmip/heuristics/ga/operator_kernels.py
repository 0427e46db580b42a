"""numba kernels of the genetic algorithm's operators: evaluation, selection, crossover,
mutation and the local improvement, each a small function the driver
(:func:`nqmip.heuristics.ga.kernels.ga_chunk`) calls by operator code.

The population is an ``(P, n)`` int32 array of permutations (row ``i`` of the board holds
its queen in column ``perm[i]``). Every operator works on the *free* rows only — the
sorted array ``free`` of rows without a fixed queen, ``m = free.size`` — so fixed queens
never move: a crossover recombines the sequences ``parent[free]``, whose values are the same
set in every individual, and a mutation swaps two free rows.

Costs are the number of attacking pairs (diagonals and anti-diagonals). A child's cost is
computed once from scratch in O(n) by filling occupancy counters; every swap tried by the
local improvement is then priced in O(1) with :func:`nqmip.heuristics.kernels.swap_delta`.
Each of these computations is one *evaluation* (``counters[C_EVALS]``). Every kernel that
draws numbers uses numba's generator, seeded by the driver (``np.random.seed``).
"""

from __future__ import annotations

import numpy as np

from nqmip.heuristics.ga.codes import (
    C_EVALS,
    C_IMPROVES,
    PARTNERS_CLASHING,
    PARTNERS_FIRST,
)
from nqmip.heuristics.kernels import (
    apply_swap,
    copy_into,
    queen_conflicts,
    swap_delta,
    swap_weight_delta,
)
from nqmip.numba_cache import njit
from nqmip.numba_consts import NO_ROW

_HASH_MULT = np.int64(1000003)


@njit(cache=True, nogil=True)
def seed_numba(seed: int) -> None:
    """Seed numba's generator (for calling single operators from Python, as tests do)."""
    np.random.seed(seed)


# ---------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def placement_weight(perm: np.ndarray, weights: np.ndarray) -> float:
    total = 0.0
    for i in range(perm.size):
        total += weights[i, perm[i]]
    return total


@njit(cache=True, nogil=True)
def perm_hash(perm: np.ndarray) -> np.int64:
    h = np.int64(17)
    for i in range(perm.size):
        h = h * _HASH_MULT + np.int64(perm[i])
    return h


@njit(cache=True, nogil=True)
def better(cost_a: int, weight_a: float, cost_b: int, weight_b: float) -> bool:
    """Lexicographic order: fewer conflicts first, then more weight."""
    return cost_a < cost_b or (cost_a == cost_b and weight_a > weight_b)


# ---------------------------------------------------------------------------------------
# Selection: return the index of one parent
# ---------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def select_tournament(cost: np.ndarray, weight: np.ndarray, k: int) -> int:
    size = cost.size
    best = np.random.randint(0, size)
    for _ in range(k - 1):
        other = np.random.randint(0, size)
        if better(cost[other], weight[other], cost[best], weight[best]):
            best = other
    return best


@njit(cache=True, nogil=True)
def select_best_of(cost: np.ndarray, weight: np.ndarray, k: int, scratch: np.ndarray) -> int:
    """Best of ``k`` distinct random individuals (partial Fisher-Yates on ``scratch``)."""
    size = cost.size
    k = min(k, size)
    for i in range(size):
        scratch[i] = i
    best = -1
    for i in range(k):
        j = np.random.randint(i, size)
        pick = scratch[j]
        scratch[j] = scratch[i]
        scratch[i] = pick
        if best < 0 or better(cost[pick], weight[pick], cost[best], weight[best]):
            best = pick
    return best


@njit(cache=True, nogil=True)
def roulette_fitness(
    cost: np.ndarray, weight: np.ndarray, max_pairs: int, weighted: bool, fitness: np.ndarray
) -> float:
    """004's fitness ``n(n-1)/2 - conflicts``; weighted: plus the weight scaled into [0, 1)."""
    size = cost.size
    low = weight[0]
    high = weight[0]
    for i in range(size):
        low = min(low, weight[i])
        high = max(high, weight[i])
    total = 0.0
    for i in range(size):
        f = float(max_pairs - cost[i])
        if weighted and high > low:
            f += 0.999 * (weight[i] - low) / (high - low)
        fitness[i] = f
        total += f
    return total


@njit(cache=True, nogil=True)
def select_roulette(fitness: np.ndarray, total: float) -> int:
    size = fitness.size
    if total <= 0.0:
        return np.random.randint(0, size)
    spin = np.random.random() * total
    acc = 0.0
    for i in range(size):
        acc += fitness[i]
        if spin < acc:
            return i
    return size - 1


# ---------------------------------------------------------------------------------------
# Crossover on the free rows: parents and children are full permutations
# ---------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def pmx(
    base: np.ndarray,
    donor: np.ndarray,
    child: np.ndarray,
    free: np.ndarray,
    position: np.ndarray,
    seg_min: int,
    seg_max: int,
) -> None:
    """PMX, one child: ``child`` takes ``donor``'s genes on a random segment of the free rows
    and ``base``'s elsewhere, clashes resolved by the partial mapping.

    ``seg_min..seg_max`` bounds the segment length (000: 30-80 of 1000 genes); with
    ``seg_max == 0`` the segment runs between two uniform random cut points. Implemented as
    the usual sequence of swaps in a copy of ``base``, which gives exactly PMX's child.
    ``position`` is scratch of size n (column -> free index).
    """
    m = free.size
    copy_into(child, base)
    if m < 2:
        return
    if seg_max <= 0:
        a = np.random.randint(0, m)
        b = np.random.randint(0, m)
        if a > b:
            a, b = b, a
        start, length = a, b - a + 1
    else:
        lo = min(max(seg_min, 1), m)
        hi = min(max(seg_max, lo), m)
        length = np.random.randint(lo, hi + 1)
        start = np.random.randint(0, m - length + 1)
    for i in range(m):
        position[child[free[i]]] = i
    for i in range(start, start + length):
        value = donor[free[i]]
        j = position[value]
        if j != i:
            moved = child[free[i]]
            child[free[i]] = value
            child[free[j]] = moved
            position[value] = i
            position[moved] = j


@njit(cache=True, nogil=True)
def cut_crossfill(
    head: np.ndarray,
    tail: np.ndarray,
    child: np.ndarray,
    free: np.ndarray,
    used: np.ndarray,
    cut: int,
) -> None:
    """Cut-and-crossfill (Eiben & Smith): ``head``'s first ``cut`` free genes, then the
    remaining values in ``tail``'s order starting at the cut and wrapping around."""
    m = free.size
    copy_into(child, head)
    if m < 2:
        return
    used[:] = False
    for i in range(cut):
        used[head[free[i]]] = True
    out = cut
    for step in range(m):
        value = tail[free[(cut + step) % m]]
        if not used[value]:
            used[value] = True
            child[free[out]] = value
            out += 1


@njit(cache=True, nogil=True)
def crossfill_001(
    first: np.ndarray,
    second: np.ndarray,
    child_a: np.ndarray,
    child_b: np.ndarray,
    free: np.ndarray,
    used: np.ndarray,
    scratch: np.ndarray,
) -> None:
    """001's published cut-and-crossfill (its Figures 10 and 11), two children.

    Child A = first half of ``first``; for each later gene of ``second`` already in child A,
    ``second`` is altered by swapping that gene with the first gene of its own first half
    not yet in child A; the (altered) gene is appended. Child B = second half of ``first``
    followed by the altered first half of ``second``. Both are permutations.
    """
    m = free.size
    copy_into(child_a, first)
    copy_into(child_b, first)
    if m < 2:
        return
    half = m // 2
    for i in range(m):
        scratch[i] = second[free[i]]
    used[:] = False
    for i in range(half):
        used[first[free[i]]] = True
    for i in range(half, m):
        if used[scratch[i]]:
            for j in range(half):
                if not used[scratch[j]]:
                    scratch[i], scratch[j] = scratch[j], scratch[i]
                    break
        used[scratch[i]] = True
        child_a[free[i]] = scratch[i]
    # Child B: the second half of ``first``, then the values it lacks in the altered
    # ``second``'s order. With m even those are exactly the altered first half of
    # ``second`` (001's Figure 10); written this way it also holds for odd m.
    used[:] = False
    for i in range(half, m):
        used[first[free[i]]] = True
        child_b[free[i - half]] = first[free[i]]
    # Same fill as cut_crossfill's tail, kept apart: there the values are read through
    # free[] with wrap-around, here from compact scratch; one helper would cost
    # cut_crossfill an O(m) copy into scratch per child.
    out = m - half
    for i in range(m):
        value = scratch[i]
        if not used[value]:
            used[value] = True
            child_b[free[out]] = value
            out += 1


@njit(cache=True, nogil=True)
def gene_draw(
    x: np.ndarray,
    y: np.ndarray,
    child: np.ndarray,
    free: np.ndarray,
    used: np.ndarray,
) -> None:
    """004's crossover: each gene comes from parent x or y with probability 0.5, namely that
    parent's first gene not yet in the child. O(m): each parent's read pointer only moves on.
    """
    m = free.size
    copy_into(child, x)
    used[:] = False
    px = 0
    py = 0
    for out in range(m):
        if np.random.random() < 0.5:
            while used[x[free[px]]]:
                px += 1
            value = x[free[px]]
        else:
            while used[y[free[py]]]:
                py += 1
            value = y[free[py]]
        used[value] = True
        child[free[out]] = value


# ---------------------------------------------------------------------------------------
# Mutation
# ---------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def swap_mutation(perm: np.ndarray, free: np.ndarray, probability: float, distinct: bool) -> None:
    """With ``probability``, swap two random free rows (possibly the same one if not
    ``distinct``, as in 001's code)."""
    m = free.size
    if m < 2 or np.random.random() >= probability:
        return
    a = np.random.randint(0, m)
    if distinct:
        b = np.random.randint(0, m - 1)
        if b >= a:
            b += 1
    else:
        b = np.random.randint(0, m)
    ra = free[a]
    rb = free[b]
    perm[ra], perm[rb] = perm[rb], perm[ra]


@njit(cache=True, nogil=True)
def per_gene_mutation(perm: np.ndarray, free: np.ndarray, probability: float) -> None:
    """004: each free row, with ``probability``, swaps with another random free row."""
    m = free.size
    if m < 2:
        return
    for a in range(m):
        if np.random.random() < probability:
            b = np.random.randint(0, m - 1)
            if b >= a:
                b += 1
            ra = free[a]
            rb = free[b]
            perm[ra], perm[rb] = perm[rb], perm[ra]


# ---------------------------------------------------------------------------------------
# Local improvement (000)
# ---------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def improve_most_attacked(
    perm: np.ndarray,
    diag: np.ndarray,
    anti: np.ndarray,
    free: np.ndarray,
    weights: np.ndarray,
    weighted: bool,
    cost: int,
    weight: float,
    max_steps: int,
    partners: int,
    random_ties: bool,
    weight_step: bool,
    counters: np.ndarray,
) -> tuple[int, float]:
    """000's improvement, repeated ``max_steps`` times (0: until it no longer improves).

    A step takes the most attacked queen among the free rows (ties at random or the first
    row) and tries swapping it with each free queen it clashes with (or with every free
    row), pricing each swap in O(1); the best swap is applied if it lowers the conflicts
    (weighted: lexicographically better, conflicts then weight). Each tried swap is one
    evaluation. A tried swap that reaches zero conflicts on a feasibility instance ends the
    step at once (nothing beats it). For a conflict-free placement of a weighted instance,
    ``weight_step`` tries swapping a random free row with every other one, keeping the best
    swap that stays conflict-free and gains weight. Returns the new (cost, weight).
    """
    m = free.size
    steps = 0
    while max_steps == 0 or steps < max_steps:
        if cost == 0:
            break
        worst_row = NO_ROW
        worst = 0
        ties = 0
        for i in range(m):
            row = free[i]
            attacked = queen_conflicts(perm, diag, anti, row)
            if attacked > worst:
                worst = attacked
                worst_row = row
                ties = 1
            elif attacked == worst and attacked > 0 and random_ties:
                ties += 1
                if np.random.randint(0, ties) == 0:
                    worst_row = row
        if worst_row < 0:
            break
        own_diag = worst_row - perm[worst_row]
        own_anti = worst_row + perm[worst_row]
        best_delta = 0
        best_gain = 0.0
        best_partner = NO_ROW
        offset = np.random.randint(0, m) if partners == PARTNERS_FIRST else 0
        for t in range(m):
            row = free[(offset + t) % m]
            if row == worst_row:
                continue
            if partners == PARTNERS_CLASHING and not (
                row - perm[row] == own_diag or row + perm[row] == own_anti
            ):
                continue
            delta = swap_delta(perm, diag, anti, worst_row, row)
            counters[C_EVALS] += 1
            gain = swap_weight_delta(perm, weights, worst_row, row) if weighted else 0.0
            if delta < best_delta or (delta == best_delta and gain > best_gain):
                best_delta = delta
                best_gain = gain
                best_partner = row
                if (cost + delta == 0 and not weighted) or partners == PARTNERS_FIRST:
                    break
        if best_partner < 0:
            break
        apply_swap(perm, diag, anti, worst_row, best_partner)
        cost += best_delta
        weight += best_gain
        counters[C_IMPROVES] += 1
        steps += 1
    if weighted and weight_step and cost == 0 and m >= 2:
        row = free[np.random.randint(0, m)]
        best_gain = 1e-9
        best_partner = NO_ROW
        for i in range(m):
            other = free[i]
            if other == row:
                continue
            gain = swap_weight_delta(perm, weights, row, other)
            if gain <= best_gain:
                continue  # cannot beat the best: its cost need not be computed
            counters[C_EVALS] += 1
            if swap_delta(perm, diag, anti, row, other) == 0:
                best_gain = gain
                best_partner = other
        if best_partner >= 0:
            apply_swap(perm, diag, anti, row, best_partner)
            weight += best_gain
            counters[C_IMPROVES] += 1
    return cost, weight
