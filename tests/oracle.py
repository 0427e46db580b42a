"""Brute-force oracles, independent of every solver: all n! permutations, vectorised."""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np


@cache
def solutions(n: int) -> np.ndarray:
    """Every non-attacking placement of n queens (rows of column indices)."""
    perms = np.array(list(itertools.permutations(range(n))), dtype=np.int64).reshape(-1, n)
    rows = np.arange(n)
    ok = np.ones(len(perms), dtype=bool)
    for key in (perms + rows, perms - rows):
        sorted_keys = np.sort(key, axis=1)
        ok &= np.all(np.diff(sorted_keys, axis=1) != 0, axis=1) if n > 1 else True
    return perms[ok]


@cache
def solutions_by_backtracking(n: int) -> np.ndarray:
    """Every placement, like :func:`solutions`, by plain backtracking over rows (for n up
    to about 13, where the n! permutations no longer fit in memory)."""
    found: list[list[int]] = []
    placement: list[int] = []

    def place(row: int, cols: set[int], anti: set[int], diag: set[int]) -> None:
        if row == n:
            found.append(list(placement))
            return
        for c in range(n):
            if c in cols or row + c in anti or row - c in diag:
                continue
            placement.append(c)
            place(row + 1, cols | {c}, anti | {row + c}, diag | {row - c})
            placement.pop()

    place(0, set(), set(), set())
    return np.array(found, dtype=np.int64).reshape(-1, n)


def best_value(n: int, weights: np.ndarray, fixed: dict[int, int] | None = None) -> float | None:
    """The optimum over all solutions (None when there is none)."""
    sols = solutions(n)
    if fixed:
        mask = np.ones(len(sols), dtype=bool)
        for row, col in fixed.items():
            mask &= sols[:, row] == col
        sols = sols[mask]
    if len(sols) == 0:
        return None
    values = weights[np.arange(n), sols].sum(axis=1)
    return float(values.max())
