"""``nqmip-compare``: run a grid of (n, method, repeat) cells and compare the methods the way
the field does: time to target, time to best, each run's curve, and a report.

Every run happens in its own process (``python -m nqmip.compare --worker RESULT``, the task
on standard input) with a *hard* time limit: the solver gets ``--time-limit`` seconds and
the process is killed, with its whole process group, ``--grace`` seconds later (or after
``--hard-limit`` seconds). A solver that hangs, aborts or runs out of memory costs one
cell, recorded with status ``timeout`` or ``crashed``; an exception raised by
:func:`nqmip.solve` (a bad parameter value, a verification failure) is recorded as
``error`` with its message, shown in one line, and the sweep exits 1. What can be refused
before the sweep is (:mod:`~nqmip.compare.checks`): unknown parameters, unavailable
methods, outputs that cannot be written.

On each board the exact methods and auto run first; the best they found (a proven optimum,
else the best objective) is the heuristics' target (``--target auto``), and a heuristic
stops as soon as it reaches it (:mod:`~nqmip.compare.schedule`). Each run is then measured
against its board's reference (:mod:`~nqmip.compare.measures`): reached or not, time to
target, time to best, gap to the board's best bound, primal integral.

Rows (a cell's fields plus ``Result.to_dict()``) are appended to ``--output`` (JSON Lines)
and flushed as each run finishes, so an interrupted sweep loses nothing; ``--resume FILE``
skips the cells already in ``FILE``. With ``--workers N`` (a local Dask cluster) or
``--scheduler ADDRESS`` the same cells run on Dask workers, each worker still starting one
process per run: the rows have the same form as a local run.

The modules: :mod:`~nqmip.compare.grid` (cells), :mod:`~nqmip.compare.harness` (one run in
its own process), :mod:`~nqmip.compare.store` (records files),
:mod:`~nqmip.compare.schedule` and :mod:`~nqmip.compare.runners` (the order, local and
Dask), :mod:`~nqmip.compare.progress`, :mod:`~nqmip.compare.measures`,
:mod:`~nqmip.compare.summary`, :mod:`~nqmip.compare.tables` and
:mod:`~nqmip.compare.verdict` (the conclusions), :mod:`~nqmip.compare.console`, the pictures
(:mod:`~nqmip.compare.canvas`, :mod:`~nqmip.compare.figures`, :mod:`~nqmip.compare.plot`),
:mod:`~nqmip.compare.report` and :mod:`~nqmip.compare.cli` (the command). Pyomo,
OR-Tools, numba, matplotlib and Dask are imported only when needed, so ``--help`` and bad
input answer at once.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from nqmip.compare.summary import summarize
    from nqmip.compare.tables import summary_csv, summary_markdown

#: Where each public name lives, imported on first use: ``python -m nqmip.compare``
#: imports this package before its ``__main__`` can hear a stop (Ctrl-C while numpy
#: loaded was a KeyboardInterrupt traceback).
_HOMES = {
    **dict.fromkeys(("build_parser", "main"), "cli"),
    **dict.fromkeys(("Cell", "UsageError", "build_grid", "parse_sizes"), "grid"),
    **dict.fromkeys(("FAULT_ENV", "HARNESS_STATUSES", "ROW_FIELDS", "Outcome", "run_cell",
                     "run_in_process"), "harness"),
    **dict.fromkeys(("RowWriter", "read_rows"), "store"),
    "summarize": "summary",
    **dict.fromkeys(("summary_csv", "summary_markdown"), "tables"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'nqmip.compare' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"nqmip.compare.{home}"), name)
    globals()[name] = value
    return value


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


def entry() -> None:
    """The console command ``nqmip-compare``: :func:`main`'s status, by
    :func:`nqmip.cli.streams.leave`."""
    from nqmip.cli.streams import leave
    from nqmip.compare.cli import main

    leave(main())
