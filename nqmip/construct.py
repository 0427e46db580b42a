"""An explicit solution for every n >= 4 in O(n) time, with no search.

The classical construction (Hoffman, Loessi and Moore, 1969; Bernhardsson, 1991): list the
even columns, then the odd ones (1-based), with two repairs for n = 2 or 3 (mod 6). It is
what "never empty-handed" rests on: an exact backend given a time limit starts from this
placement (or a better one), so a limit that stops the proof still returns a solution.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np


def explicit_solution(n: int) -> np.ndarray | None:
    """Columns (0-based, int64) of a placement of n non-attacking queens; None for n = 2, 3.

    1-based recipe: evens 2, 4, …, then odds 1, 3, …; for n = 2 (mod 6) the odds are
    3, 1, 7, 9, …, 5 (1 and 3 swapped, 5 moved last); for n = 3 (mod 6) the evens are
    4, 6, …, 2 and the odds 5, 7, …, 1, 3. Checked for every n <= 2000 in the tests.
    """
    if n in (2, 3):
        return None
    if n == 1:
        return np.zeros(1, dtype=np.int64)
    # numpy ranges, not Python lists: 2 * 10^6 queens in 5 ms (0.13 s as lists), what a
    # stopped search answers with at once
    evens = np.arange(2, n + 1, 2, dtype=np.int64)
    odds = np.arange(1, n + 1, 2, dtype=np.int64)
    if n % 6 == 2:
        odds = np.concatenate(([3, 1], np.arange(7, n + 1, 2, dtype=np.int64), [5]))
    elif n % 6 == 3:
        evens = np.concatenate((np.arange(4, n + 1, 2, dtype=np.int64), [2]))
        odds = np.concatenate((np.arange(5, n + 1, 2, dtype=np.int64), [1, 3]))
    return np.concatenate((evens, odds)).astype(np.int64) - 1


#: The largest board :func:`quick_completion` searches (a node costs n^2 steps in Python).
LARGEST = 100


def quick_completion(n: int, fixed: Sequence[tuple[int, int]],
                     seconds: float = 0.05) -> np.ndarray | None:
    """Columns of a placement that keeps the ``fixed`` queens (non-attacking), found by a
    short backtracking search in plain Python (the free row with the fewest squares
    first); None when none was found within ``seconds`` (none exists, or the board is too
    large for such a search). What a search stopped before it held a placement answers
    with where the construction cannot serve (fixed queens): it answered with nothing
    (``--fix 0,0 --fix 1,2`` at n = 30, stopped 1.5 s in: status unknown)."""
    end = time.perf_counter() + seconds
    cols = [-1] * n
    used: set[int] = set()
    diag: set[int] = set()
    anti: set[int] = set()
    for r, c in fixed:
        cols[r] = c
        used.add(c)
        diag.add(r - c)
        anti.add(r + c)
    free = [r for r in range(n) if cols[r] < 0]

    def options(r: int) -> list[int]:
        return [c for c in range(n) if c not in used and r - c not in diag and r + c not in anti]

    def place(left: list[int]) -> bool:
        if not left:
            return True
        if time.perf_counter() > end:
            raise TimeoutError
        row = min(left, key=lambda r: len(options(r)))
        rest = [r for r in left if r != row]
        for c in options(row):
            cols[row] = c
            used.add(c)
            diag.add(row - c)
            anti.add(row + c)
            if place(rest):
                return True
            used.discard(c)
            diag.discard(row - c)
            anti.discard(row + c)
        cols[row] = -1
        return False

    try:
        found = n <= LARGEST and place(free)
    except (TimeoutError, RecursionError):
        return None
    return np.array(cols, dtype=np.int64) if found else None
