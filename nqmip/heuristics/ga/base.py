"""The operator base of the genetic algorithm (pymoo-style: the abstract operator apart
from the concrete ones in :mod:`nqmip.heuristics.ga.operators`): a name, a numba code, and
its parameters written into the run's configuration arrays (:mod:`nqmip.heuristics.ga.codes`)
read by the numba driver."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, ClassVar

import numpy as np

from nqmip.heuristics.common import ParameterError


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise ParameterError(f"{name} must be True or False, got {value!r}")
    return bool(value)


class Operator:
    """An operator: a name, a numba code, its parameters written into the configuration."""

    name: ClassVar[str]
    code: ClassVar[int]

    def configure(self, icfg: np.ndarray, fcfg: np.ndarray, m: int) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        args = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self))  # type: ignore[arg-type]
        return f"{self.name}({args})"


def _pick(kind: str, registry: dict[str, type[Operator]], value: Any) -> type[Operator]:
    if not isinstance(value, str) or value not in registry:
        raise ParameterError(
            f"unknown {kind} {value!r}: choose from {', '.join(sorted(registry))}"
        )
    return registry[value]
