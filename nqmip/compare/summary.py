"""Statistics over the rows of a grid (one entry per n, method, weights, warm start and
parameters: status counts and medians) and their renderings: a rich table, CSV, Markdown."""

from __future__ import annotations

import csv
import io
import json
import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from nqmip.compare.grid import method_kind, params_key


def _numbers(rows: Iterable[dict[str, Any]], name: str) -> list[float]:
    """The finite numbers under ``name`` (``"part.key"`` for a nested one) in ``rows``."""
    part, _, key = name.rpartition(".")
    values = []
    for row in rows:
        holder = row.get(part) if part else row
        value = holder.get(key) if isinstance(holder, dict) else None
        if isinstance(value, int | float) and not isinstance(value, bool) \
                and math.isfinite(value):
            values.append(float(value))
    return values


def _sense(row: dict[str, Any]) -> str:
    """A row's or entry's objective sense: "min" (costs) or "max" (older rows: "max")."""
    return "min" if row.get("sense") == "min" else "max"


def _sign(row: dict[str, Any]) -> int:
    return -1 if _sense(row) == "min" else 1


def _board(row: dict[str, Any]) -> tuple[Any, Any, str]:
    return (row["n"], row["weights"], _sense(row))


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def summarize(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per (n, method, weights, warm start): status counts and medians."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        key = (row["n"], row["method"], row["weights"], row.get("warm_start"),
               params_key(row.get("params")))
        groups.setdefault(key, []).append(row)
    order = {m: i for i, m in enumerate(dict.fromkeys(r["method"] for r in rows))}
    summary = []
    for (n, method, weights, warm, params), group in sorted(
            groups.items(), key=lambda kv: (kv[0][0], order[kv[0][1]], str(kv[0][3]),
                                            kv[0][4])):
        times = _numbers(group, "wall_time")
        summary.append({
            "n": n, "method": method, "weights": weights, "warm_start": warm,
            "sense": _sense(group[0]),
            "params": json.loads(params) or None,
            "kind": method_kind(method), "runs": len(group),
            "status": dict(sorted(Counter(str(r["status"]) for r in group).items())),
            "time_median": _median(times),
            "time_min": min(times) if times else None,
            "time_max": max(times) if times else None,
            "objective_median": _median(_numbers(group, "objective")),
            "objective_min": min(_numbers(group, "objective"), default=None),
            "objective_max": max(_numbers(group, "objective"), default=None),
            "bound_median": _median(_numbers(group, "bound")),
            "bound_runs": len(_numbers(group, "bound")),
            "gap_median": _median(_numbers(group, "gap")),
            "gap_runs": len(_numbers(group, "gap")),
            "evaluations_median": _median(_numbers(group, "counters.evaluations")),
        })
    # Quality beside time: each median against the best objective any method of the same
    # (n, weights, sense) reached (a heuristic that stops early with a poor answer is not
    # "fast"). Values are signed so that larger is better in both senses (costs negated).
    best: dict[tuple[Any, Any, str], float] = {}
    for row in rows:
        values = _numbers([row], "objective")
        if values:
            board = _board(row)
            best[board] = max(best.get(board, -math.inf), _sign(row) * values[0])
    for entry in summary:
        sign = _sign(entry)
        signed = best.get(_board(entry))
        known = None if signed is None else sign * signed
        value = entry["objective_median"]
        entry["best_known"] = known
        entry["to_best_median"] = (
            None if signed is None or value is None
            else (signed - sign * value) / max(abs(signed), 1e-9))
        entry["to_best_runs"] = entry["runs"] if entry["to_best_median"] is not None else 0
    _gap_against_best_bound(rows, summary)
    return summary


def _gap_against_best_bound(rows: Sequence[dict[str, Any]],
                            summary: list[dict[str, Any]]) -> None:
    """A heuristic's own bound is a cheap one (at n = 8 the trivial 2n = 16, which shows an
    optimal answer 33 % off): its gap is measured instead against the tightest bound any
    method found for the same board (every bound is valid; the exact methods' are the
    tight ones), and ``gap_against`` says so."""
    tightest: dict[tuple[Any, Any, str], float] = {}  # signed: the least is the tightest
    for row in rows:
        values = _numbers([row], "bound")
        if values:
            board = _board(row)
            tightest[board] = min(tightest.get(board, math.inf), _sign(row) * values[0])
    for entry in summary:
        entry["gap_against"] = "own bound"
        if entry["kind"] != "heuristic":
            continue
        sign = _sign(entry)
        signed = tightest.get(_board(entry))
        value = entry["objective_median"]
        if signed is None or value is None:
            continue
        bound = sign * signed
        entry["gap_median"] = max(signed - sign * value, 0.0) / max(1.0, abs(value))
        entry["gap_runs"] = entry["runs"]
        entry["gap_against"] = "best bound"
        entry["own_bound_median"] = entry["bound_median"]
        entry["bound_median"], entry["bound_runs"] = bound, entry["runs"]


