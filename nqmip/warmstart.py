"""Warm starts: turn what the user gave (a placement, a Result, a heuristic's name) into a
checked starting placement before any exact solver sees it (python-mip's
``validate_mip_start`` idea: say *why* a start is refused).

A heuristic's name runs that heuristic through :func:`nqmip.heuristics.run_heuristic` and
the verifier, never through :func:`nqmip.solve` (no second validation, no import circle).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nqmip.budget import MIN_SOLVER_SECONDS, Deadline
from nqmip.columns import holds_booleans
from nqmip.instance import Instance
from nqmip.result import Result
from nqmip.verify import conflicts, verified

WarmStartSpec = None | str | Result | Sequence[int] | np.ndarray


class WarmStartError(ValueError):
    """A start that is not a solution of the instance; refused before the solver runs."""


@dataclass(frozen=True)
class Start:
    placement: tuple[int, ...] | None  # None: the heuristic found no placement
    objective: float | None
    heuristic_time: float  # seconds spent producing it (0 for a given placement)
    source: str  # "placement", "result" or the heuristic's name
    heuristic_result: Result | None = None


def validate_start(instance: Instance, placement: Sequence[int] | np.ndarray) -> tuple[int, ...]:
    """Return the start as a tuple, or raise :class:`WarmStartError` saying what is wrong."""
    n = instance.n
    if not isinstance(placement, np.ndarray | str | bytes):
        try:
            placement = list(placement)  # a generator is read once
        except TypeError:
            raise WarmStartError("a warm start is a sequence of n column indices") from None
    if isinstance(placement, np.ndarray | list) and holds_booleans(placement):
        raise WarmStartError("a warm start holds integer column indices, not True or False")
    try:
        cols = [int(c) for c in placement]
    except (TypeError, ValueError):
        raise WarmStartError("a warm start is a sequence of n column indices") from None
    if any(float(c) != float(v) for c, v in zip(cols, placement, strict=True)):
        raise WarmStartError("a warm start holds integer column indices")
    if len(cols) != n:
        raise WarmStartError(f"the warm start has {len(cols)} queens, the board needs {n}")
    off = [(r, c) for r, c in enumerate(cols) if not 0 <= c < n]
    if off:
        raise WarmStartError(f"warm start queens off the {n} x {n} board: {off[:5]}")
    clashes = conflicts(cols)
    if clashes:
        raise WarmStartError(f"the warm start has {clashes} attacking pairs")
    moved = [(r, c) for r, c in instance.fixed if cols[r] != c]
    if moved:
        raise WarmStartError(f"the warm start moves fixed queens: {moved}")
    return tuple(cols)


def prepare_start(
    instance: Instance,
    warm_start: WarmStartSpec,
    *,
    seed: int | None,
    time_limit: float | Deadline | None,
    params: dict[str, Any] | None = None,
) -> Start | None:
    """Resolve ``warm_start``; a heuristic's name runs that heuristic within ``time_limit``
    (seconds or a :class:`~nqmip.budget.Deadline`; None: its own default budget), its time
    counted."""
    if warm_start is None:
        return None
    check_start(instance, warm_start)
    if isinstance(warm_start, str):
        from nqmip.heuristics import run_heuristic

        limit = Deadline.of(time_limit).seconds(floor=MIN_SOLVER_SECONDS)
        result = verified(instance, run_heuristic(warm_start, instance, seed=seed,
                                                  time_limit=limit, **(params or {})))
        spent = result.wall_time  # numba's compile (or cache load) is in compile_time
        if result.placement is None:
            return Start(None, None, spent, warm_start, result)
        # verified() has checked it (queens, conflicts, fixed queens): not again here.
        return Start(tuple(int(c) for c in result.placement), result.objective, spent,
                     warm_start, result)
    if isinstance(warm_start, Result):
        given = warm_start.placement
        placement = () if given is None else tuple(int(c) for c in given)
        return Start(placement, instance.objective(placement), 0.0, "result", warm_start)
    placement = validate_start(instance, warm_start)
    return Start(placement, instance.objective(placement), 0.0, "placement")


def check_start(instance: Instance, warm_start: WarmStartSpec | bool) -> None:
    """Refuse (:class:`WarmStartError`) a start that cannot be used: an unknown heuristic,
    one made for other weights (topsquares, quota, lns: the method table's
    :func:`~nqmip.methods.check_weights`), a Result without a placement, a placement that
    is not a solution keeping the fixed queens. :func:`nqmip.solve` asks it before the
    run: refused from inside, a short time limit's answer hid it (``warm_start="xyz"``
    with gurobi at 0.001 s answered the explicit construction)."""
    if warm_start is None or isinstance(warm_start, bool):
        return
    if isinstance(warm_start, str):
        from nqmip.methods import HEURISTIC_METHODS, METHODS, check_instance_weights

        if warm_start not in HEURISTIC_METHODS:
            raise WarmStartError(
                f"unknown warm-start heuristic {warm_start!r}: choose from "
                f"{', '.join(HEURISTIC_METHODS)}, or pass a placement or a Result")
        try:
            check_instance_weights(METHODS[warm_start], instance)
        except ValueError as exc:
            raise WarmStartError(f"warm start: {exc}") from None
        return
    if isinstance(warm_start, Result):
        if warm_start.placement is None:
            raise WarmStartError(f"the result given as warm start has no placement "
                                 f"(status {warm_start.status})")
        validate_start(instance, warm_start.placement)
        return
    validate_start(instance, warm_start)
