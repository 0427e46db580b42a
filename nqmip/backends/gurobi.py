"""Gurobi through gurobipy's matrix API (which needs scipy), fed the CSR arrays.

pip's gurobipy carries a size-limited licence (``SIZE_LIMITED_VARIABLES`` variables and
``SIZE_LIMITED_ROWS`` constraints, measured with gurobipy 13), so n <= ``SIZE_LIMITED_MAX_N``
solves anywhere it is installed; larger boards need a full licence. Which licence is
there is told by gurobipy's error ``SIZE_LIMITED_ERRNO`` ("Model too large for
size-limited license"), on a probe (:func:`size_limited`, once a process, asked only for
a board of more free squares than the limit: refused before its model is built) or on the
model itself; either way the board is refused as
:class:`~nqmip.backends.base.LicenceLimitError` (the commands: one line, exit 2;
``nqmip-compare`` skips such boards with a note, :func:`past_licence`). A board whose fixed
queens leave few free squares fits whatever its n.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np

from nqmip.backends.base import (
    Backend,
    BackendError,
    LicenceLimitError,
    RawSolution,
    SolveOptions,
    SolverLog,
    c_stdout_to_stderr,
    pass_on_ctrl_c,
    solution,
    termination_of,
)
from nqmip.backends.highs import placement_of
from nqmip.board import free_board
from nqmip.formulation.matrix import build_linear_model
from nqmip.formulation.strengthen import linear_extras, start_vector
from nqmip.instance import Instance
from nqmip.progress import ProgressReporter
from nqmip.result import Termination

#: The size-limited licence's variables and constraints, and the largest board it holds
#: (n^2 variables; the one place this limit is spelled: auto, the benchmarks and the
#: docs' tables read it here).
SIZE_LIMITED_VARIABLES = 2000
SIZE_LIMITED_ROWS = 2000
SIZE_LIMITED_MAX_N = math.isqrt(SIZE_LIMITED_VARIABLES)  # 44
SIZE_LIMITED_ERRNO = 10010
#: The licence's limit and what to do, as every refusal and note says it.
SIZE_LIMITED = (f"Gurobi's size-limited licence (pip's gurobipy brings it: at most "
                f"{SIZE_LIMITED_VARIABLES:,} variables and {SIZE_LIMITED_ROWS:,} "
                f"constraints, a whole board up to n = {SIZE_LIMITED_MAX_N})")
WHAT_TO_DO = "install a full Gurobi licence, or choose another method (highs, cpsat, auto)"


@cache
def size_limited() -> bool:
    """Whether this machine's Gurobi licence is the size-limited one: gurobipy refuses a
    model of one variable past its limit with ``SIZE_LIMITED_ERRNO``. Starts an
    environment (checks a licence out, some 0.3 s with the import), once a process: asked
    by ``nqmip-compare`` before its sweep and by a solve of a board past the limit, never
    by auto's policy."""
    import gurobipy as gp

    try:
        with gp.Env(empty=True) as env:
            env.setParam("OutputFlag", 0)
            env.start()
            with gp.Model(env=env) as model:
                model.addMVar(SIZE_LIMITED_VARIABLES + 1)
                model.optimize()
    except gp.GurobiError as exc:
        return bool(exc.errno == SIZE_LIMITED_ERRNO)
    return False


def past_licence(n: int) -> bool:
    """Whether a whole n-board (n^2 variables) is past this machine's Gurobi licence."""
    return n > SIZE_LIMITED_MAX_N and size_limited()


def _check_licence(instance: Instance) -> None:
    """Refuse at once a board whose free squares (a variable each: fewer variables no
    model has) are past the size-limited licence, when that is this machine's: building
    the model to hear gurobipy refuse it took 8.5 s and 700 MB at n = 1,000."""
    cells = instance.n ** 2 if not instance.fixed else free_board(instance).num_cells
    if cells > SIZE_LIMITED_VARIABLES and size_limited():
        raise LicenceLimitError(f"gurobi: this board has {cells:,} free squares, a variable "
                                f"each (n = {instance.n}), past {SIZE_LIMITED}: {WHAT_TO_DO}")


