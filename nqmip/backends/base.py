"""The backend protocol, the normalised options and the registry.

Every exact solver sits behind one small class: ``available()`` is cheap and never
touches a licence, ``solve()`` maps the normalised :class:`SolveOptions` to the solver's
own option names and returns a :class:`RawSolution`, which :func:`nqmip.solve` verifies
before anything leaves the package.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from nqmip.budget import MIN_SOLVER_SECONDS, Deadline
from nqmip.instance import Instance
from nqmip.methods import EXACT_METHODS, METHODS, resolve
from nqmip.progress import ProgressCallback
from nqmip.result import Status, Termination


class BackendError(RuntimeError):
    """A backend failed: bad licence, solver error, or a solver answering something that is
    not a placement (the CLI exits 1 with the message; bad *input* exits 2)."""


class BackendUnavailable(BackendError):
    """The backend's solver is not installed; the message says what to install."""


class LicenceLimitError(BackendError, ValueError):
    """The board's model is past the size limit of the solver's licence (Gurobi's
    size-limited one, which pip's gurobipy brings): bad input for this method, so also a
    ``ValueError`` (the command refuses it in one line, exit 2); the message says the limit
    and what to do. ``nqmip-compare`` skips the method on such boards with a note."""


@dataclass(frozen=True)
class SolveOptions:
    """Option names shared by every backend; each backend maps them to its own."""

    deadline: Deadline = field(default_factory=Deadline)  # the call's one clock
    seed: int | None = None
    threads: int | None = None
    mip_gap: float = 0.0
    verbose: bool = False
    warm_start: tuple[int, ...] | None = None
    # Add the valid rows of nqmip.formulation.strengthen (colour bound, ...) to the model.
    strengthen: bool = True
    on_progress: ProgressCallback | None = None
    # A better placement found elsewhere while the solver runs, as (objective, placement)
    # (auto's other part); read between chunks by the backends that can take it (bnb).
    incumbent: Callable[[], tuple[float, tuple[int, ...]] | None] | None = None
    # Stop once the incumbent is worth this much (the maximisation's terms): the solver's
    # own objective limit where it has one (Gurobi's BestObjStop, SCIP's limits/primal);
    # every backend also stops when the call's trajectory cancels the deadline.
    target: float | None = None
    # Stop after this much work in the backend's own unit (nodes, work units, CP-SAT's
    # deterministic seconds: the method table's notes), whatever the clock says.
    work_limit: float | None = None
    # Run on a Dask cluster: a local one of this many one-thread workers, or the workers of
    # this scheduler (an address or a distributed.Client): nqmip.cluster.
    workers: int | None = None
    scheduler: Any = None
    record: Any = None  # the file that keeps (and continues) the run on a cluster

    def solver_threads(self) -> int | None:
        """``threads`` as the solver is given them: at most the cores this process may run
        on (:func:`nqmip.capacity.cores`), but as asked under a ``work_limit`` (whose answer
        is the same on any machine). More threads than cores only contend: ``threads=256``
        on two cores, n = 36, 5 s, HiGHS, Gurobi and HiGHS through Pyomo missed the limit
        and answered the bare construction (158) where two threads reached 267-281."""
        if self.threads is None or self.work_limit is not None:
            return self.threads
        from nqmip.capacity import cores

        return min(self.threads, cores())

    def time_limit(self, method: str | None = None) -> float | None:
        """What is left of the deadline as the solver's time-limit option (None: no limit),
        at most what ``method``'s solver takes (the method table's ``most``: glpsol counts
        milliseconds in 32 bits); the call's deadline still ends the run."""
        limit = self.deadline.seconds(floor=MIN_SOLVER_SECONDS)
        if limit is None or method is None:
            return limit
        from nqmip.methods import METHODS

        most = METHODS[method].highest("time_limit")
        return limit if most is None else min(limit, most)



