"""Behaviour combinations of the doors, generated from the method tables
(:data:`nqmip.methods.METHODS`, :data:`nqmip.methods.LEX_METHODS`), checked against the
brute force of tests/oracle.py. Classes of fault the sweep found:

- ``--lex-first --method cpsat-fixed`` answered a placement that is not the first in
  lexicographic order, as optimal: n = 4 gave 2,0,3,1 (the first is 1,3,0,2), n = 6
  4,2,0,5,3,1, n = 5 with ``--fix 2,4`` 3,1,4,2,0 (CP-SAT's presolve solved the small
  model outside the fixed search). Every lex method, every small board, with and without
  fixed queens, now against the oracle.
"""

from __future__ import annotations

import numpy as np
import pytest

import nqmip
from nqmip.methods import LEX_METHODS
from tests import oracle


def _lex_first(n: int, fixed: dict[int, int]) -> tuple[int, ...] | None:
    found = oracle.solutions(n)
    mask = np.ones(len(found), dtype=bool)
    for row, col in fixed.items():
        mask &= found[:, row] == col
    return min(map(tuple, found[mask].tolist())) if mask.any() else None


def _fixed_cases(n: int) -> list[dict[int, int]]:
    """No fixed queens, one in the last column, one that leaves no completion (n = 4)."""
    return [{}, {2: n - 1}, {1: 3}] if n > 4 else [{}, {0: 0}, {1: 3}]


#: The lex methods of the slow lane: those that solve a model per row (seconds per board)
#: and those with numba kernels to load (about 10 s on a loaded machine, cache or not).
_SLOW = tuple(m.name for m in LEX_METHODS.values()
              if m.name in ("cpsat", "highs-pyomo") or m.warm_up is not None)


def _check_lex(method: str) -> None:
    for n in range(4, 9):
        for fixed in _fixed_cases(n):
            result = nqmip.lex_first(n, fixed=fixed or None, method=method)
            want = _lex_first(n, fixed)
            got = None if result.placement is None else tuple(result.placement)
            assert got == want, (method, n, fixed, got, result.status)
            assert result.status == ("infeasible" if want is None else "optimal")


@pytest.mark.parametrize("method", [m for m in LEX_METHODS if m not in _SLOW])
def test_every_lex_method_answers_the_first_placement_of_every_small_board(
        method: str) -> None:
    _check_lex(method)


@pytest.mark.parametrize("method", _SLOW)
def test_every_slow_lex_method_answers_the_first_placement(method: str) -> None:
    _check_lex(method)
