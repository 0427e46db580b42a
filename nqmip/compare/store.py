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

A sweep of ``nqmip-compare`` writes a header row (``{"nqmip_compare_grid": {...}}``: the
sizes, methods, seeds, weights, time limit, target, warm start and parameters of its
grid, :func:`read_grids`) before its rows, unless the file holds its grid's header
already. ``--resume`` with a grid that no sweep of the file ran in a parameter every
cell's key holds (:data:`KEYED`: every cell would run again) is refused with the
difference named (:func:`check_grid`); other sizes, methods or seeds are said. A file
without a header (older, or a benchmark's) is read as before, checked by its rows, and
gets none. While a sweep writes a file it holds an exclusive lock on it (``flock``): a
second sweep on the same file is refused, and the kernel drops the lock when the process
ends, however it ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from nqmip.compare.grid import (
    WEIGHT_KINDS,
    Cell,
    exact_methods,
    fixed_key,
    known_methods,
    method_kind,
    params_key,
)
from nqmip.compare.harness import HARNESS_STATUSES
from nqmip.jsonlines import torn_tail
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


class LockedError(StoreError):
    """A records file another process (a sweep still running) holds locked."""


#: The key of a records file's header row: the grid the file's sweep ran.
GRID_KEY = "nqmip_compare_grid"
#: The grid's parameters a header records, and the option that sets each.
GRID_OPTIONS = {"n": "--n", "methods": "--methods", "weights": "--weights",
                "seeds": "--repeats/--seeds", "time_limit": "--time-limit",
                "target": "--target", "warm_start": "--warm-start", "params": "--param",
                "instance": "--minimize/--fix/--fixed/--weights FILE"}
#: What a header written before a parameter existed meant by its absence.
GRID_DEFAULTS: dict[str, Any] = {"instance": {"sense": "max", "fixed": []}}


def _is_header(row: Any) -> bool:
    return isinstance(row, dict) and GRID_KEY in row


def read_grids(path: Path) -> list[dict[str, Any]]:
    """The grids of the file's header rows, in order (none: a file without one, or not a
    regular file). Each sweep that wrote to the file with another grid than the last
    added one."""
    if not path.is_file():
        return []
    grids = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if GRID_KEY not in line:
                continue
            with contextlib.suppress(json.JSONDecodeError):
                row = json.loads(line)
                if _is_header(row) and isinstance(row[GRID_KEY], dict):
                    grids.append(row[GRID_KEY])
    return grids


def read_grid(path: Path) -> dict[str, Any] | None:
    """The grid of the file's last header row (None: a file without one)."""
    grids = read_grids(path)
    return grids[-1] if grids else None


def _shown(key: str, value: Any) -> str:
    if value is None or value == []:
        return "none"
    if key == "params" and isinstance(value, list):
        return ", ".join(f"{p[0] + ':' if p[0] else ''}{p[1]}={json.dumps(p[2])}"
                         for p in value if isinstance(p, list) and len(p) == 3)
    if key == "instance" and isinstance(value, dict):
        return describe_instance(value)
    if key == "time_limit" and isinstance(value, int | float):
        return f"{value:g}"
    if isinstance(value, list) and key != "params":
        return ",".join(str(v) for v in value)
    return json.dumps(value) if not isinstance(value, str) else value


def describe_instance(instance: dict[str, Any]) -> str:
    """``max``, ``min, fixed 0,0 2,5``, ``max, weights w.csv (sha256 1a2b3c4d…)``: a
    grid's instance (:meth:`nqmip.compare.grid.Board.describe`) in one phrase."""
    words = [str(instance.get("sense", "max"))]
    fixed = instance.get("fixed") or []
    if fixed:
        words.append("fixed " + " ".join(f"{q[0]},{q[1]}" for q in fixed
                                         if isinstance(q, list | tuple) and len(q) == 2))
    if instance.get("weights_file") is not None:
        words.append(f"weights {instance['weights_file']} "
                     f"(sha256 {str(instance.get('weights_sha256'))[:12]}…)")
    return ", ".join(words)


def grid_difference(old: dict[str, Any], new: dict[str, Any]) -> dict[str, str]:
    """What differs between a file's grid and this sweep's, one phrase per parameter
    (``--time-limit 10 in the file, 5 here``), by parameter; empty when they agree."""
    out = {}
    for key, option in GRID_OPTIONS.items():
        before = old.get(key, GRID_DEFAULTS.get(key))
        if (key in old or key in GRID_DEFAULTS) and \
                json.dumps(before, sort_keys=True) != json.dumps(new.get(key), sort_keys=True):
            out[key] = (f"{option} {_shown(key, before)} in the file, "
                        f"{_shown(key, new.get(key))} here")
    return out


def rows_difference(rows: Sequence[dict[str, Any]], new: dict[str, Any]) -> list[str]:
    """For a file without a header: the grid-wide parameters its rows hold that this
    sweep's grid does not (the time limit, weights, warm start, target); empty when
    none."""
    out = []
    limits = {float(r["time_limit"]) for r in rows if _is_number(r.get("time_limit"))
              and r.get("time_limit") is not None}
    if limits and float(new["time_limit"]) not in limits:
        out.append(f"--time-limit {','.join(f'{t:g}' for t in sorted(limits))} in the file, "
                   f"{new['time_limit']:g} here")
    weights = {r["weights"] for r in rows}
    if weights and new["weights"] not in weights:
        out.append(f"--weights {','.join(sorted(weights))} in the file, {new['weights']} "
                   "here")
    senses = {str(r.get("sense") or "max") for r in rows}
    fixed = {fixed_key(r.get("fixed")) for r in rows}
    here = new.get("instance", GRID_DEFAULTS["instance"])
    if senses and str(here["sense"]) not in senses:
        out.append(f"sense {','.join(sorted(senses))} in the file, {here['sense']} here")
    if fixed and fixed_key(here["fixed"]) not in fixed:
        out.append("other fixed queens in the file than here")
    warm = {r.get("warm_start") for r in rows if r["method"] in exact_methods()}
    if warm and new["warm_start"] not in warm:
        shown = ",".join(sorted(str(w or "none") for w in warm))
        out.append(f"--warm-start {shown} in the file, {new['warm_start'] or 'none'} here")
    modes = {str(r.get("target_mode") or "none") for r in rows
             if method_kind(r["method"]) == "heuristic"}
    if modes and new["target"] not in modes:
        out.append(f"--target {','.join(sorted(modes))} in the file, {new['target']} here")
    return out


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
    if row["weights"] not in WEIGHT_KINDS:
        raise ValueError(f"weights {row['weights']!r} are not one of --weights' choices")
    if not (row.get("seed") is None or _is_int(row["seed"])):
        raise ValueError("seed is not an integer")
    if row.get("sense") not in (None, "max", "min"):
        raise ValueError(f"sense {row['sense']!r} is neither max nor min")
    fixed_key(row.get("fixed"))  # ValueError: not a list of [row, col]
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
        last_unfinished = number == len(lines) and torn_tail(text)
        try:
            row = json.loads(line)
            if _is_header(row):
                continue
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


def appended_to(output: Path | None, keys: set[Any]) -> list[str]:
    """An existing ``--output`` (not resumed) must be a file of rows, which the sweep's are
    appended to (a weights CSV took them, exit 0, and ``--resume`` then refused it); a
    note when it holds runs of the sweep's cells (their ``keys``) already: they run again,
    beside them."""
    if output is None or not output.is_file():
        return []
    try:
        kept = read_rows(output)
    except StoreError as exc:
        raise StoreError(f"--output: {exc}".replace("start a new file with --output",
                                                    "give a new file")) from None
    again = sum(row_key(r) in keys for r in kept)
    if not again:
        return []
    return [f"{output} already holds {again} run{'s' if again > 1 else ''} of this sweep's "
            f"cells: they run again, appended beside them (--resume {output} skips them)"]


def unfinished_tail(path: Path) -> bool:
    """Whether the file ends in a partial line (a sweep killed while writing it): the
    start of a row, a JSON object (as :func:`read_rows` reads it), and not any file
    without a last newline (a binary file was dropped and written over)."""
    if not path.exists() or path.stat().st_size == 0:
        return False
    return torn_tail(path.read_bytes())


class RowWriter:
    """Append rows to a JSON Lines file, flushed and fsynced one by one (``path`` None:
    write nothing). ``fresh=True`` empties the file first; ``grid`` (the sweep's
    parameters) is written as a header row as :meth:`start` says. The file is locked
    (``flock``, exclusive) while the writer is open: :class:`LockedError` when another
    process holds it."""

    def __init__(self, path: Path | None, fresh: bool = False,
                 grid: dict[str, Any] | None = None) -> None:
        self.path = path
        self.handle: io.TextIOWrapper | None = None
        #: Why the header row could not be written (a full disk): nothing more is.
        self.error: str | None = None
        if path is not None:
            if not path.parent.is_dir():  # never create folders the user did not ask for
                raise StoreError(f"--output: folder {path.parent} does not exist; create it "
                                 "first")
            handle = open(path, "a", encoding="utf-8")  # noqa: SIM115
            try:  # a regular file only: /dev/null and the like are everyone's
                if path.is_file():
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                raise LockedError(f"{path} is being written by another nqmip-compare "
                                  "sweep (it holds the file's lock); wait for it to end or "
                                  "give another file") from None
            self.handle = handle
            if fresh and path.is_file():
                os.truncate(handle.fileno(), 0)
            data = path.read_bytes() if path.is_file() else b""
            if torn_tail(data):  # a killed sweep's partial line: its cell runs again
                os.truncate(handle.fileno(), data.rfind(b"\n") + 1)
            elif data and not data.endswith(b"\n"):  # a row would be glued to it
                handle.close()
                self.handle = None
                raise StoreError(f"{path} does not end in a line of rows (not a file of "
                                 "nqmip-compare's); give another file")
            self.start(grid)

    def start(self, grid: dict[str, Any] | None) -> None:
        """Append ``grid`` as a header row to an empty file, or to one whose headers
        are other grids (nothing: None; a file of rows without a header gets none)."""
        if self.handle is None or self.path is None or grid is None \
                or not self.path.is_file():
            return
        grids = {json.dumps(g) for g in read_grids(self.path)}
        if (grids and json.dumps(grid) not in grids) or \
                (not grids and self.path.stat().st_size == 0):
            try:
                self.write({GRID_KEY: grid})
            except OSError as exc:
                self.error = exc.strerror or type(exc).__name__

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
            params_key(row.get("params")), row.get("target_mode"),
            row.get("sense") or "max", fixed_key(row.get("fixed")))


