"""The method table: every method's name, kind, where it lives, and the options it honours.

One table, read by everything that takes a method's name: :func:`nqmip.solve` refuses by
name any option the method does not honour, the command lines build their choices and
their refusals from it, ``nqmip-compare`` checks a grid against it before the sweep, and
the warm-up compiles what it lists. A method is a :class:`Method`; its options are the
names of :data:`OPTIONS` (after linopy's ``SolverFeature``/``supports()`` and Pyomo's
per-solver configuration). Nothing here imports a method: ``entry`` and ``warm_up`` are
``"module:attribute"`` strings, resolved when the method runs.

The first solution in lexicographic order is another question, with its own door
(:func:`nqmip.lex_first`) and its own table, :data:`LEX_METHODS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from nqmip.option_types import TYPES, check_value

Kind = Literal["exact", "heuristic", "auto", "lex"]

#: Every option a method may honour, with what honouring it means.
OPTIONS: dict[str, str] = {
    "seed": "the run is reproducible and the seed changes it (a deterministic method "
            "refuses a seed)",
    "threads": "the solver uses this many threads, at most the cores this process may run "
               "on (result.extra['threads'] says when fewer; as asked with work_limit)",
    "mip_gap": "the run stops once its bound is within this relative gap of its incumbent "
               "(with costs, of the costs; status feasible, termination gap, unless the "
               "bound meets it)",
    "strengthen": "False solves the textbook model, without the valid rows of "
                  "nqmip.formulation.strengthen",
    "bound_proof": "first look for a placement at the colour bound, which proves without "
                   "the solver",
    "warm_start": "a placement, a Result or a heuristic's name to start from",
    "on_progress": "live reports of the incumbent and the bound while the method runs",
    "verbose": "a log on stderr: the solver's own, or one line per improvement",
    "target": "stop as soon as the incumbent reaches this objective (termination target)",
    "fixed": "pre-placed queens (the completion problem)",
    "work_limit": "stop after this much work, counted in the method's own unit (nodes, "
                  "swaps, evaluations, deterministic seconds: its note says which): the "
                  "same call gives the same answer on any machine, loaded or quiet, with "
                  "a cold or a warm cache, when this limit ends it (termination "
                  "iteration_limit; a time_limit given too may end it first)",
    "workers": "the run is split over a local Dask cluster of this many one-thread worker "
               "processes, started for the run (nqmip.cluster)",
    "scheduler": "the run is split over the workers of this Dask scheduler: an address "
                 "such as tcp://host:8786, or a distributed.Client",
    "record": "a file where the run on a cluster keeps its state (open subtrees, "
              "incumbent); a run given the same file continues from it",
}

#: The options every method of :data:`METHODS` honours.
EVERY_METHOD = frozenset({"on_progress", "verbose", "fixed"})

#: The kinds of weights: none (feasibility), constant per colour, any matrix.
WEIGHT_KINDS = frozenset({"none", "colour", "dense"})


@dataclass(frozen=True)
class Limit:
    """The largest weights a method's solver represents (measured on an 8 x 8 board; see
    :func:`check_magnitude`): ``measure`` of the maximisation's weights must stay below
    ``below``. Measures: ``largest`` weight; ``total``, n x the largest (what a placement
    can reach); ``cells``, the weights' sum over the board (CP-SAT's objective);
    ``costs``, toulbar2's integer costs (free rows x the weights' spread, x 10^6 unless
    whole)."""

    measure: Literal["largest", "total", "cells", "costs"]
    below: float
    why: str


#: 2^53: float64 holds every whole number below it, and none of the sums past it exactly.
EXACT_FLOAT = float(2**53)
_HIGHS_LIMIT = Limit("largest", 1e20, "HiGHS reads a cost of 1e20 or more as infinite")
#: HiGHS's mip_max_nodes is a 32-bit integer.
_HIGHS_MOST = {"work_limit": 2**31 - 1}


@dataclass(frozen=True)
class Method:
    """One method: ``entry`` is a backend class (exact), a ``solve_<name>`` function
    (heuristic) or the portfolio's entry (auto); ``honours`` the options of
    :data:`OPTIONS` it takes; ``weights`` the kinds of weights it takes; ``warm_up`` the
    function that compiles its numba kernels (None: nothing to compile); ``notes`` how an
    option is honoured where that is not obvious; ``log``: the solver writes a log of its
    own, which ``verbose`` streams (without one, ``verbose`` prints one line per report)."""

    name: str
    kind: Kind
    entry: str
    summary: str
    honours: frozenset[str]
    weights: frozenset[str] = WEIGHT_KINDS
    warm_up: str | None = None
    notes: Mapping[str, str] | None = None
    log: bool = False  # the solver writes a log of its own (verbose streams it)
    limit: Limit | None = None  # the largest weights its solver represents
    work: str | None = None  # a heuristic's parameter that work_limit sets
    two_colours: bool = False  # colour weights must differ (one value on every square: no)
    #: its own maxima where its solver's differ from :data:`nqmip.option_types.TYPES`'s
    #: (``work_limit``, ``threads``: refused above; ``time_limit``: its solver is given
    #: at most this, the call's clock still ending it)
    most: Mapping[str, float] | None = None
    fractional_work: bool = False  # its work_limit unit is not a count
    pair_tables: bool = False  # its model holds a table per pair of rows (memory: free^4)
    #: the function whose signature declares a heuristic's own parameters, where its entry
    #: passes ``**params`` on (:mod:`nqmip.heuristics.params`); None: the entry's own
    params: str | None = None

    def highest(self, option: str) -> float | None:
        """The most of ``option`` this method takes (None: the option type's own)."""
        return (self.most or {}).get(option)

    def check(self, option: str, value: Any) -> Any:
        """``value`` of ``option`` checked for this method (:func:`check_value`)."""
        return check_value(option, value, most=self.highest(option), who=repr(self.name))

    def honour(self, option: str) -> bool:
        return option in self.honours

    def load(self) -> Any:
        """The entry point itself (imported now)."""
        return resolve(self.entry)


def resolve(target: str) -> Any:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def _honours(*names: str) -> frozenset[str]:
    unknown = set(names) - set(OPTIONS)
    assert not unknown, unknown
    assert set(OPTIONS) <= set(TYPES), set(OPTIONS) - set(TYPES)
    return EVERY_METHOD | frozenset(names)


_MIP = ("seed", "threads", "mip_gap", "strengthen", "bound_proof", "warm_start", "target",
        "work_limit")
_HEURISTIC = ("seed", "target", "work_limit")


def _work(unit: str, **notes: str) -> dict[str, str]:
    """A method's notes, with what one unit of its ``work_limit`` is."""
    return {"work_limit": unit, **notes}

_TABLE: tuple[Method, ...] = (
    Method("auto", "auto", "nqmip.auto.plans:solve_auto",
           "proves the optimum where it can and keeps the best placement until the time "
           "limit (nqmip.auto)", _honours("seed", "threads", "warm_start", "target",
                                          "scheduler"),
           notes={"scheduler": "the same plan; its branch and bound (bnb's LP search, "
                               "where the plan runs it) on that cluster's workers",
                  "work_limit": "refused: its parts run side by side on the clock (name "
                                "a method to limit its work)"},
           limit=Limit("total", EXACT_FLOAT, "auto's proofs, bnb and the rounding of bounds, "
                       "count whole weights exactly only below 2^53")),
    Method("highs", "exact", "nqmip.backends.highs:HighsBackend",
           "HiGHS through highspy, on the ILP's arrays (embedded)", _honours(*_MIP), log=True,
           notes=_work("branch-and-bound nodes (HiGHS's mip_max_nodes; below 500, without RINS and "
                       "RENS, whose sub-MIPs' nodes it does not count)"),
           limit=_HIGHS_LIMIT, most=_HIGHS_MOST),
    Method("glpk", "exact", "nqmip.backends.glpk:GlpkBackend",
           "GLPK's glpsol through Pyomo",
           _honours("mip_gap", "strengthen", "bound_proof", "warm_start"),
           notes={"warm_start": "kept as the incumbent: glpsol takes no start",
                  "on_progress": "at the start and at the end: glpsol reports nothing "
                                 "while it runs",
                  "work_limit": "refused: glpsol has a time limit only",
                  "time_limit": "glpsol takes whole seconds (the limit rounded down; "
                                "the call's deadline ends its process) counted in "
                                "milliseconds of 32 bits: at most 2,147,483 s (24.8 "
                                "days) is given to it"}, log=True,
           most={"time_limit": 2_147_483},
           limit=Limit("total", 1e17, "glpsol's search stalls on larger objectives, "
                       "measured: 8 x 8 weights of 1e17 ran out of time")),
    Method("gurobi", "exact", "nqmip.backends.gurobi:GurobiBackend",
           "Gurobi through gurobipy's matrix API", _honours(*_MIP), log=True,
           notes=_work("Gurobi's work units (WorkLimit, about a second each on one core)"),
           most={"work_limit": 1e100}, fractional_work=True,
           limit=Limit("total", 1e100, "Gurobi reads 1e100 as infinite, GRB.INFINITY")),
    Method("cpsat", "exact", "nqmip.backends.cpsat:CpSatBackend",
           "OR-Tools CP-SAT on the boolean and permutation model", _honours(*_MIP), log=True,
           notes=_work("CP-SAT's deterministic seconds (max_deterministic_time), its "
                       "workers interleaved (interleave_search; threads, default 8, "
                       "subsolvers; one with a warm start, so a different amount of "
                       "work): the same answer whatever the cores",
                       seed="reproducible on any number of threads: the workers run "
                            "interleaved (interleave_search), not as a parallel portfolio "
                            "whose first worker's placement was the answer; with a warm "
                            "start, one worker (docs/cpsat.md: CP-SAT 9.15 aborted an "
                            "interleaved search with a hint stopped as the hint came in)"),
           most={"work_limit": 1e100}, fractional_work=True,
           limit=Limit("cells", float(2**62), "CP-SAT's objective is in whole numbers of 64 "
                       "bits, weights that are not whole scaled to them")),
    Method("highs-pyomo", "exact", "nqmip.backends.highs_pyomo:HighsPyomoBackend",
           "HiGHS through Pyomo's appsi interface, on the Pyomo model",
           _honours("seed", "threads", "mip_gap", "strengthen", "bound_proof",
                    "warm_start", "work_limit"),
           notes=_work("branch-and-bound nodes (HiGHS's mip_max_nodes; below 500, without RINS and "
                       "RENS, whose sub-MIPs' nodes it does not count)",
                       on_progress="at the start and at the end: appsi reports nothing "
                                   "while HiGHS runs"), log=True, limit=_HIGHS_LIMIT,
           most=_HIGHS_MOST),
    Method("scip", "exact", "nqmip.backends.scip:ScipBackend",
           "SCIP through PySCIPOpt, on the ILP's arrays (one thread)",
           _honours(*(o for o in _MIP if o != "threads")), log=True,
           notes=_work("branch-and-bound nodes (SCIP's limits/nodes)"),
           limit=Limit("total", 1e20, "SCIP reads 1e20 as infinite, numerics/infinity")),
    Method("toulbar2", "exact", "nqmip.backends.toulbar2:Toulbar2Backend",
           "toulbar2 through pytoulbar2, as a cost function network",
           _honours("seed", "bound_proof", "warm_start"),
           notes={"warm_start": "its cost is toulbar2's initial upper bound",
                  "mip_gap": "refused: pytoulbar2 binds toulbar2's relative gap as a whole "
                             "number",
                  "on_progress": "at the start and at the end: pytoulbar2 reports "
                                 "nothing while it runs",
                  "work_limit": "refused: a search ended by toulbar2's backtrack limit "
                                "cannot be told from a complete one",
                  "time_limit": "pytoulbar2's timer takes whole seconds of 32 bits"},
           log=True, most={"time_limit": 2**31 - 1}, pair_tables=True,
           limit=Limit("costs", 1e18, "toulbar2 adds costs in 64-bit integers below its "
                       "top, about 1.5e18")),
    Method("bnb", "exact", "nqmip.backends.bnb:BnbBackend",
           "nqmip's own branch and bound for any weights (numba)",
           _honours("threads", "mip_gap", "bound_proof", "warm_start", "target",
                    "work_limit", "workers", "scheduler", "record"),
           warm_up="nqmip.bnb.search:warm_up",
           notes=_work("search nodes (the kernel's search on one thread; not with workers "
                       "or scheduler)",
                       threads="the LP search's workers, from 30 free rows; below, one",
                       workers="the LP search's subtrees as Dask tasks (docs/cluster.md), "
                               "whatever the board; threads is then not taken",
                       scheduler="as workers, on that cluster's workers",
                       record="with workers or scheduler: rewritten every 2 s and when "
                              "it stops"),
           limit=Limit("total", EXACT_FLOAT, "bnb's bounds count whole weights exactly only "
                       "below 2^53")),
    Method("ga", "heuristic", "nqmip.heuristics.ga.run:solve_ga",
           "genetic algorithm on permutations (the reference documents' variants)",
           _honours(*_HEURISTIC), warm_up="nqmip.heuristics.ga.run:warm_up",
           work="max_evaluations", notes=_work("fitness evaluations (max_evaluations)")),
    Method("tabu", "heuristic", "nqmip.heuristics.tabu:solve_tabu",
           "tabu search on swaps", _honours(*_HEURISTIC),
           warm_up="nqmip.heuristics.tabu:warm_up_run", work="max_iterations",
           notes=_work("moves (max_iterations)")),
    Method("sa", "heuristic", "nqmip.heuristics.anneal:solve_sa",
           "simulated annealing on swaps", _honours(*_HEURISTIC),
           warm_up="nqmip.heuristics.anneal:warm_up_run", work="max_iterations",
           notes=_work("proposed swaps (max_iterations)")),
    Method("minconflicts", "heuristic", "nqmip.heuristics.minconflicts:solve_minconflicts",
           "greedy placement and min-conflicts repair, for millions of queens (the "
           "first conflict-free placement: weights are not optimised)",
           _honours(*_HEURISTIC), warm_up="nqmip.heuristics.minconflicts:warm_up",
           params="nqmip.heuristics.minconflicts:minconflicts_placement",
           work="max_evaluations", notes=_work("candidate checks (max_evaluations)")),
    Method("topsquares", "heuristic", "nqmip.heuristics.topsquares:solve_topsquares",
           "min-conflicts swaps on the heaviest squares (a weight matrix)",
           _honours("seed", "target"), weights=frozenset({"dense"}),
           warm_up="nqmip.heuristics.topsquares:warm_up",
           notes={"work_limit": "refused: it has no budget in all (stage_moves is per "
                                "weight level); without a time limit its run is the same "
                                "anywhere"}),
    Method("quota", "heuristic", "nqmip.heuristics.quota:solve_quota",
           "colour quota search (weights constant per colour, two values)",
           _honours(*_HEURISTIC), weights=frozenset({"colour"}), two_colours=True,
           warm_up="nqmip.heuristics.quota:warm_up", work="max_stages",
           notes=_work("repair stages (max_stages), each of at most stage_moves moves")),
    Method("lns", "heuristic", "nqmip.heuristics.lns:solve_lns",
           "windows of rows re-optimised exactly (weights)", _honours(*_HEURISTIC),
           weights=frozenset({"colour", "dense"}), warm_up="nqmip.heuristics.lns:warm_up",
           work="max_steps", notes=_work("windows re-optimised (max_steps)")),
)

#: Every method of :func:`nqmip.solve`, by name, in the order the commands list them.
METHODS: dict[str, Method] = {m.name: m for m in _TABLE}
EXACT_METHODS: tuple[str, ...] = tuple(m.name for m in _TABLE if m.kind == "exact")
HEURISTIC_METHODS: tuple[str, ...] = tuple(m.name for m in _TABLE if m.kind == "heuristic")

#: The methods of :func:`nqmip.lex_first` (a different question, a different door).
LEX_METHODS: dict[str, Method] = {m.name: m for m in (
    Method("first-fail", "lex", "nqmip.lex.search:lex_first_result",
           "the lexicographic descent: one question per row, answered by a complete "
           "first-fail search in numba (the default)", frozenset({"fixed"}),
           warm_up="nqmip.lex.search:warm_up"),
    Method("sat", "lex", "nqmip.lex.search:lex_first_result",
           "the descent's questions answered by incremental CaDiCaL (python-sat: pip "
           "install \"nqmip[sat]\")", frozenset({"fixed"})),
    Method("portfolio", "lex", "nqmip.lex.search:lex_first_result",
           "the descent's questions answered by first-fail and CaDiCaL in turns",
           frozenset({"fixed"}), warm_up="nqmip.lex.search:warm_up"),
    Method("search", "lex", "nqmip.lex.search:lex_first_result",
           "the row-ordered search with propagation and a capped prefix oracle (numba)",
           frozenset({"fixed"}), warm_up="nqmip.lex.search:warm_up"),
    Method("cpsat", "lex", "nqmip.formulation.lex:sequential_cpsat",
           "sequential CP-SAT solves, row by row", frozenset({"fixed"})),
    Method("cpsat-fixed", "lex", "nqmip.formulation.lex:fixed_search_cpsat",
           "one CP-SAT model searched in lexicographic order", frozenset({"fixed"})),
    Method("highs-pyomo", "lex", "nqmip.formulation.lex:sequential_pyomo",
           "sequential 0-1 models in Pyomo, HiGHS as the solver", frozenset({"fixed"})),
)}
#: The routes of :func:`nqmip.lex.search.lex_first_result` (an oracle of the descent, or
#: the row-ordered search).
LEX_ROUTES = ("first-fail", "sat", "portfolio", "search")
#: The routes whose questions cube-and-conquer splits (``workers``, ``scheduler``:
#: :mod:`nqmip.lex.cubes`).
LEX_CUBE_ROUTES = ("first-fail", "sat")
#: What ``method="auto"`` means for :func:`nqmip.lex_first`.
LEX_DEFAULT = "first-fail"


def method(name: Any, table: Mapping[str, Method] = METHODS,
           also: tuple[str, ...] = ()) -> Method:
    """The method named ``name``; ValueError listing the names otherwise (``also``: names
    the caller takes before the table, listed first: lex_first's "auto")."""
    if not isinstance(name, str):
        raise TypeError(f"method must be a string, got {type(name).__name__}")
    try:
        return table[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}: choose from "
                         f"{', '.join((*also, *table))}") from None


