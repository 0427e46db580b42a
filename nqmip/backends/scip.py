"""SCIP through PySCIPOpt (``pip install "nqmip[scip]"``), fed the same ILP as HiGHS and
Gurobi (the CSR arrays of :mod:`nqmip.formulation.matrix`, strengthened by default)."""

from __future__ import annotations

from typing import Any

import numpy as np

from nqmip.backends.base import (
    Backend,
    RawSolution,
    SolveOptions,
    c_stdout_to_stderr,
    solution,
    termination_of,
)
from nqmip.backends.highs import placement_of
from nqmip.budget import stop_when_cancelled
from nqmip.formulation.matrix import build_linear_model
from nqmip.formulation.strengthen import linear_extras, start_vector
from nqmip.instance import Instance
from nqmip.progress import ProgressReporter
from nqmip.result import Termination


class ScipBackend(Backend):
    name = "scip"
    install_hint = 'pip install "nqmip[scip]" (PySCIPOpt, which ships SCIP)'
    modules = ("pyscipopt",)

    def version(self) -> str:  # SCIP's own, not PySCIPOpt's
        import pyscipopt

        return str(pyscipopt.Model().version())

    def solve(self, instance: Instance, options: SolveOptions) -> RawSolution:
        self.require()
        import pyscipopt

        # without the parity row (x's sum - 2z = n mod 2, z integer): SCIP 10 answered
        # wrong with it twice. Its cliques drawn from the row made chess n = 8 with queens
        # on (5,0) and (4,6) "infeasible" (optimal 12; the cliques were turned off), then its
        # presolve proved "optimal 10" for chess n = 7 with a queen on (4,5), seed 0
        # (optimal 12; SCIP's log: "best solution is not feasible in original problem")
        lm = build_linear_model(instance, **linear_extras(instance, options.strengthen,
                                                          parity=False))
        model = pyscipopt.Model()
        model.hideOutput(not options.verbose)
        vtype = "B" if lm.num_extra_cols == 0 else "I"
        x = [model.addVar(name=f"x{k}", vtype=vtype, lb=float(lm.col_lower[k]),
                          ub=float(lm.col_upper[k]), obj=float(lm.cost[k]))
             for k in range(lm.num_cols)]
        for row in range(lm.num_rows):
            begin, end = lm.indptr[row], lm.indptr[row + 1]
            expr = pyscipopt.quicksum(float(v) * x[int(c)] for c, v in
                                      zip(lm.indices[begin:end], lm.values[begin:end],
                                          strict=True))
            low, up = float(lm.row_lower[row]), float(lm.row_upper[row])
            if low == up:
                model.addCons(expr == up)
            elif np.isfinite(up):
                model.addCons(expr <= up)
            if np.isfinite(low) and low != up:
                model.addCons(expr >= low)
        model.setMaximize()
        if lm.offset:
            model.addObjoffset(float(lm.offset))
        # Ctrl-C is the process's to hear (the call's deadline then stops SCIP): SCIP's own
        # handler took it and only SCIP stopped (auto went on beside it)
        model.setParam("misc/catchctrlc", False)
        limit = options.time_limit()
        if limit is not None:
            model.setParam("limits/time", limit)
        if options.seed is not None:
            model.setParam("randomization/randomseedshift", int(options.seed) % 2_147_483_647)
        model.setParam("limits/gap", float(options.mip_gap))
        if options.work_limit is not None:  # nodes
            model.setParam("limits/nodes", int(options.work_limit))
        if options.target is not None:  # stop at a primal bound at least this good
            model.setParam("limits/primal", float(options.target))
        if options.on_progress is not None:
            model.includeEventhdlr(_Progress(ProgressReporter(self.name, options.on_progress)),
                                   "nqmip-progress", "reports each new incumbent")
        accepted = None
        if options.warm_start is not None:
            start = model.createSol()
            for var, value in zip(x, start_vector(lm, options.warm_start), strict=True):
                model.setSolVal(start, var, float(value))
            accepted = bool(model.addSol(start))
        with stop_when_cancelled(options.deadline, model.interruptSolve), \
                c_stdout_to_stderr(options.deadline):
            model.optimizeNogil()  # SCIP's log (verbose) on stderr: stdout stays ours
        return self._read(model, lm, x, accepted)

    @staticmethod
    def _read(model: Any, lm: Any, x: list[Any], accepted: bool | None) -> RawSolution:
        status = model.getStatus()
        placement = objective = None
        if model.getNSols() > 0:
            best = model.getBestSol()
            placement = placement_of(lm, np.array([model.getSolVal(best, v) for v in x]))
            objective = float(model.getSolObjVal(best))
        bound = float(model.getDualbound())
        termination = termination_of(status, {
            "optimal": Termination.OPTIMAL,
            "infeasible": Termination.INFEASIBLE,
            "timelimit": Termination.TIME_LIMIT,
            "userinterrupt": Termination.INTERRUPTED,
            "nodelimit": Termination.ITERATION_LIMIT,
            "primallimit": Termination.TARGET,
            # the caller's mip_gap: optimal where the bound meets the incumbent, else
            # termination gap (nqmip.exact.within_gap decides, as for every backend)
            "gaplimit": Termination.OPTIMAL,
        })
        return solution(termination, placement, objective,
                        # SCIP's infinity (1e20) is no bound (its gap was 1e22 %)
                        bound if abs(bound) < model.infinity() else None,
                        int(model.getNNodes()),
                        accepted, message=f"SCIP status {status}")


def _Progress(report: ProgressReporter) -> Any:
    """A SCIP event handler that reports each new best solution and the dual bound."""
    import pyscipopt

    class Progress(pyscipopt.Eventhdlr):
        def eventinit(self) -> None:
            self.model.catchEvent(pyscipopt.SCIP_EVENTTYPE.BESTSOLFOUND, self)

        def eventexit(self) -> None:
            self.model.dropEvent(pyscipopt.SCIP_EVENTTYPE.BESTSOLFOUND, self)

        def eventexec(self, event: Any) -> None:
            model = self.model
            report(model.getSolObjVal(model.getBestSol()), model.getDualbound(), force=True)

    return Progress()
