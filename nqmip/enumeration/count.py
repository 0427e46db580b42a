"""Count and list every N-Queens solution, by numba bitboard backtracking.

``count_solutions(8)`` is 92 (A000170), with ``unique=True`` 12 (A002562), with ``fixed={0: 0}``
4 completions (beyond n = 32: :func:`nqmip.enumeration.completion.count_free`). Big counts
split into sub-trees over processes or Dask, resumable (:func:`run_count`; the tasks and
the record are in :mod:`.count_tasks`); the kernels (:mod:`.constellations`,
:mod:`.count_kernels`, numba) load on first use; :func:`solutions` lists lazily.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterator, Sized
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal, overload

import numpy as np

from nqmip.enumeration.count_tasks import (
    CHUNKS_PER_WORKER,
    CountError,
    CountInterrupted,
    allowed_masks,
    border_kernels,
    by_border,
    by_classes,
    count_method,
    execute,
    job_key,
    kernels,
    read_record,
    run_task,
    split,
    takaken_kernels,
    tasks_at_depth,
)
from nqmip.instance import FixedSpec, Instance, make_instance
from nqmip.jsonlines import RecordUnwritten, sealed
from nqmip.watchdog import finish_heard

#: The largest board the kernels count (:mod:`.count_kernels`, :mod:`.takaken_kernels`):
#: masks are 64-bit words and a diagonal mask shifts a bit (below n) by up to n - 1
#: places. The kernels' capacity, spelled here rather than in the kernel module so that
#: reading it does not import numba.
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
#: The largest ``batch`` taken: its buffer is ``batch x n`` int64 (256 MB at n = 32).
BATCH_MAX = 1 << 20

#: From this size on a count in one process is split too (into about :data:`SINGLE_TASKS`
#: sub-trees, run in a worker thread) so that Ctrl-C stops it at once, with the finished
#: sub-trees' part of the count (:class:`CountInterrupted`); smaller boards take
#: milliseconds in one kernel call.
SPLIT_FROM = 13
SINGLE_TASKS = 256


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


def _checked(unique: Any, workers: Any, scheduler: Any = None,
             record: Any = None) -> tuple[bool, int | None]:
    """``unique`` a boolean and ``workers`` a whole number of processes from 1 to
    :data:`~nqmip.option_types.WORKERS_MAX`, by the method table's types (numpy's
    integers taken): CountError naming the parameter and its range otherwise; ``workers``
    with a ``scheduler`` too (the scheduler's cluster ran the count, workers unsaid)."""
    from nqmip.option_types import check_value

    if workers is not None and scheduler is not None:
        raise CountError("workers and scheduler exclude each other: workers start local "
                         "processes, a scheduler counts on its cluster's; give one")

    try:
        check_value("record", record)
        if record is not None:  # before any work (a missing folder failed after the count)
            from nqmip.files import check_record_file

            check_record_file(record, "record", CountError)
        return bool(check_value("unique", unique)), check_value("workers", workers)
    except (TypeError, ValueError) as exc:
        raise CountError(str(exc)) from None


def beyond_bitboards(n: Any, fixed: FixedSpec, unique: bool) -> bool:
    """Completions past the bitboards' n (counted and listed on the free board)."""
    # len, not bool: a numpy array of queens is a FixedSpec too (its truth was ambiguous)
    given = fixed is not None and (len(fixed.strip() if isinstance(fixed, str) else fixed) > 0
                                   if isinstance(fixed, Sized) else True)
    return not unique and given and (n.n if isinstance(n, Instance) else n) > MAX_N


def check_one_call(n: Any, fixed: FixedSpec, unique: bool, split: dict[str, Any]) -> None:
    """A :class:`CountError` when a count beyond the bitboards (completions past n =
    :data:`MAX_N`, counted in one call on the free rows) is given any of ``split``'s options
    (workers, scheduler, record: taken and dropped before, a record never written). The
    error names the options given by ``split``'s keys, so a command passes its own
    spellings (``--workers``) and the API its parameters' names."""
    given = [name for name, value in split.items() if value is not None]
    if given and beyond_bitboards(n, fixed, unique):
        raise CountError(f"{'/'.join(given)}: beyond n = {MAX_N} the completions are counted "
                         "in one call on the free rows, with no sub-trees to split or "
                         f"record; drop {' and '.join(given)}")


def _free_board_count(n: int | Instance, fixed: FixedSpec) -> Count:
    """The completions counted on the free board (up to ``completion.MAX_FREE`` free
    rows), in one call (:func:`check_one_call` has refused a split or a record)."""
    from nqmip.enumeration.completion import count_free

    return Count(*count_free(n, fixed))


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


def warm_up(which: str = "all") -> float:
    """Compile the kernels (or load them from numba's cache); seconds taken, reported as
    ``compile_time`` apart from the count's ``wall_time``. ``which``: "classes" (the plain
    and unique counts), "rows" (completions, small boards), "list", or "all"."""
    start = time.perf_counter()
    k = kernels()
    allowed = allowed_masks(6, {})
    if which in ("border", "all"):
        border_kernels().count_all(6)
    if which in ("classes", "all"):
        tk = takaken_kernels()
        tk.takaken_all(6)
        tk.takaken_row_mask(6, False, 1, 1, 2, 33)
        run_task(6, (), tasks_at_depth(6, {}, 1)[0])  # a split count's kernel
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


def _single(n: int, fix: dict[int, int], unique: bool) -> tuple[int, int]:
    """``(count, solutions)`` in one kernel call."""
    if by_border(n, fix, unique):
        value = int(border_kernels().count_all(n))
        return value, value
    k = kernels()
    if by_classes(n, fix):
        c8, c4, c2 = (int(v) for v in takaken_kernels().takaken_all(n))
        return (c8 + c4 + c2 if unique else 8 * c8 + 4 * c4 + 2 * c2), 8 * c8 + 4 * c4 + 2 * c2
    if unique:  # small boards: every solution, each checked against its 7 images
        allowed = allowed_masks(n, fix, unique=True)
        classes, total = k.count_canonical_subtree(n, 0, np.zeros(n, np.int64), 0, 0, 0,
                                                   allowed)
        return int(classes), int(total)
    if not fix:
        value = int(k.count_all(n))
    else:
        value = int(k.count_subtree(n, 0, 0, 0, 0, allowed_masks(n, fix)))
    return value, value


def check_record(record: str | Path, n: int | Instance, fixed: FixedSpec = None,
                 unique: bool = False) -> int:
    """How many finished sub-trees of this count ``record`` holds; a :class:`CountError`
    naming the line when it is not a record of this count. Reads the file only (nothing
    compiles), so a command can refuse a bad record at once."""
    size, fix = _board(n, fixed, unique)
    try:
        return len(read_record(Path(record), job_key(size, fix, unique))[1])
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
    check: Callable[[], None] | None = None,
) -> Count:
    """:func:`count_solutions` with its timings and how the work was split.

    The search splits into sub-trees (the placements of the first rows, enough for
    ``tasks_per_worker`` per worker; chunks of the border constellations) run as tasks;
    ``progress`` is called with ``(done, total)`` after each one. A record written by a
    run with other workers resumes as well. Without ``workers``, ``scheduler`` or
    ``record`` the sub-trees (about :data:`SINGLE_TASKS`) run one by one in a worker
    thread, boards below :data:`SPLIT_FROM` in one kernel call. Ctrl-C (a
    :class:`KeyboardInterrupt`) stops the count at once, in one process or over many, as
    :class:`CountInterrupted`: the part of the count its finished sub-trees hold.
    ``check`` is called before the sub-trees and after each one; a KeyboardInterrupt it
    raises stops the count the same way (a command's stop that the kernels' load absorbed).
    """
    unique, workers = _checked(unique, workers, scheduler, record)
    check_one_call(n, fixed, unique,
                   {"workers": workers, "scheduler": scheduler, "record": record})
    if beyond_bitboards(n, fixed, unique):
        return _free_board_count(n, fixed)
    size, fix = _board(n, fixed, unique)
    border = by_border(size, fix, unique)
    compile_time = warm_up(count_method(size, fix, unique).replace("constellations", "border"))
    start = time.perf_counter()
    fixed_pairs = tuple(sorted(fix.items()))
    how = {"constellations": "border constellations", "classes": "Takaken's classes",
           "rows": "rows"}[count_method(size, fix, unique)]
    alone = workers is None and scheduler is None and record is None
    if (alone and size < SPLIT_FROM) or (unique and not by_classes(size, fix)):
        # small boards in one kernel call; tiny unique ones have nothing to split
        value, total = _single(size, fix, unique)
        return Count(size, value, total, unique, fixed_pairs, time.perf_counter() - start,
                     compile_time, f"bitboard (numba, {how})")

    client = None
    opened = contextlib.ExitStack()
    if scheduler is not None:
        from nqmip.cluster import open_cluster

        cluster = opened.enter_context(open_cluster(scheduler))
        client, n_workers = cluster.client, cluster.slots
        engine = f"bitboard (numba, {how}) on Dask"
    else:
        n_workers = workers or 1
        engine = f"bitboard (numba, {how})" + (
            f" x {n_workers} processes" if n_workers > 1 else "")
    job = job_key(size, fix, unique)
    path = Path(record) if record is not None else None
    depth, done = read_record(path, job) if path is not None else (None, {})
    if depth is None:
        wanted = SINGLE_TASKS if alone else (
            (CHUNKS_PER_WORKER if border else tasks_per_worker) * n_workers)
        depth, tasks = split(size, fix, wanted, border)
    else:  # resume as the record split, whatever the number of workers now
        tasks = tasks_at_depth(size, fix, depth, border)
    known = set(tasks)
    if any(t not in known for t in done):
        raise CountError(f"record {path} holds sub-trees that are not part of {job}")
    resumed = len(done)
    todo = [t for t in tasks if t not in done]
    if progress is not None:
        progress(resumed, len(tasks))

    sink = path.open("a") if path is not None else None
    closed = _closer(sink, opened)
    try:
        if check is not None:
            check()
        for task, found in execute(size, fixed_pairs, todo, n_workers, client, border):
            done[task] = found
            _keep(sink, {"job": job, "depth": depth, "task": list(task), "value": list(found)})
            if progress is not None:
                progress(len(done), len(tasks))
            if check is not None and len(done) < len(tasks):
                check()
    except KeyboardInterrupt:  # what the finished sub-trees hold, said to be a part
        if len(done) < len(tasks):
            raise _part(done, len(tasks), size, fix, border, unique) from None
        # every sub-tree was counted (the stop came as the pool closed): the count is known
    finally:
        if len(done) < len(tasks):
            closed()
        else:  # the count is known: a stop as the pool and the cluster close is heard
            finish_heard(closed)

    (value, total), _ = finish_heard(
        lambda: _tally(done, by_classes(size, fix) and not border, unique))
    return Count(size, value, total, unique, fixed_pairs, time.perf_counter() - start,
                 compile_time, engine, tasks=len(tasks), resumed=resumed, workers=n_workers)


