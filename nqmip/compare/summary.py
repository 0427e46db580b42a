"""Statistics over the rows of a grid, one entry per n, method, weights, warm start,
parameters and target mode: the runs that reached the board's target and that proved
optimality, the time to target (median and range), the time to best, the wall time, the
objective, the gap to the board's best bound and the primal integral
(:mod:`nqmip.compare.measures`). The renderings are in :mod:`nqmip.compare.tables`."""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from nqmip.compare.grid import BOARD_PARAMS, fixed_key, method_kind, params_key
from nqmip.compare.measures import (
    Reference,
    board_of,
    failed,
    measure,
    number,
    references,
)


def _numbers(rows: Iterable[dict[str, Any]], name: str) -> list[float]:
    """The finite numbers under ``name`` (``"part.key"`` for a nested one) in ``rows``."""
    part, _, key = name.rpartition(".")
    values = []
    for row in rows:
        holder = row.get(part) if part else row
        value = number(holder.get(key)) if isinstance(holder, dict) else None
        if value is not None:
            values.append(value)
    return values


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def group_key(row: dict[str, Any]) -> tuple[Any, ...]:
    """What one entry of the summary gathers: (n, method, weights, warm start, parameters,
    target mode, sense, fixed queens)."""
    return (row["n"], row["method"], row["weights"], row.get("warm_start"),
            params_key(row.get("params")), row.get("target_mode"), row.get("sense") or "max",
            fixed_key(row.get("fixed")))


def measured(rows: Sequence[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each row with its measures against its board's reference."""
    refs = references(rows)
    return [(row, measure(row, refs[board_of(row)])) for row in rows]


def summarize(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per :func:`group_key`, in the order of n, then of the rows (the exact
    methods and auto run first), then warm start and parameters."""
    refs = references(rows)
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(group_key(row), []).append(row)
    order = {m: i for i, m in enumerate(dict.fromkeys(r["method"] for r in rows))}
    keys = sorted(groups, key=lambda k: (k[0], order[k[1]], str(k[3]), k[4], str(k[5])))
    return rank([entry(key, groups[key], refs) for key in keys])


def board_group(e: dict[str, Any]) -> tuple[Any, ...]:
    """The entries that ran on the same boards: n, weights and the keywords that change
    the board (:data:`nqmip.compare.grid.BOARD_PARAMS`)."""
    own = {k: v for k, v in (e.get("params") or {}).items() if k in BOARD_PARAMS}
    return (e["n"], e["weights"], json.dumps(own, sort_keys=True), e.get("sense"),
            json.dumps(e.get("fixed") or []))


def rank(summary: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each entry's ``ttt_factor``, its median time to target as a factor of the fastest
    median on its boards (None without a median), and ``fastest`` (the factor is 1)."""
    best: dict[tuple[Any, ...], float] = {}
    for e in summary:
        if e["ttt_median"] is not None:
            key = board_group(e)
            best[key] = min(best.get(key, math.inf), e["ttt_median"])
    for e in summary:
        low = best.get(board_group(e))
        e["ttt_factor"] = None if e["ttt_median"] is None or low is None else \
            e["ttt_median"] / max(low, 1e-6)
        e["fastest"] = e["ttt_median"] is not None and e["ttt_median"] == low
    return summary


def entry(key: tuple[Any, ...], group: Sequence[dict[str, Any]],
          refs: dict[tuple[Any, ...], Reference]) -> dict[str, Any]:
    """The statistics of one group of runs."""
    n, method, weights, warm, params, mode, _, fixed = key
    own = [refs[board_of(r)] for r in group]
    runs = [measure(r, ref) for r, ref in zip(group, own, strict=True)]
    ttt = [m["time_to_target"] for m in runs if m["reached"]]
    missed = len(runs) - len(ttt)
    values = {(ref.value, ref.source) for ref in own}
    target, source = values.pop() if len(values) == 1 else (None, "per board")
    bounds = {ref.bound for ref in own}
    return {
        "n": n, "method": method, "weights": weights, "warm_start": warm,
        "params": json.loads(params) or None, "target_mode": mode,
        "sense": "min" if own[0].sign < 0 else "max", "fixed": [list(q) for q in fixed],
        "kind": method_kind(method),
        "runs": len(group),
        "status": dict(sorted(Counter(str(r["status"]) for r in group).items())),
        "failed": sum(failed(r) for r in group),
        "target": target, "target_source": source,
        "best_bound": bounds.pop() if len(bounds) == 1 else None,
        "reached": len(ttt), "proven": sum(m["proven"] for m in runs),
        # what the runs that proved optimality had for it (a heuristic's: the bound it
        # carried, or the listing of a small board)
        "proven_bounds": dict(sorted(Counter(
            str(_provenance(r).get("bound_source") or _provenance(r).get("proof"))
            for r, m in zip(group, runs, strict=True) if m["proven"]).items())),
        # where the bound of each run that did not prove optimality came from
        "unproven_bounds": dict(sorted(Counter(
            str(_provenance(r).get("bound_source")) for r, m in zip(group, runs, strict=True)
            if not m["proven"] and not failed(r)).items())),
        # runs that never reached count as infinitely slow: the median is one only when
        # more than half the runs reached the target
        "ttt_median": _finite(_median([*ttt, *[math.inf] * missed])),
        "ttt_min": min(ttt, default=None), "ttt_max": max(ttt, default=None),
        "time_to_best_median": _median([m["time_to_best"] for m in runs
                                        if m["time_to_best"] is not None]),
        "time_median": _median(_numbers(group, "wall_time")),
        "time_min": min(_numbers(group, "wall_time"), default=None),
        "time_max": max(_numbers(group, "wall_time"), default=None),
        "objective_median": _median(_numbers(group, "objective")),
        "objective_min": min(_numbers(group, "objective"), default=None),
        "objective_max": max(_numbers(group, "objective"), default=None),
        "gap_median": _median([m["gap"] for m in runs if m["gap"] is not None]),
        "gap_runs": sum(m["gap"] is not None for m in runs),
        "primal_integral_median": _median([m["primal_integral"] for m in runs
                                           if m["primal_integral"] is not None]),
        "evaluations_median": _median(_numbers(group, "counters.evaluations")),
    }


def _provenance(row: dict[str, Any]) -> dict[str, Any]:
    provenance = row.get("provenance")
    return provenance if isinstance(provenance, dict) else {}


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def board_table(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One line per board: n, weights, the seed that drew its weights, the reference and
    its source, the best bound and the runs on it, in the order of the rows."""
    refs = references(rows)
    counts = Counter(board_of(r) for r in rows)
    out = []
    for board, ref in refs.items():
        n, weights, drawn, extra, _, fixed = board
        out.append({"n": n, "weights": weights, "weights_seed": drawn,
                    "params": json.loads(extra) or None, "fixed": [list(q) for q in fixed],
                    "target": ref.value,
                    "target_source": ref.source, "best_bound": ref.bound,
                    "sense": "min" if ref.sign < 0 else "max", "runs": counts[board]})
    return out


def failures(rows: Sequence[dict[str, Any]]) -> list[str]:
    """One line per run the harness ended (timeout, crashed, error): which cell, why."""
    return [f"n={r['n']} {r['method']} seed={r.get('seed')}: {r['status']}: "
            + " ".join(str(r.get("message") or "").split())[:300]
            for r in rows if failed(r)]
