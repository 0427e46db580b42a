"""GLPK's ``glpsol`` through Pyomo, on the model of :func:`nqmip.build_model`.

glpsol writes no dual bound to its solution file, so a run stopped by its time limit
reports no bound (``None``); glpsol takes no random seed, so ``seed`` is recorded but has no
effect, and it has no way to take a MIP start (see docs/warm-starts.md).

The time limit: glpsol's ``--tmlim`` counts whole seconds, so it is given the limit rounded
down, less ``GLPSOL_MARGIN`` (Pyomo reads its solution after it stops), and nothing below
one second; the call's deadline itself ends the glpsol process (Pyomo's own timeout waits
a second or more past its limit and then raises): a process ended there has written no
solution, so the answer is the call's start, if any (``nqmip.solve`` keeps it), with
termination ``time_limit``. At a 0.3 s limit glpsol at chess n = 30 and 60 ran its 1 s of
``--tmlim`` and the watchdog answered at 0.83 s with the explicit construction ("did not
stop in time"); a 1.5 s limit, ``--tmlim 2``, answered at 2.0 s.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import time
from collections.abc import Callable
from functools import cache
from typing import Any

from nqmip import parent_death
from nqmip.backends.base import (
    Backend,
    BackendError,
    RawSolution,
    SolveOptions,
    c_stdout_to_stderr,
    solution,
    termination_of,
)
from nqmip.budget import Deadline
from nqmip.chunks import why_stopped
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
        seconds = glpsol_seconds(limit)
        if seconds is not None:
            opt.options["tmlim"] = seconds
        if options.mip_gap:
            opt.options["mipgap"] = float(options.mip_gap)
        # glpsol has no MIP-start input: a warm start cannot reach it. The result says so
        # (warm_start_accepted=False), and nqmip.solve keeps the start as the incumbent
        # if glpsol ends with nothing better.
        accepted = False if options.warm_start is not None else None
        # the process ends at the call's deadline (or its stop), whatever --tmlim says
        opt._execute_command = _until(options.deadline, options.verbose)
        try:
            _ask_version(opt)
        except _Ended as ended:
            return solution(why_stopped(options.deadline), accepted=accepted,
                            message=str(ended))
        # glpsol's log (verbose) on stderr: stdout stays ours
        try:
            started = time.perf_counter()
            with c_stdout_to_stderr(options.deadline):
                results = opt.solve(model, load_solutions=False, tee=options.verbose)
            elapsed = time.perf_counter() - started
        except _Ended as ended:
            from pyomo.common.tempfiles import TempfileManager

            TempfileManager.pop(remove=True)  # what Pyomo's postsolve does, skipped
            return solution(why_stopped(options.deadline), accepted=accepted,
                            message=str(ended) or "glpsol ended at the deadline: it "
                            "writes its placement only when it stops by itself")
        tc = results.solver.termination_condition
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
        if (options.mip_gap and tc == TC.feasible and placement is not None
                and (seconds is None or elapsed < 0.9 * seconds)):
            # glpsol stopped by itself at the caller's --mipgap (not at its --tmlim), with
            # no bound to say more: the gap's stop (nqmip.exact.within_gap's, for the rest)
            termination = Termination.GAP
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


#: Seconds left to Pyomo after glpsol's own time limit: writing its solution and reading it
#: back (0.05-0.1 s at n = 8 to 60 on an idle machine; twice that loaded).
GLPSOL_MARGIN = 0.3
#: How often the glpsol process is checked against the deadline (seconds).
POLL_SECONDS = 0.01


def glpsol_seconds(limit: float | None) -> int | None:
    """glpsol's ``--tmlim`` for a time limit of ``limit`` seconds: whole seconds, rounded
    down after ``GLPSOL_MARGIN``; None (no option) without a limit or below one second,
    where the deadline alone ends the process."""
    if limit is None:
        return None
    seconds = math.floor(limit - GLPSOL_MARGIN)
    return seconds if seconds >= 1 else None


class _Ended(Exception):
    """The glpsol process was ended at the deadline (it wrote no solution)."""


def _ask_version(opt: Any) -> None:
    """Ask ``glpsol --version`` for Pyomo, which asks it before the first solve of a
    process, in a process of its own: a stop sent to the whole process group (Ctrl-C at a
    terminal, ``timeout``) that ended that process left Pyomo no version, and its check
    raised "'NoneType' object is not iterable", which the command printed as bad input
    (exit 2). A version process ended by a signal is that stop (:class:`_Ended`); one that
    says nothing Pyomo reads, a :class:`BackendError`."""
    from pyomo.opt.base.solvers import _extract_version

    executable = opt.executable()
    if executable in opt._known_versions:
        return
    process = parent_death.start_program(
        [str(executable), "--version"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT)
    said, _ = process.communicate()
    if process.returncode < 0:
        raise _Ended(f"glpsol was ended by signal {-process.returncode} before it started: "
                     "it writes its placement only when it stops by itself")
    version = _extract_version(said.decode(errors="replace"))
    if not version:
        raise BackendError(f"glpsol --version said {said[:80]!r}, no version")
    opt._known_versions[executable] = version


def _until(deadline: Deadline, tee: bool) -> Callable[[Any], list[Any]]:
    """Pyomo's ``_execute_command`` for glpsol, its process ended when ``deadline`` expires
    or is cancelled (:class:`_Ended`); its output on our stdout with ``tee`` (redirected to
    stderr by the caller), else nowhere (glpsol writes its log file too)."""

    def run_glpsol(command: Any) -> list[Any]:
        process = parent_death.start_program(  # it ends with this process
            list(command.cmd), env=command.env, cwd=command.get("cwd"),
            stdin=subprocess.DEVNULL, stdout=None if tee else subprocess.DEVNULL,
            stderr=subprocess.STDOUT)
        while True:
            try:
                status = process.wait(POLL_SECONDS)
            except subprocess.TimeoutExpired:
                if deadline.expired():
                    process.kill()
                    process.wait()
                    raise _Ended from None
                continue
            if status < 0:  # ended by a signal: a stop sent to the whole process group
                # (timeout -s TERM); Pyomo's ApplicationError, a traceback, exit 1 before
                raise _Ended(f"glpsol was ended by signal {-status}: it writes its "
                             "placement only when it stops by itself")
            return [status, ""]

    return run_glpsol
