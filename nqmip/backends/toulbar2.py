"""toulbar2 through pytoulbar2 (``pip install "nqmip[toulbar2]"``): the instance as a cost
function network, as toulbar2's own weighted n-queens tutorial writes it.

One variable per free row, its value the queen's column; a unary cost per square (toulbar2
minimises integer costs: a weight ``w`` becomes the cost ``top - w``, scaled to integers
when the weights are not); and, per pair of free rows, a hard binary constraint that the
two queens share no column and no diagonal. Fixed queens remove their squares' attacks
from the domains first. The bound toulbar2 proves is translated back with the cost.

The search runs in a process of its own (:mod:`nqmip.backends.toulbar2_child`): pybind11
keeps the interpreter lock through it, so in this process no thread, signal handler,
watchdog or cancel ran until it ended (with no time limit a Ctrl-C, a SIGTERM or a
cancel was never answered; its CPU timer overran a 5 s limit to 9.4 s on a loaded
machine). This process waits for its answer while it hears the call's deadline (the
wall clock, a cancel, the stop signals through the watchdog); then it stops the search
(toulbar2's timer signal: its best so far comes back) and kills it after ``GRACE``.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import subprocess
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from nqmip import parent_death
from nqmip.backends.base import (
    Backend,
    RawSolution,
    SolveOptions,
    solution,
)
from nqmip.board import free_board
from nqmip.budget import Deadline
from nqmip.instance import Instance
from nqmip.result import Termination

#: The search's own script (run by path: it imports neither nqmip nor numpy).
CHILD = Path(__file__).with_name("toulbar2_child.py")
#: Seconds a stopped search has to send its best before it is killed.
GRACE = 0.3
#: Seconds between two looks at the deadline while the search runs.
POLL = 0.02


def _model(rows: list[int], cells: dict[int, list[tuple[int, float]]], top: float,
           scale: int, start: tuple[int, ...] | None, options: SolveOptions
           ) -> dict[str, Any]:
    """The model as the search's process builds it: rows, domains, unary costs (a weight
    ``w`` is the cost ``round((top - w) * scale)``), the start's cost as the initial
    bound, toulbar2's options."""
    unary = {r: [round((top - w) * scale) for _, w in cells[r]] for r in rows}
    domains = {r: [c for c, _ in cells[r]] for r in rows}
    start_cost = None
    if start is not None:
        start_cost = sum(unary[r][domains[r].index(start[r])] for r in rows)
    return {"rows": rows, "domains": domains, "unary": unary, "start_cost": start_cost,
            "verbose": 1 if options.verbose else -1,
            "seed": 1 if options.seed is None else int(options.seed) + 1}


class _Search:
    """The search's process: started, sent its model, waited for while the deadline runs,
    stopped and ended whatever happens."""

    def __init__(self, spec: dict[str, Any], verbose: bool) -> None:
        spec_read, spec_write = os.pipe()
        result_read, result_write = os.pipe()
        # toulbar2's log (verbose) on stderr: stdout stays ours
        self.proc = parent_death.start(  # it ends with this process
            [sys.executable, str(CHILD), str(spec_read), str(result_write)],
            stdin=subprocess.DEVNULL, stdout=2 if verbose else subprocess.DEVNULL,
            pass_fds=(spec_read, result_write), close_fds=True)
        os.close(spec_read)
        os.close(result_write)
        self.results = Connection(result_read)
        self.stopped = False
        self.started_search: float | None = None
        # (OSError: it died at its start; answered by search_answer)
        with Connection(spec_write) as specs, contextlib.suppress(OSError):
            specs.send(spec)

    def search_answer(self, deadline: Deadline) -> tuple[str, Any]:
        """Its answer; once ``deadline`` ends, its search is stopped (its best so far, if
        it comes within ``GRACE``; else ("killed", None))."""
        stop_at: float | None = None
        while True:
            if self.results.poll(POLL):
                try:
                    kind, value = self.results.recv()
                except EOFError:  # it ended without an answer (killed)
                    return "killed", None
                if kind != "ready":
                    return kind, value
                self.started_search = time.perf_counter()
                continue
            if self.proc.poll() is not None and not self.results.poll(0):
                return "killed", None
            if stop_at is None and deadline.expired():
                self.stopped, stop_at = True, time.perf_counter()
                self._signal(signal.SIGVTALRM)  # toulbar2's timer: it answers its best
            if stop_at is not None and time.perf_counter() - stop_at > GRACE:
                return "killed", None

    def _signal(self, signum: int) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):  # it ended meanwhile
                self.proc.send_signal(signum)

    def end(self) -> None:
        self._signal(signal.SIGKILL)
        self.proc.wait()
        self.results.close()


