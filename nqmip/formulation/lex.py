"""A lexicographic objective as models: the first solution of N-Queens (OEIS A141843).

"The first solution" minimises the column of row 0, then, among the solutions with that
column, the column of row 1, and so on: a *lexicographic* objective, n objectives in strict
priority. Solvers take one objective, so it is modelled in one of three ways, all here:

- **Sequential** (any backend): n solves; step r minimises ``q[r]`` with rows 0..r-1 fixed
  to the values of the steps before. Each step is an ordinary optimisation model, each
  optimum is proven, so the whole order is. :func:`sequential_cpsat` (permutation model,
  OR-Tools CP-SAT) and :func:`sequential_pyomo` (the 0-1 model ``x[i, j]`` in Pyomo,
  minimising ``sum_j j * x[r, j]``, solved by HiGHS through ``appsi_highs``).
- **One weighted objective**: minimise ``sum_r q[r] * n^(n-1-r)``; exact because every
  ``q[r] < n``, but the weights overflow 64-bit integers from n = 16 (``16^15 = 2^60``
  times 15 exceeds ``2^63``), so it only teaches. :func:`weighted_cpsat`.
- **One model, search order** (CP-SAT): no objective; a decision strategy "rows in order,
  smallest value first", a fixed search on one worker, stop at the first solution. Sound
  propagation never removes a solution, so the first one the fixed search meets is the
  lexicographically first. :func:`fixed_search_cpsat`.

The exact search of :mod:`nqmip.lex.search` does the last with its own propagation and a
prefix oracle; these models are the reference a student can read, and the checker
(``tools/check_lexfirst.py``) uses :func:`prefix_feasible` as the second route.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from nqmip import highs_threads
from nqmip.budget import MIN_SOLVER_SECONDS, stop_when_cancelled
from nqmip.formulation.cpsat import cp_solver
from nqmip.instance import Instance


@dataclass(frozen=True)
class LexModelRun:
    """A lexicographic solve by a model: ``placement`` (None: none found), ``proven_rows``
    (leading rows proven minimal), ``complete`` (the whole order proven), ``steps`` (solver
    calls), ``seconds``."""

    placement: tuple[int, ...] | None
    proven_rows: int
    complete: bool
    steps: int
    seconds: float
    infeasible: bool = False


def permutation_model(instance: Instance, fixed: dict[int, int] | None = None) -> Any:
    """The CP-SAT permutation model: ``q[r]`` the column of row r, three all-different
    constraints (columns, both diagonals), the instance's fixed queens and ``fixed``."""
    from ortools.sat.python import cp_model

    n = instance.n
    model = cp_model.CpModel()
    q = [model.new_int_var(0, n - 1, f"q{r}") for r in range(n)]
    model.add_all_different(q)
    model.add_all_different([q[r] + r for r in range(n)])
    model.add_all_different([q[r] - r for r in range(n)])
    for row, col in list(instance.fixed) + list((fixed or {}).items()):
        model.add(q[row] == col)
    return model, q


def _cpsat_solver(deadline: Any, first_solution: bool = False) -> Any:
    from ortools.sat.python import cp_model

    solver = cp_solver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    if deadline is not None and deadline.limited:
        solver.parameters.max_time_in_seconds = max(deadline.remaining(), MIN_SOLVER_SECONDS)
    if first_solution:
        solver.parameters.search_branching = cp_model.FIXED_SEARCH
        solver.parameters.stop_after_first_solution = True
        # presolve may solve a small model itself, not in the strategy's order: its first
        # solution is then not the first in lexicographic order (n = 4 gave 2,0,3,1)
        solver.parameters.cp_model_presolve = False
    return solver


def _solve(solver: Any, model: Any, deadline: Any) -> Any:
    """CP-SAT's ``solve``, stopped at once by a cancel of ``deadline`` (Ctrl-C): a stopped
    lex-first run kept solving to its own limit, and the watchdog answered without the
    rows it had proven."""
    with stop_when_cancelled(deadline, solver.stop_search, repeat=True):
        return solver.solve(model)


def sequential_cpsat(instance: Instance, deadline: Any = None) -> LexModelRun:
    """Row by row: step r minimises ``q[r]`` given rows 0..r-1 (CP-SAT, proven optimum each
    step). Stopped by ``deadline``, the rows done so far are the proven prefix."""
    from ortools.sat.python import cp_model

    begin = time.perf_counter()
    n = instance.n
    prefix: dict[int, int] = {}
    last = None  # the last step's solution: its first r rows are the proven ones
    for r in range(n):
        model, q = permutation_model(instance, prefix)
        model.minimize(q[r])
        solver = _cpsat_solver(deadline)
        status = _solve(solver, model, deadline)
        if status == cp_model.INFEASIBLE:
            return LexModelRun(None, 0, False, r + 1, time.perf_counter() - begin, True)
        if status != cp_model.OPTIMAL:
            if status == cp_model.FEASIBLE:
                last = tuple(int(solver.value(v)) for v in q)
            return LexModelRun(last, r, False, r + 1, time.perf_counter() - begin)
        last = tuple(int(solver.value(v)) for v in q)
        prefix[r] = last[r]
    placement = tuple(prefix[r] for r in range(n))
    return LexModelRun(placement, n, True, n, time.perf_counter() - begin)


