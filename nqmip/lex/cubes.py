"""Cube-and-conquer for the descent's hard questions (:mod:`nqmip.lex.descent`).

A question of the descent ("can these rows be completed with row r left of the model's
column?") is first asked of the oracle in this process, as before. One not answered within
``split_after`` seconds is *split into cubes*: each cube adds the placements of the next
rows (row r on one column left of the limit, then the next free rows on any column), kept
only when the prefix with them survives the oracle's propagation and diagonal sums; each
cube is then an independent question to the same oracle (its placed queens, no row
restricted), conquered in a pool of worker processes (the local cores, or a Dask cluster).
The question is refuted when every cube is, answered yes when any cube is (the outstanding
ones are stopped then: the workers look at a shared stop mark between two slices). A cube
not answered within ``cube_budget`` seconds while no other cube waits for a worker (in a
local pool; on Dask at the budget) is split again by one more row, up to
``max_depth`` rows beyond the question's, and conquered to the end below that: the
dynamic splitting of cube-and-conquer (Heule, Kullmann, Wieringa and Biere, "Cube and
Conquer: Guiding CDCL SAT Solvers by Lookaheads", 2011) with a time budget in place of the
look-ahead's cut-off.

Every refuted cube is remembered for the rest of the descent (a refuted set of queens
stays refuted): when a smaller solution sends the descent back to the same row with a
smaller limit, the cubes refuted before are not asked again.
"""

from __future__ import annotations

import math
import multiprocessing
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Executor, Future, wait
from contextlib import ExitStack
from typing import Any

from nqmip.capacity import cores
from nqmip.cluster import TaskPool
from nqmip.lex.descent import SUMS, Oracle, Placed, _Board, make_oracle
from nqmip.lex.record import CubeRecord

#: Seconds a question is asked in this process before it is split into cubes.
SPLIT_AFTER = 1.0
#: Seconds a worker spends on a cube before it is split by one more row, when no other
#: cube waits for a worker (a split cube's work is lost).
CUBE_BUDGET = 2.0
#: Rows a cube may place beyond the question's prefix; a cube this deep is conquered to
#: the end.
MAX_DEPTH = 6
#: The first split goes row by row until it has this many cubes per worker (or MAX_DEPTH).
CUBES_PER_WORKER = 8
#: Seconds the descent's thread waits for a cube between two looks at its deadline.
WAIT = 0.05
#: How many times a local pool is started again after one of its processes died (killed,
#: out of memory) before the descent gives up (:class:`nqmip.cluster.TaskPool`).
RESTARTS = 3
#: Seconds between two looks of a Dask worker at the stop mark (a round trip each).
STOP_POLL = 0.5

Key = tuple[tuple[int, int], ...]

# ---- the worker's side -------------------------------------------------------------

#: In a local worker: the shared mark, the id of the question still wanted.
_STOP: Any = None
#: In a local worker: the cubes submitted to the pool and the cubes its workers started.
_COUNTS: Any = None
#: A worker's oracles, kept between cubes (CaDiCaL keeps its learnt clauses).
_ORACLES: dict[tuple[str, int], Oracle] = {}


def _init(stop: Any, counts: Any = None) -> None:
    """A local worker: the stop mark and the pool's counts (a stop signal is the
    descent's to hear, :class:`nqmip.cluster.TaskPool`: it stops the workers by the mark)."""
    global _STOP, _COUNTS
    _STOP = stop
    _COUNTS = counts


def _stop_check(token: tuple[str, Any]) -> Callable[[], bool]:
    """True once the question of ``token`` is no longer wanted: ("value", question id)
    against the local pool's shared mark, or ("event", name) a Dask event."""
    kind, key = token
    if kind == "value":
        return lambda: _STOP is not None and int(_STOP.value) != key
    from distributed import Event

    event = Event(key)
    last = [time.monotonic()]

    def check() -> bool:
        now = time.monotonic()
        if now - last[0] < STOP_POLL:
            return False
        last[0] = now
        return bool(event.is_set())

    return check


