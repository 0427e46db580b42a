"""What the commands share: the parser that reports bad input as :class:`UsageError`
(one line, exit status 2) and the argument types both commands take."""

from __future__ import annotations

import argparse
import math
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

#: The exit statuses of the package's commands (``nqmip-compare`` too), spelled once.
EXIT_BAD_INPUT = 2
EXIT_SOLVER_FAILED = 1
#: A run stopped by Ctrl-C (128 + SIGINT), its best placement printed.
EXIT_INTERRUPTED = 130

_SQUARE = re.compile(r"([a-z]+)([0-9]+)")


class UsageError(Exception):
    """Bad input from the command line: reported in one line with exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse with bad input as :class:`UsageError`, and ``--version``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from nqmip._version import __version__

        self.add_argument("--version", action="version", version=f"%(prog)s {__version__}",
                          help="print the version and exit")

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def fixed_queen(text: str) -> tuple[int, int]:
    """A queen as ``ROW,COL`` (0-based) or as a chess square (``e1`` is row 0, column 4)."""
    square = _SQUARE.fullmatch(text.strip().lower())
    if square:
        letters, rank = square.groups()
        col = 0
        for letter in letters:
            col = col * 26 + (ord(letter) - ord("a") + 1)
        return int(rank) - 1, col - 1
    try:
        row, col = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"takes ROW,COL (0-based integers) or a square such as e4, got {text!r}"
        ) from None
    if row < 0 or col < 0:
        raise argparse.ArgumentTypeError(
            f"rows and columns count from 0, got {text!r}")
    return row, col


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"takes a whole number of at least 1, got {value}")
    return value


def seed_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a whole-number seed, got {text!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(
            f"takes a seed from 0 to 2**63 - 1, got {value}")
    return value


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes seconds, got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"takes a positive number of seconds, got {text!r}")
    return value


def work_amount(text: str) -> float:
    """A ``--work-limit``: a positive finite number (whole for the methods that count)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a number of work units, got {text!r}") \
            from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"takes a positive number, got {text!r}")
    return int(value) if value.is_integer() and abs(value) < 2**63 else value


def finite_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"takes a finite number, got {text!r}")
    return value


def glue_values(argv: Sequence[str], options: Sequence[str]) -> list[str]:
    """``--fix -1,0`` as ``--fix=-1,0``: argparse would read a value that starts with a
    dash as an option, and say only that ``--fix`` expected an argument."""
    out: list[str] = []
    items = list(argv)
    i = 0
    while i < len(items):
        item = items[i]
        if item in options and i + 1 < len(items) and items[i + 1].startswith("-") \
                and len(items[i + 1]) > 1 and (items[i + 1][1].isdigit()
                                               or items[i + 1][1] == "."):
            out.append(f"{item}={items[i + 1]}")
            i += 2
            continue
        out.append(item)
        i += 1
    return out


def check_writable(path: str | os.PathLike[str], option: str) -> None:
    """Refuse, before any work, an output file that cannot be written, naming ``option``:
    a missing folder, a folder given as the file, or a place where no file can be made
    (``/proc/...``, a read-only folder or mount) or an existing file that cannot be
    opened for writing. A new file is created and removed (access checks say yes to root
    in a read-only folder, and to anyone in ``/proc``); an existing one is opened for
    appending, changing nothing (without blocking: a FIFO with no reader is refused)."""
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{option}: {target} is a folder; give a file name")
    if not target.parent.is_dir():
        raise UsageError(f"{option}: folder {target.parent} does not exist; create it first")
    try:
        if target.exists():
            os.close(os.open(target, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK))
        else:
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            os.unlink(target)
    except OSError as exc:
        raise UsageError(f"{option}: cannot write {target} ({exc.strerror or exc}); give a "
                         "file in a folder you can write") from None


def write_file(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: a regular file (or a new one) is
    written beside it and renamed over it, so a failure (a full disk) leaves what was
    there; a device or a pipe (``/dev/stdout``) is written directly. OSError on failure."""
    target = Path(path)
    try:
        special = target.exists() and not stat.S_ISREG(target.stat().st_mode)
    except OSError:
        special = False
    if special:
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(text)
        return
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