def _keep(sink: IO[str] | None, entry: dict[str, Any]) -> None:
    """``entry`` appended to the record (if any) and synced to the disk."""
    if sink is not None:
        try:
            sink.write(sealed(entry) + "\n")
            sink.flush()
            os.fsync(sink.fileno())
        except OSError as exc:
            raise RecordUnwritten(exc.errno, f"{sink.name}: cannot write "
                                  f"({exc.strerror or exc}): the count stopped; a rerun "
                                  "resumes from the sub-trees written before") from None


def _part(done: dict[Any, tuple[int, ...]], total: int, size: int, fix: dict[int, int],
          border: bool, unique: bool) -> CountInterrupted:
    """The stop of a count whose ``done`` sub-trees of ``total`` are finished: what they
    hold, said to be a part."""
    return CountInterrupted(*_tally(done, by_classes(size, fix) and not border, unique),
                            done=len(done), total=total, what="classes" if unique else (
                                "completions" if fix else "solutions"))


def _closer(sink: Any, opened: contextlib.ExitStack) -> Callable[[], None]:
    """What closes a count's record and its cluster (each once, whatever stops it)."""
    def close() -> None:
        if sink is not None:
            with contextlib.suppress(OSError):  # a write that failed: said by _keep
                sink.close()
        opened.close()
    return close


