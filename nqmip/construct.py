"""An explicit solution for every n >= 4 in O(n) time, with no search.

The classical construction (Hoffman, Loessi and Moore, 1969; Bernhardsson, 1991): list the
even columns, then the odd ones (1-based), with two repairs for n = 2 or 3 (mod 6). It is
what "never empty-handed" rests on: an exact backend given a time limit starts from this
placement (or a better one), so a limit that stops the proof still returns a solution.
"""

from __future__ import annotations

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
