"""Files written whole or not at all: every file the package writes for a user (a
result, a picture, a report, a table, a model) goes through :func:`write_whole`, so a
stop while writing it (Ctrl-C, SIGTERM, a full disk) leaves what was there before, never
a fragment (a count's ``--plot`` stopped while saving left a PNG of 124 bytes in place of
the picture)."""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import IO


def picture_kind(path: str | os.PathLike[str]) -> str:
    """The picture format a file's name says: its suffix without the dot, lower case;
    ``"png"`` when it has none (matplotlib would write ``FILE.png``, not the file named)."""
    return Path(path).suffix.lstrip(".").lower() or "png"


def write_whole(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all: a regular file (or a new one) is
    written beside it and renamed over it, so a failure leaves what was there; a device or
    a pipe (``/dev/stdout``) is written directly. OSError on failure."""
    target = Path(path)
    try:
        special = target.exists() and not stat.S_ISREG(target.stat().st_mode)
    except OSError:
        special = False
    mode = "wb" if isinstance(data, bytes) else "w"
    encoding = None if isinstance(data, bytes) else "utf-8"
    if special:
        with open(target, mode, encoding=encoding) as handle:
            handle.write(data)
        return
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with open(partial, mode, encoding=encoding) as handle:
            handle.write(data)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def write_drawn(path: str | os.PathLike[str], draw: Callable[[IO[bytes]], object]) -> None:
    """Write what ``draw`` writes into a buffer (a figure's ``savefig``), whole or not at
    all (:func:`write_whole`)."""
    buffer = io.BytesIO()
    draw(buffer)
    write_whole(path, buffer.getvalue())
