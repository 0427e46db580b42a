"""Every optimal placement of a small board, by CP-SAT enumeration.

Two CP-SAT runs: the first proves the optimum; the second fixes the objective at that value
and lists every solution (``enumerate_all_solutions``, which turns off the presolve
reductions that could lose solutions). The model is the textbook one, with no symmetry
breaking: symmetric optima are all listed. For the feasibility problem (no weights) every
solution is optimal, so the counts are OEIS A000170 (92 for n = 8).
"""

from __future__ import annotations

from nqmip.instance import CHESS_BLACK, CHESS_WHITE, FixedSpec, Instance, WeightsSpec, make_instance


class EnumerationError(RuntimeError):
    """The optimum could not be proven, or the weights are not integers."""


def enumerate_optimal(
    n: int | Instance,
    weights: WeightsSpec = None,
    fixed: FixedSpec = None,
    *,
    black: float = CHESS_BLACK,
    white: float = CHESS_WHITE,
    weights_seed: int | None = None,
    time_limit: float | None = 60.0,
    max_solutions: int | None = None,
) -> tuple[float | None, list[tuple[int, ...]]]:
    """``(optimum, placements)``: every optimal placement, sorted; ``(None, [])`` if none.

    Weights must be integers (CP-SAT fixes an integer objective exactly); ``max_solutions``
    stops the listing early. Raises :class:`EnumerationError` when the optimum or the
    listing is not complete within ``time_limit`` seconds (each run).
    """
    from ortools.sat.python import cp_model

    from nqmip.formulation.cpsat import build_cpsat_model, integral_weights

    instance = make_instance(n, weights, fixed, black=black, white=white,
                             weights_seed=weights_seed)
    w = instance.weight_matrix()
    if not integral_weights(w):
        raise EnumerationError("enumeration needs integer weights")
    size = instance.n
    coefs = [[round(float(w[i, j])) for j in range(size)] for i in range(size)]

    cps = build_cpsat_model(instance)
    solver = cp_model.CpSolver()
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = 1
    status = solver.solve(cps.model)
    if status == cp_model.INFEASIBLE:
        return None, []
    if status != cp_model.OPTIMAL:
        raise EnumerationError(f"CP-SAT did not prove the optimum: {solver.status_name(status)}")
    optimum = round(float(solver.objective_value))

    cps = build_cpsat_model(instance)
    model = cps.model
    model.add(sum(coefs[i][j] * cps.x[i, j] for i in range(size) for j in range(size)
                  if coefs[i][j]) == optimum)
    model.clear_objective()
    found: list[tuple[int, ...]] = []

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            found.append(tuple(int(self.value(q)) for q in cps.queen))
            if max_solutions is not None and len(found) >= max_solutions:
                self.stop_search()

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = float(time_limit)
    status = solver.solve(model, Collect())
    complete = status == cp_model.OPTIMAL or (
        max_solutions is not None and len(found) >= max_solutions
    )
    if not complete:
        raise EnumerationError(f"listing stopped early: {solver.status_name(status)}")
    return float(optimum), sorted(set(found))
