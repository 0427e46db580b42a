"""Text for a console that may not speak UTF-8 (``PYTHONIOENCODING=ascii``, a cp437
Windows console): what the stream cannot encode is written with ASCII glyphs instead
(``–`` as ``-``, ``×`` as ``x``, ``τ`` as ``tau``), anything left as ``?``; never an
exception after an hour's sweep. Rich itself draws ASCII boxes on such a stream."""

from __future__ import annotations

import sys
from typing import Any, TextIO

#: The glyphs of nqmip-compare's tables and legends, and what stands for them in ASCII.
GLYPHS = {"–": "-", "—": "-", "−": "-", "×": "x", "τ": "tau", "…": "...", "★": "*",
          "≤": "<=", "≥": ">=", "₂": "2", "½": "1/2", "·": ".", "’": "'", "‘": "'",
          "“": '"', "”": '"', "é": "e", "è": "e", "ö": "o"}


def encoding_of(stream: TextIO) -> str:
    return getattr(stream, "encoding", None) or "utf-8"


def safe(text: str, stream: TextIO | None = None) -> str:
    """``text`` as the stream can write it (its encoding's glyphs, else :data:`GLYPHS`,
    else ``?``)."""
    encoding = encoding_of(stream or sys.stdout)
    try:
        text.encode(encoding)
        return text
    except (UnicodeEncodeError, LookupError):
        pass
    out = []
    for char in text:
        try:
            char.encode(encoding)
            out.append(char)
        except (UnicodeEncodeError, LookupError):
            out.append(GLYPHS.get(char, "?"))
    return "".join(out)


def write(text: str, stream: TextIO | None = None) -> None:
    """Write ``text`` to the stream (stdout) in glyphs it can encode, and flush."""
    stream = stream or sys.stdout
    stream.write(safe(text, stream))
    stream.flush()


def print_rich(renderable: Any, stream: TextIO | None = None) -> None:
    """Print a rich renderable (a table) to the stream: on a terminal as wide as it is,
    on a pipe or a file 180 columns, never wrapped; in glyphs the stream can encode."""
    from rich.console import Console

    stream = stream or sys.stdout
    console = Console(highlight=False, file=stream)
    if not console.is_terminal:  # a pipe or a file: wide enough, never wrapped
        console = Console(highlight=False, file=stream, width=180)
    with console.capture() as capture:
        console.print(renderable)
    write(capture.get(), stream)
