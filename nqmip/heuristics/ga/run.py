"""Genetic algorithm on the permutation encoding: the operators of seeds 000, 001 and 004,
their presets, and a default configuration of ours.

Operators are small classes selectable by name (pymoo-style: selection, crossover,
mutation, replacement, improvement kept apart); each writes its code and parameters into
the integer/float configuration read by the numba driver
:func:`nqmip.heuristics.ga.kernels.ga_chunk`, so the hot loop never returns to Python.

Counting (documented in docs/genetic-algorithm.md): every candidate board whose cost is
computed is one *evaluation* — each initial individual, each child, and each swap tried by
the local improvement. ``iterations`` counts steady-state iterations (one mating) or
generations; ``improvements`` counts the swaps the local improvement applied.

Usage::

    solve_ga(instance, seed=1, time_limit=None)                  # our default
    solve_ga(instance, seed=1, time_limit=None, preset="crossfill-ea")  # document 001's EA
    solve_ga(instance, seed=1, time_limit=None, preset="chu-beasley", population=50)

Long module: the operator classes, the presets of the three reference documents and the
driver are one method's configuration surface; split apart, each preset would have to
import every operator module and the docs would lose their one place to point to.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

import numpy as np

from nqmip.budget import Deadline
from nqmip.heuristics.common import (
    ParameterError,
    check_float,
    check_int,
    default_budget,
    fixed_queens_clash,
    free_rows_and_columns,
    heuristic_result,
    kernel_seed,
    make_rng,
    random_permutation,
    stop_clock,
    timed_compile,
    weight_bound,
)
from nqmip.heuristics.loop import run_chunks
from nqmip.instance import Instance, make_instance
from nqmip.result import Result, Status, Termination

# The numba module is imported lazily (see _kernels): `import nqmip` must not load numba.


def _kernels() -> Any:
    from nqmip.heuristics.ga import kernels as ga_kernels

    return ga_kernels


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise ParameterError(f"{name} must be True or False, got {value!r}")
    return bool(value)


# ---------------------------------------------------------------------------------------
# Operators
# ---------------------------------------------------------------------------------------


class Operator:
    """An operator: a name, a numba code, its parameters written into the configuration."""

    name: ClassVar[str]
    code: ClassVar[int]

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        args = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self))  # type: ignore[arg-type]
        return f"{self.name}({args})"


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
        k = _kernels()
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
        k = _kernels()
        icfg[k.I_SELECTION] = k.SEL_BEST_OF
        icfg[k.I_TOURNAMENT_K] = self.k


@dataclass(frozen=True)
class Roulette(Operator):
    """Roulette wheel on 004's fitness n(n-1)/2 - conflicts (weighted: + weight in [0, 1))."""

    name: ClassVar[str] = "roulette"
    code: ClassVar[int] = 2

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        k = _kernels()
        icfg[k.I_SELECTION] = k.SEL_ROULETTE


@dataclass(frozen=True)
class RandomSelection(Operator):
    """Uniform choice: what 001's published code actually does (see the docs)."""

    name: ClassVar[str] = "random"
    code: ClassVar[int] = 3

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        k = _kernels()
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
        k = _kernels()
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
        k = _kernels()
        icfg[k.I_CROSSOVER] = k.X_CUT_CROSSFILL
        icfg[k.I_CUT] = -1 if self.cut is None else min(self.cut, m)


@dataclass(frozen=True)
class Crossfill001(Operator):
    """001's published cut-and-crossfill at half the free rows (its Figures 10-11), two
    children."""

    name: ClassVar[str] = "crossfill_001"
    code: ClassVar[int] = 2

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        k = _kernels()
        icfg[k.I_CROSSOVER] = k.X_CROSSFILL_001


@dataclass(frozen=True)
class GeneDraw(Operator):
    """004: each gene from either parent with p = 0.5, that parent's first unused gene."""

    name: ClassVar[str] = "gene_draw"
    code: ClassVar[int] = 3

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        k = _kernels()
        icfg[k.I_CROSSOVER] = k.X_GENE_DRAW


