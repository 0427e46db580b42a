"""What the field measures, run by run: each board's reference (the target its heuristics
were given, else a proven optimum, else the best objective found), whether and when a run
reached it, the gap to the board's best bound, and Berthold's primal integral.

A row's ``trajectory`` (``[seconds, incumbent, bound]`` at each improvement, on the call's
clock, in the row's own terms: costs when ``sense == "min"``) is the run's curve; a run
*reaches* a reference when its incumbent is at least it (at most, for costs). Rows written
before the trajectory existed have none: a run of those whose objective reaches the
reference is counted at its ``timing.to_best``, else at its whole ``wall_time`` (an upper
bound of its time to target).

References (Aiex, Resende and Ribeiro, "TTT-plots", Optimization Letters 1, 2007, for time
to target; T. Berthold, "Measuring the impact of primal heuristics", Operations Research
Letters 41, 2013, for the primal gap and integral).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from nqmip.compare.grid import board_key
from nqmip.compare.harness import HARNESS_STATUSES

#: A bound at least this large is a solver's infinity (Gurobi reports 1e100 before its
#: first bound), not a bound.
HUGE = 1e20


def number(value: Any) -> float | None:
    """``value`` as a finite float (None otherwise: None, a string, inf, NaN, a bool)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    value = float(value)
    return value if math.isfinite(value) and abs(value) < HUGE else None


def sign_of(row: dict[str, Any]) -> int:
    """+1 when the row maximises, -1 for costs (``sense == "min"``)."""
    return -1 if row.get("sense") == "min" else 1


def timing_of(row: dict[str, Any]) -> dict[str, Any]:
    """The row's ``timing`` (an empty dict for a row without one)."""
    timing = row.get("timing")
    return timing if isinstance(timing, dict) else {}


def board_of(row: dict[str, Any]) -> tuple[Any, ...]:
    """The board a row solved (:func:`nqmip.compare.grid.board_key`)."""
    return board_key(row["n"], row["weights"], row.get("seed"), row.get("params"),
                     row.get("sense"), row.get("fixed"))


def close(value: float, other: float) -> bool:
    return abs(value - other) <= 1e-9 * max(1.0, abs(other))


def reaches(value: float | None, target: float | None, sign: int) -> bool:
    """Whether an objective is at least the target (at most, for costs: ``sign`` -1)."""
    if value is None or target is None:
        return False
    return sign * value >= sign * target or close(value, target)


def failed(row: dict[str, Any]) -> bool:
    """A row the harness ended (timeout, crashed, error): no result."""
    return row.get("status") in HARNESS_STATUSES


def points(row: dict[str, Any]) -> list[tuple[float, float | None, float | None]]:
    """The row's trajectory as (seconds, incumbent, bound), a solver's infinity as None."""
    out = []
    for point in row.get("trajectory") or ():
        if isinstance(point, list | tuple) and len(point) == 3 and number(point[0]) is not None:
            out.append((float(point[0]), number(point[1]), number(point[2])))
    return out


@dataclass(frozen=True)
class Reference:
    """A board's reference: ``value`` and where it comes from (``source``: ``"proven"``, an
    optimum a run proved; ``"given"``, the ``--target`` value the heuristics were given;
    ``"best known"``, the best objective found, by the runs that ran first where they gave
    the heuristics' target; ``"none"``), the tightest bound any run found (``bound``) and
    the direction (``sign``). The heuristics' target, where they had one, is the
    reference: what they were asked to reach is what every run is measured against."""

    value: float | None
    source: str
    bound: float | None
    sign: int


def references(rows: Iterable[dict[str, Any]]) -> dict[tuple[Any, ...], Reference]:
    """Every board's :class:`Reference`, from all the rows of the board."""
    boards: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        boards.setdefault(board_of(row), []).append(row)
    return {board: reference(group) for board, group in boards.items()}


def reference(rows: Sequence[dict[str, Any]]) -> Reference:
    """The :class:`Reference` of one board's rows."""
    sign = sign_of(rows[0])

    def best(values: Iterable[float | None]) -> float | None:
        found = [v for v in values if v is not None]
        return max(found, key=lambda v: sign * v) if found else None

    bounds = [number(r.get("bound")) for r in rows if not failed(r)]
    known = [b for b in bounds if b is not None]
    proven = best(number(r.get("objective")) for r in rows if r.get("status") == "optimal")
    bound = min(known, key=lambda b: sign * b) if known else None
    if proven is not None and (bound is None or sign * proven < sign * bound):
        bound = proven
    given = best(number(r.get("target")) for r in rows)
    if given is not None:  # what auto's target was taken from, else --target VALUE
        if proven is not None and close(given, proven):
            return Reference(given, "proven", bound, sign)
        auto = all(r.get("target_mode") == "auto" for r in rows if r.get("target") is not None)
        return Reference(given, "best known" if auto else "given", bound, sign)
    if proven is not None:
        return Reference(proven, "proven", bound, sign)
    found = best(number(r.get("objective")) for r in rows)
    return Reference(found, "best known" if found is not None else "none", bound, sign)


