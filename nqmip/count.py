"""Count and list every N-Queens solution, by numba bitboard backtracking.

``count_solutions(8)`` is 92 (OEIS A000170), ``count_solutions(8, unique=True)`` is 12
(A002562: classes under the 8 symmetries of the square), ``count_solutions(8, fixed={0: 0})``
the completions of pre-placed queens. :func:`solutions` lists them lazily, a batch at a time.
Big counts split into sub-trees (the placements of the first rows) run over processes or a
Dask cluster, with a resumable record of the finished sub-trees (:func:`run_count`).

The kernels are in :mod:`nqmip.count_kernels` and load (numba) on first use.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
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
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({
            "n": self.n, "count": self.count, "solutions": self.solutions,
            "unique": self.unique, "fixed": [list(p) for p in self.fixed],
            "wall_time": round(self.wall_time, 6), "compile_time": round(self.compile_time, 6),
            "engine": self.engine, "tasks": self.tasks, "resumed": self.resumed,
            "workers": self.workers,
        })


def _kernels() -> Any:
    from nqmip import count_kernels

    return count_kernels


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


def warm_up() -> float:
    """Compile the kernels (or load them from numba's cache); seconds taken, reported as
    ``compile_time`` apart from the count's ``wall_time``."""
    start = time.perf_counter()
    k = _kernels()
    k.count_all(5)
    allowed = _allowed(5, {})
    k.count_subtree(5, 0, 0, 0, 0, allowed)
    k.count_free_subtree(5, 1, 1, 2, 0)
    k.count_canonical_subtree(5, 0, np.zeros(5, np.int64), 0, 0, 0, allowed)
    size = 5
    fs, cs, ls, rs, pos = (np.zeros(size, np.int64) for _ in range(5))
    k.enumerate_into(size, 0, allowed, fs, cs, ls, rs, pos, np.zeros(2, np.int64),
                     np.zeros((4, size), np.int64), np.zeros(4, np.int64), False)
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
    queens (no symmetry then; 0 when they attack each other).

    ``workers`` (processes) or ``scheduler`` (a Dask scheduler address or Client) split the
    search into sub-trees; ``record`` keeps the finished ones so a killed run resumes.
    """
    return run_count(n, fixed, unique, workers=workers, scheduler=scheduler,
                     record=record).count


def _count_task(n: int, prefix: tuple[int, ...], allowed: tuple[int, ...],
                unique: bool) -> tuple[int, int]:
    """``(count, solutions)`` of the sub-tree below ``prefix`` (the first rows' columns)."""
    k = _kernels()
    mask = np.asarray(allowed, dtype=np.int64)
    cols, ld, rd = _masks(prefix)
    row = len(prefix)
    if unique:
        pos = np.zeros(n, np.int64)
        pos[:row] = prefix
        classes, total = k.count_canonical_subtree(n, row, pos, cols, ld, rd, mask)
        return int(classes), int(total)
    full = (1 << n) - 1
    if row == 0 and all(a == full for a in allowed):
        value = int(k.count_all(n))
    elif all(a == full for a in allowed[row:]):
        value = int(k.count_free_subtree(n, row, cols, ld, rd))
    else:
        value = int(k.count_subtree(n, row, cols, ld, rd, mask))
    return value, value


def prefixes(n: int, allowed: np.ndarray, depth: int) -> list[tuple[int, ...]]:
    """Every non-attacking placement of rows ``0 .. depth-1`` within the allowed masks."""
    found: list[tuple[int, ...]] = []

    def extend(prefix: tuple[int, ...], cols: int, ld: int, rd: int) -> None:
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


def _split(n: int, allowed: np.ndarray, tasks_wanted: int,
           depth: int | None = None) -> list[tuple[int, ...]]:
    """The sub-trees: the prefixes of ``depth`` rows, or of the shallowest depth that gives
    ``tasks_wanted`` of them."""
    if depth is not None:
        return prefixes(n, allowed, depth)
    depth = 1
    found = prefixes(n, allowed, min(depth, n))
    while len(found) < tasks_wanted and depth < n - 1 and depth < 6:
        depth += 1
        found = prefixes(n, allowed, depth)
    return found


def _job_key(n: int, fixed: dict[int, int], unique: bool) -> str:
    fix = ";".join(f"{r},{c}" for r, c in sorted(fixed.items()))
    return f"n={n} unique={int(unique)} fixed={fix}"


def _read_record(path: Path, job: str) -> dict[tuple[int, ...], tuple[int, int]]:
    """The finished sub-trees of ``job`` in a JSON-lines record (a torn last line, from a
    run killed while writing, is ignored). All of a record's prefixes have one length."""
    done: dict[tuple[int, ...], tuple[int, int]] = {}
    if not path.exists():
        return done
    text = path.read_text()
    if text and not text.endswith("\n"):
        # A run killed mid-write left a torn last line: drop it before appending.
        text = text[: text.rfind("\n") + 1]
        path.write_text(text)
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            key, prefix = entry["job"], tuple(int(c) for c in entry["prefix"])
            value = (int(entry["count"]), int(entry["solutions"]))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            if number == len(lines):
                break
            raise CountError(f"record {path}: line {number} is not a finished sub-tree") from None
        if key != job:
            raise CountError(f"record {path} belongs to another count ({key}), not {job}")
        if done and len(prefix) != len(next(iter(done))):
            raise CountError(f"record {path}: line {number} splits at another depth")
        done[prefix] = value
    return done


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

    Without ``workers``, ``scheduler`` or ``record`` one kernel call counts everything (the
    plain count by the first row's mirror symmetry). Otherwise the placements of the first
    rows (enough for ``tasks_per_worker`` sub-trees per worker) are the tasks; ``progress``
    is called with ``(done, total)`` after each one.
    """
    size, fix = _board(n, fixed, unique)
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise CountError(f"workers must be a positive integer, got {workers!r}")
    compile_time = warm_up()
    start = time.perf_counter()
    allowed = _allowed(size, fix, unique)
    split = workers is not None or scheduler is not None or record is not None
    if not split:
        value, total = _count_task(size, (), tuple(int(a) for a in allowed), unique)
        engine = "bitboard (numba)"
        return Count(size, value, total, unique, tuple(sorted(fix.items())),
                     time.perf_counter() - start, compile_time, engine)

    client = None
    if scheduler is not None:
        from dask.distributed import Client

        client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
        n_workers = max(len(client.scheduler_info().get("workers", {})), 1)
        engine = "bitboard (numba) on Dask"
    else:
        n_workers = workers or 1
        engine = "bitboard (numba)" + (f" x {n_workers} processes" if n_workers > 1 else "")
    # Symmetry of the plain count: the first row's left half counts twice, its middle once.
    mirror = not unique and not fix and size > 1
    if mirror:
        allowed[0] = (1 << ((size + 1) // 2)) - 1
    job = _job_key(size, fix, unique)
    path = Path(record) if record is not None else None
    done = _read_record(path, job) if path is not None else {}
    # A resumed run splits as the record did, whatever its number of workers.
    depth = len(next(iter(done))) if done else None
    tasks = _split(size, allowed, tasks_per_worker * n_workers, depth)
    if any(p not in set(tasks) for p in done):
        raise CountError(f"record {path} holds sub-trees that are not part of {job}")
    resumed = sum(1 for p in tasks if p in done)
    todo = [p for p in tasks if p not in done]
    masks = tuple(int(a) for a in allowed)
    if progress is not None:
        progress(len(tasks) - len(todo), len(tasks))

    sink = path.open("a") if path is not None else None
    try:
        def finish(prefix: tuple[int, ...], value: tuple[int, int]) -> None:
            done[prefix] = value
            if sink is not None:
                sink.write(json.dumps({"job": job, "prefix": list(prefix), "count": value[0],
                                       "solutions": value[1]}) + "\n")
                sink.flush()
                os.fsync(sink.fileno())
            if progress is not None:
                progress(len(tasks) - len(todo) + finished[0], len(tasks))

        finished = [0]
        for prefix, value in _execute(size, todo, masks, unique, n_workers, client, scheduler):
            finished[0] += 1
            finish(prefix, value)
    finally:
        if sink is not None:
            sink.close()
        if client is not None and client is not scheduler:
            client.close()

    count = solutions = 0
    for prefix in tasks:
        c, s = done[prefix]
        weight = 2 if mirror and 2 * prefix[0] + 1 != size else 1
        count += weight * c
        solutions += weight * s
    return Count(size, count, solutions, unique, tuple(sorted(fix.items())),
                 time.perf_counter() - start, compile_time, engine, tasks=len(tasks),
                 resumed=resumed, workers=n_workers)


def _execute(n: int, todo: list[tuple[int, ...]], masks: tuple[int, ...], unique: bool,
             n_workers: int, client: Any, scheduler: Any
             ) -> Iterator[tuple[tuple[int, ...], tuple[int, int]]]:
    """``(prefix, (count, solutions))`` for each sub-tree, in the order they finish."""
    if client is not None:
        from dask.distributed import as_completed

        futures = client.map(_count_task, [n] * len(todo), todo, [masks] * len(todo),
                             [unique] * len(todo), pure=False)
        owner = {f.key: p for f, p in zip(futures, todo, strict=True)}
        for future, value in as_completed(futures, with_results=True):
            yield owner[future.key], (int(value[0]), int(value[1]))
        return
    if n_workers == 1:
        for prefix in todo:
            yield prefix, _count_task(n, prefix, masks, unique)
        return
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures import as_completed as done_first

    with ProcessPoolExecutor(max_workers=n_workers) as pool:
        jobs = {pool.submit(_count_task, n, p, masks, unique): p for p in todo}
        try:
            for job in done_first(jobs):
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


def fundamental(n: int) -> list[tuple[tuple[int, ...], int]]:
    """The fundamental solutions of the n x n board with their class sizes (a list)."""
    return list(solutions(n, unique=True))


def all_solutions(n: int | Instance, fixed: FixedSpec = None,
                  limit: int | None = None) -> list[tuple[int, ...]]:
    """:func:`solutions` as a list, refused up front when it would not fit in memory."""
    size, fix = _board(n, fixed, False)
    if not fix and size <= len(A000170) and limit is None:
        need = A000170[size - 1] * (56 + 8 * size + 8)
        if need > 8 * 2**30:
            raise CountError(
                f"listing all {A000170[size - 1]:,} solutions of n = {size} would take about "
                f"{need / 2**30:.0f} GiB: iterate nqmip.solutions({size}) instead, or count "
                "them with nqmip.count_solutions"
            )
    found: list[tuple[int, ...]] = []
    for placement in solutions(size, fix):
        found.append(placement)
        if limit is not None and len(found) >= limit:
            break
    return found


def draw_boards(placements: Iterable[Sequence[int]]) -> str:
    """Text boards (Q and dots), separated by blank lines."""
    boards = []
    for p in placements:
        size = len(p)
        boards.append("\n".join(" ".join("Q" if p[r] == c else "." for c in range(size))
                                for r in range(size)))
    return "\n\n".join(boards)