def _queued() -> bool:
    """True while cubes wait in the local pool's queue (no worker idles)."""
    return _COUNTS is not None and int(_COUNTS[0]) - int(_COUNTS[1]) > 0


def conquer(kind: str, n: int, placed: Key, budget: float | None,
            token: tuple[str, Any]) -> tuple[bool | None, tuple[int, ...] | None,
                                             dict[str, int]]:
    """One cube in a worker: ``placed`` (no row restricted) asked of the oracle ``kind``
    until its question is stopped, or past ``budget`` seconds (None: never) once no cube
    waits for a worker in a local pool (a cube's work is lost when it is split, so a
    worker splits only to feed an idle one; on Dask at the budget). Returns the answer
    (None: not answered), the completion of a yes, and the oracle's counters spent (with
    the cube's thread CPU and wall time, ``cube_cpu_ms`` and ``cube_wall_ms``)."""
    if _COUNTS is not None:
        with _COUNTS.get_lock():
            _COUNTS[1] += 1
    oracle = _ORACLES.get((kind, n))
    if oracle is None:
        oracle = _ORACLES[kind, n] = make_oracle(kind, n)
    before = oracle.stats()
    stopped = _stop_check(token)
    begin, cpu = time.perf_counter(), time.thread_time()
    end = math.inf if budget is None else begin + budget
    answer = oracle.begin(list(placed), -1, n)
    while answer is None and not stopped() and (time.perf_counter() < end or _queued()):
        answer = oracle.step()
    after = oracle.stats()
    spent = {k: v - before.get(k, 0) for k, v in after.items()}
    spent["cube_cpu_ms"] = round(1000 * (time.thread_time() - cpu))
    spent["cube_wall_ms"] = round(1000 * (time.perf_counter() - begin))
    return answer, (oracle.model() if answer else None), spent


# ---- the cubes ---------------------------------------------------------------------


def children(board: _Board, n: int, placed: Key, row: int, limit: int
             ) -> tuple[list[Key], int]:
    """The cubes one row deeper than ``placed``: row ``row`` (when it is free; its columns
    below ``limit``), else the first free row, on each column that leaves a board the
    propagation and the diagonal sums do not refute. Also how many were refuted on sight.
    An empty list: ``placed`` has no free row left (it is a solution)."""
    taken = {r for r, _ in placed}
    if row >= 0 and row not in taken:
        nxt, top = row, limit
    else:
        nxt = next((r for r in range(n) if r not in taken), -1)
        top = n
    if nxt < 0:
        return [], 0
    from nqmip.lex import descent_kernels as k

    out: list[Key] = []
    refuted = 0
    for c in range(top):
        if any(c == q or abs(c - q) == abs(nxt - r) for r, q in placed):
            continue
        cube = tuple(sorted((*placed, (nxt, c))))
        if board.setup(list(cube), -1, n, False, SUMS) == k.EXHAUSTED:
            refuted += 1
            continue
        out.append(cube)
    return out, refuted


