"""The JSON Lines files a run appends to (nqmip-compare's rows, the count's and the
lex-first cubes' records): which last line a run killed while writing it left cut short,
the one rule each reader follows before it drops that line."""

from __future__ import annotations

import json
from pathlib import Path


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
