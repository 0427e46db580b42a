"""The order of a sweep: on each board the exact methods and auto run first, and the best
they found becomes the target of the board's heuristics (``--target auto``).

A :class:`Sweep` hands out cells in grid order (:func:`nqmip.compare.grid.build_grid`) as
they become ready: a heuristic's cell with an ``auto`` target waits until every cell of
its board that runs first has ended (in this sweep, or in the records it resumes), then
gets the proven optimum, else the best objective those runs found (none: it runs
without a target). With one job the grid order alone guarantees it; with several, or on
Dask, the next cells that are ready run meanwhile.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from nqmip.compare.grid import TARGET_AUTO, Cell, runs_first
from nqmip.compare.measures import board_of, reference


class Sweep:
    """The cells left to run, the rows of each board so far, and the targets they give."""

    def __init__(self, todo: Sequence[Cell], previous: Sequence[dict[str, Any]] = ()) -> None:
        self.pending: list[Cell] = list(todo)
        self.running: dict[int, tuple[Cell, float]] = {}  # id -> (cell, start)
        self.total = len(self.pending)
        self.done = 0
        self._first_left: Counter[tuple[Any, ...]] = Counter(
            c.board() for c in self.pending if runs_first(c.method))
        self._first_rows: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        for row in previous:
            if runs_first(str(row.get("method"))):
                self._first_rows.setdefault(board_of(row), []).append(row)
        self._lock = threading.Lock()
        self._next_id = 0

    def target_for(self, cell: Cell) -> float | None:
        """The target a cell is given: its ``--target`` value, or with ``auto`` the best
        its board's first runs found (None: none found, or the cell takes none)."""
        if cell.target_mode is None:
            return None
        if cell.target_mode != TARGET_AUTO:
            return float(cell.target_mode)
        rows = self._first_rows.get(cell.board())
        return reference(rows).value if rows else None

    def _ready(self, cell: Cell) -> bool:
        return cell.target_mode != TARGET_AUTO or self._first_left[cell.board()] == 0

    def take(self, now: float) -> tuple[int, Cell] | None:
        """The next ready cell (with its target), marked running; None when none is
        ready (all taken, or the heuristics left wait for running exact cells)."""
        with self._lock:
            for index, cell in enumerate(self.pending):
                if self._ready(cell):
                    del self.pending[index]
                    cell = replace(cell, target=self.target_for(cell))
                    self._next_id += 1
                    self.running[self._next_id] = (cell, now)
                    return self._next_id, cell
            return None

    def finish(self, ticket: int, row: dict[str, Any]) -> Cell:
        """Record a finished cell's row; the cell."""
        with self._lock:
            cell, _ = self.running.pop(ticket)
            self.done += 1
            if runs_first(cell.method):
                board = cell.board()
                self._first_left[board] -= 1
                self._first_rows.setdefault(board, []).append(row)
            return cell

    @property
    def finished(self) -> bool:
        return not self.pending and not self.running
