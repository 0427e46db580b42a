"""auto's plans x the optional solvers a user can have: the cells of the matrix, generated
from the policy table (:data:`nqmip.auto.policy.PLANS` and its thresholds), and one cell's
run. tests/test_auto_matrix.py asserts on them; ``python tools/auto_matrix.py`` prints the
table of outcomes.

A cell is a plan, a site (the board where the plan starts or changes: its free-row counts
are read from the policy's thresholds), a set of optional solvers (the others blocked at
import, as without their extra), a sense and whether queens are fixed. A cell exists only
where :func:`~nqmip.auto.policy.choose_plan` picks its plan for it: the matrix follows the
table when a threshold moves.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import nqmip
from nqmip.auto import policy
from nqmip.backends.base import get_backend
from nqmip.backends.gurobi import SIZE_LIMITED_MAX_N
from nqmip.construct import explicit_solution
from nqmip.instance import Instance, free_rows, make_instance
from nqmip.result import Result, Status
from nqmip.verify import verified

#: The optional solvers and the module whose absence hides each.
OPTIONAL: dict[str, str] = {"gurobi": "gurobipy", "scip": "pyscipopt",
                            "toulbar2": "pytoulbar2"}
#: Each set of optional solvers a user can have.
SOLVER_SETS: dict[str, tuple[str, ...]] = {
    "none": (), "gurobi": ("gurobi",), "scip": ("scip",), "toulbar2": ("toulbar2",),
    "all": ("gurobi", "scip", "toulbar2")}
#: The plans none of whose parts runs an optional solver (HiGHS is a dependency; the
#: others' parts are heuristics, the complete search or cheap bounds): two solver sets
#: (none, all) show that, not five.
NO_OPTIONAL = frozenset({"small", "completion", "colour-quota", "topsquares", "anneal"})
#: A cell's time limit (seconds), and the answer's margin over it.
LIMIT = 2.0
MARGIN = 1.0
#: Fixed queens in a cell "with fixed queens": the first rows of the explicit solution (a
#: completion exists), the board that much larger so the free rows stay the site's.
FIXED_ROWS = 2


@dataclass(frozen=True)
class Site:
    """Where a plan runs: ``size`` free rows, the weights, a warm start, a time limit."""

    plan: str
    label: str
    size: int
    weights: str | None  # "random", "chess" or None (no weights)
    warm_start: bool = False
    limit: float = LIMIT


def sites() -> list[Site]:
    """The boards of each plan, at the free-row counts where it starts or changes."""
    p = policy
    return [
        Site("small", f"n{p.FAST_EXACT_MAX_N}", p.FAST_EXACT_MAX_N, "random"),
        Site("warm-start", f"n{p.FAST_EXACT_MAX_N}", p.FAST_EXACT_MAX_N, "random",
             warm_start=True),
        Site("completion", "free20", 20, None),
        Site("feasibility", f"n{p.FAST_EXACT_MAX_N + 1}", p.FAST_EXACT_MAX_N + 1, None),
        Site("feasibility", f"free{p.COMPLETION_SEARCH_MAX_FREE + 1}",
             p.COMPLETION_SEARCH_MAX_FREE + 1, None),
        Site("colour-proof", f"n{p.FAST_EXACT_MAX_N + 1}", p.FAST_EXACT_MAX_N + 1, "chess"),
        Site("colour-proof", f"n{p.AUTO_EXACT_MAX_N + 1}", p.AUTO_EXACT_MAX_N + 1, "chess"),
        # the MIP plan: bnb beside the MIP; from LP_MIN_FREE the LP search (no Gurobi);
        # from SCIP_MIN_FREE SCIP beside it; Gurobi alone to its licence's n; beyond that
        # only with a long budget (where the size-limited licence does not cover n)
        Site("mip", f"free{p.LP_MIN_FREE - 1}", p.LP_MIN_FREE - 1, "random"),
        Site("mip", f"free{p.LP_MIN_FREE}", p.LP_MIN_FREE, "random"),
        Site("mip", f"free{p.SCIP_MIN_FREE}", p.SCIP_MIN_FREE, "random"),
        Site("mip", f"free{SIZE_LIMITED_MAX_N}", SIZE_LIMITED_MAX_N, "random"),
        Site("mip", f"free{SIZE_LIMITED_MAX_N + 1}-long", SIZE_LIMITED_MAX_N + 1, "random",
             limit=p.LONG_BUDGET_SECONDS + 2),  # + the call's start before its plan
        Site("colour-quota", f"n{p.COLOUR_QUOTA_MIN_N}", p.COLOUR_QUOTA_MIN_N, "chess"),
        Site("topsquares", f"n{p.TOPSQUARES_MIN_N}", p.TOPSQUARES_MIN_N, "random"),
        Site("anneal", f"free{p.AUTO_EXACT_MAX_N + 1}", p.AUTO_EXACT_MAX_N + 1, "random"),
    ]


@dataclass(frozen=True)
class Cell:
    site: Site
    solvers: str  # a key of SOLVER_SETS
    sense: str
    fixed: bool

    @property
    def id(self) -> str:
        return (f"{self.site.plan}-{self.site.label}-{self.solvers}-{self.sense}"
                f"{'-fixed' if self.fixed else ''}")

    def instance(self) -> Instance:
        size = self.site.size
        n = size + (FIXED_ROWS if self.fixed else 0)
        fixed = None
        if self.fixed:
            explicit = explicit_solution(n)
            assert explicit is not None
            fixed = [(row, int(explicit[row])) for row in range(FIXED_ROWS)]
        return make_instance(n, self.site.weights, fixed, weights_seed=1,
                             sense=self.sense if self.site.weights else "max")


def backend_with(solvers: tuple[str, ...], size: int) -> str:
    """The exact backend auto picks with these optional solvers (what
    :func:`~nqmip.auto.policy.pick_backend` says; a cell's run checks they agree)."""
    return "gurobi" if "gurobi" in solvers and size <= SIZE_LIMITED_MAX_N else "highs"


def cells() -> list[Cell]:
    """Every cell: each site x solver set x sense x fixed queens where its plan runs."""
    found = []
    for site in sites():
        sets = ("none", "all") if site.plan in NO_OPTIONAL else tuple(SOLVER_SETS)
        senses = ("max", "min") if site.weights else ("max",)
        for solvers in sets:
            for sense in senses:
                for fixed in (False, True):
                    cell = Cell(site, solvers, sense, fixed)
                    instance = cell.instance()
                    plan = policy.choose_plan(
                        instance, warm_start=site.warm_start, budget=site.limit,
                        backend=backend_with(SOLVER_SETS[solvers], free_rows(instance)))
                    if plan.name == site.plan:
                        found.append(cell)
    return found


def scip_with(solvers: tuple[str, ...], size: int) -> bool:
    """Whether the MIP plan may run SCIP beside its LP search with these optional solvers
    (what :func:`~nqmip.auto.policy.scip_beside` says; a cell's run checks they agree)."""
    return "scip" in solvers and size >= policy.SCIP_MIN_FREE


def runs(cell: Cell) -> tuple[str, bool]:
    """What the solver set changes in the cell's call: the exact backend auto picks and
    whether SCIP may run beside it (both read from the policy; a cell's run checks them)."""
    size = free_rows(cell.instance())
    return backend_with(SOLVER_SETS[cell.solvers], size), \
        scip_with(SOLVER_SETS[cell.solvers], size)


def sample() -> list[Cell]:
    """A covering sample of :func:`cells` for the whole suite (the product is 189 cells,
    978 s of limits): at every site, each different thing the solver sets make auto run
    there (:func:`runs`: the backend it picks, SCIP beside or not), and every solver set
    at some site of every plan, each cell with one (sense, fixed queens) of the site in
    turn, so that every sense, every fixed-queen case and every solver set meets every
    plan; the long-budget site (34 s a cell) with all the optional solvers. A solver set
    that makes no difference at a site (toulbar2 alone beside none: auto runs no toulbar2
    part) is met at another site of the plan, not at each. ``python tools/auto_matrix.py``
    runs the whole product."""
    chosen: list[Cell] = []
    met: dict[str, set[str]] = {}  # plan -> the solver sets it has met
    every = cells()
    for index, site in enumerate(sites()):
        mine = [cell for cell in every if cell.site == site]
        sets = list(dict.fromkeys(cell.solvers for cell in mine))
        if site.limit > LIMIT:  # 34 s a cell: all the optional solvers (SCIP beside)
            sets = [name for name in sets if name == "all"]
        plan_met = met.setdefault(site.plan, set())
        classes: dict[tuple[str, bool], list[str]] = {}
        for name in sets:
            first = next(cell for cell in mine if cell.solvers == name)
            classes.setdefault(runs(first), []).append(name)
        picks = [next((n for n in names if n not in plan_met), names[0])
                 for names in classes.values()]
        later = [s for s in sites()[index + 1:] if s.plan == site.plan]
        if not later:  # the plan's last site: the solver sets it has not met yet
            picks += [name for name in sets if name not in plan_met and name not in picks]
        for turn, solvers in enumerate(picks):
            plan_met.add(solvers)
            options = [cell for cell in mine if cell.solvers == solvers]
            chosen.append(options[(index + turn) % len(options)])
    return chosen


def _reset(names: Any) -> None:
    for name in names:
        backend = get_backend(name)
        backend._checked = False  # availability is remembered: asked again
        backend._why = None


@contextlib.contextmanager
def only(solvers: tuple[str, ...]) -> Iterator[None]:
    """The optional solvers not in ``solvers`` blocked at import (as without their
    extra), and every backend's remembered availability asked again, both ways."""
    hidden = [module for name, module in OPTIONAL.items() if name not in solvers]
    saved = {module: sys.modules.get(module, KeyError) for module in hidden}
    try:
        for module in hidden:
            sys.modules[module] = None  # type: ignore[assignment]
        _reset(OPTIONAL)
        yield
    finally:
        for module, value in saved.items():
            if value is KeyError:
                sys.modules.pop(module, None)
            else:
                sys.modules[module] = value  # type: ignore[assignment]
        _reset(OPTIONAL)


def warm(cell: Cell) -> None:
    """The cell's plan's kernels loaded before its clock (numba's first compile in a
    process is not what the margin is for)."""
    from nqmip.auto.plans import warm_up

    plan = policy.PLAN_BY_NAME[cell.site.plan]
    warm_up(plan, like=cell.instance())
    if not plan.kernels:  # a plan that loads nothing first (the completion search's
        # kernels load in its call): one call before the clock, to its proof (each of
        # these plans is one complete search or one exact solve)
        nqmip.solve(cell.instance(), warm_start="sa" if cell.site.warm_start else None)


def run(cell: Cell, cancel_at: float | None = None) -> tuple[Result, float]:
    """The cell's call under its solver set: its result and its seconds. ``cancel_at``:
    the call's deadline (the cell's limit, which chose its plan) cancelled from another
    thread that many seconds after the start, as a caller stops it."""
    from nqmip.budget import Deadline

    instance = cell.instance()
    with only(SOLVER_SETS[cell.solvers]):
        size = free_rows(instance)
        assert policy.pick_backend(size) == backend_with(SOLVER_SETS[cell.solvers], size)
        assert policy.scip_beside(size) == scip_with(SOLVER_SETS[cell.solvers], size)
        warm(cell)
        deadline = Deadline(cell.site.limit)
        timer = None if cancel_at is None else threading.Timer(cancel_at, deadline.cancel)
        if timer is not None:
            timer.start()
        try:
            result = nqmip.solve(instance, time_limit=deadline,
                                 warm_start="sa" if cell.site.warm_start else None)
        finally:
            if timer is not None:
                timer.cancel()
                timer.join()
        return result, deadline.elapsed()


def check(cell: Cell, result: Result) -> None:
    """A verified placement (or a proof that there is none), and a bound on the right side
    of the objective: above it when maximising, below it for costs."""
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE), (cell.id, result.message)
    assert result.placement is not None and result.objective is not None
    verified(cell.instance(), result)  # the placement, the fixed queens, the objective
    if result.bound is not None:
        if cell.sense == "min" and cell.site.weights:
            assert result.bound <= result.objective + 1e-6, (cell.id, result.bound)
        else:
            assert result.bound >= result.objective - 1e-6, (cell.id, result.bound)
    failed = [step for step in result.provenance.plan if step.endswith("(failed)")]
    assert not failed, (cell.id, failed, result.message)