def refused(spec: Method, given: Iterable[str]) -> list[str]:
    """The options of ``given`` (names of :data:`OPTIONS`) that ``spec`` does not honour."""
    return [name for name in given if name in OPTIONS and name not in spec.honours]


def takers_note(takers: Sequence[str], prefix: str = "") -> str:
    """`` (bnb does)`` or `` (--method ga, sa do)``: the methods that would take what one
    refused, for its message; nothing when none would."""
    if not takers:
        return ""
    return f" ({prefix}{', '.join(takers)} {'does' if len(takers) == 1 else 'do'})"


def check_options(spec: Method, given: Iterable[str]) -> None:
    """Raise ValueError naming every option given that the method does not honour, and
    the methods that would."""
    names = refused(spec, given)
    if not names:
        return
    takers = [m.name for m in METHODS.values() if all(n in m.honours for n in names)
              and m.kind != "lex"]
    raise ValueError(f"method {spec.name!r} does not take {', '.join(names)}"
                     f"{takers_note(takers)}")


def check_weights(spec: Method, *, feasibility: bool, colours: bool, dense: bool,
                  uniform: bool = False) -> None:
    """Refuse a method made for other weights (topsquares: a matrix; quota: two colour
    values, not ``uniform`` ones; lns: weights), naming both. Before the method runs: a
    refusal from its body could come after the time limit, and the limit's answer hide it."""
    kinds = ({"none"} if feasibility else
             ({"colour"} if colours else set()) | ({"dense"} if dense else set()))
    if spec.two_colours and uniform and not feasibility:
        raise ValueError(f"method {spec.name!r} takes weights constant per colour with two "
                         "different values, not one value on every square: use sa")
    if kinds & spec.weights:
        return
    names = {"none": "no weights (feasibility)", "colour": "weights constant per colour",
             "dense": "a weight matrix"}
    wanted = " or ".join(names[k] for k in sorted(spec.weights))
    raise ValueError(f"method {spec.name!r} takes {wanted}, not "
                     f"{' or '.join(names[k] for k in sorted(kinds))}")


