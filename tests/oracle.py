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