class GurobiBackend(Backend):
    name = "gurobi"
    install_hint = 'pip install "nqmip[gurobi]" (gurobipy and scipy)'
    modules = ("gurobipy", "scipy")

    def available_for(self, n: int) -> bool:
        """Installed, and n within pip's size-limited licence (``SIZE_LIMITED_MAX_N``).
        Which licence is there is known only by starting an environment, which checks one
        out, so the size-limited licence is assumed; with a full licence ask for
        ``method="gurobi"`` by name."""
        return n <= SIZE_LIMITED_MAX_N and self.available()

    def solve(self, instance: Instance, options: SolveOptions) -> RawSolution:
        self.require()
        _check_licence(instance)
        import gurobipy as gp
        import scipy.sparse as sp
        from gurobipy import GRB

        lm = build_linear_model(instance, **linear_extras(instance, options.strengthen))
        a = sp.csr_matrix((lm.values, lm.indices, lm.indptr), shape=(lm.num_rows, lm.num_cols))
        equal = lm.row_lower == lm.row_upper
        upper_only = ~equal & np.isfinite(lm.row_upper)
        lower_only = ~equal & ~upper_only
        if np.any(lower_only & ~np.isfinite(lm.row_lower)):
            raise BackendError("a constraint row with no finite bound")
        try:
            with gp.Env(empty=True) as env:
                # The log goes to a callback (MESSAGE), never to stdout: it says whether
                # the MIP start was loaded, and is streamed to stderr with verbose.
                env.setParam("OutputFlag", 1)
                env.setParam("LogToConsole", 0)
                env.start()
                with gp.Model(env=env) as model:
                    return self._solve(model, lm, a, equal, upper_only, lower_only, options, gp,
                                       GRB)
        except gp.GurobiError as exc:
            if exc.errno == SIZE_LIMITED_ERRNO:
                raise LicenceLimitError(
                    f"gurobi: this board's model has {lm.num_cols:,} variables and "
                    f"{lm.num_rows:,} constraints (n = {lm.n}), past {SIZE_LIMITED}: "
                    f"{WHAT_TO_DO}") from None
            raise BackendError(f"Gurobi failed: {exc}") from exc

    @staticmethod
    def _solve(model: Any, lm: Any, a: Any, equal: Any, upper_only: Any, lower_only: Any,
               options: SolveOptions, gp: Any, GRB: Any) -> RawSolution:
        vtype = np.full(lm.num_cols, GRB.BINARY if lm.num_extra_cols == 0 else GRB.INTEGER)
        x = model.addMVar(lm.num_cols, lb=lm.col_lower, ub=lm.col_upper, vtype=vtype, name="x")
        for mask, sense, rhs in (
            (equal, GRB.EQUAL, lm.row_upper),
            (upper_only, GRB.LESS_EQUAL, lm.row_upper),
            (lower_only, GRB.GREATER_EQUAL, lm.row_lower),
        ):
            if mask.any():
                model.addMConstr(a[mask], x, sense, rhs[mask])
        model.setObjective(lm.cost @ x + float(lm.offset), GRB.MAXIMIZE)
        limit = options.time_limit()
        if limit is not None:
            model.Params.TimeLimit = limit
        if options.seed is not None:
            model.Params.Seed = int(options.seed) % 2_000_000_000
        if options.threads is not None:
            model.Params.Threads = int(options.solver_threads() or 1)
        model.Params.MIPGap = float(options.mip_gap)
        if options.target is not None:
            model.Params.BestObjStop = float(options.target)
        if options.work_limit is not None:  # work units, deterministic
            model.Params.WorkLimit = float(options.work_limit)
        accepted = None
        if options.warm_start is not None:
            start = start_vector(lm, options.warm_start)
            x.Start = start
        log = SolverLog(options.verbose)
        report = ProgressReporter("gurobi", options.on_progress)

        def callback(cb_model: Any, where: Any) -> None:
            if options.deadline.cancelled():  # a cancel from another thread
                cb_model.terminate()
            if where == GRB.Callback.MESSAGE:
                log(cb_model.cbGet(GRB.Callback.MSG_STRING))
            elif where == GRB.Callback.MIP and options.on_progress is not None:
                report(cb_model.cbGet(GRB.Callback.MIP_OBJBST),
                       cb_model.cbGet(GRB.Callback.MIP_OBJBND))
            elif where == GRB.Callback.MIPSOL and options.on_progress is not None:
                report(cb_model.cbGet(GRB.Callback.MIPSOL_OBJBST),
                       cb_model.cbGet(GRB.Callback.MIPSOL_OBJBND), force=True)

        # gurobipy catches Ctrl-C itself: optimize() returns with status INTERRUPTED, and
        # the process never hears it; it is passed on (pass_on_ctrl_c)
        with c_stdout_to_stderr(options.deadline):
            model.optimize(callback)
        if model.Status == GRB.INTERRUPTED:
            pass_on_ctrl_c(options.deadline)
        if options.warm_start is not None:
            accepted = log.contains("Loaded user MIP start") or log.contains(
                "User MIP start produced solution")
        status = model.Status
        nodes = int(model.NodeCount)
        placement = objective = None
        if model.SolCount > 0:
            placement = placement_of(lm, np.asarray(x.X))
            objective = float(model.ObjVal)
        termination = termination_of(status, {
            GRB.OPTIMAL: Termination.OPTIMAL,
            GRB.INFEASIBLE: Termination.INFEASIBLE,
            GRB.INF_OR_UNBD: Termination.INFEASIBLE,
            GRB.TIME_LIMIT: Termination.TIME_LIMIT,
            GRB.WORK_LIMIT: Termination.ITERATION_LIMIT,
            GRB.NODE_LIMIT: Termination.ITERATION_LIMIT,
            GRB.ITERATION_LIMIT: Termination.ITERATION_LIMIT,
            GRB.SOLUTION_LIMIT: Termination.ITERATION_LIMIT,
            GRB.INTERRUPTED: Termination.INTERRUPTED,
            GRB.USER_OBJ_LIMIT: Termination.TARGET,  # BestObjStop: the caller's target
        })
        bound = float(model.ObjBound) if np.isfinite(model.ObjBound) else None
        return solution(termination, placement, objective, bound, nodes, accepted,
                        message=f"Gurobi status {_status_name(GRB, status)}")


def _status_name(grb: Any, status: int) -> str:
    """``TIME_LIMIT (9)``: the name of gurobipy's status code, as its documentation gives
    it, and the code (a note said only "Gurobi status 9")."""
    names = {getattr(grb.Status, name): name for name in dir(grb.Status) if name.isupper()}
    return f"{names[status]} ({status})" if status in names else str(status)