def check_instance_weights(spec: Method, instance: Any) -> None:
    """:func:`check_weights` for an instance's own weights (no weights, constant per colour
    and whether both colours are worth the same, or a matrix)."""
    colours = instance.colours
    check_weights(spec, feasibility=instance.is_feasibility, colours=colours is not None,
                  dense=instance.dense is not None,
                  uniform=colours is not None and colours.black == colours.white)


def magnitude(instance: Any, measure: str) -> float:
    """One measure of :class:`Limit` on an instance of the maximisation (0: no weights)."""
    if instance.is_feasibility:
        return 0.0
    import numpy as np

    low, high = instance.weight_range()
    largest = max(abs(low), abs(high))
    with np.errstate(over="ignore"):
        if measure == "largest":
            return largest
        if measure == "total":
            return float(instance.n * largest)
        if measure == "cells":
            if instance.dense is None:
                return float(instance.n) ** 2 * largest
            return float(np.abs(instance.dense).sum())
        free = instance.n - len(instance.fixed)
        return float(free * (high - low) * (1 if instance.integral else 10**6))


#: The least largest weight an exact method (or auto, which runs them) resolves: solvers'
#: absolute tolerances (HiGHS's mip_abs_gap 1e-6, CP-SAT's scaling of real weights)
#: cannot tell placements apart below it. Measured on 8 x 8 weights of 1 and 2 times a
#: scale: at 1e-5 CP-SAT proves 8 where 9 is optimal, at 1e-6 HiGHS does, at 1e-12 every
#: solver (their bounds rounded to 0 before, below their placements); at 1e-4 all prove 9.
LEAST_WEIGHT = 1e-4


