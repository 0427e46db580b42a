"""The record of bnb's search on a cluster (:mod:`nqmip.bnb.distributed`): its open
subtrees, its incumbent and the round it is in, rewritten whole (a new file moved over the
old one) every :data:`RECORD_SECONDS` and when it stops, so that a run killed at any moment
leaves the last complete state. A run given the same file continues from it, as
``nqmip-count --record`` does for a count, with reliability branching's pseudo-cost table
as it was (the results that came back; a record written before it kept the table starts
a new one).

What is open is the whole of what is left: the subtrees not yet searched and those that
were running (their work is done again). The record of a finished search holds nothing
open, and continuing it proves at once.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nqmip.jsonlines import CHANGED, CheckMismatch, RecordUnwritten, sealed, unsealed

#: How often the record is rewritten while the search runs (seconds).
RECORD_SECONDS = 2.0


class RecordError(ValueError):
    """The file is not a record of this search."""


@dataclass
class Snapshot:
    """A search's state: the round (``proven``, ``delta``, ``last_nodes`` of
    :func:`nqmip.bnb.rounds.in_rounds`; None: no rounds), the round's floor, the
    incumbent, the open subtrees as (bound, queens, packed allowed squares), the nodes
    searched so far and the run's pseudo-costs (2 x n^2: per square the sum of the losses
    and their count; None: none kept)."""

    round: dict[str, Any] | None
    floor: float | None
    incumbent: tuple[float, tuple[int, ...]] | None
    open: list[tuple[float, tuple[int, ...], bytes]]
    nodes: int
    pseudo: np.ndarray | None = None


def job_key(w: np.ndarray, fixed: tuple[tuple[int, int], ...], mip_gap: float) -> str:
    """The search a record belongs to: the board's weights (maximised), its fixed queens
    and the gap."""
    digest = hashlib.sha256(np.ascontiguousarray(w, dtype=np.float64).tobytes())
    digest.update(repr((sorted(fixed), mip_gap)).encode())
    return f"bnb n={w.shape[0]} {digest.hexdigest()[:24]}"


def write(path: Path, job: str, snap: Snapshot) -> None:
    """The record of ``snap``, written to a new file and moved over ``path``;
    :class:`~nqmip.jsonlines.RecordUnwritten` naming ``path`` when it cannot be (a full
    disk: a plain ``OSError`` before), the record written before left as it was."""
    body = {"job": job, "round": snap.round, "floor": snap.floor, "nodes": snap.nodes,
            "incumbent": None if snap.incumbent is None else
            [snap.incumbent[0], list(snap.incumbent[1])],
            "open": [[b, list(q), u.hex()] for b, q, u in snap.open],
            "pseudo": None if snap.pseudo is None else
            [np.asarray(snap.pseudo[0], np.float64).tolist(),
             np.rint(snap.pseudo[1]).astype(np.int64).tolist()]}
    fresh = path.with_name(path.name + ".new")
    try:
        with fresh.open("w") as out:  # one whole line with its check, as the other
            out.write(sealed(body) + "\n")  # records' entries are
            out.flush()
            os.fsync(out.fileno())
        os.replace(fresh, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            fresh.unlink(missing_ok=True)
        raise RecordUnwritten(exc.errno, f"{path}: cannot write ({exc.strerror or exc}): "
                              "the search stopped; a rerun continues from the state "
                              "written before") from None


def read(path: Path, job: str) -> Snapshot | None:
    """The record at ``path`` (None: no file yet); :class:`RecordError` when it is not a
    record of ``job``."""
    if not path.exists():
        return None
    try:
        body = unsealed(path.read_text())
        if body["job"] != job:
            raise RecordError(f"record {path} belongs to another search ({body['job']}), "
                              f"not {job}; give a new file for this one")
        inc = body["incumbent"]
        return Snapshot(body["round"], body["floor"],
                        None if inc is None else (float(inc[0]), tuple(int(c) for c in inc[1])),
                        [(float(b), tuple(int(s) for s in q), bytes.fromhex(u))
                         for b, q, u in body["open"]], int(body["nodes"]),
                        _table(body.get("pseudo"), job))
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, RecordError):
            raise
        what = CHANGED if isinstance(exc, CheckMismatch) else "is not a record of bnb's search"
        raise RecordError(f"record {path} {what}; give a new file to start over") from None


def _table(kept: Any, job: str) -> np.ndarray | None:
    """The pseudo-cost table a record keeps (None: a record written before it kept one, or
    a run without the table); a ValueError when it is not 2 x n^2 finite numbers, the
    counts whole and none negative."""
    if kept is None:
        return None
    n = int(job.split("n=")[1].split()[0])
    table = np.asarray(kept, dtype=np.float64)
    if table.shape != (2, n * n) or not np.isfinite(table).all() or table[1].min() < 0 \
            or not np.array_equal(table[1], np.rint(table[1])):
        raise ValueError("not a pseudo-cost table")
    return table
