"""Records files: rows as JSON Lines, appended, flushed and fsynced one by one, so an
interrupted sweep loses nothing; read back with the older keys mapped to today's.

A row is a cell's fields plus ``Result.to_dict()`` (:mod:`nqmip.compare.harness`). Older
records are read as today's rows:

- rows of ``nqmip-compare`` before the rows became ``Result.to_dict()`` kept the instance's
  name under ``instance``: it is ``weights_name`` now;
- ``Result.to_dict()`` before the field was renamed held the instance's name under
  ``weights`` (``"chess"``, ``"random(seed=3)"``): without a ``weights_name``, that name
  becomes ``weights_name`` and ``weights`` the grid's kind (``"random"``);
- ``Result.to_dict()`` before the timings and counters were nested held them at the top
  (``compile_time``, ``nodes``, ...): they move into ``timing``, ``counters`` and
  ``provenance`` (:data:`NESTED`).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from nqmip.compare.grid import WEIGHT_CHOICES, Cell, known_methods, params_key
from nqmip.compare.harness import HARNESS_STATUSES
from nqmip.result import Status

#: The statuses a run's row may hold: a result's, or the harness's own for a cell that did
#: not answer (timeout, crashed, error).
RUN_STATUSES: tuple[str, ...] = (*(s.value for s in Status), *HARNESS_STATUSES)

#: Keys of rows written before ``Result`` nested its timings and counters, and where they
#: live now.
NESTED = {"compile_time": ("timing", "compile"), "heuristic_time": ("timing", "start"),
          "solve_time": ("timing", "solve"), "nodes": ("counters", "nodes"),
          "iterations": ("counters", "iterations"),
          "evaluations": ("counters", "evaluations"),
          "improvements": ("counters", "improvements"),
          "start_objective": ("provenance", "start_objective"),
          "warm_start_accepted": ("provenance", "start_accepted")}


def normalise(row: dict[str, Any]) -> dict[str, Any]:
    """A record with the keys of today's rows (see the module's docstring)."""
    if "timing" not in row and any(key in row for key in (*NESTED, "wall_time")):
        row = dict(row)
        row["timing"] = {"wall": row.get("wall_time")}
        row["counters"] = {}
        if isinstance(row.get("provenance"), dict):
            row["provenance"] = dict(row["provenance"])
        for key, (part, name) in NESTED.items():
            if key in row:
                row.setdefault(part, {})
                if isinstance(row[part], dict):
                    row[part][name] = row.pop(key)
    if "weights_name" in row:
        return row
    if "instance" in row:
        row = dict(row)
        row["weights_name"] = row.pop("instance")
    elif isinstance(row.get("weights"), str):
        row = dict(row)
        name = row["weights"]
        row["weights_name"] = name
        row["weights"] = name.partition("(")[0]  # "random(seed=3)" -> "random"
    return row


class StoreError(ValueError):
    """A runs file that is not what nqmip-compare writes, named by file and line."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def _check_row(row: Any) -> None:
    """Raise ValueError unless ``row`` has a run's keys with a run's types (a row edited by
    hand or cut from another file would otherwise be read as a finished cell)."""
    if not isinstance(row, dict) or not {"n", "method", "status", "weights"} <= set(row):
        raise ValueError("not a run's row")
    if not (_is_int(row["n"]) and row["n"] >= 1):
        raise ValueError("n is not a board size")
    if not all(isinstance(row[k], str) and row[k] for k in ("method", "status", "weights")):
        raise ValueError("method, status and weights are not names")
    if row["method"] not in known_methods():
        raise ValueError(f"method {row['method']!r} is not one of nqmip-compare's")
    if row["status"] not in RUN_STATUSES:
        raise ValueError(f"status {row['status']!r} is not a run's status")
    if row["weights"] not in WEIGHT_CHOICES:
        raise ValueError(f"weights {row['weights']!r} are not one of --weights' choices")
    if not (row.get("seed") is None or _is_int(row["seed"])):
        raise ValueError("seed is not an integer")
    if not all(_is_number(row.get(k)) for k in ("objective", "bound", "wall_time",
                                                 "time_limit")):
        raise ValueError("a time or an objective is not a number")


def read_rows(path: Path, *, runs: bool = True) -> list[dict[str, Any]]:
    """Rows of a JSON Lines file. A line that is not a run's row (with ``runs=False``, for
    a benchmark's file that mixes runs with notes: not a JSON object) raises
    :class:`StoreError` naming it; only an unfinished last line (no newline: a sweep
    killed while writing) is passed over, and :func:`unfinished_tail` says so."""
    rows: list[dict[str, Any]] = []
    if not path.exists():
        return rows
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        last_unfinished = number == len(lines) and not text.endswith("\n")
        try:
            row = json.loads(line)
            if not isinstance(row, dict):
                raise ValueError("not a run's row")
            row = normalise(row)
            if runs:
                _check_row(row)
            rows.append(row)
        except (json.JSONDecodeError, ValueError) as error:
            if last_unfinished:
                continue
            why = "" if isinstance(error, json.JSONDecodeError) else f" ({error})"
            raise StoreError(f"{path}, line {number}: not a row written by nqmip-compare{why}; "
                             "remove that line or start a new file with --output") from None
    return rows


def unfinished_tail(path: Path) -> bool:
    """Whether the file ends in a partial line (a sweep killed while writing it)."""
    if not path.exists() or path.stat().st_size == 0:
        return False
    return not path.read_bytes().endswith(b"\n")


class RowWriter:
    """Append rows to a JSON Lines file, flushed and fsynced one by one (``path`` None:
    write nothing). ``fresh=True`` empties the file first."""

    def __init__(self, path: Path | None, fresh: bool = False) -> None:
        self.path = path
        self.handle: io.TextIOWrapper | None = None
        if path is not None:
            if not path.parent.is_dir():  # never create folders the user did not ask for
                raise StoreError(f"--output: folder {path.parent} does not exist; create it "
                                 "first")
            if fresh:
                path.unlink(missing_ok=True)
            if unfinished_tail(path):  # a killed sweep's partial line: its cell runs again
                data = path.read_bytes()
                path.write_bytes(data[: data.rfind(b"\n") + 1])
            self.handle = open(path, "a", encoding="utf-8")  # noqa: SIM115

    def write(self, row: dict[str, Any]) -> None:
        """Append one row; an OSError (a full disk) closes the file and is raised: the
        caller says so, and nothing more is written."""
        if self.handle is None:
            return
        try:
            self.handle.write(json.dumps(row, default=str) + "\n")
            self.handle.flush()
            os.fsync(self.handle.fileno())
        except OSError:
            self.close()
            raise

    def close(self) -> None:
        handle, self.handle = self.handle, None
        if handle is not None:
            # what a full disk left in the buffer: write() said so
            with contextlib.suppress(OSError):
                handle.close()

    def __enter__(self) -> RowWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def row_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """The key of the cell a row belongs to (:meth:`Cell.key`)."""
    tl = row.get("time_limit")
    return (row.get("n"), row.get("method"), row.get("weights"), row.get("seed"),
            row.get("warm_start"), None if tl is None else float(tl),
            params_key(row.get("params")), row.get("target_mode"))


def rows_for_grid(cells: Sequence[Cell], rows: Iterable[dict[str, Any]]
                  ) -> list[dict[str, Any]]:
    """The latest row of each cell of the grid, in grid order."""
    latest: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:
        latest[row_key(row)] = row
    return [latest[c.key()] for c in cells if c.key() in latest]
