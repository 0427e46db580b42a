"""quota: the colour quota search for weights constant per colour."""

from __future__ import annotations

import numpy as np
import pytest

import nqmip
from nqmip.heuristics.quota import count_permutation
from nqmip.verify import conflicts


def _black(p: object) -> int:
    q = np.asarray(p)
    return int(np.count_nonzero((np.arange(q.size) + q) % 2 == 0))


@pytest.mark.parametrize("n", [8, 9, 40, 41])
def test_count_permutation_has_the_asked_black_count(n: int) -> None:
    rng = np.random.default_rng(0)
    for black in range(n % 2, n + 1, 2):
        p = count_permutation(n, black, (), rng)
        if p is not None:
            assert sorted(p.tolist()) == list(range(n)) and _black(p) == black
    assert count_permutation(n, n % 2 + 1, (), rng) is None  # wrong parity


def test_quota_raises_the_black_count_and_stays_valid() -> None:
    # a fixed number of repairs, no clock: deterministic for the seed
    r = nqmip.solve(300, "chess", method="quota", seed=0, max_stages=40)
    assert r.placement is not None and conflicts(r.placement) == 0
    solved = [s["good"] for s in r.extra["stages"] if s["solved"]]
    assert solved and _black(r.placement) == max(solved) == r.extra["best_good"]
    assert _black(r.placement) >= 0.7 * 300 + 14  # raised well above the start (226)
    again = nqmip.solve(300, "chess", method="quota", seed=0, max_stages=40)
    assert again.placement == r.placement


def test_quota_from_a_start_keeps_it_as_the_floor() -> None:
    from nqmip.construct import explicit_solution

    start = explicit_solution(200)
    assert start is not None
    r = nqmip.solve(200, "chess", method="quota", seed=2, max_stages=10, start=start)
    assert r.placement is not None and conflicts(r.placement) == 0
    assert _black(r.placement) >= _black(start) + 2  # each solved stage raises by two
    with pytest.raises(ValueError, match="conflict-free"):
        nqmip.solve(200, "chess", method="quota", seed=2, start=np.arange(200))


def test_quota_kernels_keep_their_counters_exact() -> None:
    from nqmip.heuristics import quota

    n = 60
    rng = np.random.default_rng(5)
    free = np.arange(3, n, dtype=np.int64)  # rows 0-2 fixed
    for trial in range(6):
        p = quota.count_permutation(n, 40, (), rng)
        assert p is not None
        board = quota._Board(p, 0, free)
        fixed = p[:3].copy()
        for step in range(30):
            if step % 3 == 0:
                board.raise_pairs(0, 2, 8, trial * 100 + step)
            board.repair(0.2, trial * 100 + step, 40)
            fresh = quota._Board(board.perm.copy(), 0, free)
            for name in ("diag", "anti", "diag_rows", "anti_rows"):
                assert np.array_equal(getattr(board, name), getattr(fresh, name)), name
            assert board.state[quota.TOTAL] == fresh.state[quota.TOTAL] == \
                conflicts(board.perm)
            assert board.state[quota.GOOD] == fresh.state[quota.GOOD] == _black(board.perm)
            assert np.array_equal(board.perm[:3], fixed)
            listed = set(board.attacked[:board.state[quota.LISTED]].tolist())
            hit = {int(r) for r in free if quota.queen_conflicts(board.perm, board.diag,
                                                                 board.anti, r) > 0}
            assert hit <= listed  # every attacked free queen is listed


def test_quota_prefers_white_when_white_pays_more() -> None:
    r = nqmip.solve(200, "chess", black=1, white=3, method="quota", seed=1, max_stages=20)
    assert r.placement is not None and conflicts(r.placement) == 0
    assert 200 - _black(r.placement) >= 0.7 * 200 + 10


def test_quota_keeps_fixed_queens() -> None:
    base = nqmip.solve(100, "chess", method="quota", seed=3, max_stages=5)
    assert base.placement is not None
    fixed = {r: int(base.placement[r]) for r in range(0, 100, 9)}
    r = nqmip.solve(100, "chess", fixed=fixed, method="quota", seed=4, max_stages=10)
    assert r.placement is not None and conflicts(r.placement) == 0
    assert all(r.placement[row] == col for row, col in fixed.items())


def test_quota_needs_colour_weights() -> None:
    with pytest.raises(ValueError, match="constant per colour"):
        nqmip.solve(20, "random", weights_seed=0, method="quota", seed=0)