def rows_for_grid(cells: Sequence[Cell], rows: Iterable[dict[str, Any]]
                  ) -> list[dict[str, Any]]:
    """The latest row of each cell of the grid, in grid order."""
    latest: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:
        latest[row_key(row)] = row
    return [latest[c.key()] for c in cells if c.key() in latest]


#: The grid's parameters that are part of every cell's key: a sweep that changes one
#: reruns every cell, so ``--resume`` refuses it. The sizes, methods and seeds may grow or
#: shrink (the new cells run, the others are skipped), said in one line.
KEYED = ("weights", "time_limit", "target", "warm_start", "params", "instance")


def check_grid(option: str, path: Path, grid: dict[str, Any],
               rows: Sequence[dict[str, Any]] | None = None) -> list[str]:
    """Raise :class:`StoreError` when the file at ``path`` holds no sweep of ``grid``'s
    :data:`KEYED` parameters (by its header rows, else, given its ``rows``, by what they
    hold), the difference to its last grid named; how ``grid`` differs from that sweep's
    in sizes, methods or seeds, one phrase each."""
    grids = read_grids(path)
    if grids:
        for old in reversed(grids):
            differences = grid_difference(old, grid)
            if not any(key in differences for key in KEYED):
                return list(differences.values())
        last = grid_difference(grids[-1], grid)
        refused = [last[key] for key in KEYED if key in last]
    else:
        refused = rows_difference(rows or [], grid)
    if refused:
        raise StoreError(f"{option}: {path} holds another grid's sweep: "
                         f"{'; '.join(refused)}; every cell would run again beside the "
                         "file's: run with the file's grid, or give another file with "
                         "--output")
    return []