def _tally(done: dict[Any, tuple[int, ...]], classes: bool, unique: bool) -> tuple[int, int]:
    """``(count, solutions)`` of the finished sub-trees ``done``: their ``(classes of 8,
    of 4, of 2)`` with ``classes`` (Takaken's method), else their solutions."""
    if classes:
        c8, c4, c2 = (sum(v[i] for v in done.values()) for i in range(3))
        total = 8 * c8 + 4 * c4 + 2 * c2
        return (c8 + c4 + c2 if unique else total), total
    total = sum(v[0] for v in done.values())
    return total, total


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

    Beyond n = 32 the completions of fixed queens (up to 62 free rows) are listed one by
    one on the free board, in its search's order (first-fail), not lexicographically.

    Every placement passes the independent verifier (:mod:`nqmip.verify`) before it is
    yielded.
    """
    unique, _ = _checked(unique, None)  # "no" was read as True
    if isinstance(batch, bool) or not isinstance(batch, int | np.integer):
        raise CountError(f"batch must be a whole number, got {type(batch).__name__}")
    if not 1 <= batch <= BATCH_MAX:  # 10**12 asked numpy for 58 TiB
        raise CountError(f"batch must be from 1 to {BATCH_MAX:,}, got {batch}")
    if beyond_bitboards(n, fixed, unique):
        return _generate_free(make_instance(n, None, fixed))
    size, fix = _board(n, fixed, unique)
    return _generate(size, fix, unique, int(batch))


def _generate_free(instance: Instance) -> Iterator[tuple[int, ...]]:
    from nqmip.enumeration.completion import each_completion
    from nqmip.verify import check_solution_batch

    completions = each_completion(instance)  # refused here, before the first next()
    fixed_pairs = tuple(instance.fixed)

    def listed() -> Iterator[tuple[int, ...]]:
        for placement in completions:
            check_solution_batch(np.asarray([placement]), fixed_pairs,
                                 source="nqmip.solutions")
            yield placement

    return listed()


def _generate(n: int, fix: dict[int, int], unique: bool, batch: int) -> Iterator[Any]:
    from nqmip.verify import check_solution_batch

    k = kernels()
    allowed = allowed_masks(n, fix, unique)
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
