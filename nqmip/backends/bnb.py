"""nqmip's own exact engine for any weights (``method="bnb"``, no extra install): the
branch and bound over rows of :mod:`nqmip.bnb`, behind the same backend protocol as the
MIP solvers, so it gets the same start, deadline, verification and result."""

from __future__ import annotations

from typing import Any

from nqmip.backends.base import (
    Backend,
    RawSolution,
    SolveOptions,
    solution,
)
from nqmip.instance import Instance
from nqmip.progress import ProgressReporter, load_kernels
from nqmip.result import Termination
from nqmip.watchdog import loading


class BnbBackend(Backend):
    name = "bnb"
    install_hint = "part of nqmip (numba)"

    def version(self) -> str:
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("nqmip")
        except PackageNotFoundError:
            return "dev"

    def solve(self, instance: Instance, options: SolveOptions) -> RawSolution:
        with loading():  # the call's watchdog answers at the limit: nothing of its own yet
            from nqmip.bnb.search import branch_and_bound, warm_up

            # numba's cache load (or a first run's compile, said to on_progress), reported
            # apart as for the heuristics
            compile_time = load_kernels(warm_up, "branch and bound", self.name,
                                        options.on_progress)
        progress = ProgressReporter(self.name, options.on_progress)
        cluster: dict[str, Any] = {}
        outcome = branch_and_bound(
            instance, options.deadline, options.warm_start, mip_gap=options.mip_gap,
            report=lambda inc, bound: progress(incumbent=inc, bound=bound),
            incumbent=options.incumbent, threads=options.solver_threads() or 1,
            node_limit=None if options.work_limit is None else int(options.work_limit),
            workers=options.workers, scheduler=options.scheduler, stats=cluster,
            record=options.record)
        accepted = None if options.warm_start is None else True
        if outcome.termination is Termination.INFEASIBLE:
            raw = solution(Termination.INFEASIBLE, nodes=outcome.nodes)
            raw.extra["compile_time"] = compile_time
            return raw
        raw = solution(outcome.termination, outcome.placement, outcome.objective,
                       outcome.bound, outcome.nodes, accepted)
        raw.extra["root_bound"] = outcome.root_bound
        raw.extra["compile_time"] = compile_time
        if cluster:  # on Dask: the workers' threads, the tasks and their seconds
            raw.extra["cluster"] = cluster
        return raw
