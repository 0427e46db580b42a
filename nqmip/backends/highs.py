"""HiGHS through highspy, fed the CSR arrays directly (no Pyomo model in between).

Building the arrays is O(n^2) numpy work; going through Pyomo costs seconds at n = 200
(see docs/benchmarks-exact.md), which is why ``"highs"`` is direct and ``"highs-pyomo"`` exists
for comparison and for users who want Pyomo's path.
"""

from __future__ import annotations

import time
from functools import cache
from typing import Any

import numpy as np

from nqmip.backends.base import (
    Backend,
    BackendError,
    RawSolution,
    SolveOptions,
    SolverLog,
    solution,
    termination_of,
)
from nqmip.budget import Deadline
from nqmip.chunks import why_stopped
from nqmip.formulation.matrix import (
    LinearModel,
    build_linear_model,
    pass_to_highs,
    to_highs_lp,  # noqa: F401 - re-exported: tests and notebooks import it from here
)
from nqmip.formulation.strengthen import linear_extras, start_vector
from nqmip.instance import Instance
from nqmip.progress import ProgressReporter
from nqmip.result import Termination

#: The least ``work_limit`` (nodes) under which HiGHS runs RINS and RENS. Each solves a
#: sub-MIP of up to 500 leaves (200 or more nodes), nested up to 5 deep, with node limits
#: of their own: ``mip_max_nodes`` counts none of it. Random-weight n = 40 under
#: ``mip_max_nodes=1`` ran 11,293 LP iterations (9,577 in the heuristics) and 11-22 s,
#: 75-97 s under a load of 7-8. Without RINS and RENS, 4,716 iterations and 2.9 s for the
#: placement worth 343 (bound 357); without the root's reduced-cost sub-MIP as well,
#: 1,716 iterations and 0.8 s, but 210: it is kept. Below this limit a run's work is its
#: nodes and that one sub-MIP.
SUBMIP_NODES = 500
SUBMIP_HEURISTICS = ("mip_heuristic_run_rins", "mip_heuristic_run_rens")


def work_options(work_limit: float) -> dict[str, Any]:
    """HiGHS's options for a ``work_limit`` of ``work_limit`` nodes (:data:`SUBMIP_NODES`):
    the same options, so the same answer, on every machine."""
    options: dict[str, Any] = {"mip_max_nodes": int(work_limit)}
    if work_limit < SUBMIP_NODES:
        options.update(dict.fromkeys(SUBMIP_HEURISTICS, False))
    return options


