"""``nqmip-compare --report report.html``: the whole comparison in one self-contained HTML
file — the command and its wall time, the summary table, the failed cells, the boards and
their references, and the pictures of :mod:`nqmip.compare.plot` as inline SVG.

Nothing in it is fetched: no script at all, no font, no stylesheet nor image from
elsewhere (the SVG namespaces are names, not addresses). The page fits a laptop screen
and a phone: the text column is limited, each table scrolls sideways inside its own box
and each picture scales to the width.
"""

from __future__ import annotations

import html
import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nqmip.compare.canvas import separate, svg_markup
from nqmip.compare.plot import PICTURES, pictures
from nqmip.compare.summary import board_table, failures, summarize
from nqmip.compare.tables import LEGEND, columns, instance_line, queens_text, seconds
from nqmip.compare.verdict import conclusions
from nqmip.files import write_whole

CSS = """
:root { color-scheme: light; }
body { margin: 0; color: #1b1b1b; background: #fff;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.2rem 3rem; }
h1 { font-size: 1.5rem; margin: .4rem 0 .8rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .6rem; border-bottom: 1px solid #ddd; }
p, li { max-width: 48rem; }
pre { background: #f5f5f5; padding: .6rem .8rem; white-space: pre-wrap;
  overflow-wrap: anywhere; font-size: .85rem; }
.meta { color: #444; font-size: .9rem; }
.scroll { overflow-x: auto; border: 1px solid #ddd; border-radius: 4px; }
table { border-collapse: separate; border-spacing: 0; font-size: .85rem; white-space: nowrap;
  font-variant-numeric: tabular-nums; }
th, td { padding: .3rem .55rem; text-align: right; border-bottom: 1px solid #eee; }
th { background: #f3f3f3; position: sticky; top: 0; }
.left { text-align: left; }
tr.section td { border-top: 2px solid #bbb; }
td { background: #fff; }
tr.fastest td { background: #e3f4e1; }
tr.fastest td.factor { font-weight: 700; color: #105e10; }
/* n and method stay in view while the table scrolls sideways (a phone) */
table.summary th:nth-child(1), table.summary td:nth-child(1) {
  position: sticky; left: 0; z-index: 1; box-sizing: border-box; width: 2.6rem;
  min-width: 2.6rem; max-width: 2.6rem; padding-left: .3rem; padding-right: .5rem; }
table.summary th:nth-child(2), table.summary td:nth-child(2) {
  position: sticky; left: 2.6rem; z-index: 1; box-shadow: 1px 0 0 #bbb; }
table.summary th:nth-child(-n+2) { z-index: 2; }
.conclusions li { margin: .2rem 0; }
td.never { color: #a40000; }
.legend { font-size: .85rem; color: #444; }
figure { margin: 1.2rem 0 2rem; }
.panels { display: grid; gap: .6rem;
  grid-template-columns: repeat(auto-fit, minmax(min(100%, 26rem), 1fr)); }
.panels.one { max-width: 40rem; }
figure svg { display: block; width: 100%; height: auto; }
figcaption { font-size: .9rem; color: #333; margin-top: .3rem; }
.failed li { font-family: ui-monospace, monospace; font-size: .85rem; }
@media (max-width: 40rem) {
  body { font-size: 14px; }
  main { padding: .6rem .6rem 2rem; }
  table { font-size: .78rem; }
  th, td { padding: .25rem .4rem; }
}
"""


@dataclass(frozen=True)
class Sweep:
    """What the report says of the sweep itself: the command, its wall time (None: the
    rows were read back, not run), when it ran and where."""

    command: str
    wall: float | None = None
    when: str = ""
    host: str = platform.node()
    cpus: int = os.cpu_count() or 1
    #: A stop ended the sweep: what it says of the runs left out (empty: it finished).
    interrupted: str = ""


def _table(head: Sequence[tuple[str, str]], body: Sequence[Sequence[tuple[str, str]]],
           sections: Sequence[bool] = (), marks: Sequence[str] = (), name: str = "") -> str:
    """An HTML table: ``head`` (text, alignment), ``body`` rows of (text, class); a new
    section before each row ``sections`` says, each row's classes in ``marks``."""
    cells = "".join(f'<th class="{a}">{html.escape(t)}</th>' for t, a in head)
    lines = []
    for index, row in enumerate(body):
        classes = [marks[index]] if index < len(marks) and marks[index] else []
        if index < len(sections) and sections[index]:
            classes.append("section")
        mark = f' class="{" ".join(classes)}"' if classes else ""
        tds = "".join(f'<td class="{c}">{html.escape(t)}</td>' for t, c in row)
        lines.append(f"<tr{mark}>{tds}</tr>")
    table = f'<table class="{name}">' if name else "<table>"
    return (f'<div class="scroll">{table}<thead><tr>{cells}</tr></thead>'
            f'<tbody>{"".join(lines)}</tbody></table></div>')


