"""The integers the genetic algorithm's Python side and its numba driver share: operator
codes, the slots of the integer and float configuration arrays, the run's counters and the
driver's return codes. Plain Python (no numba), so configuring a run does not load numba.
"""

from __future__ import annotations

# Operator codes (the operators' names live in operators.py).
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
