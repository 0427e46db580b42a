"""The backend protocol, the normalised options and the registry.

Every exact solver sits behind one small class: ``available()`` is cheap and never
touches a licence, ``solve()`` maps the normalised :class:`SolveOptions` to the solver's
own option names and returns a :class:`RawSolution`, which :func:`nqmip.solve` verifies
before anything leaves the package.
"""

from __future__ import annotations

import importlib
import importlib.util
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from nqmip.instance import Instance
from nqmip.result import Status, Termination


class BackendError(RuntimeError):
    """A backend failed (bad licence, solver error)."""


class BackendUnavailable(BackendError):
    """The backend's solver is not installed; the message says what to install."""


@dataclass(frozen=True)
class SolveOptions:
    """Option names shared by every backend; each backend maps them to its own."""

    time_limit: float | None = None
    seed: int | None = None
    threads: int | None = None
    mip_gap: float = 0.0
    verbose: bool = False
    warm_start: tuple[int, ...] | None = None


@dataclass
class RawSolution:
    """What a backend found, before verification."""

    status: Status
    termination: Termination
    placement: tuple[int, ...] | None = None
    objective: float | None = None
    bound: float | None = None
    nodes: int | None = None
    warm_start_accepted: bool | None = None
    message: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


class Backend(ABC):
    name: str = ""
    install_hint: str = ""

    @abstractmethod
    def available(self) -> bool: ...

    @abstractmethod
    def version(self) -> str: ...

    @abstractmethod
    def solve(self, instance: Instance, options: SolveOptions) -> RawSolution: ...

    def require(self) -> None:
        if not self.available():
            raise BackendUnavailable(
                f"the {self.name!r} backend is not available: {self.install_hint}"
            )

    def solver_label(self) -> str:
        return f"{self.name} {self.version()}"


def module_available(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


_REGISTRY: dict[str, str] = {
    "highs": "nqmip.backends.highs:HighsBackend",
    "glpk": "nqmip.backends.glpk:GlpkBackend",
    "gurobi": "nqmip.backends.gurobi:GurobiBackend",
    "cpsat": "nqmip.backends.cpsat:CpSatBackend",
    "highs-pyomo": "nqmip.backends.highs_pyomo:HighsPyomoBackend",
}

#: The exact methods, in the order the CLI lists them.
EXACT_METHODS: tuple[str, ...] = tuple(_REGISTRY)


@cache
def get_backend(name: str) -> Backend:
    try:
        target = _REGISTRY[name]
    except KeyError:
        raise ValueError(
            f"unknown exact backend {name!r}: choose from {', '.join(EXACT_METHODS)}"
        ) from None
    module_name, class_name = target.split(":")
    return getattr(importlib.import_module(module_name), class_name)()


def available_backends() -> list[str]:
    return [name for name in EXACT_METHODS if get_backend(name).available()]
