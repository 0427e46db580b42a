"""One result type for every method, exact or heuristic.

Following Pyomo's newer solver interface, *why the method stopped* (``termination``) is
kept apart from *what it found* (``status``): a time limit is not an error, and a run
that hit its limit with an incumbent is ``feasible`` with ``termination = time_limit``.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    """What the method found."""

    OPTIMAL = "optimal"  # a placement proven optimal (objective == bound)
    FEASIBLE = "feasible"  # a valid placement, optimality not proven
    INFEASIBLE = "infeasible"  # proven: no valid placement exists
    UNKNOWN = "unknown"  # stopped before finding a placement or a proof


class Termination(StrEnum):
    """Why the method stopped."""

    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    TIME_LIMIT = "time_limit"
    ITERATION_LIMIT = "iteration_limit"  # also evaluation and node limits
    SOLUTION_FOUND = "solution_found"  # a heuristic reached its goal
    INTERRUPTED = "interrupted"
    ERROR = "error"


@dataclass(frozen=True)
class Result:
    """The outcome of :func:`nqmip.solve`, identical in form for every method.

    ``placement[i]`` is the column of the queen in row ``i`` (0-based); it is ``None``
    when no placement was found. Every placement in a ``Result`` has passed the
    independent checker in :mod:`nqmip.verify`.
    """

    status: Status
    termination: Termination
    n: int
    method: str
    solver: str
    objective: float | None
    bound: float | None
    placement: tuple[int, ...] | None
    wall_time: float
    weights: str = "none"
    seed: int | None = None
    conflicts: int | None = None
    evaluations: int | None = None
    iterations: int | None = None
    improvements: int | None = None
    nodes: int | None = None
    warm_start_accepted: bool | None = None
    start_objective: float | None = None
    heuristic_time: float | None = None
    solve_time: float | None = None
    compile_time: float | None = None
    message: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def gap(self) -> float | None:
        """Relative gap ``|bound - objective| / max(1, |objective|)``; None without a bound."""
        if self.objective is None or self.bound is None:
            return None
        if math.isinf(self.bound):
            return math.inf
        return abs(self.bound - self.objective) / max(1.0, abs(self.objective))

    @property
    def found(self) -> bool:
        return self.placement is not None

    def with_(self, **changes: Any) -> Result:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = str(self.status)
        data["termination"] = str(self.termination)
        data["placement"] = list(self.placement) if self.placement is not None else None
        data["gap"] = self.gap
        for key in ("objective", "bound", "gap", "start_objective"):
            value = data.get(key)
            if isinstance(value, float) and not math.isfinite(value):
                data[key] = None if math.isnan(value) else str(value)
        return data

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)
