"""What the commands share: the parser that reports bad input as :class:`UsageError`
(one line, exit status 2) and the argument types both commands take."""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Sequence
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