class Workers(TaskPool):
    """Where cubes are conquered: a pool of ``workers`` local processes (default: the
    cores), or the worker threads of the Dask ``scheduler`` (an address or a
    ``distributed.Client``, opened by :func:`nqmip.cluster.open_cluster`: an address
    nobody answers at raises :class:`nqmip.cluster.ClusterError`; a client it opens it
    closes), with the stop mark the workers look at. One pool serves any number of
    :class:`CubeOracle` in turn. A :class:`nqmip.cluster.TaskPool`: a cube lost with a
    dead process is asked again of a new pool, a cube that had finished is not."""

    def __init__(self, workers: int | None = None, scheduler: Any = None) -> None:
        self._client: Any = None
        self._stop: Any = None
        self._counts: Any = None
        self._event = f"nqmip-lex-{uuid.uuid4().hex}"
        self._scheduler = scheduler
        self.qid = 0
        self._warm: list[Future[Any]] = []
        self._cluster = ExitStack()
        executor = None
        count = workers or cores()
        if scheduler is not None:  # the package's one way to a cluster (its connect
            # timeout, ClusterError for an address nobody answers at)
            from nqmip.cluster import open_cluster

            cluster = self._cluster.enter_context(open_cluster(scheduler))
            try:
                self._client = cluster.client
                count = cluster.slots
                executor = self._client.get_executor(pure=False)
            except BaseException:  # the client opened for an address closed again
                self._cluster.close()
                raise
        super().__init__(count, executor=executor, context=multiprocessing.get_context("spawn"),
                         initializer=_init, initargs=self._marks, restarts=RESTARTS,
                         what="the cube pool")
        self.count = count

    def _marks(self) -> tuple[Any, Any]:
        """A new local pool's stop mark (the question still wanted) and counts."""
        context = multiprocessing.get_context("spawn")
        self._stop = context.Value("q", self.qid)
        self._counts = context.Array("q", 2)
        return self._stop, self._counts

    def started(self, executor: Executor) -> None:
        """Every worker of a new local pool loads the kernels (a second or more each)."""
        self._warm = [self.send(conquer, "first-fail", 8, (), None, ("value", self.qid))
                      for _ in range(self.count)]
        self.counted(self.count)

    def counted(self, tasks: int) -> None:
        if self._counts is not None:
            with self._counts.get_lock():
                self._counts[0] += tasks

    def withdraw(self, futures: list[Future[Any]] | None = None) -> int:
        """Cancel ``futures`` (None: every pending cube); the ones no worker will start
        are no longer counted."""
        gone = super().withdraw(futures)
        if self._counts is not None and gone:
            with self._counts.get_lock():
                self._counts[0] -= gone
        return gone

    def ready(self) -> None:
        """Start the pool and wait until its workers have loaded the kernels."""
        self.executor  # noqa: B018 - started on first use
        wait(self._warm)

    def next_question(self) -> tuple[str, Any]:
        """A new question's stop token (the workers of earlier ones stop)."""
        self.qid += 1
        if self._scheduler is not None:
            return ("event", f"{self._event}-{self.qid}")
        if self._stop is not None:
            self._stop.value = self.qid
        return ("value", self.qid)

    def halt(self, token: tuple[str, Any]) -> None:
        """Stop the workers on the question of ``token``."""
        if self._scheduler is None:
            if self._stop is not None and int(self._stop.value) == token[1]:
                self._stop.value = -1
            return
        from distributed import Event

        Event(token[1], client=self._client).set()

    def close(self, wait_for: bool = True) -> None:
        """End the pool (or the Dask client opened)."""
        if self._stop is not None:
            self._stop.value = -1
        super().close(wait_for)  # halted by their questions; Dask stops no future
        self._cluster.close()  # the client opened for an address (one given stays open)


