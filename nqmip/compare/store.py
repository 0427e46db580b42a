"""Records files: rows as JSON Lines, appended, flushed and fsynced one by one, so an
interrupted sweep loses nothing; read back with the older keys mapped to today's.

A row is a cell's fields plus ``Result.to_dict()`` (:mod:`nqmip.compare.harness`). Older
records are read as today's rows:

- rows of ``nqmip-compare`` before the rows became ``Result.to_dict()`` kept the instance's
  name under ``instance``: it is ``weights_name`` now;
- ``Result.to_dict()`` before the field was renamed held the instance's name under
  ``weights`` (``"chess"``, ``"random(seed=3)"``): without a ``weights_name``, that name
  becomes ``weights_name`` and ``weights`` the grid's kind (``"random"``).
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from nqmip.compare.grid import Cell, params_key


def normalise(row: dict[str, Any]) -> dict[str, Any]:
    """A record with the keys of today's rows (see the module's docstring)."""
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


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of a JSON Lines file; a truncated last line (a killed sweep) is ignored."""
    rows: list[dict[str, Any]] = []
    if not path.exists():
        return rows
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(normalise(json.loads(line)))
            except json.JSONDecodeError:
                continue
    return rows


class RowWriter:
    """Append rows to a JSON Lines file, flushed and fsynced one by one (``path`` None:
    write nothing). ``fresh=True`` empties the file first."""

    def __init__(self, path: Path | None, fresh: bool = False) -> None:
        self.path = path
        self.handle: io.TextIOWrapper | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            if fresh:
                path.unlink(missing_ok=True)
            needs_newline = path.exists() and path.stat().st_size > 0 and \
                not path.read_bytes().endswith(b"\n")
            self.handle = open(path, "a", encoding="utf-8")  # noqa: SIM115
            if needs_newline:
                self.handle.write("\n")

    def write(self, row: dict[str, Any]) -> None:
        if self.handle is None:
            return
        self.handle.write(json.dumps(row, default=str) + "\n")
        self.handle.flush()
        os.fsync(self.handle.fileno())

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()

    def __enter__(self) -> RowWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def row_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """The key of the cell a row belongs to (:meth:`Cell.key`)."""
    tl = row.get("time_limit")
    return (row.get("n"), row.get("method"), row.get("weights"), row.get("seed"),
            row.get("warm_start"), None if tl is None else float(tl),
            params_key(row.get("params")))


def rows_for_grid(cells: Sequence[Cell], rows: Iterable[dict[str, Any]]
                  ) -> list[dict[str, Any]]:
    """The latest row of each cell of the grid, in grid order."""
    latest: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:
        latest[row_key(row)] = row
    return [latest[c.key()] for c in cells if c.key() in latest]
