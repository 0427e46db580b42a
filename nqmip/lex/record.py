"""The record of a cube-and-conquer descent (:mod:`nqmip.lex.cubes`), so that a run killed
at any moment resumes without asking again what it had answered: each answer is appended
to a JSON-lines file as it comes (and synced to the disk), as ``nqmip-count --record``
keeps its finished sub-trees.

It holds facts about the board, true whatever the run: a refuted cube (a set of queens
with no completion), and a question of the descent (its placed queens, the row asked and
the column limit) with its answer: refuted, or a completion (with whether it settles the
row). A run given the file answers the questions it holds from it (the descent asks the
same questions in the same order, so it is back where the killed run was at once) and
does not conquer a cube it holds refuted. A torn last line (the run killed while writing
it) is dropped.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import IO, Any

from nqmip.jsonlines import CheckMismatch, RecordUnwritten, changed, read_kept, sealed, unsealed

Key = tuple[tuple[int, int], ...]


class CubeRecordError(ValueError):
    """The file is not a record of this board's cube-and-conquer."""


def job_key(n: int) -> str:
    """What a record belongs to: the board's size (its facts hold whatever the fixed
    queens or the oracle)."""
    return f"lex-first cubes n={n}"


class CubeRecord:
    """The record at ``path`` for a board of side ``n``: what it holds read (a
    :class:`CubeRecordError` naming the line when it is not such a record), and each new
    answer appended. :attr:`written` counts the lines this run added, :attr:`again` the
    cubes this run sent to a worker that the record held refuted (none: the cubes skip
    them)."""

    def __init__(self, path: str | Path, n: int) -> None:
        self.path = Path(path)
        self.job = job_key(n)
        self.cubes: set[Key] = set()
        self.refuted: dict[tuple[Key, int], int] = {}  # (placed, row): the largest limit
        self.answers: dict[tuple[Key, int, int], tuple[tuple[int, ...], bool]] = {}
        self.written = 0
        self.again = 0
        self._read()
        self._sink: IO[str] | None = self.path.open("a")
        if self.path.stat().st_size == 0:
            self._append({"job": self.job})

    def _read(self) -> None:
        if not self.path.exists():
            return
        text = read_kept(self.path)  # a torn last line (the run killed writing it) dropped
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                self._entry(number, line)

    def _entry(self, number: int, line: str) -> None:
        try:
            entry = unsealed(line)
            if "job" in entry:
                if entry["job"] != self.job:
                    raise CubeRecordError(f"record {self.path} belongs to another search "
                                          f"({entry['job']}), not {self.job}; give a new "
                                          "file for this one")
                return
            if "cube" in entry:
                self.cubes.add(_key(entry["cube"]))
                return
            question = (_key(entry["question"]), int(entry["row"]), int(entry["limit"]))
            if entry["answer"] is None:
                self._refute(question)
            else:
                self.answers[question] = (tuple(int(c) for c in entry["answer"]),
                                          bool(entry["proves_row"]))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, CubeRecordError):
                raise
            what = changed(number) if isinstance(exc, CheckMismatch) else \
                f"line {number} is not an answer of the cubes"
            raise CubeRecordError(f"record {self.path}: {what}; delete that line, or give "
                                  "a new file to start over") from None

    def _refute(self, question: tuple[Key, int, int]) -> None:
        placed, row, limit = question
        self.refuted[placed, row] = max(limit, self.refuted.get((placed, row), limit))

    def known(self, placed: Key, row: int, limit: int
              ) -> tuple[bool, tuple[int, ...], bool] | None:
        """The recorded answer to the question (refuted: also when a larger limit of the
        same row was), as ``(answer, completion, proves_row)``; None: not recorded."""
        if limit <= self.refuted.get((placed, row), -1):
            return False, (), False
        got = self.answers.get((placed, row, limit))
        return None if got is None else (True, got[0], got[1])

    def asked(self, cube: Key) -> None:
        """``cube`` is sent to a worker (counted in :attr:`again` when held refuted)."""
        if cube in self.cubes:
            self.again += 1

    def cube(self, cube: Key) -> None:
        """``cube`` refuted."""
        if cube not in self.cubes:
            self.cubes.add(cube)
            self._append({"cube": [list(q) for q in cube]})

    def question(self, placed: Key, row: int, limit: int, answer: bool,
                 model: tuple[int, ...], proves_row: bool) -> None:
        """A question's answer: refuted, or ``model`` (``proves_row``: it settles the row)."""
        if self.known(placed, row, limit) is not None:
            return
        if answer:
            self.answers[placed, row, limit] = (model, proves_row)
        else:
            self._refute((placed, row, limit))
        self._append({"question": [list(q) for q in placed], "row": row, "limit": limit,
                      "answer": list(model) if answer else None, "proves_row": proves_row})

    def _append(self, entry: dict[str, Any]) -> None:
        if self._sink is None:
            return
        try:
            self._sink.write(sealed(entry) + "\n")
            self._sink.flush()
            os.fsync(self._sink.fileno())
        except OSError as exc:  # a full disk: said once, naming the file (not a traceback)
            self.close()
            raise RecordUnwritten(exc.errno, f"{self.path}: cannot write "
                                  f"({exc.strerror or exc}): the search stopped; a rerun "
                                  "resumes from the answers written before") from None
        self.written += 1

    def close(self) -> None:
        if self._sink is not None:
            sink, self._sink = self._sink, None
            with contextlib.suppress(OSError):  # a write that failed: said by _append
                sink.close()


def _key(pairs: Any) -> Key:
    return tuple(sorted((int(r), int(c)) for r, c in pairs))