def weighted_cpsat(instance: Instance, deadline: Any = None) -> LexModelRun:
    """One objective, ``sum_r q[r] * n^(n-1-r)``: exact, but only for n <= 15 (the weights
    overflow 64-bit integers beyond)."""
    from ortools.sat.python import cp_model

    n = instance.n
    if n > 15:
        raise ValueError(f"the weighted lexicographic objective overflows at n = {n} > 15")
    begin = time.perf_counter()
    model, q = permutation_model(instance)
    model.minimize(sum(q[r] * n ** (n - 1 - r) for r in range(n)))
    solver = _cpsat_solver(deadline)
    status = _solve(solver, model, deadline)
    seconds = time.perf_counter() - begin
    if status == cp_model.OPTIMAL:
        return LexModelRun(tuple(int(solver.value(v)) for v in q), n, True, 1, seconds)
    return LexModelRun(None, 0, False, 1, seconds, status == cp_model.INFEASIBLE)


def fixed_search_cpsat(instance: Instance, deadline: Any = None) -> LexModelRun:
    """One model, no objective: the fixed search "rows in order, smallest value first" on
    one worker; its first solution is the lexicographically first."""
    from ortools.sat.python import cp_model

    begin = time.perf_counter()
    model, q = permutation_model(instance)
    model.add_decision_strategy(q, cp_model.CHOOSE_FIRST, cp_model.SELECT_MIN_VALUE)
    solver = _cpsat_solver(deadline, first_solution=True)
    status = _solve(solver, model, deadline)
    seconds = time.perf_counter() - begin
    n = instance.n
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return LexModelRun(tuple(int(solver.value(v)) for v in q), n, True, 1, seconds)
    return LexModelRun(None, 0, False, 1, seconds, status == cp_model.INFEASIBLE)


def prefix_feasible(n: int, prefix: dict[int, int], time_limit: float | None = None
                    ) -> bool | None:
    """Can the queens ``prefix`` (row -> column) be completed? CP-SAT feasibility: True,
    False (proven), or None (undecided within ``time_limit``)."""
    from ortools.sat.python import cp_model

    from nqmip.budget import Deadline
    from nqmip.instance import make_instance

    model, _ = permutation_model(make_instance(n), prefix)
    solver = _cpsat_solver(Deadline(time_limit))
    status = solver.solve(model)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return True
    if status == cp_model.INFEASIBLE:
        return False
    return None


def sequential_pyomo(instance: Instance, deadline: Any = None) -> LexModelRun:
    """Row by row with the 0-1 model in Pyomo, HiGHS (``appsi_highs``) as the solver: step r
    minimises ``sum_j j * x[r, j]`` with rows 0..r-1 fixed."""
    import pyomo.environ as pyo
    from pyomo.contrib.appsi.base import TerminationCondition

    from nqmip.formulation.pyomo import appsi_highs

    begin = time.perf_counter()
    n = instance.n
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, n - 1)
    m.x = pyo.Var(m.I, m.I, domain=pyo.Binary)
    m.rows = pyo.Constraint(m.I, rule=lambda m, i: sum(m.x[i, j] for j in m.I) == 1)
    m.cols = pyo.Constraint(m.I, rule=lambda m, j: sum(m.x[i, j] for i in m.I) == 1)
    diagonals = range(-(n - 2), n - 1)
    m.diagonals = pyo.Constraint(diagonals, rule=lambda m, d: sum(
        m.x[i, i - d] for i in m.I if 0 <= i - d < n) <= 1)
    m.anti_diagonals = pyo.Constraint(range(1, 2 * n - 2), rule=lambda m, s: sum(
        m.x[i, s - i] for i in m.I if 0 <= s - i < n) <= 1)
    for row, col in instance.fixed:
        m.x[row, col].fix(1)
    m.row_column = pyo.Objective(expr=0)
    solver = appsi_highs()  # Pyomo's interface, the process's stdout left alone
    prefix: list[int] = []
    last = None  # the last step's solution: its first r rows are the proven ones

    def cancel() -> None:  # HiGHS under Pyomo stops at its next check
        if solver._solver_model is not None:
            solver._solver_model.cancelSolve()

    for r in range(n):
        m.del_component(m.row_column)
        m.row_column = pyo.Objective(expr=sum(j * m.x[r, j] for j in m.I))
        if deadline is not None and deadline.limited:
            solver.config.time_limit = max(deadline.remaining(), MIN_SOLVER_SECONDS)
        solver.config.load_solution = False
        solver.highs_options["threads"] = 1
        highs_threads.prepare(1)  # Pyomo runs HiGHS in this thread
        with stop_when_cancelled(deadline, cancel, repeat=True):
            result = solver.solve(m)
        tc = result.termination_condition
        if tc == TerminationCondition.infeasible:
            return LexModelRun(None, 0, False, r + 1, time.perf_counter() - begin, True)
        if tc != TerminationCondition.optimal:
            return LexModelRun(last, r, False, r + 1, time.perf_counter() - begin)
        result.solution_loader.load_vars()
        last = tuple(next(j for j in range(n) if (m.x[i, j].value or 0) > 0.5)
                     for i in range(n))
        m.x[r, last[r]].fix(1)
        prefix.append(last[r])
    return LexModelRun(tuple(prefix), n, True, n, time.perf_counter() - begin)