@dataclass(frozen=True)
class NoCrossover(Operator):
    """Children are copies of their parents (mutation and improvement do the work)."""

    name: ClassVar[str] = "none"
    code: ClassVar[int] = 4

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        k = _kernels()
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
        k = _kernels()
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
        k = _kernels()
        icfg[k.I_MUTATION] = k.MUT_PER_GENE
        fcfg[k.F_P_MUTATION] = self.p


@dataclass(frozen=True)
class NoMutation(Operator):
    name: ClassVar[str] = "none"
    code: ClassVar[int] = 0

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        k = _kernels()
        icfg[k.I_MUTATION] = k.MUT_NONE


# --- replacement -------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplaceWorst(Operator):
    """Each child overwrites one of the worst individuals, unconditionally (001)."""

    name: ClassVar[str] = "worst"
    code: ClassVar[int] = 0

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        k = _kernels()
        icfg[k.I_REPLACEMENT] = k.REP_WORST


@dataclass(frozen=True)
class ChuBeasley(Operator):
    """The child overwrites the worst only if better and not already in the population."""

    name: ClassVar[str] = "chu_beasley"
    code: ClassVar[int] = 1

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        k = _kernels()
        icfg[k.I_REPLACEMENT] = k.REP_CHU_BEASLEY


@dataclass(frozen=True)
class Generational(Operator):
    """The offspring (crossover children or clones, all mutated) replace the population."""

    name: ClassVar[str] = "generational"
    code: ClassVar[int] = 2

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        k = _kernels()
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
        k = _kernels()
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
        k = _kernels()
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


def _pick(kind: str, registry: dict[str, type[Operator]], value: Any) -> type[Operator]:
    if not isinstance(value, str) or value not in registry:
        raise ParameterError(
            f"unknown {kind} {value!r}: choose from {', '.join(sorted(registry))}"
        )
    return registry[value]


# ---------------------------------------------------------------------------------------
# Configuration and presets
# ---------------------------------------------------------------------------------------

#: Every parameter of solve_ga with the value used by our default configuration.
DEFAULTS: dict[str, Any] = {
    "population": 8,
    "selection": "tournament",
    "tournament_k": 2,
    "crossover": "pmx",
    "pmx_segment": None,
    "cut": None,
    "p_crossover": 1.0,
    "children": 1,
    "mutation": "swap",
    "p_mutation": 1.0,
    "mutation_distinct": True,
    "replacement": "chu_beasley",
    "improve": "most_attacked",
    "improve_steps": 0,
    "partners": "first",
    "random_ties": True,
    "weight_step": True,
    "improve_initial": True,
    "stop_in_init": True,
    "max_evaluations": 1_000_000,
    "max_iterations": None,
}

#: The reference documents' algorithms, as their texts describe them
#: (docs/genetic-algorithm.md), named for what they are; the documents' numbers are kept
#: as aliases (``PRESET_ALIASES``) so that ``--param preset=001`` still works.
PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    # "crossfill-ea" (reference document 001, the Spanish 8-queens EA in C#): population
    # 100, each parent the best of 5 random, cut-and-crossfill (the
    # paper's own variant), 2 children, swap mutation p = 0.8 (the two rows drawn
    # independently), children replace the worst, stop at a solution or 10,000
    # evaluations; the whole initial population is evaluated before the first check.
    "crossfill-ea": {
        "population": 100,
        "selection": "best_of",
        "tournament_k": 5,
        "crossover": "crossfill_001",
        "children": 2,
        "mutation": "swap",
        "p_mutation": 0.8,
        "mutation_distinct": False,
        "replacement": "worst",
        "improve": "none",
        "improve_initial": False,
        "stop_in_init": False,
        "max_evaluations": 10_000,
    },
    # "chu-beasley" (reference document 000, the Portuguese 1000-queen GA): steady state,
    # tournament k = 2, PMX on a random segment of 3-8 %
    # of the genes (30-80 of 1000), one child, swap mutation, most-attacked-queen
    # improvement repeated while it improves, applied to the initial individuals too (the
    # paper's 1000-queen run found its solution at individual 930 in "1 iteration").
    "chu-beasley": {
        "population": 1000,
        "selection": "tournament",
        "tournament_k": 2,
        "crossover": "pmx",
        "pmx_segment": (0.03, 0.08),
        "children": 1,
        "mutation": "swap",
        "p_mutation": 1.0,
        "replacement": "chu_beasley",
        "improve": "most_attacked",
        "improve_steps": 0,
        "partners": "clashing",
        "random_ties": False,
        "weight_step": False,
        "improve_initial": True,
        "stop_in_init": True,
        "max_evaluations": 10_000_000,
    },
    # "roulette-generational" (reference document 004, the English C# article):
    # generational, roulette wheel on 28 - collisions (n(n-1)/2 - conflicts), gene
    # draw crossover with probability p_c else a clone, per-gene swap mutation. The
    # article leaves population, generations and probabilities to its GUI: ours are
    # documented choices. The whole population is evaluated every generation.
    "roulette-generational": {
        "population": 100,
        "selection": "roulette",
        "crossover": "gene_draw",
        "p_crossover": 0.8,
        "mutation": "per_gene",
        "p_mutation": 0.05,
        "replacement": "generational",
        "improve": "none",
        "improve_initial": False,
        "stop_in_init": False,
        "max_evaluations": 100_000,
    },
}

