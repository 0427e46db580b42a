"""``nqmip-compare``: run a grid of (n, method, repeat) cells and compare the methods.

Every run happens in its own process (``python -m nqmip.compare --worker RESULT``, the task
on standard input) with a *hard* time limit: the solver gets ``--time-limit`` seconds and
the process is killed, with its whole process group, ``--grace`` seconds later (or after
``--hard-limit`` seconds). A solver that hangs, aborts or runs out of memory costs one
cell, recorded with status ``timeout`` or ``crashed``; an exception raised by
:func:`nqmip.solve` (an unavailable backend, a verification failure) is recorded as
``error`` with its message.

Rows (a cell's fields plus ``Result.to_dict()``) are appended to ``--output`` (JSON Lines)
and flushed as each run finishes, so an interrupted sweep loses nothing; ``--resume FILE``
skips the cells already in ``FILE``. With ``--workers N`` (a local Dask cluster) or
``--scheduler ADDRESS`` the same cells run on Dask workers, each worker still starting one
process per run: the rows have the same form as a local run.

The modules: :mod:`~nqmip.compare.grid` (cells), :mod:`~nqmip.compare.harness` (one run in
its own process), :mod:`~nqmip.compare.store` (records files), :mod:`~nqmip.compare.runners`
(local and Dask), :mod:`~nqmip.compare.summary` and :mod:`~nqmip.compare.plot`,
:mod:`~nqmip.compare.cli` (the command). Pyomo, OR-Tools, numba, matplotlib and Dask are
imported only when needed, so ``--help`` and bad input answer at once.
"""

from __future__ import annotations

from nqmip.compare.cli import build_parser, main
from nqmip.compare.grid import Cell, UsageError, build_grid, parse_sizes
from nqmip.compare.harness import (
    FAULT_ENV,
    HARNESS_STATUSES,
    ROW_FIELDS,
    Outcome,
    run_cell,
    run_in_process,
)
from nqmip.compare.store import RowWriter, read_rows
from nqmip.compare.summary import summarize, summary_csv, summary_markdown

__all__ = [
    "FAULT_ENV",
    "HARNESS_STATUSES",
    "ROW_FIELDS",
    "Cell",
    "Outcome",
    "RowWriter",
    "UsageError",
    "build_grid",
    "build_parser",
    "main",
    "parse_sizes",
    "read_rows",
    "run_cell",
    "run_in_process",
    "summarize",
    "summary_csv",
    "summary_markdown",
]
