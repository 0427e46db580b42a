"""What the commands share: the parser that reports bad input as :class:`UsageError`
(one line, exit status 2) and the argument types both commands take."""

from __future__ import annotations

import argparse
from typing import NoReturn

EXIT_BAD_INPUT = 2
EXIT_SOLVER_FAILED = 1


class UsageError(Exception):
    """Bad input from the command line: reported in one line with exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def fixed_queen(text: str) -> tuple[int, int]:
    try:
        row, col = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--fix takes ROW,COL (0-based integers), got {text!r}"
        ) from None
    return row, col
