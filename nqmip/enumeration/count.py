"""Count and list every N-Queens solution, by numba bitboard backtracking.

Long module: the count's three methods (border constellations, Takaken's classes, rows),
their split into tasks and the resumable record share the job key and task format.

``count_solutions(8)`` is 92 (A000170), with ``unique=True`` 12 (A002562), with ``fixed={0: 0}``
4 completions (beyond n = 32: :func:`nqmip.enumeration.completion.count_free`). Big counts
split into sub-trees over processes or Dask, resumable (:func:`run_count`); the
kernels (:mod:`.constellations`, :mod:`.count_kernels`, numba) load on first use;
:func:`solutions` lists lazily.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, overload

import numpy as np

from nqmip.instance import FixedSpec, Instance, make_instance

#: The largest board the kernels count (64-bit masks).
MAX_N = 32

#: OEIS A000170, the number of solutions of the n x n board, as known (n = 1 .. 27).
A000170 = (
    1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512,
    95815104, 666090624, 4968057848, 39029188884, 314666222712, 2691008701644,
    24233937684440, 227514171973736, 2207893435808352, 22317699616364044,
    234907967154122528,
)

#: Solutions listed per kernel call by :func:`solutions`.
BATCH = 4096


class CountError(ValueError):
    """A count that cannot be run as asked (a board too large, unique with fixed queens, a
    record of another count)."""


@dataclass(frozen=True)
class Count:
    """The outcome of :func:`run_count`.

    ``count`` is what was asked (solutions, completions, or symmetry classes with
    ``unique``); ``solutions`` the number of placements behind it (equal to ``count``
    unless ``unique``: then the sum of the classes' sizes). ``compile_time`` is numba's
    (or the cache load), apart from ``wall_time``.
    """

    n: int
    count: int
    solutions: int
    unique: bool
    fixed: tuple[tuple[int, int], ...]
    wall_time: float
    compile_time: float
    engine: str
    tasks: int = 1
    resumed: int = 0
    workers: int = 1

    def to_json(self) -> str:
        return json.dumps({
            "n": self.n, "count": self.count, "solutions": self.solutions,
            "unique": self.unique, "fixed": [list(p) for p in self.fixed],
            "wall_time": round(self.wall_time, 6), "compile_time": round(self.compile_time, 6),
            "engine": self.engine, "tasks": self.tasks, "resumed": self.resumed,
            "workers": self.workers,
        })


def _kernels() -> Any:
    from nqmip.enumeration import count_kernels

    return count_kernels


def _border() -> Any:
    from nqmip.enumeration import constellations

    return constellations


def _board(n: int | Instance, fixed: FixedSpec, unique: bool) -> tuple[int, dict[int, int]]:
    """Validated ``(n, fixed rows)``; the weights of an Instance play no part in a count."""
    instance = make_instance(n, None, fixed)
    size = instance.n
    if size > MAX_N:
        raise CountError(
            f"n = {size} is beyond the counting kernels (n <= {MAX_N}: 64-bit masks); nor "
            "would a wider word help: each step of n multiplies the work by about 8, n = 27 "
            "is the largest count known (OEIS A000170; the Q27 project counted it in 2016, on "
            "FPGAs, over about a year), and n = 32 would take some 10^5 times more"
        )
    if unique and instance.fixed:
        raise CountError(
            "unique counts the symmetry classes of the empty board; with fixed queens count "
            "the completions (unique=False)"
        )
    return size, dict(instance.fixed)


def _allowed(n: int, fixed: dict[int, int], unique: bool = False) -> np.ndarray:
    full = (1 << n) - 1
    allowed = np.full(max(n, 1), full, dtype=np.int64)
    for row, col in fixed.items():
        allowed[row] = 1 << col
    if unique:
        allowed[0] = (1 << ((n + 1) // 2)) - 1  # the smallest of a class: column <= (n-1)/2
    return allowed


def _masks(prefix: Sequence[int]) -> tuple[int, int, int]:
    cols = ld = rd = 0
    for col in prefix:
        bit = 1 << col
        cols |= bit
        ld = (ld | bit) << 1
        rd = (rd | bit) >> 1
    return cols, ld, rd


def warm_up(which: str = "all") -> float:
    """Compile the kernels (or load them from numba's cache); seconds taken, reported as
    ``compile_time`` apart from the count's ``wall_time``. ``which``: "classes" (the plain
    and unique counts), "rows" (completions, small boards), "list", or "all"."""
    start = time.perf_counter()
    k = _kernels()
    allowed = _allowed(6, {})
    if which in ("border", "all"):
        _border().count_all(6)
    if which in ("classes", "all"):
        k.takaken_all(6)
        k.takaken_row_mask(6, False, 1, 1, 2, 33)
    if which in ("rows", "all"):
        k.count_all(5)
        k.count_subtree(6, 0, 0, 0, 0, allowed)
        k.count_canonical_subtree(6, 0, np.zeros(6, np.int64), 0, 0, 0, allowed)
    if which in ("list", "all"):
        fs, cs, ls, rs, pos = (np.zeros(6, np.int64) for _ in range(5))
        k.enumerate_into(6, 0, allowed, fs, cs, ls, rs, pos, np.zeros(2, np.int64),
                         np.zeros((4, 6), np.int64), np.zeros(4, np.int64), False)
    return time.perf_counter() - start


def count_solutions(
    n: int | Instance,
    fixed: FixedSpec = None,
    unique: bool = False,
    *,
    workers: int | None = None,
    scheduler: Any = None,
    record: str | Path | None = None,
) -> int:
    """The number of solutions of the n x n board (OEIS A000170), of its classes under the 8
    symmetries of the square with ``unique`` (A002562), or of completions of the ``fixed``
    queens (no symmetry then; queens that attack each other are an InstanceError).

    ``workers`` (processes) or ``scheduler`` (a Dask scheduler address or Client) split the
    search into sub-trees; ``record`` keeps the finished ones so a killed run resumes.
    """
    return run_count(n, fixed, unique, workers=workers, scheduler=scheduler,
                     record=record).count


#: From this size on the empty board is counted by classes (Takaken's method): each class
#: of solutions under the 8 symmetries once, weighed by its size (1.8 times faster than the
#: first row's mirror symmetry alone at n = 16, and the classes come free).
BY_CLASSES_FROM = 5

Task = tuple[int, ...]

#: Constellations are dealt out in this many interleaved chunks per worker (each chunk
#: takes every k-th start, so chunks cost about the same and both cores stay busy to the
#: end; n = 18 has about 4,800 starts).
CHUNKS_PER_WORKER = 64


def _by_border(n: int, fix: dict[int, int], unique: bool) -> bool:
    """The plain count of the empty board goes by border constellations
    (:mod:`.constellations`); the unique count needs Takaken's class bookkeeping."""
    from nqmip.enumeration.constellations import MAX_N as BORDER_MAX
    from nqmip.enumeration.constellations import MIN_N as BORDER_MIN

    return not fix and not unique and BORDER_MIN <= n <= BORDER_MAX


def _how(n: int, fix: dict[int, int], unique: bool) -> str:
    if _by_border(n, fix, unique):
        return "constellations"
    return "classes" if _by_classes(n, fix) else "rows"


def _by_classes(n: int, fix: dict[int, int]) -> bool:
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
    k = _kernels()
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
        free &= int(k.takaken_row_mask(n, corner, bound1, row, down, sidemask))
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


def _tasks(n: int, fix: dict[int, int], depth: int, border: bool = False) -> list[Task]:
    if border:  # depth: the number of interleaved chunks of the constellations
        return [(first, depth) for first in range(depth)]
    if _by_classes(n, fix):
        return _class_tasks(n, depth)
    return _row_tasks(n, _allowed(n, fix).tolist(), min(depth, n))


def _split(n: int, fix: dict[int, int], wanted: int, border: bool = False
           ) -> tuple[int, list[Task]]:
    """``(depth, tasks)``: the shallowest split that gives ``wanted`` sub-trees."""
    if border:
        chunks = min(wanted, len(_border().starts(n)[1]))
        return chunks, _tasks(n, fix, chunks, border)
    depth = 1
    found = _tasks(n, fix, depth)
    while len(found) < wanted and depth < min(n - 2, 8):
        depth += 1
        found = _tasks(n, fix, depth)
    return depth, found


def _run_task(n: int, fixed: tuple[tuple[int, int], ...], task: Task, border: bool = False
              ) -> tuple[int, ...]:
    """One sub-tree: ``(solutions,)`` of the constellations ``task[0], task[0] + task[1],
    ...`` with ``border``; ``(classes of 8, of 4, of 2)`` for a task of Takaken's method;
    else ``(solutions,)`` below the rows' prefix ``task``."""
    if border:
        b = _border()
        found, weights = b.starts(n)
        return (int(b.count_starts(n, found, weights, task[0], task[1])),)
    k = _kernels()
    fix = dict(fixed)
    if _by_classes(n, fix):
        corner, bound1, cols = bool(task[0]), task[1], task[2:]
        board = np.zeros(n, np.int64)
        board[: len(cols)] = [1 << c for c in cols]
        down, left, right = _masks(cols)
        c8, c4, c2 = k.takaken_subtree(n, corner, bound1, len(cols), board, left, down, right)
        return int(c8), int(c4), int(c2)
    allowed = _allowed(n, fix)
    taken, ld, rd = _masks(task)
    return (int(k.count_subtree(n, len(task), taken, ld, rd, allowed)),)


def _single(n: int, fix: dict[int, int], unique: bool) -> tuple[int, int]:
    """``(count, solutions)`` in one kernel call."""
    if _by_border(n, fix, unique):
        value = int(_border().count_all(n))
        return value, value
    k = _kernels()
    if _by_classes(n, fix):
        c8, c4, c2 = (int(v) for v in k.takaken_all(n))
        return (c8 + c4 + c2 if unique else 8 * c8 + 4 * c4 + 2 * c2), 8 * c8 + 4 * c4 + 2 * c2
    if unique:  # small boards: every solution, each checked against its 7 images
        allowed = _allowed(n, fix, unique=True)
        classes, total = k.count_canonical_subtree(n, 0, np.zeros(n, np.int64), 0, 0, 0,
                                                   allowed)
        return int(classes), int(total)
    if not fix:
        value = int(k.count_all(n))
    else:
        value = int(k.count_subtree(n, 0, 0, 0, 0, _allowed(n, fix)))
    return value, value


def _job_key(n: int, fixed: dict[int, int], unique: bool = False) -> str:
    fix = ";".join(f"{r},{c}" for r, c in sorted(fixed.items()))
    return f"n={n} fixed={fix} by={_how(n, fixed, unique)}"


def _read_record(path: Path, job: str) -> tuple[int | None, dict[Task, tuple[int, ...]]]:
    """``(depth, finished sub-trees)`` of ``job`` in a JSON-lines record. A torn last line,
    left by a run killed while writing, is dropped from the file."""
    done: dict[Task, tuple[int, ...]] = {}
    depth: int | None = None
    if not path.exists():
        return depth, done
    text = path.read_text()
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
        path.write_text(text)
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            key, at = entry["job"], int(entry["depth"])
            task = tuple(int(c) for c in entry["task"])
            value = tuple(int(v) for v in entry["value"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            raise CountError(f"record {path}: line {number} is not a finished sub-tree; "
                             "delete that line, or give a new file to start over") from None
        if key != job:
            raise CountError(f"record {path} belongs to another count ({key}), not {job}; "
                             "give a new file for this count")
        if depth is not None and at != depth:
            raise CountError(f"record {path}: line {number} splits at another depth; "
                             "delete that line, or give a new file to start over")
        depth = at
        done[task] = value
    return depth, done


def check_record(record: str | Path, n: int | Instance, fixed: FixedSpec = None,
                 unique: bool = False) -> int:
    """How many finished sub-trees of this count ``record`` holds; a :class:`CountError`
    naming the line when it is not a record of this count. Reads the file only (nothing
    compiles), so a command can refuse a bad record at once."""
    size, fix = _board(n, fixed, unique)
    try:
        return len(_read_record(Path(record), _job_key(size, fix))[1])
    except UnicodeDecodeError:
        raise CountError(f"record {record} is not a text file; give a new file to start "
                         "over") from None


def run_count(
    n: int | Instance,
    fixed: FixedSpec = None,
    unique: bool = False,
    *,
    workers: int | None = None,
    scheduler: Any = None,
    record: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    tasks_per_worker: int = 8,
) -> Count:
    """:func:`count_solutions` with its timings and how the work was split.

    Without ``workers``, ``scheduler`` or ``record`` one kernel call counts everything.
    Otherwise the search splits into sub-trees (the placements of the first rows, enough
    for ``tasks_per_worker`` per worker) run as tasks; ``progress`` is called with ``(done,
    total)`` after each one. A record written by a run with other workers resumes as well.
    """
    if not unique and fixed is not None and (n.n if isinstance(n, Instance) else n) > MAX_N:
        from nqmip.enumeration.completion import count_free

        return Count(*count_free(n, fixed))  # on the free board: up to 62 free rows
    size, fix = _board(n, fixed, unique)
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise CountError(f"workers must be a positive integer, got {workers!r}")
    border = _by_border(size, fix, unique)
    compile_time = warm_up(_how(size, fix, unique).replace("constellations", "border"))
    start = time.perf_counter()
    fixed_pairs = tuple(sorted(fix.items()))
    how = {"constellations": "border constellations", "classes": "Takaken's classes",
           "rows": "rows"}[_how(size, fix, unique)]
    if workers is None and scheduler is None and record is None:
        value, total = _single(size, fix, unique)
        return Count(size, value, total, unique, fixed_pairs, time.perf_counter() - start,
                     compile_time, f"bitboard (numba, {how})")
    if unique and not _by_classes(size, fix):  # tiny boards: nothing to split
        value, total = _single(size, fix, unique)
        return Count(size, value, total, unique, fixed_pairs, time.perf_counter() - start,
                     compile_time, f"bitboard (numba, {how})")

    client = None
    if scheduler is not None:
        from dask.distributed import Client

        client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
        n_workers = max(len(client.scheduler_info().get("workers", {})), 1)
        engine = f"bitboard (numba, {how}) on Dask"
    else:
        n_workers = workers or 1
        engine = f"bitboard (numba, {how})" + (
            f" x {n_workers} processes" if n_workers > 1 else "")
    job = _job_key(size, fix, unique)
    path = Path(record) if record is not None else None
    depth, done = _read_record(path, job) if path is not None else (None, {})
    if depth is None:
        wanted = (CHUNKS_PER_WORKER if border else tasks_per_worker) * n_workers
        depth, tasks = _split(size, fix, wanted, border)
    else:  # resume as the record split, whatever the number of workers now
        tasks = _tasks(size, fix, depth, border)
    known = set(tasks)
    if any(t not in known for t in done):
        raise CountError(f"record {path} holds sub-trees that are not part of {job}")
    resumed = len(done)
    todo = [t for t in tasks if t not in done]
    if progress is not None:
        progress(resumed, len(tasks))

    sink = path.open("a") if path is not None else None
    try:
        for task, found in _execute(size, fixed_pairs, todo, n_workers, client, border):
            done[task] = found
            if sink is not None:
                sink.write(json.dumps({"job": job, "depth": depth, "task": list(task),
                                       "value": list(found)}) + "\n")
                sink.flush()
                os.fsync(sink.fileno())
            if progress is not None:
                progress(len(done), len(tasks))
    finally:
        if sink is not None:
            sink.close()
        if client is not None and client is not scheduler:
            client.close()

    if _by_classes(size, fix) and not border:
        c8, c4, c2 = (sum(done[t][i] for t in tasks) for i in range(3))
        total = 8 * c8 + 4 * c4 + 2 * c2
        value = c8 + c4 + c2 if unique else total
    else:
        value = total = sum(done[t][0] for t in tasks)
    return Count(size, value, total, unique, fixed_pairs, time.perf_counter() - start,
                 compile_time, engine, tasks=len(tasks), resumed=resumed, workers=n_workers)


def _execute(n: int, fixed: tuple[tuple[int, int], ...], todo: list[Task], n_workers: int,
             client: Any, border: bool = False) -> Iterator[tuple[Task, tuple[int, ...]]]:
    """``(task, value)`` for each sub-tree, in the order they finish."""
    if client is not None:
        from dask.distributed import as_completed

        futures = client.map(_run_task, [n] * len(todo), [fixed] * len(todo), todo,
                             [border] * len(todo), pure=False)
        owner = {f.key: t for f, t in zip(futures, todo, strict=True)}
        for future, value in as_completed(futures, with_results=True):
            yield owner[future.key], tuple(int(v) for v in value)
        return
    if n_workers == 1:
        for task in todo:
            yield task, _run_task(n, fixed, task, border)
        return
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures import as_completed as first_done

    with ProcessPoolExecutor(max_workers=n_workers) as pool:
        jobs = {pool.submit(_run_task, n, fixed, t, border): t for t in todo}
        try:
            for job in first_done(jobs):
                yield jobs[job], job.result()
        except BaseException:
            for job in jobs:
                job.cancel()
            raise


@overload
def solutions(n: int | Instance, fixed: FixedSpec = ..., unique: Literal[False] = ...,
              *, batch: int = ...) -> Iterator[tuple[int, ...]]: ...


@overload
def solutions(n: int | Instance, fixed: FixedSpec = ..., *, unique: Literal[True],
              batch: int = ...) -> Iterator[tuple[tuple[int, ...], int]]: ...


def solutions(n: int | Instance, fixed: FixedSpec = None, unique: bool = False, *,
              batch: int = BATCH) -> Iterator[Any]:
    """Every solution (or completion of ``fixed``) as a tuple of columns, one per row, in
    lexicographic order; lazily, ``batch`` at a time (n = 14's 365,596 are never held at
    once). With ``unique`` the fundamental solutions (the lexicographically smallest of
    each class under the 8 symmetries) as ``(placement, class_size)``, class_size 8, 4 or 2.

    Every placement passes the independent verifier (:mod:`nqmip.verify`) before it is
    yielded.
    """
    size, fix = _board(n, fixed, unique)
    if batch < 1:
        raise CountError(f"batch must be at least 1, got {batch}")
    return _generate(size, fix, unique, batch)


def _generate(n: int, fix: dict[int, int], unique: bool, batch: int) -> Iterator[Any]:
    from nqmip.verify import check_solution_batch

    k = _kernels()
    allowed = _allowed(n, fix, unique)
    fs, cs, ls, rs, pos = (np.zeros(n, np.int64) for _ in range(5))
    state = np.array([0, 0], dtype=np.int64)
    out = np.empty((batch, n), dtype=np.int64)
    sizes = np.empty(batch, dtype=np.int64)
    fixed_pairs = tuple(fix.items())
    while True:
        got = k.enumerate_into(n, 0, allowed, fs, cs, ls, rs, pos, state, out, sizes, unique)
        if got:
            block = out[:got]
            check_solution_batch(block, fixed_pairs, source="nqmip.solutions")
            rows = list(zip(*block.T.tolist(), strict=True))
            if unique:
                yield from zip(rows, sizes[:got].tolist(), strict=True)
            else:
                yield from rows
        if state[1] == 1:
            return


def draw_boards(placements: Iterable[Sequence[int]]) -> str:
    """Text boards (Q and dots), separated by blank lines."""
    boards = []
    for p in placements:
        size = len(p)
        boards.append("\n".join(" ".join("Q" if p[r] == c else "." for c in range(size))
                                for r in range(size)))
    return "\n\n".join(boards)
