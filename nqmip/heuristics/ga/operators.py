"""The concrete operators of the genetic algorithm, selectable by name: selection,
crossover, mutation, replacement and local improvement (the operators of the reference
documents 000, 001 and 004, and ours). Each writes its code and parameters into the
configuration arrays; the numba code of each is in :mod:`nqmip.heuristics.ga.operator_kernels`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from nqmip.heuristics.common import ParameterError, check_float, check_int
from nqmip.heuristics.ga import codes as k
from nqmip.heuristics.ga.base import Operator, _check_bool

# --- selection ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Tournament(Operator):
    """k individuals drawn with replacement; the best (fewest conflicts, then most weight)."""

    k: int = 2
    name: ClassVar[str] = "tournament"
    code: ClassVar[int] = 0

    def __post_init__(self) -> None:
        check_int("tournament_k", self.k, 1)

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_SELECTION] = k.SEL_TOURNAMENT
        icfg[k.I_TOURNAMENT_K] = self.k


@dataclass(frozen=True)
class BestOf(Operator):
    """The best of k distinct individuals drawn at random (001: k = 5, once per parent)."""

    k: int = 5
    name: ClassVar[str] = "best_of"
    code: ClassVar[int] = 1

    def __post_init__(self) -> None:
        check_int("tournament_k", self.k, 1)

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_SELECTION] = k.SEL_BEST_OF
        icfg[k.I_TOURNAMENT_K] = self.k


@dataclass(frozen=True)
class Roulette(Operator):
    """Roulette wheel on 004's fitness n(n-1)/2 - conflicts (weighted: + weight in [0, 1))."""

    name: ClassVar[str] = "roulette"
    code: ClassVar[int] = 2

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_SELECTION] = k.SEL_ROULETTE


@dataclass(frozen=True)
class RandomSelection(Operator):
    """Uniform choice: what 001's published code actually does (see the docs)."""

    name: ClassVar[str] = "random"
    code: ClassVar[int] = 3

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_SELECTION] = k.SEL_RANDOM


# --- crossover ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PMX(Operator):
    """Partially mapped crossover on a random segment of the free rows, one child per pair.

    ``segment``: ``(low, high)`` fractions of the free rows bounding the segment length
    (000: 30-80 genes of 1000 -> ``(0.03, 0.08)``, at least one gene), or ``None`` for a
    segment between two uniform random cut points.
    """

    segment: tuple[float, float] | None = None
    name: ClassVar[str] = "pmx"
    code: ClassVar[int] = 0

    def __post_init__(self) -> None:
        if self.segment is not None:
            try:
                low, high = self.segment
            except (TypeError, ValueError):
                raise ParameterError(
                    f"pmx_segment must be a (low, high) pair of fractions, got {self.segment!r}"
                ) from None
            low = check_float("pmx_segment low", low, 0.0, 1.0)
            high = check_float("pmx_segment high", high, 0.0, 1.0)
            if high < low:
                raise ParameterError(f"pmx_segment must have low <= high, got {self.segment}")
            object.__setattr__(self, "segment", (low, high))

    def lengths(self, m: int) -> tuple[int, int]:
        """Segment length range in genes for m free rows (0, 0 = random cut points)."""
        if self.segment is None:
            return 0, 0
        low = max(1, round(self.segment[0] * m))
        high = max(low, round(self.segment[1] * m))
        return low, high

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_CROSSOVER] = k.X_PMX
        icfg[k.I_SEGMENT_MIN], icfg[k.I_SEGMENT_MAX] = self.lengths(m)


@dataclass(frozen=True)
class CutCrossfill(Operator):
    """Cut-and-crossfill (Eiben & Smith): head of one parent, the rest in the other's order
    from the cut point on, wrapping. ``cut``: a fixed cut (free genes) or None for random."""

    cut: int | None = None
    name: ClassVar[str] = "cut_crossfill"
    code: ClassVar[int] = 1

    def __post_init__(self) -> None:
        if self.cut is not None:
            check_int("cut", self.cut, 0)

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_CROSSOVER] = k.X_CUT_CROSSFILL
        icfg[k.I_CUT] = -1 if self.cut is None else min(self.cut, m)


@dataclass(frozen=True)
class Crossfill001(Operator):
    """001's published cut-and-crossfill at half the free rows (its Figures 10-11), two
    children."""

    name: ClassVar[str] = "crossfill_001"
    code: ClassVar[int] = 2

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_CROSSOVER] = k.X_CROSSFILL_001


@dataclass(frozen=True)
class GeneDraw(Operator):
    """004: each gene from either parent with p = 0.5, that parent's first unused gene."""

    name: ClassVar[str] = "gene_draw"
    code: ClassVar[int] = 3

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_CROSSOVER] = k.X_GENE_DRAW


@dataclass(frozen=True)
class NoCrossover(Operator):
    """Children are copies of their parents (mutation and improvement do the work)."""

    name: ClassVar[str] = "none"
    code: ClassVar[int] = 4

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_CROSSOVER] = k.X_NONE


