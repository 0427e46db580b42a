"""Backends as test parameters: skipped when missing on a user's machine, failed in CI."""

from __future__ import annotations

import os

import pytest

from nqmip.backends.base import EXACT_METHODS, get_backend

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def backend_params(names: tuple[str, ...] = EXACT_METHODS) -> list[object]:
    return [pytest.param(name, marks=pytest.mark.solver(name), id=name) for name in names]


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers(name="solver"):
        name = mark.args[0]
        backend = get_backend(name)
        if not backend.available():
            message = f"backend {name!r} is not available: {backend.install_hint}"
            if IN_CI:
                pytest.fail(f"CI=true and {message}", pytrace=False)
            pytest.skip(message)


@pytest.fixture(params=backend_params())
def backend(request: pytest.FixtureRequest) -> str:
    """Each exact backend in turn; the solver mark makes a missing one skip (fail in CI)."""
    name = request.param
    backend = get_backend(name)
    if not backend.available():
        message = f"backend {name!r} is not available: {backend.install_hint}"
        if IN_CI:
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)
    return name