class SolverLog:
    """Collects a solver's log lines (to read facts from them, such as whether a MIP start
    was taken) and, with ``verbose``, streams them to stderr as they come."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        self.lines: list[str] = []

    def __call__(self, message: str) -> None:
        self.lines.append(message)
        if self.verbose:
            sys.stderr.write(message if message.endswith("\n") else message + "\n")
            sys.stderr.flush()

    def contains(self, text: str) -> bool:
        return any(text in line for line in self.lines)


class _Redirect:
    """The one redirect of descriptor 1 in force (:func:`c_stdout_to_stderr`): how many
    solves are inside it, the descriptor and ``sys.stdout`` to give back, and a generation
    that :func:`release_stdout` moves on (a solve that leaves a released redirect leaves
    it alone)."""

    lock = threading.Lock()
    depth = 0
    saved: int | None = None
    stdout: Any = None
    generation = 0


def _redirect_enter() -> int | None:
    """Count one more solve inside the redirect, starting it if it is the first; its
    generation, or None when there is no descriptor 1 to redirect."""
    with _Redirect.lock:
        if _Redirect.depth == 0:
            try:
                sys.stdout.flush()
                saved = os.dup(1)
            except (AttributeError, OSError, ValueError):  # no descriptor 1 to redirect
                return None
            os.dup2(2, 1)
            _Redirect.saved, _Redirect.stdout = saved, sys.stdout
            sys.stdout = sys.stderr  # and what Python code writes (Pyomo's tee)
        _Redirect.depth += 1
        return _Redirect.generation


def _redirect_restore() -> None:
    """Give descriptor 1 and ``sys.stdout`` back (the lock held)."""
    saved, _Redirect.saved = _Redirect.saved, None
    sys.stdout = _Redirect.stdout
    _Redirect.depth, _Redirect.stdout = 0, None
    _Redirect.generation += 1
    if saved is None:
        return
    with suppress(AttributeError, OSError, ValueError):
        sys.stdout.flush()  # what Python buffered meanwhile goes where the C writes went
    os.dup2(saved, 1)
    os.close(saved)


@contextmanager
def c_stdout_to_stderr(deadline: Deadline | None = None) -> Iterator[None]:
    """Send what C code writes to file descriptor 1 to stderr for the duration (a solver's
    own messages, such as Gurobi's "Interrupt request received" on Ctrl-C), so stdout keeps
    only what nqmip prints (``--json`` promises one JSON object and nothing else).

    Descriptor 1 is the process's: a solve the watchdog has given up on (its ``deadline``
    ended while it built its model) must not move it after its call has returned (the
    caller's own capture of it, pytest's included, would break: "Illegal seek"), so past
    the deadline nothing is redirected; one abandoned while inside gives it back at once
    (:func:`release_stdout`). Solves inside it side by side share one redirect, given back
    when the last leaves, whatever the order they leave in."""
    if deadline is not None and deadline.expired():
        yield
        return
    generation = _redirect_enter()
    try:
        yield
    finally:
        if generation is not None:
            with _Redirect.lock:
                if generation == _Redirect.generation:
                    _Redirect.depth -= 1
                    if _Redirect.depth == 0:
                        _redirect_restore()


def release_stdout() -> None:
    """Give descriptor 1 and ``sys.stdout`` back now, whatever solve is still inside
    :func:`c_stdout_to_stderr`: the call that abandoned it answers on its stdout (before,
    the command's ``--json`` went to stderr when Ctrl-C came while SCIP ran)."""
    with _Redirect.lock:
        if _Redirect.depth:
            _redirect_restore()


@dataclass
class RawSolution:
    """What a backend found, before verification."""

    status: Status
    termination: Termination
    placement: tuple[int, ...] | None = None
    objective: float | None = None
    bound: float | None = None
    nodes: int | None = None
    warm_start_accepted: bool | None = None
    message: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def solution(
    termination: Termination,
    placement: tuple[int, ...] | None = None,
    objective: float | None = None,
    bound: float | None = None,
    nodes: int | None = None,
    accepted: bool | None = None,
    message: str = "",
) -> RawSolution:
    """The one status mapping of every backend: from why the solver stopped (already
    translated by :func:`termination_of`) and what it holds, the :class:`RawSolution`."""
    if termination is Termination.OPTIMAL and placement is not None:
        return RawSolution(Status.OPTIMAL, Termination.OPTIMAL, placement, objective,
                           bound if bound is not None else objective, nodes, accepted)
    if termination is Termination.INFEASIBLE:
        return RawSolution(Status.INFEASIBLE, Termination.INFEASIBLE, nodes=nodes,
                           warm_start_accepted=accepted)
    if termination is Termination.OPTIMAL:  # "optimal" with nothing to show for it
        termination = Termination.ERROR
    return RawSolution(Status.FEASIBLE if placement is not None else Status.UNKNOWN,
                       termination, placement, objective, bound, nodes, accepted,
                       message=message)


def termination_of(native: Any, table: Mapping[Any, Termination]) -> Termination:
    """A solver's own status translated by its backend's ``table`` (ERROR if not listed)."""
    return table.get(native, Termination.ERROR)


class Backend(ABC):
    """One exact solver. What it does with the shared options is declared once, in the
    method table (:mod:`nqmip.methods`): an option it does not honour never reaches it. A
    start reaches every backend; one whose solver cannot take it still returns it as the
    incumbent when the solver ends with nothing better (:mod:`nqmip.exact`).

    The shared preamble: ``modules`` are the Python modules the solver needs;
    :meth:`available` imports them once and remembers why one failed (not installed, or
    installed but failing to import: a broken gurobipy makes ``gurobi`` unavailable, it
    does not break ``auto``), :meth:`why_unavailable` says it in one line, and
    :meth:`version` reads the first module's version. A backend that needs something
    else (a program) overrides :meth:`missing`."""

    name: str = ""
    install_hint: str = ""
    #: The Python modules the solver needs, imported by :meth:`available`.
    modules: tuple[str, ...] = ()
    #: Whether the package's own start (the explicit construction, climbed) is given to
    #: the solver as its warm start; either way it is the answer if the solver finds none
    #: better (nqmip.exact).
    hints_own_start: bool = True
    _checked: bool = False
    _why: str | None = None

    def available(self) -> bool:
        """Whether the solver can run here: its modules are installed and import. Cheap
        after the first call (remembered), and never touches a licence."""
        return self.why_unavailable() is None

    def why_unavailable(self) -> str | None:
        """Why the backend cannot run here, in one line (None: it can)."""
        if not self._checked:
            self._why = self.missing()
            self._checked = True
        return self._why

    def missing(self) -> str | None:
        """What is missing: the first module of ``modules`` that is not installed or fails
        to import (its error's first line), with the install hint; None if none."""
        for module in self.modules:
            if not module_available(module):
                return f"{module} is not installed: {self.install_hint}"
            try:
                self.import_module(module)
            except Exception as exc:  # any import error: a missing library, an ABI clash
                text = str(exc).strip().splitlines()
                why = f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
                return (f"{module} is installed but fails to import ({why}); reinstall "
                        f"it ({self.install_hint}) or choose another method")
        return None

    def import_module(self, module: str) -> Any:
        """Import one of ``modules`` (toulbar2 does it on its own thread)."""
        return importlib.import_module(module)

    def available_for(self, n: int) -> bool:
        """Whether this backend can be counted on for an n x n board: installed, and n
        within any size limit of its licence. As cheap as :meth:`available`, and like it
        never touches a licence (auto's policy asks it of every backend it prefers)."""
        return self.available()

    def version(self) -> str:
        """The solver's version: the first module's ``__version__``, else its
        distribution's."""
        module = self.import_module(self.modules[0])
        found = getattr(module, "__version__", None)
        if found is not None:
            return str(found)
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version(self.modules[0])
        except PackageNotFoundError:
            return "unknown"

    @abstractmethod
    def solve(self, instance: Instance, options: SolveOptions) -> RawSolution: ...

    def require(self) -> None:
        why = self.why_unavailable()
        if why is not None:
            raise BackendUnavailable(f"the {self.name!r} backend is not available: {why}")

    def solver_label(self) -> str:
        return f"{self.name} {self.version()}"


def module_available(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


#: The exact methods, in the order the commands list them (from the method table).
__all__ = ["EXACT_METHODS", "Backend", "BackendError", "BackendUnavailable",
           "LicenceLimitError", "RawSolution", "SolveOptions", "get_backend"]


@cache
def get_backend(name: str) -> Backend:
    spec = METHODS.get(name)
    if spec is None or spec.kind != "exact":
        raise ValueError(
            f"unknown exact backend {name!r}: choose from {', '.join(EXACT_METHODS)}"
        ) from None
    backend: Backend = resolve(spec.entry)()
    return backend


def pass_on_ctrl_c(deadline: Deadline) -> None:
    """A solver that catches Ctrl-C itself (gurobipy: its own handler of SIGINT while it
    optimizes) stopped for one that nobody here cancelled: the signal is delivered again,
    now that the process's own handler is back, so that the call hears it as any Ctrl-C.
    Without this only the solver stopped: auto (random n = 40, Gurobi beside bnb) went on
    to its proof 19 s later and the command exited 0; run alone, the command exited 130
    for its result's "interrupted", never for the signal."""
    if deadline.cancelled():  # the stop was ours: a cancel, or the signal already heard
        return
    import signal

    signal.raise_signal(signal.SIGINT)


def fewer_threads(threads: int | None, work_limit: Any = None) -> int | None:
    """The threads a solver runs when fewer than the ``threads`` asked
    (:meth:`SolveOptions.solver_threads`: the cores), else None: ``result.extra['threads']``."""
    if threads is None:
        return None
    used = SolveOptions(deadline=Deadline(None), threads=threads,
                        work_limit=work_limit).solver_threads()
    return used if used != threads else None
