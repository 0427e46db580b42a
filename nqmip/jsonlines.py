"""The JSON Lines files a run appends to (nqmip-compare's rows, the count's and the
lex-first cubes' records): which last line a run killed while writing it left cut short,
the one rule each reader follows before it drops that line; and the check each record
line carries (:func:`sealed`), so that a line changed after it was written (edited by
hand, damaged on the disk) is refused rather than trusted: a count record whose value was
edited gave a wrong total with exit status 0."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

#: The key of a record line's check (:func:`sealed`).
CHECK = "check"


class CheckMismatch(ValueError):
    """A record line that does not match its check: changed after it was written."""


def _digest(entry: dict[str, Any]) -> str:
    text = json.dumps(entry, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def sealed(entry: dict[str, Any]) -> str:
    """``entry`` as its record line (no newline), with the check of its contents."""
    return json.dumps({**entry, CHECK: _digest(entry)})


#: What a record line that does not match its check is said to be.
CHANGED = ("was changed after it was written (edited, or damaged on the disk: it does not "
           "match its check)")


def changed(number: int) -> str:
    """The words for line ``number`` of a record when it does not match its check."""
    return f"line {number} {CHANGED}"


def unsealed(line: str) -> Any:
    """The entry of a record line (JSON), its check taken off; :class:`CheckMismatch`
    when the line does not match it. A line without a check (a record older than the
    checks) is read as it is."""
    entry = json.loads(line)
    if isinstance(entry, dict) and CHECK in entry:
        check = entry.pop(CHECK)
        if check != _digest(entry):
            raise CheckMismatch("the line does not match its check")
    return entry


def torn_tail(text: str | bytes) -> bool:
    """Whether ``text`` ends in an entry cut short: a last line with no newline that starts
    a JSON object, as every entry does, and is not a whole one. A file that merely lacks
    its last newline ('hello', a binary file, bnb's record: one whole JSON object) is not
    one: it is read, and refused as not a record, never dropped and written over (a bnb
    record given to the count, the first queens or nqmip-compare was emptied)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not text or text.endswith("\n"):
        return False
    tail = text[text.rfind("\n") + 1:]
    if not tail.lstrip().startswith("{"):
        return False
    try:
        json.loads(tail)
    except ValueError:
        return True
    return False


def read_kept(path: Path) -> str:
    """The text of the record at ``path``, its torn last line (:func:`torn_tail`) dropped,
    from the file too: what the killed run had finished writing."""
    text = path.read_text()
    if torn_tail(text):
        text = text[: text.rfind("\n") + 1]
        path.write_text(text)
    return text


class RecordUnwritten(OSError):
    """A record could not be written as the run went on (a full disk): the run stopped
    there, the entries written before kept for a rerun. Its ``strerror`` names the file
    and why; a command says it in one line with exit status 74."""
