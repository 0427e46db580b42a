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
    # fixed stages, no clock: deterministic for the seed
    r = nqmip.solve(300, "chess", method="quota", seed=0, max_stages=6)
    assert r.placement is not None and conflicts(r.placement) == 0
    solved = [s["black"] for s in r.extra["stages"] if s.get("solved")]
    assert solved and _black(r.placement) == max(solved) >= 0.7 * 300 - 2
    again = nqmip.solve(300, "chess", method="quota", seed=0, max_stages=6)
    assert again.placement == r.placement


def test_quota_prefers_white_when_white_pays_more() -> None:
    r = nqmip.solve(200, "chess", black=1, white=3, method="quota", seed=1, max_stages=4)
    assert r.placement is not None and conflicts(r.placement) == 0
    assert 200 - _black(r.placement) >= 0.7 * 200 - 2


def test_quota_keeps_fixed_queens() -> None:
    base = nqmip.solve(100, "chess", method="quota", seed=3, max_stages=2)
    assert base.placement is not None
    fixed = {r: int(base.placement[r]) for r in range(0, 100, 9)}
    r = nqmip.solve(100, "chess", fixed=fixed, method="quota", seed=4, max_stages=3)
    assert r.placement is not None and conflicts(r.placement) == 0
    assert all(r.placement[row] == col for row, col in fixed.items())


def test_quota_needs_colour_weights() -> None:
    with pytest.raises(ValueError, match="constant per colour"):
        nqmip.solve(20, "random", weights_seed=0, method="quota", seed=0)
