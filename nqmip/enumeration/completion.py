"""The complete search for the completions of pre-placed queens on the free board
(:func:`search_free_board`, numba kernels in :mod:`nqmip.enumeration.completion_kernels`);
the CSPLib files that pose such instances are read by :mod:`nqmip.instances.csplib`."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from nqmip.budget import Deadline
from nqmip.chunks import run_chunks
from nqmip.instance import Instance, InstanceError
from nqmip.result import Termination

if TYPE_CHECKING:  # pragma: no cover
    from nqmip.result import Result


# --- a complete search on the free board ---------------------------------------------------


@dataclass(frozen=True)
class Search:
    """The outcome of :func:`search_free_board`: ``placement`` (the full board's, fixed
    queens included) when one was found, ``exhausted`` when the whole tree was seen (then
    ``count`` is the number of completions), ``nodes`` visited, seconds taken."""

    placement: tuple[int, ...] | None
    exhausted: bool
    count: int
    nodes: int
    seconds: float
    #: Why a search that neither found nor exhausted stopped (``time_limit`` or
    #: ``interrupted``: a cancelled deadline, Ctrl-C); None otherwise.
    stopped_by: Termination | None = None


#: Nodes per kernel call between two looks at the deadline.
SEARCH_CHUNK = 200_000
#: Largest number of free rows the kernels take (a row's columns are the bits of one int64,
#: sign bit unused): their capacity, spelled here rather than in the kernel module so that
#: reading it (auto's policy does) does not import numba.
MAX_FREE = 62


def warm_up() -> None:
    """Compile (or load from numba's cache) the completion search's kernels: one search on
    a small board with a fixed queen (auto's first incumbent with fixed queens; part of the
    solve command's ``--warm-up``, :data:`nqmip.methods.OTHER_KERNELS`)."""
    from nqmip.instance import make_instance

    search_free_board(make_instance(5, None, [(0, 0)]))


def check_free(instance: Instance) -> None:
    """Refuse more than ``MAX_FREE`` free rows before anything is built or compiled (the
    free board has n x n cells: nqmip-count --n 100000 --fix e1 asked numpy for 74.5 GiB)."""
    free = instance.n - len(instance.fixed)
    if free > MAX_FREE:
        raise InstanceError(f"n = {instance.n} with {len(instance.fixed)} fixed queens "
                            f"leaves {free} free rows: the completion search takes at most "
                            f"{MAX_FREE}")


def _prepared(instance: Instance) -> Any:
    """The kernel's state at the root of ``instance``'s free board (``(board, attack,
    avail, rows_st, cols_st, cand_r, cand_c, ncand, idx, meta)``), or the :class:`Search`
    that settles it at once (no free row, or a row or column with no square left)."""
    from nqmip.board import free_board
    from nqmip.enumeration import completion_kernels as k

    check_free(instance)
    board = free_board(instance)
    f = int(board.rows.size)
    if f == 0 or board.blocked() is not None:
        placement = board.placement([]) if f == 0 else None
        return Search(placement, True, int(f == 0), 0, 0.0)
    r = np.searchsorted(board.rows, board.cell_row).astype(np.int64)
    c = np.searchsorted(board.cols, board.cell_col).astype(np.int64)
    avail = np.zeros((f + 1, f), dtype=np.int64)
    np.bitwise_or.at(avail[0], r, np.left_shift(np.int64(1), c))
    attack = np.zeros((f * f, f), dtype=np.int64)
    diag = board.cell_row - board.cell_col
    anti = board.cell_row + board.cell_col
    same = ((diag[:, None] == diag[None, :]) | (anti[:, None] == anti[None, :])) \
        & (r[:, None] != r[None, :])
    src, dst = np.nonzero(same)
    np.bitwise_or.at(attack, (r[src] * f + c[src], r[dst]), np.left_shift(np.int64(1), c[dst]))
    rows_st = np.zeros(f + 1, np.int64)
    cols_st = np.zeros(f + 1, np.int64)
    cand_r = np.zeros((f + 1, f), np.int64)
    cand_c = np.zeros((f + 1, f), np.int64)
    ncand = np.zeros(f + 1, np.int64)
    idx = np.zeros(f + 1, np.int64)
    meta = np.zeros(4, np.int64)
    k.start(avail, rows_st, cols_st, cand_r, cand_c, ncand, idx, meta)
    return board, attack, avail, rows_st, cols_st, cand_r, cand_c, ncand, idx, meta


def _found(board: Any, instance: Instance, cand_r: np.ndarray, cand_c: np.ndarray,
           idx: np.ndarray, depth: int) -> tuple[int, ...]:
    """The full board's placement of the completion the kernel has just found."""
    cols = dict(board.fixed)
    for d in range(depth + 1):
        j = int(idx[d]) - 1
        cols[int(board.rows[cand_r[d, j]])] = int(board.cols[cand_c[d, j]])
    return tuple(cols[i] for i in range(instance.n))


def each_completion(instance: Instance) -> Iterator[tuple[int, ...]]:
    """Every completion of ``instance``'s fixed queens, one at a time, in the search's
    order (first-fail on rows and columns, not lexicographic): the listing of
    :func:`nqmip.solutions` beyond the bitboards' n = 32. Raises InstanceError beyond
    ``MAX_FREE`` free rows where it is called, not at the first ``next()``."""
    return _each(instance, _prepared(instance))


def _each(instance: Instance, prepared: Any) -> Iterator[tuple[int, ...]]:
    from nqmip.enumeration import completion_kernels as k

    if isinstance(prepared, Search):
        if prepared.placement is not None:
            yield prepared.placement
        return
    board, attack, avail, rows_st, cols_st, cand_r, cand_c, ncand, idx, meta = prepared
    while True:
        code = int(k.run(attack, avail, rows_st, cols_st, cand_r, cand_c, ncand, idx, meta,
                         SEARCH_CHUNK, True))
        if code == 1:
            yield _found(board, instance, cand_r, cand_c, idx, int(meta[k.DEPTH]))
        elif code == 2:
            return


def search_free_board(instance: Instance, deadline: Deadline | None = None, *,
                      first: bool = True) -> Search:
    """A complete search for completions of ``instance``'s fixed queens on its free board
    (:mod:`nqmip.enumeration.completion_kernels`: first-fail over rows and columns); the
    first one with ``first``, else all of them counted. Stops at ``deadline`` (then neither
    found nor exhausted), in chunks of ``SEARCH_CHUNK`` nodes through the one chunk loop
    (:func:`nqmip.chunks.run_chunks`). Raises InstanceError beyond ``MAX_FREE`` free rows."""
    from nqmip.enumeration import completion_kernels as k

    begin = time.perf_counter()
    prepared = _prepared(instance)
    if isinstance(prepared, Search):
        return replace(prepared, seconds=time.perf_counter() - begin)
    board, attack, avail, rows_st, cols_st, cand_r, cand_c, ncand, idx, meta = prepared
    code = [0]  # the kernel's last answer: 1 found, 2 exhausted, 0 stopped at its budget

    def chunk() -> Termination | None:
        code[0] = int(k.run(attack, avail, rows_st, cols_st, cand_r, cand_c, ncand, idx, meta,
                            SEARCH_CHUNK, first))
        return Termination.SOLUTION_FOUND if code[0] else None

    why = run_chunks(chunk, Deadline(None) if deadline is None else deadline)
    found, nodes = int(meta[k.FOUND]), int(meta[k.NODES])
    if code[0] == 1:
        placement = _found(board, instance, cand_r, cand_c, idx, int(meta[k.DEPTH]))
        return Search(placement, False, found, nodes, time.perf_counter() - begin)
    if code[0] == 2:
        return Search(None, True, found, nodes, time.perf_counter() - begin)
    return Search(None, False, found, nodes, time.perf_counter() - begin, stopped_by=why)


def count_free(n: int | Instance, fixed: object = None) -> tuple[
        int, int, int, bool, tuple[tuple[int, int], ...], float, float, str]:
    """Completions of ``fixed`` counted on the free board, at any n (up to ``MAX_FREE``
    free rows), as the fields of :class:`nqmip.enumeration.count.Count`: ``count_solutions`` uses it
    beyond the bitboards' n = 32 (a CSPLib prob079 board of 5,000 rows). Ctrl-C stops the
    search within a chunk, as :class:`~nqmip.enumeration.count_tasks.CountInterrupted`
    with the completions found so far."""
    from nqmip.instance import make_instance

    instance = make_instance(n, None, fixed)  # type: ignore[arg-type]
    check_free(instance)
    begin = time.perf_counter()
    search_free_board(make_instance(4, None, {0: 1}), first=False)  # compile or cache load
    compile_time = time.perf_counter() - begin
    found = search_free_board(instance, first=False)
    if not found.exhausted:  # Ctrl-C: the search stopped at a chunk, its count a part
        from nqmip.enumeration.count_tasks import CountInterrupted

        raise CountInterrupted(found.count, found.count, what="completions")
    return (instance.n, found.count, found.count, False, instance.fixed, found.seconds,
            compile_time, "free board (numba, first-fail on rows and columns)")


def search_result(instance: Instance, deadline: Deadline | None = None,
                  seed: int | None = None) -> Result:
    """:func:`search_free_board` as a verified :class:`~nqmip.result.Result` (``auto``'s
    answer to a feasibility completion with at most ``MAX_FREE`` free rows): a placement
    (optimal: n queens), infeasible when the tree is exhausted, unknown at the deadline."""
    from nqmip.outcome import search_result as outcome

    found = search_free_board(instance, deadline)
    return outcome(instance, "completion search", found.placement,
                   complete=found.placement is not None, exhausted=found.exhausted,
                   stopped_by=found.stopped_by, nodes=found.nodes, seconds=found.seconds,
                   solver="completion search (first-fail on rows and columns)",
                   found="a completion", seed=seed)
