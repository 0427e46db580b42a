"""The numba driver of the genetic algorithm (:mod:`nqmip.heuristics.ga.run` calls it).

The loop that drives a run (:func:`ga_chunk`) is one kernel with integer operator codes
(:mod:`nqmip.heuristics.ga.codes`), so that the operators
(:mod:`nqmip.heuristics.ga.operator_kernels`) stay small separate functions while nothing
in the hot loop goes back to Python. It runs a *chunk* of work and returns; the caller
(the shared chunk loop) reads the deadline in between and passes a fresh seed each time
(``np.random.seed(seed)`` at the start of every kernel that draws numbers: numba's
generator is separate from NumPy's).
"""

from __future__ import annotations

import numpy as np

from nqmip.heuristics.ga.codes import (
    C_BEST_COST,
    C_EVALS,
    C_FOUND,
    C_FOUND_IN_INIT,
    C_INIT_DONE,
    C_ITERS,
    C_SOLVED_AT,
    F_BOUND,
    F_P_CROSSOVER,
    F_P_MUTATION,
    I_CHILDREN,
    I_CROSSOVER,
    I_CUT,
    I_IMPROVE,
    I_IMPROVE_INITIAL,
    I_IMPROVE_STEPS,
    I_MAX_EVALS,
    I_MAX_ITERS,
    I_MUTATION,
    I_MUTATION_DISTINCT,
    I_PARTNERS,
    I_RANDOM_TIES,
    I_REPLACEMENT,
    I_SEGMENT_MAX,
    I_SEGMENT_MIN,
    I_SELECTION,
    I_STOP_IN_INIT,
    I_TOURNAMENT_K,
    I_WEIGHT_STEP,
    I_WEIGHTED,
    IMP_MOST_ATTACKED,
    MUT_PER_GENE,
    MUT_SWAP,
    REP_GENERATIONAL,
    REP_WORST,
    RUN_BUDGET,
    RUN_CONTINUE,
    RUN_SOLVED,
    SEL_BEST_OF,
    SEL_ROULETTE,
    SEL_TOURNAMENT,
    X_CROSSFILL_001,
    X_CUT_CROSSFILL,
    X_GENE_DRAW,
    X_NONE,
    X_PMX,
)
from nqmip.heuristics.ga.operator_kernels import (
    better,
    crossfill_001,
    cut_crossfill,
    gene_draw,
    improve_most_attacked,
    per_gene_mutation,
    perm_hash,
    placement_weight,
    pmx,
    roulette_fitness,
    select_best_of,
    select_roulette,
    select_tournament,
    swap_mutation,
)
from nqmip.heuristics.kernels import copy_into, fill_counters
from nqmip.numba_cache import njit
from nqmip.numba_consts import NO_ROW

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
        copy_into(best, perm)
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
        copy_into(child_a, p1)
        if two:
            copy_into(child_b, p2)


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
    worst = NO_ROW
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
        _record(pop[i], c, w, best, best_weight, counters, np.True_)
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
                               position, scratch, np.False_)
                else:
                    x = _select(cost, weight, icfg, fitness, total_fitness, scratch)
                    copy_into(new_pop[slot], pop[x])
            for slot in range(size):
                _mutate(new_pop[slot], free, icfg, fcfg)
                c, w = _evaluate_and_improve(new_pop[slot], diag, anti, free, weights, icfg,
                                             counters, np.True_)
                new_cost[slot] = c
                new_weight[slot] = w
                _record(new_pop[slot], c, w, best, best_weight, counters, np.False_)
            for slot in range(size):
                copy_into(pop[slot], new_pop[slot])
            copy_into(cost, new_cost)
            copy_into(weight, new_weight)
            for slot in range(size):
                hashes[slot] = perm_hash(pop[slot])
        else:
            x = _select(cost, weight, icfg, fitness, total_fitness, scratch)
            y = _select(cost, weight, icfg, fitness, total_fitness, scratch)
            if m >= 2 and icfg[I_CROSSOVER] != X_NONE and fcfg[F_P_CROSSOVER] < 1.0 and (
                np.random.random() >= fcfg[F_P_CROSSOVER]
            ):
                copy_into(child_a, pop[x])
                copy_into(child_b, pop[y])
            else:
                _crossover(pop[x], pop[y], child_a, child_b, free, icfg, used, position,
                           scratch, children == 2)
            # Replace-the-worst picks its victims before the children enter (001's code
            # sorts the population once, then overwrites the worst, then the next worst).
            victim_a = NO_ROW
            victim_b = NO_ROW
            if replacement == REP_WORST:
                victim_a = _worst(cost, weight, NO_ROW)
                if children == 2:
                    victim_b = _worst(cost, weight, victim_a)
            for which in range(children):
                child = child_a if which == 0 else child_b
                _mutate(child, free, icfg, fcfg)
                c, w = _evaluate_and_improve(child, diag, anti, free, weights, icfg,
                                             counters, np.True_)
                _record(child, c, w, best, best_weight, counters, np.False_)
                h = perm_hash(child)
                if replacement == REP_WORST:
                    slot = victim_a if which == 0 else victim_b
                    if slot < 0:
                        continue
                else:
                    slot = _worst(cost, weight, NO_ROW)
                    if not better(c, w, cost[slot], weight[slot]):
                        continue
                    if _is_duplicate(pop, cost, weight, hashes, child, c, w, h):
                        continue
                copy_into(pop[slot], child)
                cost[slot] = c
                weight[slot] = w
                hashes[slot] = h
        if _goal_reached(icfg, fcfg, counters, best_weight):
            return RUN_SOLVED