#: The reference documents' numbers, accepted for the presets named above.
PRESET_ALIASES = {"000": "chu-beasley", "001": "crossfill-ea", "004": "roulette-generational"}


@dataclass(frozen=True)
class GAConfig:
    """A validated configuration: operator objects plus run-level settings."""

    preset: str
    population: int
    selection: Operator
    crossover: Operator
    mutation: Operator
    replacement: Operator
    improvement: Operator
    p_crossover: float
    children: int
    improve_initial: bool
    stop_in_init: bool
    max_evaluations: int
    max_iterations: int | None
    params: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def build(cls, preset: str = "default", **params: Any) -> GAConfig:
        if isinstance(preset, str):
            preset = PRESET_ALIASES.get(preset, preset)
        if not isinstance(preset, str) or preset not in PRESETS:
            raise ParameterError(
                f"unknown GA preset {preset!r}: choose from {', '.join(PRESETS)}"
            )
        unknown = sorted(set(params) - set(DEFAULTS))
        if unknown:
            raise ParameterError(
                f"unknown GA parameter(s) {', '.join(unknown)}: use {', '.join(DEFAULTS)}"
            )
        p = {**DEFAULTS, **PRESETS[preset], **params}
        population = check_int("population", p["population"], 1)
        k = check_int("tournament_k", p["tournament_k"], 1)
        selection_cls = _pick("selection", SELECTIONS, p["selection"])
        selection = selection_cls(k=k) if selection_cls in (Tournament, BestOf) else selection_cls()
        crossover_cls = _pick("crossover", CROSSOVERS, p["crossover"])
        if crossover_cls is PMX:
            crossover: Operator = PMX(segment=p["pmx_segment"])
        elif crossover_cls is CutCrossfill:
            crossover = CutCrossfill(cut=p["cut"])
        else:
            crossover = crossover_cls()
        p_crossover = check_float("p_crossover", p["p_crossover"], 0.0, 1.0)
        children = check_int("children", p["children"], 1, 2)
        mutation_cls = _pick("mutation", MUTATIONS, p["mutation"])
        p_mutation = check_float("p_mutation", p["p_mutation"], 0.0, 1.0)
        if mutation_cls is SwapMutation:
            mutation: Operator = SwapMutation(p=p_mutation, distinct=p["mutation_distinct"])
        elif mutation_cls is PerGeneMutation:
            mutation = PerGeneMutation(p=p_mutation)
        else:
            mutation = NoMutation()
        replacement = _pick("replacement", REPLACEMENTS, p["replacement"])()
        improvement_cls = _pick("improve", IMPROVEMENTS, p["improve"])
        if improvement_cls is MostAttacked:
            improvement: Operator = MostAttacked(
                steps=p["improve_steps"], partners=p["partners"],
                random_ties=p["random_ties"], weight_step=p["weight_step"],
            )
        else:
            check_int("improve_steps", p["improve_steps"], 0)
            improvement = NoImprovement()
        max_iterations = p["max_iterations"]
        if max_iterations is not None:
            max_iterations = check_int("max_iterations", max_iterations, 1)
        return cls(
            preset=preset,
            population=population,
            selection=selection,
            crossover=crossover,
            mutation=mutation,
            replacement=replacement,
            improvement=improvement,
            p_crossover=p_crossover,
            children=children,
            improve_initial=_check_bool("improve_initial", p["improve_initial"]),
            stop_in_init=_check_bool("stop_in_init", p["stop_in_init"]),
            max_evaluations=check_int("max_evaluations", p["max_evaluations"], 1),
            max_iterations=max_iterations,
            params=p,
        )

    def arrays(self, m: int, weighted: bool, bound: float) -> tuple[np.ndarray, np.ndarray]:
        """The kernel's integer and float configuration for m free rows."""
        k = _kernels()
        icfg = np.zeros(k.N_ICFG, dtype=np.int64)
        fcfg = np.zeros(k.N_FCFG, dtype=np.float64)
        for op in (self.selection, self.crossover, self.mutation, self.replacement,
                   self.improvement):
            op.configure(icfg, fcfg, m)
        icfg[k.I_CHILDREN] = self.children
        icfg[k.I_IMPROVE_INITIAL] = int(self.improve_initial)
        icfg[k.I_STOP_IN_INIT] = int(self.stop_in_init)
        icfg[k.I_MAX_EVALS] = self.max_evaluations
        icfg[k.I_MAX_ITERS] = self.max_iterations or 0
        icfg[k.I_WEIGHTED] = int(weighted)
        fcfg[k.F_P_CROSSOVER] = self.p_crossover
        fcfg[k.F_BOUND] = bound
        return icfg, fcfg

    def describe(self) -> dict[str, Any]:
        return {
            "preset": self.preset,
            "population": self.population,
            "selection": self.selection.describe(),
            "crossover": self.crossover.describe(),
            "p_crossover": self.p_crossover,
            "children": self.children,
            "mutation": self.mutation.describe(),
            "replacement": self.replacement.describe(),
            "improvement": self.improvement.describe(),
            "improve_initial": self.improve_initial,
            "stop_in_init": self.stop_in_init,
            "max_evaluations": self.max_evaluations,
            "max_iterations": self.max_iterations,
        }


