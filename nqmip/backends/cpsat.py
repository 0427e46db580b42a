"""OR-Tools CP-SAT on the boolean + permutation model of :mod:`nqmip.formulation.cpsat`."""

from __future__ import annotations

import threading
import time
from typing import Any

from nqmip.backends.base import (
    Backend,
    BackendError,
    RawSolution,
    SolveOptions,
    SolverLog,
    solution,
    termination_of,
)
from nqmip.budget import stop_when_cancelled
from nqmip.formulation.cpsat import exact_gaps, solver_bound
from nqmip.formulation.strengthen import cpsat_model
from nqmip.instance import Instance
from nqmip.progress import ProgressReporter
from nqmip.result import Termination

#: CP-SAT's workers under a work limit when ``threads`` does not say (interleaved: one
#: answer whatever the machine's cores).
WORK_LIMIT_WORKERS = 8
#: The workers interleaved (``interleave_search``), so that the same seed gives the same
#: placement: the brief's rule, measured in docs/cpsat.md.
INTERLEAVED = True
#: CP-SAT 9.15 aborts the whole process ("Check failed: solution->size() ==
#: postsolve_mapping.size()") when an interleaved search that has a solution hint is
#: stopped, by its own limit or by ``stop_search``, as the hint's solution enters its pool:
#: scans of 50 limits each near that moment (n = 10 and 20) aborted in 8 of 12, and with
#: ``stop_search`` in 3 of 12; none without the hint, none with one worker (0 of 16 each).
#: A run with a hint (a caller's warm start) has one worker: the same seed, the same
#: answer, and no abort. The package's own start is not hinted (``Backend.hints_own_start``).
HINTED_WORKERS = 1


class CpSatBackend(Backend):
    name = "cpsat"
    hints_own_start = False  # its workers stay interleaved (HINTED_WORKERS says why)
    install_hint = 'pip install "ortools>=9.15,<9.16" (installed with nqmip)'
    modules = ("ortools",)

    def solve(self, instance: Instance, options: SolveOptions) -> RawSolution:
        self.require()
        from ortools.sat.python import cp_model

        cps = cpsat_model(instance, options.strengthen)
        if options.warm_start is not None:
            cps.add_hint(options.warm_start)
        solver = cp_model.CpSolver()
        params = solver.parameters
        log = SolverLog(options.verbose)
        # The log goes to a callback (never stdout): it says whether the hint was taken.
        params.log_search_progress = bool(options.verbose or options.warm_start is not None)
        params.log_to_stdout = False
        solver.log_callback = log
        # On the main thread CP-SAT catches Ctrl-C itself and stops as at a time limit; off
        # it the caller's Deadline stops it (nqmip.formulation.cpsat.cp_solver says why).
        params.catch_sigint_signal = threading.current_thread() is threading.main_thread()
        limit = options.time_limit()
        if limit is not None:
            params.max_time_in_seconds = limit
        if options.seed is not None:
            params.random_seed = int(options.seed) % 2_147_483_647
        if options.threads is not None:
            params.num_workers = int(options.solver_threads() or 1)
        if INTERLEAVED and params.num_workers != 1:
            # CP-SAT's parallel portfolio answers whichever worker's placement came first:
            # n = 12 random weights, seed 3, two workers: two placements in three runs.
            # Interleaved, its workers run in a fixed order: one answer per seed
            params.interleave_search = True
        if options.work_limit is not None:
            # Deterministic seconds; the workers interleaved, so that the answer does not
            # depend on the cores (8 workers unless threads says: the same on any machine)
            params.max_deterministic_time = float(options.work_limit)
            params.interleave_search = True
            params.num_workers = int(options.threads or WORK_LIMIT_WORKERS)
        if options.warm_start is not None and params.num_workers != HINTED_WORKERS:
            params.num_workers = HINTED_WORKERS  # the abort HINTED_WORKERS describes
            params.interleave_search = False
        exact_gaps(params, options.mip_gap)
        callback = _Progress(ProgressReporter(self.name, options.on_progress)) \
            if options.on_progress is not None else None
        started = time.perf_counter()
        with stop_when_cancelled(options.deadline, solver.stop_search, repeat=True):
            status = solver.solve(cps.model, callback)
        elapsed = time.perf_counter() - started
        placement = objective = bound = None
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            placement = cps.placement(solver)
            objective = float(solver.objective_value)
            bound = solver_bound(solver, status == cp_model.OPTIMAL, instance.sense)
        accepted = None
        if options.warm_start is not None:
            accepted = log.contains("solution hint is complete and is feasible")
        nodes = int(solver.num_branches)
        if status == cp_model.MODEL_INVALID:
            raise BackendError(f"CP-SAT rejected the model: {cps.model.validate()}")
        # CP-SAT stops early without a proof at its time limit, on a cancel (the caller's
        # Ctrl-C, a target, the watchdog's cancel at the limit: nqmip.exact reads its
        # reason), at its deterministic limit, or on the main thread on a Ctrl-C it caught
        # itself, "as if a time limit was reached": this thread's clock tells that from the
        # limit. Off the main thread it hears no signal: a stop nobody cancelled is its own
        # limit, even short of it by this clock (seen at 1 s in CI, on a loaded machine:
        # a time limit was said 'interrupted').
        short = limit is None or elapsed < 0.9 * limit
        if options.deadline.cancelled() or (
                params.catch_sigint_signal and options.work_limit is None and short):
            stopped = Termination.INTERRUPTED
        elif options.work_limit is not None and short:
            stopped = Termination.ITERATION_LIMIT  # the deterministic time, not the clock
        else:
            stopped = Termination.TIME_LIMIT
        termination = termination_of(status, {
            cp_model.OPTIMAL: Termination.OPTIMAL,
            cp_model.INFEASIBLE: Termination.INFEASIBLE,
            cp_model.FEASIBLE: stopped,
            cp_model.UNKNOWN: stopped,
        })
        raw = solution(termination, placement, objective, bound, nodes, accepted,
                       message=f"CP-SAT status {solver.status_name(status)}")
        if options.threads is not None and params.num_workers != options.solver_threads():
            raw.extra["threads"] = int(params.num_workers)  # the workers that ran
        return raw


def _Progress(report: ProgressReporter) -> Any:
    """A CP-SAT solution callback that reports each new incumbent and the bound."""
    from ortools.sat.python import cp_model

    class ProgressCallback(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            report(self.objective_value, self.best_objective_bound, force=True)

    return ProgressCallback()
