"""numba kernels of the genetic algorithm (:mod:`nqmip.heuristics.ga.run`).

The population is an ``(P, n)`` int32 array of permutations (row ``i`` of the board holds
its queen in column ``perm[i]``). Every operator works on the *free* rows only — the
sorted array ``free`` of rows without a fixed queen, ``m = free.size`` — so fixed queens
never move: a crossover recombines the sequences ``parent[free]``, whose values are the same
set in every individual, and a mutation swaps two free rows.

Costs are the number of attacking pairs (diagonals and anti-diagonals). A child's cost is
computed once from scratch in O(n) by filling occupancy counters; every swap tried by the
local improvement is then priced in O(1) with :func:`nqmip.heuristics.kernels.swap_delta`.
Each of these computations is one *evaluation* (``counters[C_EVALS]``).

The loop that drives a run (:func:`ga_chunk`) is one kernel with integer operator codes, so
that the operators stay small separate functions while nothing in the hot loop goes back
to Python. It runs a *chunk* of work and returns; the caller checks the clock in between
and passes a fresh seed each time (``np.random.seed(seed)`` at the start of every kernel
that draws numbers: numba's generator is separate from NumPy's).

Long module: the operators are dispatched by integer code inside one compiled driver;
numba's cache keys each kernel by its module, and keeping the operators beside the driver
keeps one cache and one compile for a run.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nqmip.heuristics.kernels import (
    apply_swap,
    fill_counters,
    queen_conflicts,
    swap_delta,
    swap_weight_delta,
)

# Operator codes (the names live in ga.py).
SEL_TOURNAMENT = 0  # k individuals drawn with replacement, the best wins
SEL_BEST_OF = 1  # k distinct individuals drawn at random, the best wins (001: k = 5)
SEL_ROULETTE = 2  # probability proportional to fitness n(n-1)/2 - conflicts (004)
SEL_RANDOM = 3  # uniform (what 001's published code does, by a bug)

X_PMX = 0  # partially mapped crossover on a random segment, one child (000)
X_CUT_CROSSFILL = 1  # Eiben & Smith: head of p1, rest in p2's order from the cut, wrapping
X_CROSSFILL_001 = 2  # 001's published variant of cut-and-crossfill (two children)
X_GENE_DRAW = 3  # 004: each gene from either parent with p = 0.5, skipping repeats
X_NONE = 4  # the child is a copy of the first parent

MUT_NONE = 0
MUT_SWAP = 1  # with probability p, swap two random free rows (000, 001)
MUT_PER_GENE = 2  # each free row, with probability p, swaps with another random one (004)

REP_WORST = 0  # each child overwrites one of the worst (001)
REP_CHU_BEASLEY = 1  # overwrite the worst only if better and not a duplicate (000)
REP_GENERATIONAL = 2  # the offspring replace the whole population (004)

IMP_NONE = 0
IMP_MOST_ATTACKED = 1  # 000: swap the most attacked queen with each queen it clashes with

PARTNERS_CLASHING = 0  # 000: only the queens on the most attacked queen's two lines
PARTNERS_ALL = 1  # every other free row, the best swap
PARTNERS_FIRST = 2  # every other free row from a random start, the first improving swap

# Integer configuration, ``icfg[...]``.
I_SELECTION = 0
I_TOURNAMENT_K = 1
I_CROSSOVER = 2
I_SEGMENT_MIN = 3  # PMX segment length range in genes; 0 = two random cut points
I_SEGMENT_MAX = 4
I_CUT = 5  # cut point of cut-and-crossfill; -1 = random
I_MUTATION = 6
I_MUTATION_DISTINCT = 7  # 1: the two swapped rows differ; 0: drawn independently (001)
I_REPLACEMENT = 8
I_CHILDREN = 9  # children per steady-state iteration (1 or 2)
I_IMPROVE = 10
I_IMPROVE_STEPS = 11  # improving swaps per call; 0 = until no swap improves
I_IMPROVE_INITIAL = 12  # also improve the initial individuals
I_STOP_IN_INIT = 13  # stop at the first initial individual that solves
I_MAX_EVALS = 14
I_WEIGHTED = 15
I_PARTNERS = 16
I_RANDOM_TIES = 17  # break ties for the most attacked queen at random (else first row)
I_WEIGHT_STEP = 18  # weighted: a conflict-free child also tries a weight-improving swap
I_MAX_ITERS = 19
N_ICFG = 20

# Float configuration, ``fcfg[...]``.
F_P_CROSSOVER = 0
F_P_MUTATION = 1
F_BOUND = 2  # weighted: stop when a conflict-free placement reaches this weight
N_FCFG = 3

# Counters, ``counters[...]`` (int64), kept between chunks.
C_EVALS = 0
C_ITERS = 1
C_IMPROVES = 2
C_INIT_DONE = 3  # initial individuals evaluated so far
C_FOUND = 4  # 1 once a conflict-free placement is stored in ``best``
C_BEST_COST = 5  # fewest conflicts seen
C_SOLVED_AT = 6  # evaluations when the first conflict-free placement was seen (-1)
C_FOUND_IN_INIT = 7  # 1 if the first solution came from the initial population
N_COUNTERS = 8

# Return codes of ga_chunk.
RUN_CONTINUE = 0
RUN_SOLVED = 1  # feasibility solved, or weighted optimum reached the bound
RUN_BUDGET = 2  # evaluation or iteration budget spent

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
    child[:] = base
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
    child[:] = head
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
    child_a[:] = first
    child_b[:] = first
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
    child[:] = x
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
        worst_row = -1
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
        best_partner = -1
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
        best_partner = -1
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


# ---------------------------------------------------------------------------------------
# The driver
# ---------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _record(
    perm: np.ndarray,
    cost: int,
    weight: float,
    best: np.ndarray,
    best_weight: np.ndarray,
    counters: np.ndarray,
    in_init: bool,
) -> None:
    """Keep the best conflict-free placement seen and the fewest conflicts seen."""
    if cost < counters[C_BEST_COST]:
        counters[C_BEST_COST] = cost
    if cost == 0 and (counters[C_FOUND] == 0 or weight > best_weight[0]):
        if counters[C_FOUND] == 0:
            counters[C_SOLVED_AT] = counters[C_EVALS]
            counters[C_FOUND_IN_INIT] = 1 if in_init else 0
        counters[C_FOUND] = 1
        best[:] = perm
        best_weight[0] = weight


@njit(cache=True, nogil=True)
def _evaluate_and_improve(
    perm: np.ndarray,
    diag: np.ndarray,
    anti: np.ndarray,
    free: np.ndarray,
    weights: np.ndarray,
    icfg: np.ndarray,
    counters: np.ndarray,
    improve: bool,
) -> tuple[int, float]:
    """One evaluation from scratch (O(n)), then the local improvement if asked."""
    weighted = icfg[I_WEIGHTED] != 0
    cost = fill_counters(perm, diag, anti)
    weight = placement_weight(perm, weights) if weighted else 0.0
    counters[C_EVALS] += 1
    if improve and icfg[I_IMPROVE] == IMP_MOST_ATTACKED:
        cost, weight = improve_most_attacked(
            perm, diag, anti, free, weights, weighted, cost, weight,
            icfg[I_IMPROVE_STEPS], icfg[I_PARTNERS], icfg[I_RANDOM_TIES] != 0,
            icfg[I_WEIGHT_STEP] != 0, counters,
        )
    return cost, weight


@njit(cache=True, nogil=True)
def _goal_reached(icfg: np.ndarray, fcfg: np.ndarray, counters: np.ndarray,
                  best_weight: np.ndarray) -> bool:
    if counters[C_FOUND] == 0:
        return False
    if icfg[I_WEIGHTED] == 0:
        return True
    return best_weight[0] >= fcfg[F_BOUND] - 1e-9


@njit(cache=True, nogil=True)
def _select(
    cost: np.ndarray, weight: np.ndarray, icfg: np.ndarray, fitness: np.ndarray,
    total_fitness: float, scratch: np.ndarray,
) -> int:
    kind = icfg[I_SELECTION]
    if kind == SEL_TOURNAMENT:
        return select_tournament(cost, weight, icfg[I_TOURNAMENT_K])
    if kind == SEL_BEST_OF:
        return select_best_of(cost, weight, icfg[I_TOURNAMENT_K], scratch)
    if kind == SEL_ROULETTE:
        return select_roulette(fitness, total_fitness)
    return np.random.randint(0, cost.size)


@njit(cache=True, nogil=True)
def _crossover(
    p1: np.ndarray, p2: np.ndarray, child_a: np.ndarray, child_b: np.ndarray,
    free: np.ndarray, icfg: np.ndarray, used: np.ndarray, position: np.ndarray,
    scratch: np.ndarray, two: bool,
) -> None:
    """Fill ``child_a`` (and ``child_b`` when ``two``) from parents p1 and p2."""
    kind = icfg[I_CROSSOVER]
    m = free.size
    if kind == X_PMX:
        # 000: one child, the parent that receives the segment drawn at random.
        if np.random.random() < 0.5:
            p1, p2 = p2, p1
        pmx(p1, p2, child_a, free, position, icfg[I_SEGMENT_MIN], icfg[I_SEGMENT_MAX])
        if two:
            pmx(p2, p1, child_b, free, position, icfg[I_SEGMENT_MIN], icfg[I_SEGMENT_MAX])
    elif kind == X_CUT_CROSSFILL:
        cut = icfg[I_CUT]
        if cut < 0:
            cut = np.random.randint(1, m) if m >= 2 else 0
        cut = min(cut, m)
        cut_crossfill(p1, p2, child_a, free, used, cut)
        if two:
            cut_crossfill(p2, p1, child_b, free, used, cut)
    elif kind == X_CROSSFILL_001:
        crossfill_001(p1, p2, child_a, child_b, free, used, scratch)
    elif kind == X_GENE_DRAW:
        gene_draw(p1, p2, child_a, free, used)
        if two:
            gene_draw(p1, p2, child_b, free, used)
    else:
        child_a[:] = p1
        if two:
            child_b[:] = p2


@njit(cache=True, nogil=True)
def _mutate(perm: np.ndarray, free: np.ndarray, icfg: np.ndarray, fcfg: np.ndarray) -> None:
    kind = icfg[I_MUTATION]
    if kind == MUT_SWAP:
        swap_mutation(perm, free, fcfg[F_P_MUTATION], icfg[I_MUTATION_DISTINCT] != 0)
    elif kind == MUT_PER_GENE:
        per_gene_mutation(perm, free, fcfg[F_P_MUTATION])


@njit(cache=True, nogil=True)
def _worst(cost: np.ndarray, weight: np.ndarray, skip: int) -> int:
    """Index of the worst individual (the first one on ties), ``skip`` excluded."""
    worst = -1
    for i in range(cost.size):
        if i == skip:
            continue
        if worst < 0 or better(cost[worst], weight[worst], cost[i], weight[i]):
            worst = i
    return worst


@njit(cache=True, nogil=True)
def _is_duplicate(
    pop: np.ndarray, cost: np.ndarray, weight: np.ndarray, hashes: np.ndarray,
    child: np.ndarray, child_cost: int, child_weight: float, child_hash: np.int64,
) -> bool:
    for i in range(cost.size):
        if cost[i] == child_cost and weight[i] == child_weight and hashes[i] == child_hash:
            same = True
            for g in range(child.size):
                if pop[i, g] != child[g]:
                    same = False
                    break
            if same:
                return True
    return False


@njit(cache=True, nogil=True)
def ga_chunk(
    pop: np.ndarray,
    cost: np.ndarray,
    weight: np.ndarray,
    hashes: np.ndarray,
    free: np.ndarray,
    weights: np.ndarray,
    icfg: np.ndarray,
    fcfg: np.ndarray,
    counters: np.ndarray,
    best: np.ndarray,
    best_weight: np.ndarray,
    eval_stop: int,
    seed: int,
) -> int:
    """Run the GA until ``counters[C_EVALS] >= eval_stop`` (a chunk), the goal, or the budget.

    Phase 1 evaluates (and, if configured, improves) the initial individuals not yet done;
    phase 2 runs steady-state iterations (Chu-Beasley or replace-the-worst: one or two
    children each) or generations (generational replacement). The budget is checked at
    each iteration start, so a run ends within one iteration's evaluations past it.
    Returns RUN_CONTINUE, RUN_SOLVED or RUN_BUDGET.
    """
    np.random.seed(seed)
    size, n = pop.shape
    m = free.size
    max_pairs = n * (n - 1) // 2
    weighted = icfg[I_WEIGHTED] != 0
    diag = np.zeros(max(2 * n - 1, 1), dtype=np.int32)
    anti = np.zeros(max(2 * n - 1, 1), dtype=np.int32)
    used = np.zeros(n, dtype=np.bool_)
    position = np.zeros(n, dtype=np.int64)
    scratch = np.zeros(max(size, n), dtype=np.int64)
    fitness = np.zeros(size, dtype=np.float64)
    child_a = np.empty(n, dtype=pop.dtype)
    child_b = np.empty(n, dtype=pop.dtype)
    max_evals = icfg[I_MAX_EVALS]
    max_iters = icfg[I_MAX_ITERS]

    # Phase 1: the initial population.
    improve_init = icfg[I_IMPROVE_INITIAL] != 0
    while counters[C_INIT_DONE] < size:
        if counters[C_EVALS] >= eval_stop:
            return RUN_CONTINUE
        if counters[C_EVALS] >= max_evals:
            return RUN_BUDGET
        i = counters[C_INIT_DONE]
        c, w = _evaluate_and_improve(pop[i], diag, anti, free, weights, icfg, counters,
                                     improve_init)
        cost[i] = c
        weight[i] = w
        hashes[i] = perm_hash(pop[i])
        counters[C_INIT_DONE] += 1
        _record(pop[i], c, w, best, best_weight, counters, True)
        if icfg[I_STOP_IN_INIT] != 0 and _goal_reached(icfg, fcfg, counters, best_weight):
            return RUN_SOLVED
    if _goal_reached(icfg, fcfg, counters, best_weight):
        return RUN_SOLVED

    # Phase 2: iterations.
    replacement = icfg[I_REPLACEMENT]
    children = icfg[I_CHILDREN]
    roulette = icfg[I_SELECTION] == SEL_ROULETTE
    if replacement == REP_GENERATIONAL:
        new_pop = np.empty_like(pop)
        new_cost = np.empty_like(cost)
        new_weight = np.empty_like(weight)
    else:
        new_pop = np.empty((1, n), dtype=pop.dtype)
        new_cost = np.empty(1, dtype=cost.dtype)
        new_weight = np.empty(1, dtype=weight.dtype)
    while True:
        if counters[C_EVALS] >= max_evals or (max_iters > 0 and counters[C_ITERS] >= max_iters):
            return RUN_BUDGET
        if counters[C_EVALS] >= eval_stop:
            return RUN_CONTINUE
        counters[C_ITERS] += 1
        total_fitness = 0.0
        if roulette:
            total_fitness = roulette_fitness(cost, weight, max_pairs, weighted, fitness)

        if replacement == REP_GENERATIONAL:
            # 004: every slot is a crossover child (probability p_c) or a clone.
            for slot in range(size):
                if np.random.random() < fcfg[F_P_CROSSOVER]:
                    x = _select(cost, weight, icfg, fitness, total_fitness, scratch)
                    y = _select(cost, weight, icfg, fitness, total_fitness, scratch)
                    _crossover(pop[x], pop[y], new_pop[slot], child_b, free, icfg, used,
                               position, scratch, False)
                else:
                    x = _select(cost, weight, icfg, fitness, total_fitness, scratch)
                    new_pop[slot] = pop[x]
            for slot in range(size):
                _mutate(new_pop[slot], free, icfg, fcfg)
                c, w = _evaluate_and_improve(new_pop[slot], diag, anti, free, weights, icfg,
                                             counters, True)
                new_cost[slot] = c
                new_weight[slot] = w
                _record(new_pop[slot], c, w, best, best_weight, counters, False)
            pop[:] = new_pop
            cost[:] = new_cost
            weight[:] = new_weight
            for slot in range(size):
                hashes[slot] = perm_hash(pop[slot])
        else:
            x = _select(cost, weight, icfg, fitness, total_fitness, scratch)
            y = _select(cost, weight, icfg, fitness, total_fitness, scratch)
            if m >= 2 and icfg[I_CROSSOVER] != X_NONE and fcfg[F_P_CROSSOVER] < 1.0 and (
                np.random.random() >= fcfg[F_P_CROSSOVER]
            ):
                child_a[:] = pop[x]
                child_b[:] = pop[y]
            else:
                _crossover(pop[x], pop[y], child_a, child_b, free, icfg, used, position,
                           scratch, children == 2)
            # Replace-the-worst picks its victims before the children enter (001's code
            # sorts the population once, then overwrites the worst, then the next worst).
            victim_a = -1
            victim_b = -1
            if replacement == REP_WORST:
                victim_a = _worst(cost, weight, -1)
                if children == 2:
                    victim_b = _worst(cost, weight, victim_a)
            for which in range(children):
                child = child_a if which == 0 else child_b
                _mutate(child, free, icfg, fcfg)
                c, w = _evaluate_and_improve(child, diag, anti, free, weights, icfg,
                                             counters, True)
                _record(child, c, w, best, best_weight, counters, False)
                h = perm_hash(child)
                if replacement == REP_WORST:
                    slot = victim_a if which == 0 else victim_b
                    if slot < 0:
                        continue
                else:
                    slot = _worst(cost, weight, -1)
                    if not better(c, w, cost[slot], weight[slot]):
                        continue
                    if _is_duplicate(pop, cost, weight, hashes, child, c, w, h):
                        continue
                pop[slot] = child
                cost[slot] = c
                weight[slot] = w
                hashes[slot] = h
        if _goal_reached(icfg, fcfg, counters, best_weight):
            return RUN_SOLVED
