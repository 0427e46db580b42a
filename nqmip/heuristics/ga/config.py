"""The genetic algorithm's configuration: every parameter with its default
(:data:`DEFAULTS`), the presets of the reference documents (:data:`PRESETS`), and
:class:`GAConfig`, a validated configuration of operator objects written into the arrays
the numba driver reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqmip.heuristics.common import ParameterError, check_float, check_int
from nqmip.heuristics.ga import codes as k
from nqmip.heuristics.ga.base import Operator, _check_bool, _pick
from nqmip.heuristics.ga.operators import (
    CROSSOVERS,
    IMPROVEMENTS,
    MUTATIONS,
    PMX,
    REPLACEMENTS,
    SELECTIONS,
    BestOf,
    CutCrossfill,
    MostAttacked,
    NoImprovement,
    NoMutation,
    PerGeneMutation,
    SwapMutation,
    Tournament,
)

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

    def memory_bytes(self, n: int) -> int:
        """What the population of an n-board holds: each individual's row of n int32 twice
        (the population and the next generation's) and its cost, weight, hash, fitness
        and scratch (8 bytes each, the first two twice)."""
        return self.population * (8 * n + 56)

    def arrays(self, m: int, weighted: bool, bound: float) -> tuple[np.ndarray, np.ndarray]:
        """The kernel's integer and float configuration for m free rows."""
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
