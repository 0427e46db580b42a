"""A count split into sub-trees: the tasks of each method (border constellations,
Takaken's classes, rows), one task's kernel call, their execution over processes or Dask,
and the resumable record of the finished ones.

:func:`nqmip.enumeration.count.run_count` drives them; the kernels (numba) load on first
use, as there.
"""

from __future__ import annotations

import functools
import json
import queue
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nqmip.budget import wait_safely
from nqmip.jsonlines import CheckMismatch, changed, read_kept, unsealed


class CountError(ValueError):
    """A count that cannot be run as asked (a board too large, unique with fixed queens, a
    record of another count)."""


class CountInterrupted(KeyboardInterrupt):
    """Ctrl-C (or a signal the command answers as Ctrl-C) stopped a count: ``count`` (of
    ``what``: solutions, completions or classes; ``solutions`` the placements behind it)
    is what the ``done`` finished sub-trees of ``total`` hold (a count split into
    sub-trees), or what the search had found (``done`` and ``total`` None: one search on
    the free board); a part of the answer, never the answer. A :class:`KeyboardInterrupt`,
    so that code which stops on Ctrl-C still does."""

    def __init__(self, count: int, solutions: int, *, done: int | None = None,
                 total: int | None = None, what: str = "solutions") -> None:
        super().__init__(f"interrupted: {count} {what} " + (
            "found before the stop" if done is None
            else f"in the {done} finished sub-trees of {total}"))
        self.count, self.solutions, self.done, self.total = count, solutions, done, total
        self.what = what


def kernels() -> Any:
    from nqmip.enumeration import count_kernels

    return count_kernels


def border_kernels() -> Any:
    from nqmip.enumeration import constellations

    return constellations


def takaken_kernels() -> Any:
    from nqmip.enumeration import takaken_kernels as module

    return module


