"""toulbar2 through pytoulbar2 (``pip install "nqmip[toulbar2]"``): the instance as a cost
function network, as toulbar2's own weighted n-queens tutorial writes it.

One variable per free row, its value the queen's column; a unary cost per square (toulbar2
minimises integer costs: a weight ``w`` becomes the cost ``top - w``, scaled to integers
when the weights are not); and, per pair of free rows, a hard binary constraint that the
two queens share no column and no diagonal. Fixed queens remove their squares' attacks
from the domains first. The bound toulbar2 proves is translated back with the cost.
"""

from __future__ import annotations

import ctypes
import itertools
import math
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Any

import numpy as np

from nqmip.backends.base import (
    Backend,
    RawSolution,
    SolveOptions,
    c_stdout_to_stderr,
    solution,
)
from nqmip.board import free_board
from nqmip.budget import Deadline
from nqmip.instance import Instance
from nqmip.result import Termination


@cache
def _toulbar2_thread() -> ThreadPoolExecutor:
    """The one thread every toulbar2 solve of this process runs on: toulbar2 keeps its
    state on the thread that first imported pytoulbar2, and a solve on another thread
    fails ("bad solver configuration"), so the import and every solve, started from any
    thread (the call's worker, a test's main thread), happen here."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="nqmip-toulbar2")


def _model(problem: Any, rows: list[int], domains: dict[int, list[int]],
           unary: dict[int, dict[int, int]], deadline: Deadline) -> bool:
    """The variables, their unary costs and the pairs' hard constraints, each distinct
    table built once with numpy (a Python loop per pair took 1.2 s at n = 60, more than a
    short limit); False when ``deadline`` ended the build (0.4-0.8 s at n = 60)."""
    for r in rows:
        problem.AddVariable(f"q{r}", [f"c{c}" for c in domains[r]])
        problem.AddFunction([f"q{r}"], [unary[r][c] for c in domains[r]])
    kinds: dict[tuple[int, ...], int] = {}  # the rows' distinct domains (one without fixed)
    kind = {r: kinds.setdefault(tuple(domains[r]), len(kinds)) for r in rows}
    tables: dict[tuple[int, int, int], list[float]] = {}
    for a, b in itertools.combinations(rows, 2):
        if b == a + 1 and deadline.expired():
            return False
        key = (kind[a], kind[b], b - a)  # the table depends on nothing else
        if key not in tables:
            apart = np.abs(np.subtract.outer(domains[a], domains[b]))
            tables[key] = np.where((apart == 0) | (apart == b - a), problem.Top,
                                   0).ravel().tolist()
        problem.AddFunction([f"q{a}", f"q{b}"], tables[key])
    return True


def _share(cpu: float, wall: float) -> float:
    """The CPU share this thread had over ``wall`` seconds: what a CPU-time limit has to be
    scaled by to end on the wall clock (1 on an idle machine; at least 0.2)."""
    if wall < 0.02:  # too short to tell
        return 1.0
    return min(max(cpu / wall, 0.2), 1.0)


def _dispositions() -> dict[int, bytes] | None:
    """The C-level actions of the stop signals (``struct sigaction``, as bytes); None where
    libc cannot be asked (not Linux or macOS)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:  # pragma: no cover - no libc to ask
        return None
    saved = {}
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        action = ctypes.create_string_buffer(_SIGACTION_BYTES)
        if libc.sigaction(int(signum), None, action) != 0:
            return None
        saved[int(signum)] = action.raw
    return saved


#: More than any libc's ``struct sigaction`` (glibc: 152 bytes on 64-bit Linux).
_SIGACTION_BYTES = 512


def _restore(saved: dict[int, bytes] | None) -> None:
    if saved is None:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for signum, action in saved.items():
        libc.sigaction(signum, ctypes.create_string_buffer(action, _SIGACTION_BYTES), None)


def _search(problem: Any, seconds: float | None) -> tuple[Any, bool]:
    """toulbar2's search within ``seconds`` of CPU (None: no limit); what it found, and
    whether it ran to its end (its answer is proven).

    pybind11 keeps the GIL through the search: no thread of ours runs, nor Python's
    signal handlers; toulbar2's clock is its own timer, whose handler it also made
    SIGINT's, for the rest of the process. A Ctrl-C lands on the main thread, where that
    handler stops nothing: it printed "Time limit expired... Aborting..." and the stop
    was lost (the search ran to its limit, the command exited 0), as was every later
    Ctrl-C of the process. The stop signals keep their actions: a stop is heard when
    the search returns (at its limit; without one, at its end)."""
    saved = _dispositions()
    try:
        if seconds is not None:
            problem.CFN.timer(max(1, math.ceil(seconds)))
            _restore(saved)  # SIGINT is not toulbar2's clock
            signal.setitimer(signal.ITIMER_VIRTUAL, max(seconds, 1e-3))
        found = problem.Solve(showSolutions=0, timeLimit=0)
        # A search that ended before its clock did ran to the end: its answer is proven
        # (the dual bound it reports after a complete search can lag the optimum); the
        # timer, still pending, says so (a stopped search was once taken as complete:
        # its 50 "proven" below a start worth 52)
        complete = seconds is None or signal.getitimer(signal.ITIMER_VIRTUAL)[0] > 0
    finally:
        # the timer is process-wide: left running, it would fire into a later solve
        # (which then stopped at once and said 'optimal' or 'infeasible' untrue) or print
        # on stdout
        problem.CFN.timerStop()
        _restore(saved)
    return found, complete


#: Weights are scaled by this before rounding to toulbar2's integer costs when they are not
#: integers (1e-6 resolution); integer weights are kept as they are.
SCALE = 10**6


