"""``nqmip.solve(n, objective="lex-first", method=...)``: which route answers.

- ``"auto"`` or ``"search"``: the exact search of :mod:`nqmip.lex.search` (the fast one).
- ``"cpsat"``: sequential CP-SAT solves, row by row
  (:func:`~nqmip.formulation.lex.sequential_cpsat`).
- ``"cpsat-fixed"``: one CP-SAT model searched in lexicographic order
  (:func:`~nqmip.formulation.lex.fixed_search_cpsat`).
- ``"highs-pyomo"``: sequential 0-1 models in Pyomo, HiGHS as the solver
  (:func:`~nqmip.formulation.lex.sequential_pyomo`).
"""

from __future__ import annotations

from typing import Any

from nqmip.budget import Deadline
from nqmip.instance import Instance
from nqmip.result import Result

LEX_OBJECTIVES = ("lex-first",)
LEX_METHODS = ("auto", "search", "cpsat", "cpsat-fixed", "highs-pyomo")


def solve_lex(instance: Instance, objective: str, method: str, deadline: Deadline,
              seed: int, weights: Any, params: dict[str, Any]) -> Result:
    if objective not in LEX_OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}: choose from "
                         f"{', '.join(LEX_OBJECTIVES)}")
    if weights is not None:
        raise ValueError("objective='lex-first' orders placements, it takes no weights")
    if method not in LEX_METHODS:
        raise ValueError(f"objective='lex-first' is solved by {', '.join(LEX_METHODS)}, "
                         f"not {method!r}")
    if method in ("auto", "search"):
        from nqmip.lex.search import lex_first_result

        allowed = {"oracle_from", "oracle_cap"}
        unknown = set(params) - allowed
        if unknown:
            raise TypeError(f"unexpected parameters for lex-first: {', '.join(sorted(unknown))}")
        return lex_first_result(instance, deadline, seed, **params)
    if params:
        raise TypeError(f"unexpected parameters for {method!r}: {', '.join(params)}")
    return _model_result(instance, method, deadline, seed)


def _model_result(instance: Instance, method: str, deadline: Deadline, seed: int) -> Result:
    from nqmip.formulation import lex as models
    from nqmip.result import Provenance, Status, Termination
    from nqmip.verify import verified

    run = {"cpsat": models.sequential_cpsat, "cpsat-fixed": models.fixed_search_cpsat,
           "highs-pyomo": models.sequential_pyomo}[method](instance, deadline)
    if run.complete:
        status, termination = Status.OPTIMAL, Termination.OPTIMAL
    elif run.infeasible:
        status, termination = Status.INFEASIBLE, Termination.INFEASIBLE
    else:
        status = Status.FEASIBLE if run.placement is not None else Status.UNKNOWN
        termination = Termination.TIME_LIMIT
    prefix = list(run.placement[: run.proven_rows]) if run.placement else []
    proven = status in (Status.OPTIMAL, Status.INFEASIBLE)
    return verified(instance, Result(
        status=status, termination=termination, n=instance.n, method=f"lex-first {method}",
        solver={"cpsat": "CP-SAT (sequential)", "cpsat-fixed": "CP-SAT (fixed search)",
                "highs-pyomo": "HiGHS via Pyomo (sequential)"}[method],
        objective=None, bound=None, placement=run.placement, wall_time=run.seconds,
        weights_name=instance.name, seed=seed,
        message=f"{run.steps} solver calls; {run.proven_rows} rows proven",
        provenance=Provenance(plan=(f"lex-first {method}",), proof="solver" if proven else None,
                              incumbent_source="solver" if run.placement else None),
        extra={"objective": "lex-first", "proven_rows": run.proven_rows,
               "proven_prefix": prefix, "solver_calls": run.steps}))
