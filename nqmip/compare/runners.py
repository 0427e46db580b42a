"""Running the cells of a grid: locally (threads, each starting one process per cell) or on
Dask workers (each worker still starting one process per cell), with the progress shown
as rows come back. Both hand each row to ``on_row(row, running)`` as it finishes."""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict
from typing import Any

from nqmip.compare.grid import Cell, UsageError
from nqmip.compare.harness import kill_active, run_cell


def warm_kernels(cells: Sequence[Cell]) -> float:
    """Compile (or load from numba's cache) the kernels of the cells' methods once, in
    this process (the method table's warm-ups, no solve); seconds taken. On a cold cache
    each cell's fresh process would otherwise compile inside its hard limit (ga at n = 8
    was killed at 32 s while two other methods compiled beside it)."""
    from nqmip.methods import METHODS, warm_up_all

    names = sorted({c.method for c in cells if c.method in METHODS})
    if "auto" in names:  # auto runs the heuristics and nqmip's own engines
        names = [m.name for m in METHODS.values() if m.warm_up is not None]
    return warm_up_all(names)


class Progress:
    """Cells done, running and left, with rich; plain (no control characters) off a tty."""

    def __init__(self, total: int, enabled: bool = True) -> None:
        from rich.console import Console

        self.total = total
        self.done = 0
        self.running = 0
        self.counts: Counter[str] = Counter()
        self.console = Console(stderr=True, highlight=False)
        self.enabled = enabled
        self.live = enabled and self.console.is_terminal
        self._progress: Any = None
        self._task: Any = None

    def _text(self) -> str:
        left = self.total - self.done - self.running
        statuses = " ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        return (f"cells: {self.done} done, {self.running} running, {left} left"
                + (f"  [{statuses}]" if statuses else ""))

    def __enter__(self) -> Progress:
        if self.live:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                TextColumn("{task.description}"), BarColumn(),
                TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                console=self.console, transient=False,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task(self._text(), total=self.total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def update(self, running: int, row: dict[str, Any] | None = None) -> None:
        self.running = running
        if row is not None:
            self.done += 1
            self.counts[str(row.get("status"))] += 1
        if self._progress is not None:
            self._progress.update(self._task, completed=self.done, description=self._text())
        elif self.enabled and row is not None:
            wall = row.get("wall_time")
            wall_text = "-" if wall is None else f"{wall:.3f}s"
            self.console.print(
                f"[{self.done}/{self.total}] n={row['n']} {row['method']} seed={row['seed']}: "
                f"{row['status']} objective={row.get('objective')} time={wall_text}"
                f" ({self.running} running, {self.total - self.done - self.running} left)",
                markup=False, soft_wrap=True,
            )


def run_local(cells: Sequence[Cell], jobs: int,
              on_row: Callable[[dict[str, Any], int], None]) -> None:
    running = 0
    lock = threading.Lock()

    def task(cell: Cell) -> dict[str, Any]:
        nonlocal running
        with lock:
            running += 1
        try:
            return run_cell(cell)
        finally:
            with lock:
                running -= 1

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        pending: set[Future[dict[str, Any]]] = {pool.submit(task, c) for c in cells}
        try:
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for future in done:
                    with lock:
                        now = running
                    on_row(future.result(), now)
        except BaseException:
            for future in pending:
                future.cancel()
            kill_active()
            raise


def run_dask(cells: Sequence[Cell], scheduler: str | None, workers: int | None,
             on_row: Callable[[dict[str, Any], int], None]) -> None:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise UsageError('Dask is not installed: pip install "nqmip[dask]"') from None
    cluster = None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as exc:
            raise UsageError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        slots = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
        tag = uuid.uuid4().hex[:12]
        futures = [client.submit(run_cell, asdict(c), pure=False, key=f"nqmip-{tag}-{i}")
                   for i, c in enumerate(cells)]
        left = len(futures)
        for future in as_completed(futures):
            row = future.result()
            left -= 1
            on_row(row, min(max(slots, 1), left))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