class Toulbar2Backend(Backend):
    name = "toulbar2"
    install_hint = 'pip install "nqmip[toulbar2]" (pytoulbar2, which ships toulbar2)'
    accepts_start = False
    honours_threads = False

    modules = ("pytoulbar2",)

    def import_module(self, module: str) -> Any:
        """On toulbar2's own thread, where its state must live (:func:`_toulbar2_thread`)."""
        return _toulbar2_thread().submit(super().import_module, module).result()

    def version(self) -> str:  # the distribution's (the module's __version__ lags it)
        from importlib.metadata import version

        return version("pytoulbar2")

    def solve(self, instance: Instance, options: SolveOptions) -> RawSolution:
        self.require()
        board = free_board(instance)
        rows = [int(r) for r in board.rows]
        cells: dict[int, list[tuple[int, float]]] = {r: [] for r in rows}
        for row, col, w in zip(board.cell_row.tolist(), board.cell_col.tolist(),
                               board.weights.tolist(), strict=True):
            cells[row].append((col, w))
        if any(not cells[r] for r in rows):  # a free row with no free square
            return solution(Termination.INFEASIBLE)
        weights = board.weights
        from nqmip.instance import whole

        integral = whole(weights)
        scale = 1 if integral else SCALE
        top = float(weights.max()) if weights.size else 0.0
        limit = options.time_limit(self.name)

        def run() -> RawSolution:
            import pytoulbar2  # first imported on this thread: its state lives here

            try:
                return self._solve(pytoulbar2, board, rows, cells, top, scale, limit, options)
            except pytoulbar2.pytb2.Contradiction:  # propagation alone proves no completion
                return solution(Termination.INFEASIBLE)

        return _toulbar2_thread().submit(run).result()

    def _solve(self, pytoulbar2: Any, board: Any, rows: list[int],
               cells: dict[int, list[tuple[int, float]]], top: float, scale: int,
               limit: float | None, options: SolveOptions) -> RawSolution:
        unary = {r: {c: round((top - w) * scale) for c, w in cells[r]} for r in rows}
        start_cost = None
        if options.warm_start is not None:  # the start's cost: toulbar2's initial bound
            start_cost = sum(unary[r][options.warm_start[r]] for r in rows)
        problem = pytoulbar2.CFN(ubinit=start_cost, resolution=0, vac=0,
                                 verbose=-1 if not options.verbose else 1,
                                 seed=1 if options.seed is None else int(options.seed) + 1)
        domains = {r: [c for c, _ in cells[r]] for r in rows}
        wall, cpu = time.perf_counter(), time.thread_time()
        built = _model(problem, rows, domains, unary, options.deadline)
        # the model's build ran on this thread alone: its CPU share is the machine's load
        share = _share(time.thread_time() - cpu, time.perf_counter() - wall)
        if not built or (limit is not None and options.deadline.remaining() <= 0):
            return solution(Termination.TIME_LIMIT, message=(
                f"toulbar2: the time limit ended the build of its model "
                f"({time.perf_counter() - wall:.2g} s)"))
        # toulbar2's own option is whole CPU seconds (0.5 s ran 1-1.9 s, 4.5-5.5 s on a
        # loaded machine; pybind11 keeps the GIL: no thread of ours stops it, the watchdog
        # neither): its timer, armed to a whole second for its handler, then set to what is
        # left of the call's wall clock in CPU seconds at the build's CPU share
        seconds = None if limit is None else options.deadline.remaining() * share
        if seconds is not None and seconds >= 2**31 - 1:  # past its int timer: no limit
            seconds = None
        # toulbar2's log (verbose) on stderr: stdout stays ours
        with c_stdout_to_stderr(options.deadline):
            found, complete = _search(problem, seconds)
        if not found and options.warm_start is not None and complete:
            # nothing cheaper than the start, proven: the start is optimal
            start = tuple(int(c) for c in options.warm_start)
            value = len(rows) * top + board.fixed_value - float(start_cost or 0) / scale
            return solution(Termination.OPTIMAL, start, value, value,
                            int(problem.GetNbNodes()), accepted=True,
                            message="toulbar2: nothing beats the start")
        raw = self._read(problem, found, board, domains, rows, top, scale, complete)
        if options.warm_start is not None:
            raw.warm_start_accepted = True  # its cost bounded the search from the start
        return raw

    @staticmethod
    def _read(problem: Any, found: Any, board: Any, domains: dict[int, list[int]],
              rows: list[int], top: float, scale: int, complete: bool) -> RawSolution:
        """toulbar2's answer in weights: cost ``c`` is weight ``rows * top + fixed - c``."""
        to_weight = len(rows) * top + board.fixed_value
        dual = float(problem.GetDDualBound())
        nodes = int(problem.GetNbNodes())
        if not found:  # no solution: proven none, unless the clock or the gap ended it
            return solution(Termination.INFEASIBLE if complete else Termination.TIME_LIMIT,
                            nodes=nodes, message="toulbar2: none found" if complete else
                            "toulbar2: stopped at the time limit before a placement")
        values, cost, _ = found
        placement = [0] * board.n
        for r, c in board.fixed:
            placement[r] = c
        for r, v in zip(rows, values, strict=True):
            placement[r] = domains[r][int(v)]
        objective = to_weight - float(cost) / scale
        proven = complete or dual >= float(cost) - 0.5
        bound = objective if proven else to_weight - dual / scale
        return solution(Termination.OPTIMAL if proven else Termination.TIME_LIMIT,
                        tuple(placement), objective, bound, nodes, message="toulbar2")
