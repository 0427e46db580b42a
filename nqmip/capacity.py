"""What a solve will need of the machine, judged before anything is allocated.

A board too large for the memory of the machine is refused up front with one line
(:class:`CapacityError`, a ``ValueError``), never met as a ``MemoryError`` half-way or as
a process that grows until the kernel kills it. The estimate is deliberately coarse and
generous; it was measured with ``/usr/bin/time -f %M``: the interpreter with numba,
Pyomo and OR-Tools loaded holds about 230 MB, the permutation searches (auto's quota and
annealing, min-conflicts) about 230 bytes per queen at n = 10^6, dense weights 8 bytes
per square, and a MIP model some kilobytes per variable.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The interpreter with the solver libraries loaded (measured: 220-230 MB).
BASE_BYTES = 256 * 2**20
#: Per queen, for the searches on the permutation encoding (measured ~230 B at n = 10^6).
BYTES_PER_QUEEN = 512
#: Per square, for a dense weight matrix (float64).
BYTES_PER_WEIGHT = 8
#: Per square again, for the copy of a dense matrix of costs the searches read (the
#: maximisation's, :mod:`nqmip.sense`: sa at random n = 25,000 with costs peaked at 9.95 GB,
#: the matrix 5.0 GB; with weights to maximise, 5.07 GB: no copy).
BYTES_PER_SEARCH_WEIGHT = 8
#: Per binary variable of a MIP or CP-SAT model (the solver's copies included).
BYTES_PER_MODEL_VARIABLE = 4096
#: Per entry of a cost table of a pair of free rows (toulbar2's model: one table a pair,
#: one 8-byte cost a pair of their columns, free^4 / 2 entries): peaks measured at random
#: weights, 0.86 GB at n = 120, 2.38 GB at 160 (8 bytes an entry and the interpreter);
#: n = 240 met std::bad_alloc past 7.5 GB, where the generic estimate said 0.6 GB.
BYTES_PER_PAIR_ENTRY = 12
#: Share of the available memory a run may plan to use.
USABLE_SHARE = 0.9


def cores() -> int:
    """The cores this process may run on (its affinity, else the machine's)."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return max(os.cpu_count() or 1, 1)


class CapacityError(ValueError):
    """A board that would not fit in this machine's memory, refused before allocation."""


def available_bytes() -> int | None:
    """Memory the kernel says is available now (``MemAvailable``), or None if unknown."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def estimate_bytes(n: int, *, dense_weights: bool, exact_model: bool,
                   model_rows: int | None = None, pair_tables: bool = False) -> int:
    """A generous estimate of the peak memory of solving an n-board; a model is built on
    the ``model_rows`` rows fixed queens leave free (all n by default), with a table for
    each pair of them (``pair_tables``: toulbar2's)."""
    total = BASE_BYTES + BYTES_PER_QUEEN * n
    if dense_weights:
        total += BYTES_PER_WEIGHT * n * n
    if exact_model:
        free = n if model_rows is None else model_rows
        total += BYTES_PER_MODEL_VARIABLE * free * free
        if pair_tables:
            total += BYTES_PER_PAIR_ENTRY * free * free * (free * (free - 1) // 2)
    return total


def lex_bytes(n: int, method: str) -> int:
    """A generous estimate of the peak memory of ``nqmip.lex_first`` on an n-board by
    ``method``: the first-fail descent keeps two boards of n + 2 levels of n bit rows each
    and a propagation queue of 6 n^2 + 16 n squares (:mod:`nqmip.lex.descent`); the model
    routes (SAT, CP-SAT, Pyomo) a model of n^2 binaries; the row-ordered search
    (:func:`nqmip.lex.search.first_solution`) 2 n + 2 levels of the same rows and the same
    queue (it was counted as O(n): ``--n 200000 --method search`` met numpy's 1.78 PiB
    MemoryError)."""
    total = estimate_bytes(n, dense_weights=False, exact_model=False)
    words = (n + 63) // 64
    queue = 2 * (6 * n * n + 16 * n)
    board = 8 * ((n + 2) * n * (words + 3) + queue)
    if method in ("first-fail", "portfolio"):
        total += 2 * board
    if method == "search":
        total += 8 * ((2 * n + 2) * n * (words + 3) + queue)
    if method not in ("first-fail", "search"):
        total += BYTES_PER_MODEL_VARIABLE * n * n
    return total


def human_bytes(nbytes: float) -> str:
    """1.5 GB, 149.0 TB; beyond petabytes in powers of ten (2.7e+11 PB, not 27 digits)."""
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if nbytes < 1024 or unit == "PB":
            if unit == "B":
                return f"{nbytes:.0f} {unit}"
            return f"{nbytes:.1f} {unit}" if nbytes < 1e4 else f"{nbytes:.2g} {unit}"
        nbytes /= 1024
    return f"{nbytes:.1f} PB"  # pragma: no cover


#: A worker process of a pool or a local Dask cluster: a fresh interpreter that loads
#: numpy, numba and its kernels (a Dask worker of the branch and bound: about 200-230 MB
#: resident; a forked counting worker about 90 MB, most of it shared with its parent).
PROCESS_BYTES = BASE_BYTES
FORKED_PROCESS_BYTES = 128 * 2**20


def check_processes(count: int, *, each: int = PROCESS_BYTES, what: str = "worker") -> None:
    """Raise :class:`CapacityError` when ``count`` processes of about ``each`` bytes would
    not fit in the available memory: ``--workers 256`` started 256 interpreters, which a
    machine of 24 GB cannot hold, and the kernel's out-of-memory killer ended them (or the
    machine's other work) half-way. Refused up front, with how many would fit."""
    have = available_bytes()
    if have is None or count <= 1 or count * each <= USABLE_SHARE * have:
        return
    fit = max(int(USABLE_SHARE * have // each), 1)
    raise CapacityError(
        f"{count} {what} processes need about {human_bytes(count * each)} ({human_bytes(each)} "
        f"each), but this machine has {human_bytes(have)} available: at most {fit}")


def check_fits(n: int, *, dense_weights: bool = False, exact_model: bool = False,
               method: str = "", model_rows: int | None = None, pair_tables: bool = False,
               need: int | None = None, extra: int = 0, extra_for: str = "") -> None:
    """Raise :class:`CapacityError` when an n-board would not fit in available memory
    (``need``: bytes estimated by the caller, e.g. :func:`lex_bytes`; ``extra``: what the
    method holds beyond the board, e.g. the GA's population, ``extra_for`` says what)."""
    if need is None:
        need = estimate_bytes(n, dense_weights=dense_weights, exact_model=exact_model,
                              model_rows=model_rows, pair_tables=pair_tables)
    need += extra
    have = available_bytes()
    if have is None or need <= USABLE_SHARE * have:
        return
    what = method if " " in method else f"method {method}" if method else "this method"
    own = f" ({human_bytes(extra)} of it for {extra_for})" if extra and extra_for else ""
    raise CapacityError(
        f"n = {n} needs about {human_bytes(need)} with {what}{own}, but this machine has "
        f"{human_bytes(have)} available: choose a smaller n"
        + (" or smaller parameters" if "parameters" in extra_for else "")
        + ("" if not exact_model else " or a heuristic (sa, quota, minconflicts)"))
