"""The lexicographically first solution by the row-ordered exact search
(:func:`first_solution`), and by any route as a verified :class:`~nqmip.result.Result`
(:func:`lex_first_result`: the descent of :mod:`nqmip.lex.descent` by default).

The search itself is in :mod:`nqmip.lex.kernels` (numba, bitsets of any width, forward
checking and unit propagation on rows and columns, a first-fail prefix oracle). It runs in
chunks of ``CHUNK`` nodes between two looks at the :class:`~nqmip.budget.Deadline` (the one
chunk loop, :func:`nqmip.chunks.run_chunks`), so a time limit or a cancel is heard within a
fraction of a second. Stopped early it reports
the smallest solution it met and the *proven prefix*: how many leading rows of the first
solution are known (every smaller prefix exhausted, this one proven completable).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from nqmip.budget import Deadline
from nqmip.chunks import run_chunks
from nqmip.instance import Instance, make_instance
from nqmip.result import Termination

if TYPE_CHECKING:  # pragma: no cover
    from nqmip.instance import FixedSpec
    from nqmip.lex.descent import Descent
    from nqmip.result import Result

#: Nodes per kernel call between two looks at the deadline (oracle nodes included; one
#: oracle call may add up to ``ORACLE_CAP`` more). n = 34, five cancels each: 200,000
#: heard after 0.09-0.22 s, 5,000 after 0.01-0.17 s; n = 32 solved in 1.85 s either way.
CHUNK = 5_000

#: Largest oracle search per node (nodes); beyond, the node is searched as usual.
ORACLE_CAP = 5_000
#: The largest ``oracle_cap`` taken (the kernel counts nodes in an int64).
ORACLE_CAP_MAX = 2**62


def default_oracle_from(n: int) -> int:
    """The first row from which the prefix oracle is asked: none on small boards (plain
    propagation is quicker there), from the first row on larger ones."""
    return -1 if n < 24 else 0


@dataclass(frozen=True)
class LexSearch:
    """The outcome of :func:`first_solution`.

    ``placement`` is the first solution when ``complete``; otherwise the smallest solution
    met (or None). ``proven_rows`` leading rows of the first solution are proven (``n`` when
    complete; 0 when nothing is known). ``exhausted``: no solution at all (the fixed queens
    leave none). ``nodes`` of the lexicographic search, ``oracle_nodes`` of the oracle's.
    """

    n: int
    placement: tuple[int, ...] | None
    complete: bool
    exhausted: bool
    proven_rows: int
    nodes: int
    oracle_nodes: int
    oracle_calls: int
    oracle_cuts: int
    seconds: float
    oracle_from: int
    #: Why an incomplete search stopped (``time_limit``, ``interrupted``: a cancelled
    #: deadline or Ctrl-C, ``iteration_limit``: ``node_limit``); None when it ended by itself.
    stopped_by: Termination | None = None

    @property
    def proven_prefix(self) -> tuple[int, ...]:
        if self.placement is None:
            return ()
        return self.placement[: self.proven_rows]


def first_solution(n: int | Instance, fixed: FixedSpec = None,
                   deadline: Deadline | None = None, *, oracle_from: int | None = None,
                   oracle_cap: int = ORACLE_CAP, chunk: int = CHUNK,
                   node_limit: int | None = None) -> LexSearch:
    """The lexicographically first solution (row 0 first, smallest column first) among the
    placements that keep ``fixed`` queens, by exact search; stops at ``deadline``.

    ``oracle_from`` is the row from which the prefix oracle runs (-1: never; default
    :func:`default_oracle_from`); ``node_limit`` stops the search after about that many
    nodes (oracle nodes included), as the deadline does."""
    from nqmip.lex import kernels as k

    instance = n if isinstance(n, Instance) else make_instance(n, None, fixed)
    size = instance.n
    begin = time.perf_counter()
    if oracle_from is None:
        oracle_from = default_oracle_from(size)
    words = (size + 63) // 64
    levels = 2 * size + 2
    avail = np.zeros((levels, size, words), np.uint64)
    row_count = np.zeros((levels, size), np.int64)
    col_count = np.zeros((levels, size), np.int64)
    queen = np.full((levels, size), -1, np.int64)
    queue = np.zeros((6 * size * size + 16 * size, 2), np.int64)
    branch_row = np.zeros(levels, np.int64)
    next_col = np.zeros(levels, np.int64)
    line = np.zeros(levels, np.int64)
    pos = np.zeros(levels, np.int64)
    meta = np.zeros(k.META_SIZE, np.int64)
    best = np.full(size, -1, np.int64)
    fixed_rows = np.array(instance.fixed, np.int64).reshape(-1, 2)
    k.start(avail, row_count, col_count, queen, fixed_rows, queue, branch_row, next_col, meta)
    status = int(meta[k.STATUS])
    step = chunk if node_limit is None else max(min(chunk, node_limit // 4), 1000)

    def run_chunk() -> Termination | None:
        nonlocal status
        status = int(k.run(avail, row_count, col_count, queen, queue, branch_row, next_col,
                           line, pos, meta, best, step, oracle_from, oracle_cap))
        if status != k.RUNNING:
            return Termination.SOLUTION_FOUND  # found, exhausted or blocked: status says
        if node_limit is not None and meta[k.NODES] + meta[k.ORACLE_NODES] >= node_limit:
            return Termination.ITERATION_LIMIT
        return None

    stopped_by = None
    if status == k.RUNNING:
        stopped_by = run_chunks(run_chunk, Deadline(None) if deadline is None else deadline)
    placement: tuple[int, ...] | None = None
    complete = status == k.FOUND
    proven = int(meta[k.PROVEN_ROWS])
    if complete:
        placement = tuple(int(c) for c in queen[max(int(meta[k.LEVEL]), 0)])
        proven = size
    elif best[0] >= 0:
        placement = tuple(int(c) for c in best)
    return LexSearch(n=size, placement=placement, complete=complete,
                     exhausted=status in (k.EXHAUSTED, k.BLOCKED), proven_rows=proven,
                     nodes=int(meta[k.NODES]), oracle_nodes=int(meta[k.ORACLE_NODES]),
                     oracle_calls=int(meta[k.ORACLE_CALLS]),
                     oracle_cuts=int(meta[k.ORACLE_CUTS]),
                     seconds=time.perf_counter() - begin, oracle_from=oracle_from,
                     stopped_by=stopped_by if status == k.RUNNING else None)


def _search_params(n: int, oracle_from: Any, oracle_cap: Any) -> tuple[int | None, int | None]:
    """The search route's parameters as whole numbers in their ranges: TypeError or
    ValueError in one line (a string met numba's typing error, many lines in colour; -5
    was read as never, 1.5 compiled a float kernel)."""
    from nqmip.option_types import number

    if oracle_from is not None:
        oracle_from = number(oracle_from, "oracle_from", whole=True)
        if not -1 <= oracle_from < n:
            raise ValueError(f"oracle_from is a row from 0 to {n - 1}, or -1 (never), got "
                             f"{oracle_from}")
    if oracle_cap is not None:
        oracle_cap = number(oracle_cap, "oracle_cap", whole=True)
        if not 1 <= oracle_cap <= ORACLE_CAP_MAX:
            raise ValueError(f"oracle_cap is a number of nodes from 1 to {ORACLE_CAP_MAX}, "
                             f"got {oracle_cap}")
    return oracle_from, oracle_cap


def lex_first_result(instance: Instance, deadline: Deadline, seed: int | None = None, *,
                     oracle: str | None = None, oracle_from: int | None = None,
                     oracle_cap: int | None = None, workers: int | None = None,
                     scheduler: Any = None, record: str | Path | None = None) -> Result:
    """The first solution as a verified :class:`~nqmip.result.Result`.

    ``oracle`` chooses the route: the lexicographic descent of :mod:`nqmip.lex.descent`
    with its prefix oracle ``"first-fail"`` (numba, the default), ``"sat"`` (incremental
    CaDiCaL, python-sat) or ``"portfolio"`` (both in turns); or ``"search"``, the
    row-ordered search of :func:`first_solution` (``oracle_from`` and ``oracle_cap`` are
    its parameters, and giving one of them without ``oracle`` chooses it).

    ``workers`` (processes, the local cores) or ``scheduler`` (a Dask scheduler address or
    ``distributed.Client``) answer the descent's hard questions by cube-and-conquer
    (:mod:`nqmip.lex.cubes`): a question not answered within a second is split into cubes
    conquered in parallel by the same oracle ("first-fail" or "sat"). ``record`` (a file)
    keeps each answer of the cube-and-conquer as it comes (:mod:`nqmip.lex.record`): a run
    given the same file, killed or stopped before, answers what it holds from it and
    asks no refuted cube again (on the local cores without ``workers``).

    ``status`` optimal: ``placement`` is the first solution (``extra["proven_rows"] == n``);
    feasible: stopped at the limit, ``placement`` the smallest solution met and its first
    ``extra["proven_rows"]`` rows those of the first solution, proven; infeasible: the fixed
    queens leave no solution. ``objective`` is None (the order is lexicographic, not a
    number); ``method`` says the route (``"lex-first first-fail"``, ``"lex-first search"``).
    """
    from nqmip.lex.descent import DEFAULT_ORACLE

    if oracle is None:
        oracle = "search" if (oracle_from, oracle_cap) != (None, None) else DEFAULT_ORACLE
    if oracle != "search":
        if (oracle_from, oracle_cap) != (None, None):
            raise TypeError(f"oracle_from and oracle_cap are parameters of the 'search' "
                            f"route, not of the {oracle!r} oracle")
        if oracle == DEFAULT_ORACLE and (workers, scheduler, record) == (None, None, None):
            plain = _first_run(instance, deadline)
            if plain is not None:
                return plain
        run = _descend(instance, oracle, deadline, workers, scheduler, record)
        if oracle == DEFAULT_ORACLE:  # its kernels are in numba's cache now
            from nqmip.warmup import mark_ready

            mark_ready(DESCENT_MARK, "descent")
        extra: dict[str, object] = {"oracle": run.oracle, "questions": run.questions,
                                    "improvements": run.improvements, **run.stats}
        return _lex_result(instance, seed, run.placement, run.complete, run.exhausted,
                           run.proven_rows, run.stopped_by, run.seconds, None,
                           f"{run.questions} questions to the {run.oracle} oracle "
                           f"({run.improvements} answered by a smaller solution)",
                           f"lex-first descent ({run.oracle})", extra)
    if (workers, scheduler, record) != (None, None, None):
        raise TypeError("workers, scheduler and record split the descent's questions into cubes: "
                        "the 'search' route takes neither")
    oracle_from, oracle_cap = _search_params(instance.n, oracle_from, oracle_cap)
    found = first_solution(instance, deadline=deadline, oracle_from=oracle_from,
                           oracle_cap=ORACLE_CAP if oracle_cap is None else oracle_cap)
    extra = {"oracle": "search", "oracle_nodes": found.oracle_nodes,
             "oracle_calls": found.oracle_calls, "oracle_cuts": found.oracle_cuts,
             "oracle_from": found.oracle_from}
    return _lex_result(instance, seed, found.placement, found.complete, found.exhausted,
                       found.proven_rows, found.stopped_by, found.seconds, found.nodes,
                       f"{found.nodes} nodes", "lex-first search (propagation + "
                       "first-fail prefix oracle)", extra)


#: The descent's kernels, marked compiled by a run of it (or by ``--warm-up``'s "any").
DESCENT_MARK = "nqmip.lex.search:warm_up"
#: A first run (the descent's kernels not marked compiled) under a limit searches in plain
#: Python first (:mod:`nqmip.lex.plain`) for at most this long or this share of the limit.
PLAIN_SECONDS = 2.0
PLAIN_SHARE = 0.3


def _first_run(instance: Instance, deadline: Deadline) -> Result | None:
    """On a first run under a limit, the plain search's answer when it settles the question
    within its slice (the first solution, or none); None otherwise (the descent runs)."""
    from nqmip.lex.plain import plain_first
    from nqmip.warmup import is_ready

    if not deadline.limited or is_ready(DESCENT_MARK, "descent"):
        return None
    found = plain_first(instance, deadline.sub(PLAIN_SECONDS, share=PLAIN_SHARE))
    if found.placement is None and not found.exhausted:
        return None
    solver = "lex-first plain search (the descent's kernels not compiled yet)"
    return _lex_result(instance, None, found.placement, found.placement is not None,
                       found.exhausted, instance.n if found.placement else 0, None,
                       found.seconds, found.nodes, f"{found.nodes} nodes", solver,
                       {"oracle": "plain"})


def _descend(instance: Instance, oracle: str, deadline: Deadline, workers: int | None,
             scheduler: Any, record: str | Path | None = None) -> Descent:
    """The descent with ``oracle``, by cube-and-conquer when ``workers``, ``scheduler`` or
    ``record`` is given (the pool ended when the descent ends)."""
    from nqmip.lex.descent import descend, make_oracle
    from nqmip.methods import LEX_CUBE_ROUTES

    if workers is None and scheduler is None and record is None:
        return descend(instance, make_oracle(oracle, instance.n), deadline)
    if oracle not in LEX_CUBE_ROUTES:
        raise ValueError(f"cube-and-conquer (workers, scheduler) splits the questions of "
                         f"the 'first-fail' or 'sat' oracle, not of {oracle!r}")
    from nqmip.lex.cubes import CubeOracle, Workers
    from nqmip.lex.record import CubeRecord

    kept = None if record is None else CubeRecord(record, instance.n)
    try:
        pool = Workers(workers, scheduler)
        try:  # the pool (a cluster's client) closed whatever fails, the oracle's set-up too
            cubes = CubeOracle(oracle, instance.n, pool, record=kept)
            try:
                return descend(instance, cubes, deadline)
            finally:
                cubes.close()
        finally:  # a stopped descent's pool is ended, not waited for: its processes may
            # be loading the kernels (seconds, deaf to the stop mark), and the answer waited
            # past the watchdog's grace: no row and no placement (n = 36, a Ctrl-C 1 s after
            # the pool started)
            pool.close(wait_for=not deadline.expired())
    finally:
        if kept is not None:
            kept.close()


def _lex_result(instance: Instance, seed: int | None, placement: tuple[int, ...] | None,
                complete: bool, exhausted: bool, proven_rows: int,
                stopped_by: Termination | None, seconds: float, nodes: int | None,
                work: str, solver: str, extra: dict[str, object]) -> Result:
    """One route's outcome as a verified Result (:func:`nqmip.outcome.make_result`; the
    shape is the same for every route): ``extra["proven_rows"]`` leading rows proven."""
    from nqmip.outcome import make_result, search_termination, stopped_words
    from nqmip.result import Counters, Provenance, Timing

    termination = search_termination(complete, exhausted, stopped_by)
    if complete:
        message = f"the first solution, after {work}"
    elif exhausted:
        message = f"no solution: the search is exhausted after {work}"
    else:
        message = (f"{stopped_words(termination)} after {work}: the first {proven_rows} "
                   "rows are proven")
    proven = complete or exhausted
    method = f"lex-first {extra.get('oracle', 'search')}"
    return make_result(
        instance, method, placement, termination, solver=solver, proven=proven, seed=seed,
        scored=False, message=message, timing=Timing(wall=seconds),
        counters=Counters(nodes=nodes),
        provenance=Provenance(plan=(solver,), proof="solver" if proven else None,
                              incumbent_source=solver if placement is not None else None),
        extra={"proven_rows": proven_rows, **extra})


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernels of both numba routes of
    :func:`lex_first_result` on a small board: the descent's first-fail oracle and the
    row-ordered search with its prefix oracle (asked from the first row)."""
    instance = make_instance(8)
    lex_first_result(instance, Deadline(None))
    first_solution(instance, oracle_from=0)
