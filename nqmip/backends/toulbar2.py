"""toulbar2 through pytoulbar2 (``pip install "nqmip[toulbar2]"``): the instance as a cost
function network, as toulbar2's own weighted n-queens tutorial writes it.

One variable per free row, its value the queen's column; a unary cost per square (toulbar2
minimises integer costs: a weight ``w`` becomes the cost ``top - w``, scaled to integers
when the weights are not); and, per pair of free rows, a hard binary constraint that the
two queens share no column and no diagonal. Fixed queens remove their squares' attacks
from the domains first. The bound toulbar2 proves is translated back with the cost.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import numpy as np

from nqmip.backends.base import (
    Backend,
    RawSolution,
    SolveOptions,
    module_available,
    solution,
)
from nqmip.instance import Instance, free_board
from nqmip.result import Termination

#: Weights are scaled by this before rounding to toulbar2's integer costs when they are not
#: integers (1e-6 resolution); integer weights are kept as they are.
SCALE = 10**6


class Toulbar2Backend(Backend):
    name = "toulbar2"
    install_hint = 'pip install "nqmip[toulbar2]" (pytoulbar2, which ships toulbar2)'
    accepts_start = False
    honours_threads = False

    def available(self) -> bool:
        return module_available("pytoulbar2")

    def version(self) -> str:
        from importlib.metadata import version

        return version("pytoulbar2")

    def solve(self, instance: Instance, options: SolveOptions) -> RawSolution:
        self.require()
        import pytoulbar2

        board = free_board(instance)
        rows = [int(r) for r in board.rows]
        cells: dict[int, list[tuple[int, float]]] = {r: [] for r in rows}
        for row, col, w in zip(board.cell_row.tolist(), board.cell_col.tolist(),
                               board.weights.tolist(), strict=True):
            cells[row].append((col, w))
        if any(not cells[r] for r in rows):  # a free row with no free square
            return solution(Termination.INFEASIBLE)
        weights = board.weights
        integral = bool(np.all(np.abs(weights - np.round(weights)) < 1e-9))
        scale = 1 if integral else SCALE
        top = float(weights.max()) if weights.size else 0.0
        limit = options.time_limit()
        try:
            return self._solve(pytoulbar2, board, rows, cells, top, scale, limit, options)
        except pytoulbar2.pytb2.Contradiction:  # propagation alone proves no completion
            return solution(Termination.INFEASIBLE)

    def _solve(self, pytoulbar2: Any, board: Any, rows: list[int],
               cells: dict[int, list[tuple[int, float]]], top: float, scale: int,
               limit: float | None, options: SolveOptions) -> RawSolution:
        problem = pytoulbar2.CFN(ubinit=None, resolution=0, vac=0,
                                 verbose=-1 if not options.verbose else 1,
                                 seed=1 if options.seed is None else int(options.seed) + 1)
        domains = {r: [c for c, _ in cells[r]] for r in rows}
        for r in rows:
            problem.AddVariable(f"q{r}", [f"c{c}" for c in domains[r]])
            problem.AddFunction([f"q{r}"], [round((top - w) * scale) for _, w in cells[r]])
        for a, b in itertools.combinations(rows, 2):
            table = [0 if ca != cb and abs(ca - cb) != b - a else problem.Top
                     for ca in domains[a] for cb in domains[b]]
            problem.AddFunction([f"q{a}", f"q{b}"], table)
        # toulbar2's limit is whole CPU seconds: at least one
        seconds = 0 if limit is None else max(1, round(limit))
        begin = time.perf_counter()
        found = problem.Solve(showSolutions=0, timeLimit=seconds)
        # A search that ended before its clock did ran to the end: its answer is proven
        # (the dual bound it reports after a complete search can lag the optimum). The
        # wall clock, not this process's CPU time: on a loaded machine toulbar2's limit
        # passes with less CPU used than that (a stopped search was once taken as complete:
        # its 50 "proven" below a start worth 52).
        complete = seconds == 0 or time.perf_counter() - begin < 0.95 * seconds
        return self._read(problem, found, board, domains, rows, top, scale, complete)

    @staticmethod
    def _read(problem: Any, found: Any, board: Any, domains: dict[int, list[int]],
              rows: list[int], top: float, scale: int, complete: bool) -> RawSolution:
        """toulbar2's answer in weights: cost ``c`` is weight ``rows * top + fixed - c``."""
        to_weight = len(rows) * top + board.fixed_value
        dual = float(problem.GetDDualBound())
        nodes = int(problem.GetNbNodes())
        if not found:  # no solution: proven none, unless the clock ran out first
            return solution(Termination.INFEASIBLE if complete else Termination.TIME_LIMIT,
                            nodes=nodes)
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