class CubeOracle:
    """An oracle of the descent (the same interface) that asks a question of ``kind``'s
    oracle in this process first and splits it into cubes for ``workers`` (a
    :class:`Workers`) when it takes longer than ``split_after`` seconds (0: every question
    not answered by propagation alone is split at once). ``record`` (a
    :class:`nqmip.lex.record.CubeRecord`) keeps every answer as it comes: a question it
    holds is answered from it, a cube it holds refuted is not asked again. :meth:`close`
    stops its cubes. With ``log``, :attr:`log` says what each split question and each cube
    cost (seconds since the oracle was made), for ``benchmarks/simulate_cubes.py``."""

    def __init__(self, kind: str, n: int, workers: Workers,
                 split_after: float = SPLIT_AFTER, cube_budget: float = CUBE_BUDGET,
                 max_depth: int = MAX_DEPTH, record: CubeRecord | None = None,
                 log: bool = False) -> None:
        self.kind = kind
        self.n = n
        self.pool = workers
        self.workers = workers.count
        self.inner = make_oracle(kind, n)
        self.name = f"{self.inner.name} cubes"
        self.proves_row = self.inner.proves_row
        self.split_after = split_after
        self.cube_budget = cube_budget
        self.max_depth = max_depth
        self._board = _Board(n)
        self.record = record
        self._refuted: set[Key] = set() if record is None else set(record.cubes)
        self._parent: dict[Key, Key | None] = {}
        self._open: dict[Key, int] = {}
        self._question: tuple[Key, int, int] = ((), -1, n)
        self._token: tuple[str, Any] = ("value", 0)
        self._split = False
        self._split_at = 0.0
        self._began = 0.0
        self._model: tuple[int, ...] = ()
        self.counters = {"cube_questions": 0, "cubes": 0, "cubes_refuted": 0,
                         "cubes_on_sight": 0, "cubes_split": 0, "cubes_reused": 0,
                         "cube_wins": 0, "cubes_rerun": 0, "questions_recorded": 0}
        self._worker_stats: dict[str, int] = {}
        self.log: list[dict[str, Any]] | None = [] if log else None
        self._clock = time.perf_counter()
        self._ids: dict[Key, int] = {}  # the cubes of the question, numbered
        self._sent: dict[Key, tuple[int, float]] = {}  # not collected: depth, when sent

    # -- the oracle's interface

    def begin(self, placed: Placed, row: int, limit: int) -> bool | None:
        self._halt()
        self._token = self.pool.next_question()
        self._question = (tuple(sorted(placed)), row, limit)
        self._split = False
        self._began = time.perf_counter()
        self.proves_row = self.inner.proves_row
        known = None if self.record is None else self.record.known(*self._question)
        if known is not None:  # answered before the run was stopped
            self.counters["questions_recorded"] += 1
            said, self._model, self.proves_row = known
            return said
        answer = self.inner.begin(placed, row, limit)
        if answer:
            self._model = self.inner.model()
        if answer is None and self.split_after <= 0:
            return self._kept(self._split_question())
        return self._kept(answer)

    def step(self) -> bool | None:
        if not self._split:
            answer = self.inner.step()
            if answer is not None:
                if answer:
                    self._model = self.inner.model()
                return self._kept(answer)
            if time.perf_counter() - self._began < self.split_after:
                return None
            return self._kept(self._split_question())
        return self._kept(self._collect())

    def _kept(self, answer: bool | None) -> bool | None:
        """``answer`` to the question, in the record (and the log, if split) when kept."""
        if answer is not None and self.record is not None:
            self.record.question(*self._question, answer, self._model, self.proves_row)
        if answer is not None and self._split and self.log is not None:
            _, row, limit = self._question
            self.log.append({"question": self.pool.qid, "row": row, "limit": limit,
                             "asked": round(self._began - self._clock, 4), "split": self._split_at,
                             "ended": self._now(), "answer": answer})
        return answer

    def _logged(self, cube: Key, depth: int, answer: Any, sent: float,
                spent: dict[str, int]) -> None:
        if self.log is None:
            return
        parent = self._ids.get(self._parent.get(cube) or ())
        self.log.append({"question": self.pool.qid, "cube": self._ids.get(cube, -1),
                         "parent": parent, "depth": depth, "answer": answer, "sent": sent,
                         "done": self._now(), "cpu": spent.get("cube_cpu_ms", 0) / 1000,
                         "wall": spent.get("cube_wall_ms", 0) / 1000})

    def _now(self) -> float:
        return round(time.perf_counter() - self._clock, 4)

    def model(self) -> tuple[int, ...]:
        return self._model

    def stats(self) -> dict[str, int]:
        out = dict(self.inner.stats())
        for k, v in self._worker_stats.items():
            out[k] = out.get(k, 0) + v
        out.update(self.counters)
        out["cube_workers"] = self.workers
        return out

    def close(self) -> None:
        """Stop the cubes still running (the pool stays)."""
        self._halt()

    # -- the cubes of one question

    def _halt(self) -> None:
        """Stop the cubes of the current question (cancel the waiting, mark the rest)."""
        for cube, (depth, sent) in self._sent.items():  # the log: stopped, time unknown
            self._logged(cube, depth, "stopped", sent, {})
        self._sent = {}
        if not self.pool.pending:
            return
        self.pool.withdraw()
        self.pool.halt(self._token)

    def _split_question(self) -> bool | None:
        """The question into cubes, row by row until there are enough of them."""
        self._split = True
        self._split_at = self._now()
        self._ids = {}
        self.counters["cube_questions"] += 1
        _, row, limit = self._question
        root = self._root()
        self._parent = {root: None}
        self._open = {}
        level = [root]
        depth = 0
        want = CUBES_PER_WORKER * self.workers
        while level and depth < self.max_depth:
            deeper: list[Key] = []
            for cube in level:
                deeper += self._expand(cube, row, limit)
            level = deeper
            depth += 1
            if len(level) >= want:
                break
        for cube in level:
            self._submit(cube, depth)
        return self._settled()

    def _expand(self, cube: Key, row: int, limit: int) -> list[Key]:
        """``cube``'s children, the ones refuted before or on sight counted as refuted."""
        base = self._question[0] if cube == self._root() else cube
        kids, on_sight = children(self._board, self.n, base, row, limit)
        self.counters["cubes_on_sight"] += on_sight
        fresh = []
        for kid in kids:
            if kid in self._refuted:
                self.counters["cubes_reused"] += 1
            else:
                self._parent[kid] = cube
                fresh.append(kid)
        self._open[cube] = len(fresh)
        if not fresh:
            self._refute(cube)
        return fresh

    def _submit(self, cube: Key, depth: int) -> None:
        budget = None if depth >= self.max_depth else self.cube_budget
        if self.record is not None:
            self.record.asked(cube)
        self.pool.submit((cube, depth), conquer, self.kind, self.n, cube, budget,
                         self._token)
        self._ids[cube] = self.counters["cubes"]
        self._sent[cube] = (depth, self._now())
        self.counters["cubes"] += 1

    def _refute(self, cube: Key) -> None:
        """``cube`` has no completion; so has its parent once all its children are
        refuted."""
        while True:
            self._refuted.add(cube)
            if self.record is not None and cube[0][0] >= 0:  # a cube, not the question
                self.record.cube(cube)
            parent = self._parent.get(cube)
            if parent is None:
                return
            self._open[parent] -= 1
            if self._open[parent] > 0:
                return
            cube = parent

    def _root(self) -> Key:
        """The key of the question itself (no set of queens: its row is restricted)."""
        return ((-1, self.pool.qid),)

    def _settled(self) -> bool | None:
        """False once the question is refuted (every cube), else None."""
        return False if self._root() in self._refuted else None

    def _collect(self) -> bool | None:
        """The cubes that ended within WAIT seconds: a yes answers the question, a
        refutation counts, a cube out of budget is split by one more row."""
        rerun = self.pool.rerun  # a worker died: the cubes it lost asked again, only those
        done = self.pool.finished(WAIT)
        self.counters["cubes_rerun"] += self.pool.rerun - rerun
        for key, (answer, model, spent) in done:
            cube: Key = key[0]  # type: ignore[index]
            depth: int = key[1]  # type: ignore[index]
            for k, v in spent.items():
                self._worker_stats[k] = self._worker_stats.get(k, 0) + v
            self._logged(cube, depth, answer, self._sent.pop(cube, (0, 0.0))[1], spent)
            if answer:
                self.counters["cube_wins"] += 1
                self._model = tuple(model or ())
                self._proves(self._model)
                self._halt()
                return True
            if answer is False:
                self.counters["cubes_refuted"] += 1
                self._refute(cube)
            else:
                self.counters["cubes_split"] += 1
                for kid in self._expand(cube, *self._question[1:]):
                    self._submit(kid, depth + 1)
        return self._settled()

    def _proves(self, model: tuple[int, ...]) -> None:
        """A yes settles the asked row when every column left of the model's is refuted
        (each first-level cube, or the square refuted on sight)."""
        placed, row, _ = self._question
        if row < 0:
            self.proves_row = False
            return
        kids, _ = children(self._board, self.n, placed, row, model[row])
        self.proves_row = all(kid in self._refuted for kid in kids)
