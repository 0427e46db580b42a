"""The summary of :mod:`nqmip.compare.summary` as a rich table (the screen), CSV, Markdown
(the docs) and the cells of an HTML table (the report): one set of columns, written once
in :func:`columns`."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

#: What the columns mean, under every rendering.
LEGEND = (
    "target: the value each run is measured against, the heuristics' target (opt: an "
    "optimum a run proved; best: the best objective found; given: --target). reached, "
    "proven: runs that reached it, that proved optimality (an exact method by its own "
    "bound; a heuristic's run when its objective meets the bound it carries, for the "
    "chess weights the colour bound, so it is proven only on the boards where that bound "
    "is the optimum). to target: seconds until the incumbent first reached it, median "
    "(min–max of the runs that reached it; a median only when more than half did). "
    "× fastest: that median as a factor of the fastest median on the same board (the "
    "fastest: 1, marked). to best: until the run's own final objective. gap: final "
    "objective to the best bound any method found for the board. P(T): primal integral "
    "over the time limit, seconds (Berthold 2013; 0 is the optimum at once)."
)


def cell_label(method: str, warm_start: str | None, params: dict[str, Any] | None,
               target_mode: str | None = None) -> str:
    """``highs``, ``highs +sa`` (warm start), ``highs [strengthen=false]``, ``sa (target
    40)`` (a fixed target; ``auto`` targets are the default and not named)."""
    label = method + (f" +{warm_start}" if warm_start else "")
    if params:
        label += " [" + ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(params.items())) + "]"
    if target_mode not in (None, "auto"):
        label += f" (target {target_mode})"
    return label


def queens_text(fixed: Sequence[Sequence[int]] | None) -> str:
    """Fixed queens as ``0,1 3,4`` (ROW,COL, 0-based, as ``--fix`` takes them)."""
    return " ".join(f"{q[0]},{q[1]}" for q in fixed or ())


def instance_line(summary: Sequence[dict[str, Any]]) -> str:
    """The instance the entries ran on, in one line: ``maximised`` or ``costs
    minimised``, then the fixed queens (each distinct combination once)."""
    seen = dict.fromkeys((e.get("sense") or "max", queens_text(e.get("fixed")))
                         for e in summary)
    parts = [("costs minimised" if sense == "min" else "maximised")
             + (f", fixed queens (row,col) {queens}" if queens else ", no fixed queens")
             for sense, queens in seen]
    return "instance: " + "; ".join(parts) if parts else ""


def seconds(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 0.0995:
        return f"{value:.3f}"
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def _g(value: Any, spec: str = "g") -> str:
    return "-" if value is None else format(value, spec)


def _target(e: dict[str, Any]) -> str:
    if e["target"] is None:
        return "per board" if e["target_source"] == "per board" else "-"
    short = {"proven": "opt", "given": "given", "best known": "best"}
    return f"{e['target']:g} {short.get(e['target_source'], '')}".strip()


def _reached(e: dict[str, Any]) -> str:
    if e["target"] is None and e["target_source"] != "per board":
        return "-"
    text = f"{e['reached']}/{e['runs']}"
    return f"never {text}" if e["reached"] == 0 else text


def _to_target(e: dict[str, Any]) -> str:
    if e["reached"] == 0:
        return "never" if e["target"] is not None or e["target_source"] == "per board" \
            else "-"
    span = f"{seconds(e['ttt_min'])}–{seconds(e['ttt_max'])}"
    median = seconds(e["ttt_median"]) if e["ttt_median"] is not None else "-"
    return f"{median} ({span})"


def factor(value: float) -> str:
    """A factor of times: 2.4, 28, 310."""
    return f"{value:.1f}" if value < 9.95 else f"{value:.0f}"


def _factor(e: dict[str, Any]) -> str:
    if e.get("ttt_factor") is None:
        return "-"
    return "1 (fastest)" if e.get("fastest") else factor(e["ttt_factor"])


def _objective(e: dict[str, Any]) -> str:
    text = _g(e["objective_median"])
    if e["objective_min"] is not None and e["objective_min"] != e["objective_max"]:
        text += f" ({e['objective_min']:g}–{e['objective_max']:g})"
    return text


def _runs(e: dict[str, Any]) -> str:
    return str(e["runs"]) + (f" ({e['failed']} failed)" if e["failed"] else "")


def columns() -> list[tuple[str, str, Any]]:
    """(header, alignment, the text of an entry) for every column of the summary."""
    return [
        ("n", "right", lambda e: str(e["n"])),
        ("method", "left", lambda e: cell_label(e["method"], e["warm_start"], e["params"],
                                                e.get("target_mode"))),
        ("runs", "right", _runs),
        ("target", "right", _target),
        ("reached", "right", _reached),
        ("proven", "right", lambda e: f"{e['proven']}/{e['runs']}"),
        ("to target s", "right", _to_target),
        ("× fastest", "right", _factor),
        ("to best s", "right", lambda e: seconds(e["time_to_best_median"])),
        ("wall s", "right", lambda e: seconds(e["time_median"])),
        ("objective", "right", _objective),
        ("gap", "right", lambda e: _g(e["gap_median"], ".1%")),
        ("P(T) s", "right", lambda e: _g(e["primal_integral_median"], ".3g")),
    ]


def summary_table(summary: Sequence[dict[str, Any]]) -> Any:
    """The rich table of the screen, one section per n."""
    from rich.markup import escape
    from rich.table import Table

    title = "nqmip-compare: medians over the runs of each cell"
    table = Table(title=escape(f"{title}\n{instance_line(summary)}".strip()),
                  caption=LEGEND, caption_justify="left")
    cols = columns()
    for name, justify, _ in cols:
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    last_n = None
    for e in summary:
        if last_n is not None and e["n"] != last_n:
            table.add_section()
        last_n = e["n"]
        table.add_row(*(escape(text(e)) for _, _, text in cols),  # a label's [params]
                      style="bold green" if e.get("fastest") else None)
    return table


SUMMARY_CSV_FIELDS = ("n", "method", "weights", "sense", "warm_start", "params",
                      "target_mode", "kind", "runs", "status", "failed", "target",
                      "target_source", "reached", "proven", "ttt_median", "ttt_min",
                      "ttt_max", "ttt_factor", "fastest", "time_to_best_median",
                      "time_median", "time_min", "time_max", "objective_median",
                      "objective_min", "objective_max",
                      "best_bound", "gap_median", "gap_runs", "primal_integral_median",
                      "evaluations_median", "fixed")


def summary_csv(summary: Sequence[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=SUMMARY_CSV_FIELDS, lineterminator="\n",
                            extrasaction="ignore")
    writer.writeheader()
    for entry in summary:
        flat = dict(entry)
        flat["status"] = ";".join(f"{k}={v}" for k, v in entry["status"].items())
        flat["params"] = json.dumps(entry["params"], sort_keys=True) if entry["params"] else ""
        flat["fixed"] = queens_text(entry.get("fixed"))
        writer.writerow(flat)
    return out.getvalue()


def summary_markdown(summary: Sequence[dict[str, Any]]) -> str:
    """The summary as a Markdown table (for the docs' benchmark pages), then the legend."""
    cols = columns()
    head = "| " + " | ".join(name for name, _, _ in cols) + " |\n"
    head += "| " + " | ".join("---:" if align == "right" else "---"
                              for _, align, _ in cols) + " |\n"
    lines = ["| " + " | ".join(text(e).replace("|", "\\|") for _, _, text in cols) + " |"
             for e in summary]
    said = instance_line(summary)
    return head + "\n".join(lines) + "\n\n" + (f"{said}\n\n" if said else "") + LEGEND + "\n"
