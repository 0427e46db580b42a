"""A dense board's weights reach the numba kernels as the instance holds them, with no copy.

The kernels read one array type for every kind of weights: rows one element longer than
the board (:func:`nqmip.weights.kernel_layout`). ``Instance.kernel_weights`` copied every
dense matrix into that layout, at each call: at random n = 20,000 the copy took 7.5 s and a
second 3.2 GB, and tabu, sa and auto given a fixed queen and 10 s answered no placement.
The draw, make_instance's copy of a caller's array and the maximisation of costs now write
the matrix in that layout at once."""

from __future__ import annotations

import numpy as np
import pytest

import nqmip
from nqmip.sense import to_maximisation
from nqmip.weights import in_kernel_layout, kernel_layout, random_weights

CASES = {
    "random": lambda n: nqmip.make_instance(n, "random", weights_seed=3),
    "array": lambda n: nqmip.make_instance(
        n, np.arange(n * n, dtype=float).reshape(n, n) % 7),
    "integer array": lambda n: nqmip.make_instance(
        n, (np.arange(n * n).reshape(n, n) * 5) % 11),
    "costs": lambda n: to_maximisation(nqmip.make_instance(
        n, "random", weights_seed=4, sense="min"))[0],
    "fixed": lambda n: nqmip.make_instance(n, "random", {0: 1}, weights_seed=5),
}


@pytest.mark.parametrize("n", [2, 5, 12])
@pytest.mark.parametrize("case", CASES)
def test_dense_weights_reach_the_kernels_without_a_copy(case: str, n: int) -> None:
    instance = CASES[case](n)
    assert instance.dense is not None and instance.colours is None
    weights = instance.kernel_weights()
    assert weights is instance.dense  # the same memory, not a copy
    assert in_kernel_layout(weights) and not weights.flags.writeable
    assert weights.strides == (8 * (n + 1), 8)


def test_a_matrix_in_another_layout_is_copied_into_the_kernels() -> None:
    """An Instance made by hand (or unpickled: contiguous again) still reads right."""
    from dataclasses import replace

    dense = np.ascontiguousarray(random_weights(6, 1))
    instance = replace(nqmip.make_instance(6, "random", weights_seed=1), dense=dense)
    weights = instance.kernel_weights()
    assert weights is not dense and in_kernel_layout(weights)
    np.testing.assert_array_equal(weights, dense)


def test_the_layout_holds_the_same_numbers() -> None:
    """The draw in the kernels' layout is the same matrix as numpy's generator gives."""
    drawn = random_weights(9, 2)
    assert in_kernel_layout(drawn)
    np.testing.assert_array_equal(
        drawn, np.random.default_rng(2).integers(1, 10, (9, 9)).astype(float))
    empty = kernel_layout(4, 2)
    assert empty.shape == (2, 4) and empty.strides == (40, 8)


def test_a_solve_on_the_kernels_layout_is_verified() -> None:
    """Every heuristic that reads the kernels' weights answers the same objective the
    instance computes (the verifier checks it)."""
    instance = nqmip.make_instance(30, "random", weights_seed=7)
    for method in ("sa", "tabu", "ga", "lns"):
        result = nqmip.solve(instance, method=method, time_limit=1, seed=1)
        assert result.placement is not None
        assert result.objective == pytest.approx(instance.objective(result.placement))