# ---------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------

#: Evaluations per kernel call: the clock is read between calls. The schedule depends
#: only on evaluation counts (and m), so a seed gives the same run with or without a time
#: limit. An early evaluation costs about m^1.2 (chess n = 10^5: 0.5 ms, so the second call
#: of 4096 ran 2.3 s and a 2 s limit ended at 3.16 s): from m = ``IMPROVE_UNCAPPED_M`` on
#: both sizes shrink by (IMPROVE_UNCAPPED_M / m)^2.
CHUNK_FIRST = 2_048
CHUNK_MAX = 65_536


def chunk_sizes(m: int) -> tuple[int, int]:
    """The first and largest evaluations per kernel call on m free rows."""
    if m <= IMPROVE_UNCAPPED_M:
        return CHUNK_FIRST, CHUNK_MAX
    scale = (IMPROVE_UNCAPPED_M / m) ** 2
    return max(16, int(CHUNK_FIRST * scale)), max(16, int(CHUNK_MAX * scale))


def _warm_up() -> None:
    """Compile (or load from numba's cache) the driver with the exact argument types."""
    config = GAConfig.build("default", population=2, max_evaluations=50)
    # feasibility, colour weights (a strided view) and a dense matrix: each kernel type
    for instance in (Instance(n=4), make_instance(6, "chess"),
                     make_instance(6, "random", weights_seed=0)):
        _run_kernel(instance, config, make_rng(0), Deadline(None))