class HighsBackend(Backend):
    name = "highs"
    install_hint = 'pip install "highspy==1.12.0" (installed with nqmip)'
    modules = ("highspy",)

    @cache  # noqa: B019 - one instance per process, held by the registry
    def version(self) -> str:
        import highspy

        return highspy.Highs().version()

    def solve(self, instance: Instance, options: SolveOptions) -> RawSolution:
        self.require()
        import highspy

        lm = build_linear_model(instance, **linear_extras(instance, options.strengthen))
        h = highspy.Highs()
        log = SolverLog(options.verbose)
        # With a logging callback HiGHS writes its log there, not to stdout: it is read
        # for the MIP start's fate and streamed to stderr only with verbose.
        h.cbLogging += lambda event: log(event.message)
        h.setOptionValue("output_flag", True)
        if options.seed is not None:
            h.setOptionValue("random_seed", int(options.seed) % 2_147_483_647)
        if options.threads is not None:
            h.setOptionValue("threads", int(options.solver_threads() or 1))
        h.setOptionValue("mip_rel_gap", float(options.mip_gap))
        if options.work_limit is not None:  # nodes: HiGHS's MIP is deterministic
            for name, value in work_options(options.work_limit).items():
                h.setOptionValue(name, value)
        if not pass_to_highs(h, lm, highspy, deadline=options.deadline):
            why = why_stopped(options.deadline)  # a limit, a target reached, a stop
            return solution(why, message=(
                f"the limit ended while the model of {lm.num_cols:,} columns was handed"
                " to HiGHS" if why is Termination.TIME_LIMIT else ""))
        if options.warm_start is not None:
            self._set_start(h, lm, options.warm_start, highspy)
        limit = options.time_limit()  # after the model's pass: what is left of it
        if limit is not None:
            h.setOptionValue("time_limit", limit)
        report = ProgressReporter(self.name, options.on_progress)
        if options.on_progress is not None:
            h.cbMipImprovingSolution += lambda e: report(
                e.data_out.objective_function_value, e.data_out.mip_dual_bound, force=True)
            h.cbMipInterrupt += lambda e: report(
                e.data_out.objective_function_value, e.data_out.mip_dual_bound)
        interrupted = run_interruptibly(h, options.deadline)
        accepted = None
        if options.warm_start is not None:
            accepted = log.contains("MIP start solution is feasible")
        raw = self._read(h, lm, highspy, accepted)
        if interrupted:
            raw.termination = Termination.INTERRUPTED
        return raw

    @staticmethod
    def _set_start(h: Any, lm: LinearModel, start: tuple[int, ...], highspy: Any) -> None:
        """Pass the start with setSolution; HiGHS checks it when the MIP solve begins and
        logs "MIP start solution is feasible" when it becomes the first incumbent."""
        values = start_vector(lm, start)
        solution = highspy.HighsSolution()
        solution.col_value = values.tolist()
        solution.value_valid = True
        h.setSolution(solution)

    @staticmethod
    def _read(h: Any, lm: LinearModel, highspy: Any, accepted: bool | None) -> RawSolution:
        status = h.getModelStatus()
        info = h.getInfo()
        ms = highspy.HighsModelStatus
        has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
        placement = objective = None
        if has_solution:
            values = np.asarray(h.getSolution().col_value)
            placement = placement_of(lm, values)
            objective = float(info.objective_function_value)
        bound = float(info.mip_dual_bound) if np.isfinite(info.mip_dual_bound) else None
        nodes = int(info.mip_node_count)
        termination = termination_of(status, {
            ms.kOptimal: Termination.OPTIMAL,
            ms.kInfeasible: Termination.INFEASIBLE,
            ms.kUnboundedOrInfeasible: Termination.INFEASIBLE,
            ms.kTimeLimit: Termination.TIME_LIMIT,
            ms.kIterationLimit: Termination.ITERATION_LIMIT,
            ms.kSolutionLimit: Termination.ITERATION_LIMIT,
            ms.kInterrupt: Termination.INTERRUPTED,
        })
        return solution(termination, placement, objective, bound, nodes, accepted,
                        message=h.modelStatusToString(status))


def placement_of(lm: LinearModel, values: np.ndarray) -> tuple[int, ...]:
    """The full placement (fixed queens included) from the values of ``lm``'s columns."""
    try:
        return lm.placement(values)
    except ValueError as exc:
        raise BackendError(str(exc)) from None


#: Seconds a solve waits for an abandoned one to end (highspy runs one at a time).
ABANDONED_WAIT = 5.0


def run_interruptibly(h: Any, deadline: Deadline | None = None) -> bool:
    """Run HiGHS in its own thread so that Ctrl-C, or a cancel of ``deadline`` from another
    thread, stops the solve cleanly (HiGHS stops at its next interrupt check and keeps its
    incumbent); True if Ctrl-C interrupted it."""
    h.HandleUserInterrupt = True
    # highspy lets one solve run at a time in a process (a class-level lock): a solve
    # abandoned past its limit by the watchdog is ending; wait for it (it was cancelled)
    waited = 0.0
    while h.is_solver_running() and waited < ABANDONED_WAIT:
        time.sleep(0.01)
        waited += 0.01
    h.startSolve()
    interrupted = cancelled = False
    while True:
        try:
            done, _ = h.wait(0.05)
        except KeyboardInterrupt:
            interrupted = True
            h.cancelSolve()
            continue
        if done:
            return interrupted
        if not cancelled and deadline is not None and deadline.cancelled():
            cancelled = True
            h.cancelSolve()
