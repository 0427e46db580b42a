"""The plot of ``nqmip-compare --plot``: median wall time against n, one line per method."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nqmip.compare.grid import method_kind, params_key
from nqmip.compare.summary import cell_label, summarize


def plot(rows: Sequence[dict[str, Any]], path: Path, title: str | None = None) -> None:
    """Median wall time against n, log scale, one line per method: exact solid,
    heuristics dashed, the hybrid dash-dotted; cells with a timeout or a solver's own time
    limit are circled in red."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = summarize(rows)
    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=120)
    styles = {"exact": "-", "heuristic": "--", "hybrid": "-."}
    markers = "osD^v<>Ph*X"
    methods = list(dict.fromkeys(
        (e["method"], e["warm_start"], params_key(e["params"])) for e in summary))
    limited_points: list[tuple[int, float]] = []
    for index, (method, warm, params) in enumerate(methods):
        entries = [e for e in summary if e["method"] == method and e["warm_start"] == warm
                   and params_key(e["params"]) == params and e["time_median"] is not None]
        if not entries:
            continue
        xs = [e["n"] for e in entries]
        ys = [max(e["time_median"], 1e-4) for e in entries]
        kind = method_kind(method)
        label = f"{cell_label(method, warm, json.loads(params))} ({kind})"
        ax.plot(xs, ys, linestyle=styles[kind], marker=markers[index % len(markers)],
                label=label)
        limited = [(e["n"], max(e["time_median"], 1e-4)) for e in entries if _hit_limit(
            [r for r in rows if r["n"] == e["n"] and r["method"] == method
             and r.get("warm_start") == warm and params_key(r.get("params")) == params])]
        limited_points.extend(limited)
    if limited_points:
        ax.scatter([x for x, _ in limited_points], [y for _, y in limited_points], s=160,
                   facecolors="none", edgecolors="red", linewidths=1.2,
                   label="a run hit a time limit", zorder=3)
    ax.set_yscale("log")
    ax.set_xlabel("n (board size)")
    ax.set_ylabel("wall time, s (median of runs; log scale)")
    weights = sorted({str(r["weights"]) for r in rows})
    ax.set_title(title or f"nqmip-compare: weights {', '.join(weights)}")
    ax.set_xticks(sorted({e["n"] for e in summary}))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def _hit_limit(rows: Sequence[dict[str, Any]]) -> bool:
    return any(r.get("status") == "timeout" or r.get("termination") == "time_limit"
               for r in rows)
