"""OR-Tools CP-SAT on the boolean + permutation model of :mod:`nqmip.formulation.cpsat`."""

from __future__ import annotations

from nqmip.backends.base import Backend, RawSolution, SolveOptions, module_available
from nqmip.formulation.cpsat import build_cpsat_model
from nqmip.instance import Instance
from nqmip.result import Status, Termination


class CpSatBackend(Backend):
    name = "cpsat"
    install_hint = 'pip install "ortools>=9.15,<9.16" (installed with nqmip)'

    def available(self) -> bool:
        return module_available("ortools")

    def version(self) -> str:
        import ortools

        return ortools.__version__

    def solve(self, instance: Instance, options: SolveOptions) -> RawSolution:
        self.require()
        from ortools.sat.python import cp_model

        cps = build_cpsat_model(instance)
        if options.warm_start is not None:
            cps.add_hint(options.warm_start)
        solver = cp_model.CpSolver()
        params = solver.parameters
        params.log_search_progress = bool(options.verbose)
        if options.time_limit is not None:
            params.max_time_in_seconds = float(options.time_limit)
        if options.seed is not None:
            params.random_seed = int(options.seed) % 2_147_483_647
        if options.threads is not None:
            params.num_workers = int(options.threads)
        params.relative_gap_limit = float(options.mip_gap)
        status = solver.solve(cps.model)
        placement = objective = bound = None
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            placement = cps.placement(solver)
            objective = float(solver.objective_value)
            bound = float(solver.best_objective_bound)
        accepted = None
        if options.warm_start is not None:
            # CP-SAT reports a complete, feasible hint in its response statistics.
            accepted = "hint" in solver.solution_info.lower() or None
        nodes = int(solver.num_branches)
        if status == cp_model.OPTIMAL:
            return RawSolution(Status.OPTIMAL, Termination.OPTIMAL, placement, objective,
                               bound, nodes, accepted)
        if status == cp_model.INFEASIBLE:
            return RawSolution(Status.INFEASIBLE, Termination.INFEASIBLE, nodes=nodes,
                               warm_start_accepted=accepted)
        if status == cp_model.MODEL_INVALID:
            raise RuntimeError(f"CP-SAT rejected the model: {cps.model.validate()}")
        return RawSolution(
            Status.FEASIBLE if placement is not None else Status.UNKNOWN,
            Termination.TIME_LIMIT,
            placement,
            objective,
            bound,
            nodes,
            accepted,
            message=solver.status_name(status),
        )