def cell_label(method: str, warm_start: str | None, params: dict[str, Any] | None) -> str:
    """``highs``, ``highs +sa`` (warm start), ``highs [strengthen=false]``."""
    label = method + (f" +{warm_start}" if warm_start else "")
    if params:
        label += " [" + ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(params.items())) + "]"
    return label


def _of(entry: dict[str, Any], name: str) -> str:
    """The median of ``name`` with "(k of runs)" when only k runs had one."""
    value = entry[f"{name}_median"]
    if value is None:
        return "-"
    text = f"{value:.1%}" if name in ("gap", "to_best") else f"{value:g}"
    if name in ("gap", "bound") and entry.get("gap_against") == "best bound":
        text += "*"
    count = entry[f"{name}_runs"]
    return text if count == entry["runs"] else f"{text} ({count} of {entry['runs']})"


def _to_best(entry: dict[str, Any]) -> str:
    """How far the median objective is below the best any method reached on the cell's
    board ("best" for the best itself)."""
    value = entry.get("to_best_median")
    if value is None:
        return "-"
    return "best" if value <= 1e-12 else f"{value:.1%}"


def _fmt(value: Any, spec: str = "g") -> str:
    if value is None:
        return "-"
    return format(value, spec)


def _time(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if value < 100 else f"{value:.1f}"


def summary_table(summary: Sequence[dict[str, Any]]) -> Any:
    from rich.table import Table

    table = Table(title="nqmip-compare: medians over the runs of each cell "
                        "(evals: a heuristic's evaluations)",
                  caption="bound*, gap*: for a heuristic, the tightest bound any method "
                          "found for the same board, and the gap to it (its own bound is a "
                          "cheap one)")
    for name, justify in (("n", "right"), ("method", "left"), ("runs", "right"),
                          ("status", "left"), ("time s", "right"), ("min–max s", "right"),
                          ("objective", "right"), ("to best", "right"), ("bound", "right"),
                          ("gap", "right"),
                          ("evals", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    last_n = None
    for entry in summary:
        if last_n is not None and entry["n"] != last_n:
            table.add_section()
        last_n = entry["n"]
        objective = _fmt(entry["objective_median"])
        if entry["objective_min"] is not None and entry["objective_min"] != entry["objective_max"]:
            objective += f" ({entry['objective_min']:g}–{entry['objective_max']:g})"
        method = cell_label(entry["method"], entry["warm_start"], entry["params"])
        table.add_row(
            str(entry["n"]), method, str(entry["runs"]),
            ", ".join(f"{k} {v}" for k, v in entry["status"].items()),
            _time(entry["time_median"]),
            f"{_time(entry['time_min'])}–{_time(entry['time_max'])}",
            objective, _to_best(entry), _of(entry, "bound"), _of(entry, "gap"),
            _fmt(entry["evaluations_median"], ".0f"),
        )
    return table


SUMMARY_CSV_FIELDS = ("n", "method", "weights", "sense", "warm_start", "params", "kind",
                      "runs", "status",
                      "time_median", "time_min", "time_max", "objective_median",
                      "objective_min", "objective_max", "bound_median", "bound_runs",
                      "gap_median", "gap_runs", "gap_against", "own_bound_median",
                      "best_known", "to_best_median",
                      "to_best_runs", "evaluations_median")


def summary_csv(summary: Sequence[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=SUMMARY_CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for entry in summary:
        flat = dict(entry)
        flat["status"] = ";".join(f"{k}={v}" for k, v in entry["status"].items())
        flat["params"] = json.dumps(entry["params"], sort_keys=True) if entry["params"] else ""
        writer.writerow(flat)
    return out.getvalue()


def summary_markdown(summary: Sequence[dict[str, Any]]) -> str:
    """The summary as a Markdown table (for the docs' benchmark page)."""
    head = ("| n | method | runs | status | time s median (min–max) | objective | to best "
            "| bound | gap | evaluations |\n| ---: | --- | ---: | --- | ---: | ---: | ---: "
            "| ---: | ---: | ---: |\n")
    lines = []
    for e in summary:
        objective = _fmt(e["objective_median"])
        if e["objective_min"] is not None and e["objective_min"] != e["objective_max"]:
            objective += f" ({e['objective_min']:g}–{e['objective_max']:g})"
        lines.append(
            f"| {e['n']} | {cell_label(e['method'], e['warm_start'], e['params'])} "
            f"| {e['runs']} | {', '.join(f'{k} {v}' for k, v in e['status'].items())} "
            f"| {_time(e['time_median'])} ({_time(e['time_min'])}–{_time(e['time_max'])}) "
            f"| {objective} | {_to_best(e)} | {_of(e, 'bound')} | {_of(e, 'gap')} "
            f"| {_fmt(e['evaluations_median'], '.0f')} |")
    note = ("\nbound*, gap*: for a heuristic, the tightest bound any method found for the "
            "same board, and the gap to it.\n")
    starred = any(e.get("gap_against") == "best bound" for e in summary)
    return head + "\n".join(lines) + "\n" + (note if starred else "")
