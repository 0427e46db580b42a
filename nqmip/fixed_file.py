"""Pre-placed queens read from a file, for completion instances with thousands of them.

Two formats, told apart by their text:

* **One queen per line**: ``row,col`` (0-based; spaces or a comma between the two
  numbers), blank lines and ``#`` comments ignored.
* **CSPLib problem 079** (n-Queens completion, Gent, Jefferson and Nightingale, JAIR 59,
  2017), the Essence' parameter format its translator writes::

      letting n = 2550
      letting init = [[52, 19], [58, 31], ...]

  Squares are 0-based there too; ``letting n`` gives the board size (it must agree with
  the size asked for, when both are given).

Every error names the file and, where there is one, the line: the command line turns it
into one line and exit status 2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from nqmip.instance import InstanceError

_LETTING_N = re.compile(r"letting\s+n\s*=\s*(-?\d+)")
_LETTING_INIT = re.compile(r"letting\s+init\s*=\s*\[(.*)\]", re.DOTALL)
_PAIR = re.compile(r"\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]")
_LINE = re.compile(r"^\s*(-?\d+)\s*[,\s]\s*(-?\d+)\s*$")


@dataclass(frozen=True)
class FixedQueens:
    """The queens of a file, and the board size when the file states one."""

    queens: tuple[tuple[int, int], ...]
    n: int | None = None


def parse_fixed(text: str, source: str = "<text>") -> FixedQueens:
    """The queens written in ``text`` (either format, see the module docstring)."""
    if "letting" in text:
        return _parse_letting(text, source)
    queens: list[tuple[int, int]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = _LINE.match(line)
        if match is None:
            raise InstanceError(f"{source}, line {number}: expected ROW,COL (0-based "
                                f"integers), got {raw.strip()!r}")
        queens.append((int(match.group(1)), int(match.group(2))))
    return FixedQueens(tuple(queens))


def _parse_letting(text: str, source: str) -> FixedQueens:
    size = _LETTING_N.search(text)
    init = _LETTING_INIT.search(text)
    if init is None:
        raise InstanceError(f"{source}: a CSPLib file needs 'letting init = [[row, col], ...]'")
    body = init.group(1)
    queens = tuple((int(r), int(c)) for r, c in _PAIR.findall(body))
    # Everything between the pairs must be separators: a typo is an error, not a lost queen.
    leftover = _PAIR.sub("", body).replace(",", "").split()
    if leftover:
        raise InstanceError(f"{source}: unreadable entry in 'letting init': {leftover[0]!r}")
    return FixedQueens(queens, int(size.group(1)) if size is not None else None)


def read_fixed(path: str | Path) -> FixedQueens:
    """The queens of the file at ``path`` (either format)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise InstanceError(f"cannot read fixed queens from {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InstanceError(f"{path} is not a text file of fixed queens") from None
    return parse_fixed(text, str(path))


def merge_fixed(n: int | None, given: list[tuple[int, int]],
                files: list[Path]) -> tuple[int | None, list[tuple[int, int]]]:
    """The board size and every queen from ``--fix`` and ``--fixed FILE`` together: a file's
    ``letting n`` fills a missing ``--n`` (None when neither gives one) and must agree with
    a given one; a queen given twice is kept once."""
    queens = list(given)
    for path in files:
        read = read_fixed(path)
        if read.n is not None:
            if n is None:
                n = read.n
            elif n != read.n:
                raise InstanceError(f"{path} is for n = {read.n}, but --n is {n}")
        queens.extend(read.queens)
    return n, list(dict.fromkeys(queens))