def run_search(spec: dict[str, Any], deadline: Deadline, verbose: bool) -> tuple[
        str, Any, bool]:
    """The search's answer (kind, value) and whether the deadline stopped it."""
    search = _Search(spec, verbose)
    try:
        kind, value = search.search_answer(deadline)
    finally:
        search.end()
    return kind, value, search.stopped


#: Weights are scaled by this before rounding to toulbar2's integer costs when they are not
#: integers (1e-6 resolution); integer weights are kept as they are.
SCALE = 10**6


class Toulbar2Backend(Backend):
    name = "toulbar2"
    install_hint = 'pip install "nqmip[toulbar2]" (pytoulbar2, which ships toulbar2)'
    accepts_start = False
    honours_threads = False

    modules = ("pytoulbar2",)

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
        from nqmip.instance import whole

        scale = 1 if whole(board.weights) else SCALE
        top = float(board.weights.max()) if board.weights.size else 0.0
        start = options.warm_start
        spec = _model(rows, cells, top, scale, start, options)
        limit = options.time_limit(self.name)
        # toulbar2's own CPU timer, as a safety: this process stops it on the wall clock
        spec["cpu_seconds"] = None if limit is None else limit
        if options.target is not None and scale == 1:  # whole costs: the target's, exactly
            to_weight = len(rows) * top + board.fixed_value
            spec["best_cost"] = max(math.ceil(to_weight - options.target - 1e-9), 0)
        kind, value, stopped = run_search(spec, options.deadline, options.verbose)
        if kind == "contradiction":  # propagation alone proves no completion
            return solution(Termination.INFEASIBLE)
        if kind == "error" or (kind == "killed" and not stopped):  # it failed by itself
            return solution(Termination.ERROR, message=(
                f"toulbar2's process failed: {value}" if kind == "error" else
                "toulbar2's process ended without an answer (killed, or out of memory)"))
        if kind != "done":  # stopped before it sent anything (its model's build)
            return solution(Termination.TIME_LIMIT, message=(
                "toulbar2: stopped before its search answered"))
        complete = value["complete"] and not stopped
        to_weight = len(rows) * top + board.fixed_value
        if value["found"] is None and start is not None and complete:
            # nothing cheaper than the start, proven: the start is optimal
            placement = tuple(int(c) for c in start)
            objective = to_weight - float(spec["start_cost"] or 0) / scale
            return solution(Termination.OPTIMAL, placement, objective, objective,
                            value["nodes"], accepted=True,
                            message="toulbar2: nothing beats the start")
        raw = _read(value, board, spec["domains"], rows, to_weight, scale, complete)
        if start is not None:
            raw.warm_start_accepted = True  # its cost bounded the search from the start
        return raw


def _read(value: dict[str, Any], board: Any, domains: dict[int, list[int]],
          rows: list[int], to_weight: float, scale: int, complete: bool) -> RawSolution:
    """toulbar2's answer in weights: cost ``c`` is weight ``rows * top + fixed - c``."""
    dual, nodes = value["dual"], value["nodes"]
    if value["found"] is None:  # no solution: proven none, unless the clock ended it
        return solution(Termination.INFEASIBLE if complete else Termination.TIME_LIMIT,
                        nodes=nodes, message="toulbar2: none found" if complete else
                        "toulbar2: stopped at the time limit before a placement")
    values, cost = value["found"]
    placement = [0] * board.n
    for r, c in board.fixed:
        placement[r] = c
    for r, v in zip(rows, values, strict=True):
        placement[r] = domains[r][int(v)]
    objective = to_weight - cost / scale
    # the dual bound it reports after a complete search can lag the optimum
    proven = complete or dual >= cost - 0.5
    bound = objective if proven else to_weight - dual / scale
    return solution(Termination.OPTIMAL if proven else Termination.TIME_LIMIT,
                    tuple(placement), objective, bound, nodes, message="toulbar2")
