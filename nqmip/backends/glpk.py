"""GLPK's ``glpsol`` through Pyomo, on the model of :func:`nqmip.build_model`.

glpsol writes no dual bound to its solution file, so a run stopped by its time limit
reports no bound (``None``); glpsol takes no random seed, so ``seed`` is recorded but has no
effect, and it has no way to take a MIP start (see docs/warm-starts.md).
"""

from __future__ import annotations

import math
import shutil
from functools import cache
from typing import Any

from nqmip.backends.base import (
    Backend,
    RawSolution,
    SolveOptions,
    c_stdout_to_stderr,
    solution,
    termination_of,
)
from nqmip.formulation.strengthen import pyomo_model
from nqmip.instance import Instance
from nqmip.result import Termination


class GlpkBackend(Backend):
    name = "glpk"
    # glpsol has no MIP-start input, no seed and runs on one thread.
    accepts_start = False
    honours_seed = False
    honours_threads = False
    install_hint = (
        "install GLPK's glpsol program: apt-get install glpk-utils (or brew install glpk)"
    )

    def why_unavailable(self) -> str | None:
        """glpsol, a program on PATH (looked up each time: cheap), not a module."""
        return None if shutil.which("glpsol") is not None else \
            f"glpsol is not on PATH: {self.install_hint}"

    @cache  # noqa: B019 - one instance per process, held by the registry
    def version(self) -> str:
        import pyomo.environ as pyo

        version = pyo.SolverFactory("glpk").version()
        return ".".join(str(v) for v in version[:2]) if version else "unknown"

    def solve(self, instance: Instance, options: SolveOptions) -> RawSolution:
        self.require()
        import pyomo.environ as pyo
        from pyomo.opt import TerminationCondition as TC

        model = pyomo_model(instance, options.strengthen)
        opt = pyo.SolverFactory("glpk")
        limit = options.time_limit(self.name)
        if limit is not None:
            opt.options["tmlim"] = max(1, math.ceil(limit))
        if options.mip_gap:
            opt.options["mipgap"] = float(options.mip_gap)
        # glpsol has no MIP-start input: a warm start cannot reach it. The result says so
        # (warm_start_accepted=False), and nqmip.solve keeps the start as the incumbent
        # if glpsol ends with nothing better.
        # glpsol's log (verbose) on stderr: stdout stays ours
        with c_stdout_to_stderr(options.deadline):
            results = opt.solve(model, load_solutions=False, tee=options.verbose)
        tc = results.solver.termination_condition
        accepted = False if options.warm_start is not None else None
        if tc == TC.infeasible:
            return solution(Termination.INFEASIBLE, accepted=accepted)
        placement = objective = None
        if len(results.solution) > 0:
            model.solutions.load_from(results)
            placement = _integral_placement(model, instance.n)
            if placement is not None:
                objective = float(pyo.value(model.value))
        bound = results.problem.upper_bound
        bound = float(bound) if bound is not None and math.isfinite(bound) else None
        termination = termination_of(tc, {TC.optimal: Termination.OPTIMAL})
        if termination is Termination.ERROR and limit is not None:
            termination = Termination.TIME_LIMIT  # glpsol reports its time limit vaguely
        return solution(termination, placement, objective, bound, accepted=accepted,
                        message=f"glpsol: {tc}")


def _integral_placement(model: Any, n: int) -> tuple[int, ...] | None:
    """The placement if glpsol's values are integral (a time-limited run may hold none)."""
    from nqmip.formulation.pyomo import placement_from_pyomo

    if any(1e-6 < (var.value or 0.0) < 1 - 1e-6 for var in model.x.values()):
        return None
    try:
        return placement_from_pyomo(model)
    except ValueError:
        return None