# --- mutation ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SwapMutation(Operator):
    """With probability p, swap two random free rows; ``distinct=False`` draws the two rows
    independently, so the swap may do nothing (001's code)."""

    p: float = 1.0
    distinct: bool = True
    name: ClassVar[str] = "swap"
    code: ClassVar[int] = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "p", check_float("p_mutation", self.p, 0.0, 1.0))
        object.__setattr__(self, "distinct", _check_bool("mutation_distinct", self.distinct))

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_MUTATION] = k.MUT_SWAP
        icfg[k.I_MUTATION_DISTINCT] = int(self.distinct)
        fcfg[k.F_P_MUTATION] = self.p


@dataclass(frozen=True)
class PerGeneMutation(Operator):
    """004: each free row, with probability p, swaps with another random free row."""

    p: float = 0.05
    name: ClassVar[str] = "per_gene"
    code: ClassVar[int] = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, "p", check_float("p_mutation", self.p, 0.0, 1.0))

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_MUTATION] = k.MUT_PER_GENE
        fcfg[k.F_P_MUTATION] = self.p


@dataclass(frozen=True)
class NoMutation(Operator):
    name: ClassVar[str] = "none"
    code: ClassVar[int] = 0

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_MUTATION] = k.MUT_NONE


# --- replacement -------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplaceWorst(Operator):
    """Each child overwrites one of the worst individuals, unconditionally (001)."""

    name: ClassVar[str] = "worst"
    code: ClassVar[int] = 0

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_REPLACEMENT] = k.REP_WORST


@dataclass(frozen=True)
class ChuBeasley(Operator):
    """The child overwrites the worst only if better and not already in the population."""

    name: ClassVar[str] = "chu_beasley"
    code: ClassVar[int] = 1

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_REPLACEMENT] = k.REP_CHU_BEASLEY


@dataclass(frozen=True)
class Generational(Operator):
    """The offspring (crossover children or clones, all mutated) replace the population."""

    name: ClassVar[str] = "generational"
    code: ClassVar[int] = 2

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_REPLACEMENT] = k.REP_GENERATIONAL


# --- local improvement -------------------------------------------------------------------


#: Partners of the most attacked queen, in kernel code order: the queens it clashes with
#: (000, best swap); every free row (best swap); every free row from a random start,
#: stopping at the first improving swap.
PARTNER_MODES = ("clashing", "all", "first")


@dataclass(frozen=True)
class MostAttacked(Operator):
    """000's improvement: swap the most attacked queen with each queen it clashes with
    (``partners="all"``: with every free row), apply the best swap if it improves.

    ``steps``: improving swaps per call, 0 = repeat until no swap improves (a descent;
    capped on large boards, see :func:`improve_step_cap`).
    ``random_ties``: ties for the most attacked queen broken at random (else first row).
    ``weight_step``: weighted instances, once conflict-free, also try the best
    weight-gaining conflict-free swap of a random row with every other.
    """

    steps: int = 0
    partners: str = "clashing"
    random_ties: bool = True
    weight_step: bool = True
    name: ClassVar[str] = "most_attacked"
    code: ClassVar[int] = 1

    def __post_init__(self) -> None:
        check_int("improve_steps", self.steps, 0)
        if self.partners not in PARTNER_MODES:
            raise ParameterError(
                f"partners must be one of {', '.join(PARTNER_MODES)}, got {self.partners!r}"
            )
        _check_bool("random_ties", self.random_ties)
        _check_bool("weight_step", self.weight_step)

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_IMPROVE] = k.IMP_MOST_ATTACKED
        icfg[k.I_IMPROVE_STEPS] = self.steps or improve_step_cap(m)
        icfg[k.I_PARTNERS] = PARTNER_MODES.index(self.partners)
        icfg[k.I_RANDOM_TIES] = int(self.random_ties)
        icfg[k.I_WEIGHT_STEP] = int(self.weight_step)


#: Work of one improvement call, in row scans (a step scans the m free rows): "until it no
#: longer improves" (``steps=0``) is capped at ``IMPROVE_WORK // m`` steps from
#: m > ``IMPROVE_UNCAPPED_M`` on, so that one kernel call stays short and a time limit
#: holds (the clock is read between calls). Uncapped, a random start at chess n = 10^5
#: took ~n steps of O(n): a 2 s limit ran 119 s.
IMPROVE_WORK = 20_000_000
IMPROVE_UNCAPPED_M = 4_000


def improve_step_cap(m: int) -> int:
    """The step cap of an improvement "until it no longer improves" on m free rows (0: none)."""
    return 0 if m <= IMPROVE_UNCAPPED_M else max(1, IMPROVE_WORK // m)


@dataclass(frozen=True)
class NoImprovement(Operator):
    name: ClassVar[str] = "none"
    code: ClassVar[int] = 0

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        icfg[k.I_IMPROVE] = k.IMP_NONE


SELECTIONS: dict[str, type[Operator]] = {
    c.name: c for c in (Tournament, BestOf, Roulette, RandomSelection)
}
CROSSOVERS: dict[str, type[Operator]] = {
    c.name: c for c in (PMX, CutCrossfill, Crossfill001, GeneDraw, NoCrossover)
}
MUTATIONS: dict[str, type[Operator]] = {c.name: c for c in (SwapMutation, PerGeneMutation,
                                                              NoMutation)}
REPLACEMENTS: dict[str, type[Operator]] = {c.name: c for c in (ReplaceWorst, ChuBeasley,
                                                                 Generational)}
IMPROVEMENTS: dict[str, type[Operator]] = {c.name: c for c in (MostAttacked, NoImprovement)}