def time_to_target(row: dict[str, Any], target: float | None) -> float | None:
    """Seconds from the call's start until the row's incumbent reached ``target``; None
    when it never did (or there is no target)."""
    sign = sign_of(row)
    if target is None or failed(row) or not reaches(number(row.get("objective")), target,
                                                     sign):
        return None
    timing = timing_of(row)
    given = number(row.get("target"))
    if given is not None and close(given, target) and number(timing.get("to_target")) \
            is not None:
        return number(timing.get("to_target"))
    for seconds, incumbent, _ in points(row):
        if reaches(incumbent, target, sign):
            return seconds
    # no trajectory (an older row), or one thinned past the point: the best is reached
    # when the returned objective was first found, at the latest at the end
    return number(timing.get("to_best")) or number(row.get("wall_time"))


def primal_gap(value: float | None, optimum: float, sign: int = 1) -> float:
    """Berthold's primal gap of an incumbent: 1 without one or with the opposite sign of
    the optimum, 0 when both are 0 or it is at least the reference (at most, for costs:
    ``sign`` -1), else ``|optimum - value| / max(|optimum|, |value|)``."""
    if value is None or value * optimum < 0:
        return 1.0
    if reaches(value, optimum, sign):
        return 0.0
    scale = max(abs(optimum), abs(value))
    return 0.0 if scale == 0 else min(abs(optimum - value) / scale, 1.0)


def primal_steps(row: dict[str, Any], optimum: float,
                 horizon: float) -> list[tuple[float, float]]:
    """The primal gap as a step function on [0, horizon]: (from seconds, gap) pairs; the
    gap of the run's last incumbent holds from its end to the horizon."""
    steps = [(0.0, 1.0)]
    sign = sign_of(row)
    if not failed(row):
        for seconds, incumbent, _ in points(row):
            if incumbent is not None:
                steps.append((min(seconds, horizon), primal_gap(incumbent, optimum, sign)))
        objective = number(row.get("objective"))
        if objective is not None:
            end = number(row.get("wall_time")) or 0.0
            gap = primal_gap(objective, optimum, sign)
            if gap < steps[-1][1]:
                steps.append((min(end, horizon), gap))
    return steps


def primal_integral(row: dict[str, Any], optimum: float | None,
                    horizon: float | None) -> float | None:
    """Berthold's primal integral ``P(T) = ∫₀ᵀ p(t) dt`` in seconds, T the row's time limit
    (``horizon``): the area under the primal gap, smaller is better; a run that ended holds
    its last gap until T (0 once it found the optimum), a failed run 1 throughout."""
    if optimum is None or horizon is None or horizon <= 0:
        return None
    steps = primal_steps(row, optimum, horizon)
    total = 0.0
    for (start, gap), (end, _) in zip(steps, [*steps[1:], (horizon, 0.0)], strict=True):
        total += gap * max(end - start, 0.0)
    return total


def gap_to_bound(row: dict[str, Any], bound: float | None) -> float | None:
    """The final gap of the row's objective to the board's best bound:
    ``max(sign · (bound − objective), 0) / max(1, |objective|)``; None without either."""
    objective = number(row.get("objective"))
    if objective is None or bound is None or failed(row):
        return None
    return max(0.0, sign_of(row) * (bound - objective)) / max(1.0, abs(objective))  # not -0.0


def measure(row: dict[str, Any], ref: Reference) -> dict[str, Any]:
    """One row's measures against its board's reference: ``reached``, ``time_to_target``,
    ``proven``, ``time_to_best``, ``gap`` (to the board's best bound), ``primal_integral``
    and ``failed``."""
    timing = timing_of(row)
    ttt = time_to_target(row, ref.value)
    return {
        "reached": ttt is not None,
        "time_to_target": ttt,
        # a proof that no placement exists is a proof too
        "proven": row.get("status") in ("optimal", "infeasible"),
        "time_to_best": None if failed(row) else number(timing.get("to_best")),
        "gap": gap_to_bound(row, ref.bound),
        "primal_integral": primal_integral(row, ref.value, number(row.get("time_limit"))),
        "failed": failed(row),
    }