def _run_kernel(
    instance: Instance, config: GAConfig, rng: np.random.Generator, deadline: Deadline,
) -> tuple[dict[str, Any], float]:
    k = _kernels()
    start = time.perf_counter()
    n = instance.n
    rows, _ = free_rows_and_columns(instance)
    free = np.ascontiguousarray(rows, dtype=np.int64)
    weighted = not instance.is_feasibility
    weights = instance.kernel_weights()
    bound = weight_bound(instance) if weighted else float(n)
    icfg, fcfg = config.arrays(free.size, weighted, bound)
    size = config.population
    pop = np.empty((size, n), dtype=np.int32)
    for i in range(size):
        pop[i] = random_permutation(instance, rng)
    cost = np.zeros(size, dtype=np.int64)
    weight = np.zeros(size, dtype=np.float64)
    hashes = np.zeros(size, dtype=np.int64)
    counters = np.zeros(k.N_COUNTERS, dtype=np.int64)
    counters[k.C_BEST_COST] = np.iinfo(np.int64).max
    counters[k.C_SOLVED_AT] = -1
    best = np.zeros(n, dtype=np.int32)
    best_weight = np.zeros(1, dtype=np.float64)
    chunk, chunk_max = chunk_sizes(free.size)
    per_call = [chunk]

    def step() -> Termination | None:
        code = k.ga_chunk(pop, cost, weight, hashes, free, weights, icfg, fcfg, counters,
                          best, best_weight, int(counters[k.C_EVALS]) + per_call[0],
                          kernel_seed(rng))
        if code == k.RUN_SOLVED:
            return Termination.SOLUTION_FOUND
        if code == k.RUN_BUDGET:
            return Termination.ITERATION_LIMIT
        per_call[0] = min(2 * per_call[0], chunk_max)
        return None

    termination = run_chunks(step, deadline)
    wall = time.perf_counter() - start
    out = {
        "placement": best.copy() if counters[k.C_FOUND] else None,
        "termination": termination,
        "evaluations": int(counters[k.C_EVALS]),
        "iterations": int(counters[k.C_ITERS]),
        "improvements": int(counters[k.C_IMPROVES]),
        "best_conflicts": int(min(counters[k.C_BEST_COST], cost.min())),
        "solved_at_evaluation": int(counters[k.C_SOLVED_AT]),
        "found_in_initial": bool(counters[k.C_FOUND_IN_INIT]),
    }
    return out, wall


def solve_ga(
    instance: Instance,
    *,
    seed: int | None = None,
    time_limit: float | Deadline | None = None,
    preset: str = "default",
    **params: Any,
) -> Result:
    """Run the genetic algorithm and return a :class:`~nqmip.result.Result`.

    ``preset`` is ``"default"`` (ours), ``"chu-beasley"``, ``"crossfill-ea"`` or
    ``"roulette-generational"`` (the reference documents 000, 001, 004; those numbers are
    accepted too); ``params``
    override any entry of :data:`DEFAULTS` (operators by name: ``selection``,
    ``crossover``, ``mutation``, ``replacement``, ``improve``). Feasibility instances stop
    at the first conflict-free placement; weighted ones keep improving the best
    conflict-free placement until the evaluation budget, the time limit, or the weight
    bound. A run that finds no conflict-free placement returns status ``unknown`` with
    ``extra["best_conflicts"]``.
    """
    limited = (time_limit.limited if isinstance(time_limit, Deadline)
               else time_limit is not None)
    if limited and "max_evaluations" not in params and "max_iterations" not in params:
        # Anytime: under a time limit the GA evolves until the deadline (or the bound).
        params["max_evaluations"] = default_budget(time_limit, 0)
    config = GAConfig.build(preset, **params)
    rng = make_rng(seed)
    compile_time = timed_compile(_warm_up)
    clock = stop_clock(time_limit)
    if fixed_queens_clash(instance):
        # No placement can keep them all: nothing to search (and no permutation exists
        # when two share a column).
        result = heuristic_result(
            instance, "ga", None, wall_time=0.0, seed=seed,
            termination=Termination.INFEASIBLE, evaluations=0, iterations=0,
            improvements=0, compile_time=compile_time,
            extra={"config": config.describe(), "reason": "fixed queens attack each other"},
        )
        return result.with_(status=Status.INFEASIBLE)
    out, wall = _run_kernel(instance, config, rng, clock)
    extra = {
        "config": config.describe(),
        "solved_at_evaluation": out["solved_at_evaluation"],
        "found_in_initial": out["found_in_initial"],
    }
    return heuristic_result(
        instance,
        "ga",
        out["placement"],
        wall_time=wall,
        seed=seed,
        termination=out["termination"],
        evaluations=out["evaluations"],
        iterations=out["iterations"],
        improvements=out["improvements"],
        compile_time=compile_time,
        best_conflicts=out["best_conflicts"],
        extra=extra,
    )
