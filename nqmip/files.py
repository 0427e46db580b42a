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


def check_writable(path: str | os.PathLike[str], option: str,
                   error: type[Exception] = ValueError) -> None:
    """Refuse, before any work, an output file that cannot be written, naming ``option``
    (the one check of every command's output files: ``--output``, ``--svg``/``--png``,
    ``--plot``, nqmip-compare's ``--report``, ``--csv``, ...; ``error``: the command's
    bad-input exception): a missing folder (none is created), a folder given as the file,
    or a place where no file can be made (``/proc/...``, a read-only folder or mount) or
    an existing file that cannot be opened for writing. A new file is created and removed
    (access checks say yes to root in a read-only folder, and to anyone in ``/proc``); an
    existing one is opened for appending, changing nothing (without blocking: a FIFO with
    no reader is refused)."""
    target = Path(path)
    if target.is_dir():
        raise error(f"{option}: {target} is a folder; give a file name")
    if not target.parent.is_dir():
        raise error(f"{option} {target}: folder {target.parent} does not exist; create "
                    "it first")
    try:
        if target.exists():
            os.close(os.open(target, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK))
            if stat.S_ISREG(target.stat().st_mode):  # written beside it, then renamed
                # (write_file): the folder must take a new file (/proc/version opens for
                # writing as root, and the result was lost after the run, exit 1)
                beside = target.with_name(f".{target.name}.{os.getpid()}.check")
                os.close(os.open(beside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
                os.unlink(beside)
        else:
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            os.unlink(target)
    except OSError as exc:
        raise error(f"{option}: cannot write {target}: {exc.strerror or exc}") from None


def check_record_file(path: str | os.PathLike[str], option: str = "record",
                      error: type[Exception] = ValueError) -> None:
    """A record (read, then written) is a regular file or a new one: a device or a pipe is
    refused before any work (``/dev/zero`` was read until memory ran out), then the
    checks of :func:`check_writable`."""
    target = Path(path)
    if target.exists() and not target.is_dir() and not target.is_file():
        raise error(f"{option} {target}: not a regular file (a device or a pipe); give a "
                    "file that can be read and written")
    check_writable(target, option, error)