def check_least(spec: Method, instance: Any) -> None:
    """Refuse, for an exact method or auto, weights too small for its solvers to tell
    placements apart (:data:`LEAST_WEIGHT`), naming the measure and the way out."""
    if spec.kind not in ("exact", "auto") or instance.is_feasibility:
        return
    low, high = instance.weight_range()
    largest = max(abs(low), abs(high))
    if 0.0 < largest < LEAST_WEIGHT:
        raise ValueError(f"method {spec.name!r} cannot take these weights: the largest is "
                         f"{largest:.3g}, below {LEAST_WEIGHT:g}, where the solvers' "
                         "tolerances no longer tell placements apart; scale them up (the "
                         "best placement is the same) or choose a heuristic")


def check_magnitude(spec: Method, instance: Any) -> None:
    """Refuse weights the method's solver cannot represent (:attr:`Method.limit`, and
    :func:`check_least`), naming the measure, the solver's reason and the methods that
    take them. ``instance`` is the maximisation (costs already flipped into weights)."""
    check_least(spec, instance)
    limit = spec.limit
    if limit is None:
        return
    value = magnitude(instance, limit.measure)
    if value < limit.below:
        return
    kinds = ({"none"} if instance.is_feasibility else
             ({"colour"} if instance.colours is not None else set())
             | ({"dense"} if instance.dense is not None else set()))
    takers = [m.name for m in METHODS.values() if kinds & m.weights and (
        m.limit is None or magnitude(instance, m.limit.measure) < m.limit.below)]
    what = {"largest": "the largest weight", "total": "n x the largest weight",
            "cells": "the weights' sum over the board",
            "costs": "toulbar2's costs (free rows x the weights' spread)"}[limit.measure]
    raise ValueError(f"method {spec.name!r} cannot take these weights: {what} is "
                     f"{value:.3g}, not below {limit.below:.3g}: {limit.why}; scale them "
                     f"down or choose {', '.join(takers)}")


