"""A Result compares and hashes by value: ``==`` held an array placement (10^6 queens and
more) as numpy's "truth value of an array is ambiguous", and ``hash`` raised "unhashable
type: 'dict'" (its ``extra``), so results could not be kept in a set or a dict's keys."""

from __future__ import annotations

import numpy as np
import pytest

import nqmip
from nqmip.result import ARRAY_PLACEMENT_FROM


@pytest.fixture(scope="module")
def small() -> nqmip.Result:
    return nqmip.solve(8, "chess", method="highs")


@pytest.fixture(scope="module")
def huge() -> nqmip.Result:
    return nqmip.solve(ARRAY_PLACEMENT_FROM, method="minconflicts", seed=1)


def test_equal_results_hash_alike_and_make_one_key(small: nqmip.Result) -> None:
    twin = small.with_()
    assert twin == small and hash(twin) == hash(small)
    assert len({small, twin}) == 1 and {small: "a"}[twin] == "a"


def test_a_different_field_or_placement_is_another_result(small: nqmip.Result) -> None:
    assert small.placement is not None
    for other in (small.with_(placement=tuple(reversed(small.placement))),
                  small.with_(extra={"nodes": 1}), small.with_(objective=11.0)):
        assert other != small
    assert small != "optimal" and small != None  # noqa: E711 - the comparison is the test


def test_an_array_placement_compares_by_value(huge: nqmip.Result,
                                              small: nqmip.Result) -> None:
    assert isinstance(huge.placement, np.ndarray)
    copy = huge.with_(placement=np.array(huge.placement))
    assert copy == huge and hash(copy) == hash(huge) and len({huge, copy, small}) == 2
    moved = np.array(huge.placement)
    moved[[0, 1]] = moved[[1, 0]]
    assert huge.with_(placement=moved) != huge and huge != small
