"""HiGHS through Pyomo's ``appsi_highs`` interface, on the model of :func:`build_model`.

Kept beside the direct ``"highs"`` backend so the cost of going through Pyomo can be
measured (docs/benchmarks-exact.md) and so that Pyomo users see the path they would take.
"""

from __future__ import annotations

import math

from nqmip import highs_threads
from nqmip.backends.base import (
    Backend,
    RawSolution,
    SolveOptions,
    SolverLog,
    c_stdout_to_stderr,
    solution,
    termination_of,
)
from nqmip.budget import stop_when_cancelled
from nqmip.formulation.pyomo import appsi_highs, placement_from_pyomo
from nqmip.formulation.strengthen import parity_start, pyomo_model
from nqmip.instance import Instance
from nqmip.result import Termination


class HighsPyomoBackend(Backend):
    name = "highs-pyomo"
    install_hint = 'pip install "highspy==1.12.0" pyomo (installed with nqmip)'
    modules = ("highspy", "pyomo")

    def version(self) -> str:
        import highspy
        import pyomo.version

        return f"{highspy.Highs().version()} via Pyomo {pyomo.version.version}"

    def solve(self, instance: Instance, options: SolveOptions) -> RawSolution:
        self.require()
        from pyomo.contrib.appsi.base import TerminationCondition as TC

        model = pyomo_model(instance, options.strengthen)
        opt = appsi_highs()  # Pyomo's interface, the process's stdout left alone
        opt.config.stream_solver = bool(options.verbose)
        opt.config.load_solution = False
        opt.config.mip_gap = float(options.mip_gap)
        limit = options.time_limit()
        if limit is not None:
            opt.config.time_limit = limit
        if options.seed is not None:
            opt.highs_options["random_seed"] = int(options.seed) % 2_147_483_647
        threads = options.solver_threads() or 0  # 0: HiGHS's own
        opt.highs_options["threads"] = threads
        if options.work_limit is not None:  # nodes, as highs counts them
            from nqmip.backends.highs import work_options

            opt.highs_options.update(work_options(options.work_limit))
        accepted = None
        if options.warm_start is not None:
            # Pyomo's appsi Highs passes the variables' values to setSolution (warmstart).
            start = options.warm_start
            for (i, j), var in model.x.items():
                var.value = 1.0 if start[i] == j else 0.0
            if hasattr(model, "black_half"):  # the strengthened model's parity variable
                model.black_half.value = parity_start(options.warm_start)
            opt.config.warmstart = True
        opt.set_instance(model)
        log = SolverLog(options.verbose)
        opt._solver_model.cbLogging += lambda event: log(event.message)
        highs_threads.prepare(threads)  # Pyomo runs HiGHS in this thread
        # HiGHS's log (verbose) on stderr: stdout stays ours
        # a cancel (Ctrl-C, a target, another part's proof) stops HiGHS at its next check:
        # it went on to its own limit (a cancel at 2 s of a 30 s limit answered at 30 s)
        with c_stdout_to_stderr(options.deadline), \
                stop_when_cancelled(options.deadline, opt._solver_model.cancelSolve,
                                    repeat=True):
            results = opt.solve(model)
        if options.warm_start is not None:
            accepted = log.contains("MIP start solution is feasible")
        tc = results.termination_condition
        if tc in (TC.infeasible, TC.infeasibleOrUnbounded):
            return solution(Termination.INFEASIBLE, accepted=accepted)
        placement = objective = None
        if results.best_feasible_objective is not None:
            results.solution_loader.load_vars()
            placement = placement_from_pyomo(model)
            objective = float(results.best_feasible_objective)
        bound = results.best_objective_bound
        bound = float(bound) if bound is not None and math.isfinite(bound) else None
        termination = termination_of(tc, {TC.optimal: Termination.OPTIMAL,
                                          TC.maxTimeLimit: Termination.TIME_LIMIT,
                                          TC.maxIterations: Termination.ITERATION_LIMIT,
                                          TC.interrupted: Termination.INTERRUPTED})
        if termination is Termination.ERROR and options.deadline.cancelled():
            termination = Termination.INTERRUPTED  # kInterrupt: nqmip.exact reads the reason
        return solution(termination, placement, objective, bound, accepted=accepted,
                        message=f"appsi_highs: {tc.name}")