#: Kernels no method of the tables names: the counting command's, the colour proof's, the
#: completion search's (auto's first incumbent with fixed queens).
OTHER_KERNELS = ("nqmip.enumeration.count:warm_up", "nqmip.colour.proof:warm_up",
                 "nqmip.enumeration.completion:warm_up")


def warm_up_targets(names: Iterable[str] | None = None) -> list[str]:
    """The warm-up functions (``module:function``, each once) of the named methods (default:
    every method of both tables, the counting and the colour proof's kernels), which
    :func:`nqmip.warmup.warm_up_all` runs."""
    if names is None:
        targets = [m.warm_up for m in (*METHODS.values(), *LEX_METHODS.values())]
        targets += OTHER_KERNELS
    else:
        targets = [METHODS[name].warm_up if name in METHODS else LEX_METHODS[name].warm_up
                   for name in names]
    return list(dict.fromkeys(t for t in targets if t is not None))


def honoured_table() -> list[tuple[str, str, list[str]]]:
    """(method, kind, the options it honours) for every method, for the docs."""
    rows: list[tuple[str, str, list[str]]] = [
        (m.name, m.kind, sorted(m.honours)) for m in METHODS.values()]
    rows += [(f"lex_first: {m.name}", m.kind, sorted(m.honours)) for m in LEX_METHODS.values()]
    return rows
