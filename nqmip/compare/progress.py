"""The progress of a sweep on stderr: cells done of the total, the cells running and an
estimate of the time left; a failed cell's reason in one line as it comes.

On a terminal it is a rich progress bar (with the running cell and the time left) above
which each failed cell is printed; on a pipe or a file, one plain line per finished cell
(no control characters). The time left is each cell's expected duration — the median
process time of the finished cells of the same method and n, else of the same method at
the largest n done, else of any method there, else its time limit — summed over the
cells left and divided among the jobs.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from typing import Any

from nqmip.compare.grid import Cell
from nqmip.compare.measures import failed, number, timing_of
from nqmip.compare.schedule import Sweep

#: Seconds a fresh worker takes before its solver starts (interpreter, imports, kernels),
#: added to a cell's time limit when nothing finished yet tells better.
START_UP = 2.0


def duration(seconds: float) -> str:
    """``45 s``, ``3 min 05 s``, ``1 h 02 min``."""
    whole = max(round(seconds), 0)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def cell_name(cell: Cell) -> str:
    target = "" if cell.target is None else f" target {cell.target:g}"
    return f"n={cell.n} {cell.method} seed={cell.seed}{target}"


def row_line(row: dict[str, Any]) -> str:
    """A finished cell in one line: its status, objective and times, or why it failed."""
    head = f"n={row['n']} {row['method']} seed={row.get('seed')}"
    if failed(row):
        reason = " ".join(str(row.get("message") or "").split())[:300]
        return f"{head}: {row['status']}: {reason}"
    wall = number(row.get("wall_time"))
    to_target = number(timing_of(row).get("to_target"))
    reached = "" if to_target is None else f", target reached at {to_target:.3f} s"
    wall_text = "-" if wall is None else f"{wall:.3f} s"
    return (f"{head}: {row['status']} objective={row.get('objective')} in {wall_text}"
            f"{reached}")


class SweepProgress:
    """The :class:`~nqmip.compare.runners.Events` of a sweep shown on stderr."""

    def __init__(self, sweep: Sweep, jobs: int, enabled: bool = True) -> None:
        from rich.console import Console

        self.sweep = sweep
        self.jobs = max(jobs, 1)
        self.console = Console(stderr=True, highlight=False)
        self.enabled = enabled
        self.live = enabled and self.console.is_terminal
        self.counts: Counter[str] = Counter()
        self.times: dict[tuple[str, int], list[float]] = {}
        self._progress: Any = None
        self._task: Any = None

    # -- the estimate ---------------------------------------------------------------------

    def expected(self, cell: Cell) -> float:
        """The seconds a cell is expected to take (see the module's docstring)."""
        same = self.times.get((cell.method, cell.n))
        for sample in (same, self._latest(cell.method), self._latest(None)):
            if sample:
                return min(statistics.median(sample), cell.hard_limit)
        return min(cell.time_limit + START_UP, cell.hard_limit)

    def _latest(self, method: str | None) -> list[float]:
        """The times of the finished cells of ``method`` (None: of any method) at the
        largest n done so far (larger boards take longer: the smaller ones would
        underestimate what is left)."""
        sizes = [n for (m, n) in self.times if method is None or m == method]
        if not sizes:
            return []
        top = max(sizes)
        return [t for (m, n), ts in self.times.items()
                if n == top and (method is None or m == method) for t in ts]

    def left(self) -> float:
        """Seconds the sweep is expected to take from now."""
        now = time.perf_counter()
        running = sum(max(self.expected(c) - (now - start), 0.2)
                      for c, start in list(self.sweep.running.values()))
        waiting = sum(self.expected(c) for c in list(self.sweep.pending))
        return (running + waiting) / self.jobs

    def running_text(self) -> str:
        now = time.perf_counter()
        cells = sorted(self.sweep.running.values(), key=lambda item: item[1])
        return ", ".join(f"{cell_name(c)} ({now - start:.0f} s)" for c, start in cells) \
            or "-"

    def _left_text(self) -> str:
        return f"about {duration(self.left())} left" if self.sweep.done else "estimating"

    # -- the events -----------------------------------------------------------------------

    def __enter__(self) -> SweepProgress:
        if self.live:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._progress = Progress(
                TextColumn("cells"), MofNCompleteColumn(), BarColumn(bar_width=24),
                TextColumn("{task.fields[left]}"), TextColumn("running: {task.fields[now]}"),
                console=self.console, transient=False,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task("sweep", total=self.sweep.total,
                                                 left="estimating", now="-")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def say(self, text: str) -> None:
        """A line above the bar (or on its own off a terminal)."""
        if self.enabled:
            self.console.print(text, markup=False, soft_wrap=True)

    def started(self, cell: Cell) -> None:
        self.tick()

    def finished(self, cell: Cell, row: dict[str, Any]) -> None:
        self.counts[str(row.get("status"))] += 1
        spent = number(row.get("process_time"))
        if spent is not None:
            self.times.setdefault((cell.method, cell.n), []).append(spent)
        done, total = self.sweep.done, self.sweep.total
        if self._progress is not None:
            if failed(row):
                self.say(f"failed: {row_line(row)}")
            self.tick()
        elif self.enabled:
            left = "" if self.sweep.finished else f"; {self._left_text()}"
            self.say(f"[{done}/{total}] {row_line(row)}{left}")

    def tick(self) -> None:
        if self._progress is not None:
            self._progress.update(self._task, completed=self.sweep.done,
                                  left=self._left_text(), now=self.running_text())
