"""The JSON Lines files a run appends to (nqmip-compare's rows, the count's and the
lex-first cubes' records): which last line a run killed while writing it left cut short,
the one rule each reader follows before it drops that line."""

from __future__ import annotations


def torn_tail(text: str | bytes) -> bool:
    """Whether ``text`` ends in an entry cut short: a last line with no newline that starts
    a JSON object, as every entry does. A file that merely lacks its last newline ('hello',
    a binary file) is not one: it is read, and refused as not a record, never dropped and
    written over."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return bool(text) and not text.endswith("\n") \
        and text[text.rfind("\n") + 1:].lstrip().startswith("{")