def allowed_masks(n: int, fixed: dict[int, int], unique: bool = False) -> np.ndarray:
    full = (1 << n) - 1
    allowed = np.full(max(n, 1), full, dtype=np.int64)
    for row, col in fixed.items():
        allowed[row] = 1 << col
    if unique:
        allowed[0] = (1 << ((n + 1) // 2)) - 1  # the smallest of a class: column <= (n-1)/2
    return allowed


def prefix_masks(prefix: Sequence[int]) -> tuple[int, int, int]:
    cols = ld = rd = 0
    for col in prefix:
        bit = 1 << col
        cols |= bit
        ld = (ld | bit) << 1
        rd = (rd | bit) >> 1
    return cols, ld, rd


#: From this size on the empty board is counted by classes (Takaken's method): each class
#: of solutions under the 8 symmetries once, weighed by its size (1.8 times faster than the
#: first row's mirror symmetry alone at n = 16, and the classes come free).
BY_CLASSES_FROM = 5


Task = tuple[int, ...]


#: Constellations are dealt out in this many interleaved chunks per worker (each chunk
#: takes every k-th start, so chunks cost about the same and both cores stay busy to the
#: end; n = 18 has about 4,800 starts).
CHUNKS_PER_WORKER = 64


def by_border(n: int, fix: dict[int, int], unique: bool) -> bool:
    """The plain count of the empty board goes by border constellations
    (:mod:`.constellations`); the unique count needs Takaken's class bookkeeping."""
    from nqmip.enumeration.constellations import MAX_N as BORDER_MAX
    from nqmip.enumeration.constellations import MIN_N as BORDER_MIN

    return not fix and not unique and BORDER_MIN <= n <= BORDER_MAX


def count_method(n: int, fix: dict[int, int], unique: bool) -> str:
    if by_border(n, fix, unique):
        return "constellations"
    return "classes" if by_classes(n, fix) else "rows"


def by_classes(n: int, fix: dict[int, int]) -> bool:
    return not fix and n >= BY_CLASSES_FROM


def _class_roots(n: int) -> list[tuple[Task, int, int, int]]:
    """The searches of Takaken's method: ``(task, left, down, right)`` where a task is
    ``(corner, bound1, columns of the rows placed)``."""
    roots: list[tuple[Task, int, int, int]] = []
    for bound1 in range(2, n - 1):  # corner: row 0 in column 0, row 1 in column bound1
        bit = 1 << bound1
        roots.append(((1, bound1, 0, bound1), (2 | bit) << 1, 1 | bit, bit >> 1))
    bound1 = 1
    while bound1 < n - 1 - bound1:  # side: row 0 in column bound1
        bit = 1 << bound1
        roots.append(((0, bound1, bound1), bit << 1, bit, bit >> 1))
        bound1 += 1
    return roots


def _class_tasks(n: int, extra: int) -> list[Task]:
    """Takaken's searches, each split by the placements of its next ``extra`` rows (never
    past row n - 2), within the rows' masks of the method."""
    tk = takaken_kernels()
    top = 1 << (n - 1)
    sidemask = top | 1
    tasks: list[Task] = []

    def extend(task: Task, left: int, down: int, right: int, todo: int) -> None:
        corner, bound1 = bool(task[0]), task[1]
        row = len(task) - 2
        if todo == 0 or row >= n - 2:
            tasks.append(task)
            return
        free = ((1 << n) - 1) & ~(left | down | right)
        free &= int(tk.takaken_row_mask(n, corner, bound1, row, down, sidemask))
        while free:
            bit = free & -free
            free ^= bit
            extend((*task, bit.bit_length() - 1), (left | bit) << 1, down | bit,
                   (right | bit) >> 1, todo - 1)

    for task, left, down, right in _class_roots(n):
        extend(task, left, down, right, extra)
    return tasks


def _row_tasks(n: int, allowed: Sequence[int], depth: int) -> list[Task]:
    """Every non-attacking placement of rows ``0 .. depth-1`` within the allowed masks."""
    found: list[Task] = []

    def extend(prefix: Task, cols: int, ld: int, rd: int) -> None:
        row = len(prefix)
        if row == depth:
            found.append(prefix)
            return
        free = int(allowed[row]) & ~(cols | ld | rd)
        while free:
            bit = free & -free
            free ^= bit
            extend((*prefix, bit.bit_length() - 1), cols | bit, (ld | bit) << 1,
                   (rd | bit) >> 1)

    extend((), 0, 0, 0)
    return found


def tasks_at_depth(n: int, fix: dict[int, int], depth: int, border: bool = False) -> list[Task]:
    if border:  # depth: the number of interleaved chunks of the constellations
        return [(first, depth) for first in range(depth)]
    if by_classes(n, fix):
        return _class_tasks(n, depth)
    return _row_tasks(n, allowed_masks(n, fix).tolist(), min(depth, n))


def split(n: int, fix: dict[int, int], wanted: int, border: bool = False
          ) -> tuple[int, list[Task]]:
    """``(depth, tasks)``: the shallowest split that gives ``wanted`` sub-trees."""
    if border:
        chunks = min(wanted, len(border_kernels().starts(n)[1]))
        return chunks, tasks_at_depth(n, fix, chunks, border)
    depth = 1
    found = tasks_at_depth(n, fix, depth)
    while len(found) < wanted and depth < min(n - 2, 8):
        depth += 1
        found = tasks_at_depth(n, fix, depth)
    return depth, found


@functools.lru_cache(maxsize=4)
def _starts(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The constellations of :func:`.constellations.starts`, worked out once per board
    and process rather than once per task."""
    return border_kernels().starts(n)


def run_task(n: int, fixed: tuple[tuple[int, int], ...], task: Task, border: bool = False
             ) -> tuple[int, ...]:
    """One sub-tree: ``(solutions,)`` of the constellations ``task[0], task[0] + task[1],
    ...`` with ``border``; ``(classes of 8, of 4, of 2)`` for a task of Takaken's method;
    else ``(solutions,)`` below the rows' prefix ``task``."""
    if border:
        b = border_kernels()
        found, weights = _starts(n)
        return (int(b.count_starts(n, found, weights, task[0], task[1])),)
    fix = dict(fixed)
    if by_classes(n, fix):
        corner, bound1, cols = bool(task[0]), task[1], task[2:]
        board = np.zeros(n, np.int64)
        board[: len(cols)] = [1 << c for c in cols]
        down, left, right = prefix_masks(cols)
        c8, c4, c2 = takaken_kernels().takaken_subtree(n, corner, bound1, len(cols), board,
                                                       left, down, right)
        return int(c8), int(c4), int(c2)
    allowed = allowed_masks(n, fix)
    taken, ld, rd = prefix_masks(task)
    return (int(kernels().count_subtree(n, len(task), taken, ld, rd, allowed)),)


def job_key(n: int, fixed: dict[int, int], unique: bool = False) -> str:
    fix = ";".join(f"{r},{c}" for r, c in sorted(fixed.items()))
    return f"n={n} fixed={fix} by={count_method(n, fixed, unique)}"


def read_record(path: Path, job: str) -> tuple[int | None, dict[Task, tuple[int, ...]]]:
    """``(depth, finished sub-trees)`` of ``job`` in a JSON-lines record. A torn last line,
    left by a run killed while writing, is dropped from the file."""
    done: dict[Task, tuple[int, ...]] = {}
    depth: int | None = None
    if not path.exists():
        return depth, done
    if not path.is_file():  # /dev/zero is read until memory runs out
        raise CountError(f"record {path} is not a regular file; give a file that can be "
                         "read and written")
    text = read_kept(path)  # an entry cut short by a killed run dropped
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = unsealed(line)
            key, at = entry["job"], int(entry["depth"])
            task = tuple(int(c) for c in entry["task"])
            value = tuple(int(v) for v in entry["value"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            what = changed(number) if isinstance(exc, CheckMismatch) else \
                f"line {number} is not a finished sub-tree"
            raise CountError(f"record {path}: {what}; delete that line, or give a new "
                             "file to start over") from None
        if key != job:
            raise CountError(f"record {path} belongs to another count ({key}), not {job}; "
                             "give a new file for this count")
        if depth is not None and at != depth:
            raise CountError(f"record {path}: line {number} splits at another depth; "
                             "delete that line, or give a new file to start over")
        depth = at
        done[task] = value
    return depth, done


def execute(n: int, fixed: tuple[tuple[int, int], ...], todo: list[Task], n_workers: int,
            client: Any, border: bool = False) -> Iterator[tuple[Task, tuple[int, ...]]]:
    """``(task, value)`` for each sub-tree, in the order they finish: on Dask
    (``client``), in a pool of ``n_workers`` processes (:class:`nqmip.cluster.TaskPool`:
    a process that died has the sub-trees it had not given back counted again in a new
    pool, :data:`RESTARTS` times at most, and no finished one again), or one after the
    other in a worker thread."""
    if client is None and n_workers == 1:
        yield from _in_thread(n, fixed, todo, border)
        return
    from nqmip.cluster import TaskPool

    pool = TaskPool(n_workers, restarts=RESTARTS, what="the count's pool",
                    executor=None if client is None else client.get_executor(pure=False))
    yield from _pooled(pool, n, fixed, todo, border)


#: How many times the pool of a count is started again after one of its processes died
#: (its unfinished sub-trees counted again in the new one) before the count gives up.
RESTARTS = 3


def _pooled(pool: Any, n: int, fixed: tuple[tuple[int, int], ...], todo: list[Task],
            border: bool) -> Iterator[tuple[Task, tuple[int, ...]]]:
    """:func:`execute`'s sub-trees on ``pool`` (a :class:`nqmip.cluster.TaskPool`); a
    stop (or the generator closed) ends its processes now."""
    stopped = True
    try:  # a process may die while the sub-trees are handed out too
        for task in todo:
            pool.submit(task, run_task, n, fixed, task, border)
        for task, value in pool.results():
            yield task, tuple(int(v) for v in value)
        stopped = False
    finally:
        pool.close(wait_for=not stopped)


#: How often (seconds) the calling thread looks up from waiting for a sub-tree: a signal
#: handler runs in it at once anyway; this only bounds the wait where one would not.
POLL = 0.25


def _in_thread(n: int, fixed: tuple[tuple[int, int], ...], todo: list[Task], border: bool
               ) -> Iterator[tuple[Task, tuple[int, ...]]]:
    """The sub-trees one after the other in a worker thread (the kernels release the GIL),
    so that the calling thread, waiting on a queue, hears Ctrl-C at once rather than when
    a kernel call returns. When the caller stops (Ctrl-C, or it closes this generator)
    the worker starts no further sub-tree and ends after the one it is in; a daemon
    thread, it never holds up the process's exit."""
    results: queue.Queue[tuple[Task, tuple[int, ...]] | BaseException] = queue.Queue()
    stop = threading.Event()

    def work() -> None:
        try:
            for task in todo:
                if stop.is_set():
                    return
                results.put((task, run_task(n, fixed, task, border)))
        except BaseException as exc:  # raised again in the caller's thread
            results.put(exc)

    thread = threading.Thread(target=work, name="nqmip-count", daemon=True)
    thread.start()
    try:
        for _ in todo:
            while True:  # not get(timeout=): Ctrl-C there can raise 'release unlocked
                # lock' in place of the stop (nqmip.budget.wait_safely)
                if wait_safely(lambda: not results.empty(), POLL):
                    item = results.get_nowait()
                    break
                if not thread.is_alive() and results.empty():
                    raise CountError("the counting thread ended early")
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