def summary_html(summary: Sequence[dict[str, Any]]) -> str:
    cols = columns()
    head = [(name, "left" if align == "left" else "") for name, align, _ in cols]
    body = []
    for e in summary:
        row = []
        for name, align, text in cols:
            value = text(e)
            css = "left" if align == "left" else ""
            if name in ("reached", "to target s") and value.startswith("never"):
                css += " never"
            if name == "× fastest":
                css += " factor"
            row.append((value, css.strip()))
        body.append(row)
    sections = [i > 0 and e["n"] != summary[i - 1]["n"] for i, e in enumerate(summary)]
    marks = ["fastest" if e.get("fastest") else "" for e in summary]
    return _table(head, body, sections, marks, name="summary")


def conclusions_html(summary: Sequence[dict[str, Any]]) -> str:
    """The conclusions (:func:`nqmip.compare.verdict.conclusions`) as a list."""
    lines = conclusions(summary)
    if not lines:
        return ""
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return f'<h2>Conclusions</h2><ul class="conclusions">{items}</ul>'



def boards_html(rows: Sequence[dict[str, Any]]) -> str:
    head = [("n", ""), ("weights", "left"), ("weights seed", ""), ("sense", "left"),
            ("fixed queens", "left"), ("target", ""), ("from", "left"), ("best bound", ""),
            ("runs", "")]

    def g(value: Any) -> str:
        return "-" if value is None else f"{value:g}"

    body = [[(str(b["n"]), ""), (b["weights"] + (f" {b['params']}" if b["params"] else ""),
                                 "left"),
             ("-" if b["weights_seed"] is None else str(b["weights_seed"]), ""),
             (b["sense"], "left"), (queens_text(b["fixed"]) or "-", "left"),
             (g(b["target"]), ""), (b["target_source"], "left"), (g(b["best_bound"]), ""),
             (str(b["runs"]), "")] for b in board_table(rows)]
    return _table(head, body)


def _figures(rows: Sequence[dict[str, Any]]) -> str:
    """Each picture as a figure of its panels, one SVG each (a grid that a narrow screen
    turns into one column)."""
    parts = []
    for index, (suffix, picture) in enumerate(pictures(rows).items()):
        panels = "".join(svg_markup(fig, f"p{index}-{k}")
                         for k, fig in enumerate(separate(picture)))
        caption = PICTURES[suffix][0].upper() + PICTURES[suffix][1:]
        one = " one" if len(picture.panels) == 1 else ""
        parts.append(f'<figure><div class="panels{one}">{panels}</div><figcaption>'
                     f"{html.escape(caption)}: {html.escape(picture.detail)}.</figcaption>"
                     "</figure>")
    return "\n".join(parts)


MEASURED = (
    "Every run is its own process with a hard time limit. Before the clock of "
    "<code>nqmip.solve</code> starts, the worker imports the method and loads its numba "
    "kernels (<code>load_time</code> in the rows); every time below is on that call's one "
    "clock. On each board the exact methods and <code>auto</code> run first; with "
    "<code>--target auto</code> the best they found (a proven optimum, else the best "
    "objective) is the target of the board's heuristics, which stop as soon as they reach "
    "it. A run's time to target comes from its trajectory (the incumbent and bound at each "
    "improvement)."
)


def report_html(rows: Sequence[dict[str, Any]], sweep: Sweep) -> str:
    """The report's page (see the module's docstring)."""
    summary = summarize(rows)
    failed = failures(rows)
    wall = "" if sweep.wall is None else \
        f"; the command had run {seconds(sweep.wall)} s when it wrote this report"
    boards = len(board_table(rows))
    meta = (f"{len(rows)} runs on {boards} board{'s' * (boards != 1)}{wall}. "
            f"{sweep.when} on {sweep.host} ({sweep.cpus} CPUs).")
    if sweep.interrupted:
        meta += f" {sweep.interrupted}"
    failed_html = ("<h2>Failed runs</h2><ul class=\"failed\">"
                   + "".join(f"<li>{html.escape(line)}</li>" for line in failed) + "</ul>"
                   if failed else "")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>nqmip-compare report</title>
<style>{CSS}</style>
</head>
<body>
<main>
<h1>nqmip-compare: exact against heuristic</h1>
<pre>{html.escape(sweep.command)}</pre>
<p class="meta">{html.escape(meta)}</p>
<p class="meta">{html.escape(instance_line(summary))}</p>
<h2>Summary</h2>
{summary_html(summary)}
<p class="legend">{html.escape(LEGEND)} Highlighted: the fastest method to the target on
each board.</p>
{conclusions_html(summary)}
{failed_html}
<h2>Pictures</h2>
{_figures(rows)}
<h2>Boards</h2>
{boards_html(rows)}
<h2>How it was measured</h2>
<p>{MEASURED}</p>
</main>
</body>
</html>
"""


def write_report(path: Path, rows: Sequence[dict[str, Any]], sweep: Sweep) -> None:
    """Write the report to ``path``."""
    text = report_html(rows, sweep)
    write_whole(path, text)
