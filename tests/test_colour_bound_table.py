"""The table of the colour bound of empty boards (nqmip/formulation/colour_bound_table.py,
written by tools/colour_bound_table.py): every entry a valid bound of n's parity, the
small ones the line model's optimum solved again, the ones that brute force reaches met
by a placement (the bound is exact there), and the package reading it instead of solving."""

from __future__ import annotations

import time

import numpy as np
import pytest

from nqmip.formulation.colour_bound import (
    LINE_IP_MAX_N,
    black_count,
    black_queen_bound,
    line_ip_bound,
)
from nqmip.formulation.colour_bound_table import LEAST, MOST
from tests.oracle import solutions, solutions_by_backtracking


def test_the_table_covers_every_board_of_the_line_model_with_bounds_of_n_s_parity() -> None:
    assert len(MOST) == len(LEAST) == LINE_IP_MAX_N + 1
    for n in range(1, LINE_IP_MAX_N + 1):
        if n in (2, 3):  # no placement: the line model says so
            assert MOST[n] is None and LEAST[n] is None
            continue
        most, least = MOST[n], LEAST[n]
        assert most is not None and least is not None
        assert 0 <= least <= most <= n, n
        assert most % 2 == n % 2 and least % 2 == n % 2, n


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 19])
def test_small_entries_are_the_line_model_solved_again(n: int) -> None:
    for maximise, table in ((True, MOST), (False, LEAST)):
        value, proven = line_ip_bound(n, (), maximise=maximise, time_limit=60.0)
        assert proven and value == table[n], (n, maximise, value, table[n])


@pytest.mark.parametrize("n", range(4, 12))
def test_entries_bound_every_placement_and_are_met(n: int) -> None:
    # the n! permutations up to 8; beyond, backtracking (n = 10: 0.2 s against 14-27 s)
    placements = solutions(n) if n <= 8 else solutions_by_backtracking(n)
    blacks = [black_count(p) for p in np.asarray(placements)]
    assert LEAST[n] is not None and MOST[n] is not None
    assert LEAST[n] <= min(blacks) and max(blacks) <= MOST[n]


def test_an_empty_board_s_bound_is_read_not_solved() -> None:
    """n = 43 takes HiGHS about 10 s a side; the table answers at once, both sides, and a
    board with a fixed queen is still solved (its bound is not in the table)."""
    black_queen_bound.cache_clear()  # type: ignore[attr-defined]
    begin = time.perf_counter()
    assert black_queen_bound(43, (), maximise=True) == MOST[43]
    assert black_queen_bound(43, (), maximise=False) == LEAST[43]
    assert time.perf_counter() - begin < 0.5
    fixed = ((0, 1),)  # a white queen: solved, a bound of n's parity no weaker than the table's
    hi = black_queen_bound(9, fixed, maximise=True)
    assert hi is not None and hi % 2 == 1 and hi <= MOST[9]
