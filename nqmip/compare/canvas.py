"""The canvas of nqmip-compare's pictures: matplotlib set up for reproducible SVG, one
colour, marker and line style per method, a :class:`Picture` as panels that are drawn
side by side in a file (:func:`combined`) or one by one in the report (:func:`separate`),
and a figure as an ``<svg>`` element for an HTML page (:func:`svg_markup`)."""

from __future__ import annotations

import io
import math
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from nqmip.compare.grid import method_kind
from nqmip.compare.tables import cell_label

STYLES = {"exact": "-", "heuristic": "--", "hybrid": "-."}
MARKERS = "osD^v<>Ph*X"
#: The size of one panel, inches (a picture of two panels side by side is 10 wide).
PANEL = (5.0, 3.8)

Panel = Callable[[Any], None]


@dataclass(frozen=True)
class Picture:
    """A picture: a line that says what it shows here (``detail``) and the functions that
    draw its panels, one axes each."""

    detail: str
    panels: list[Panel]


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg canvas, with reproducible SVG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # text.parse_math: a label's parameters are text ('$' in a record's file name began
    # a formula, and the plot ended in a ParseSyntaxException)
    matplotlib.rcParams.update({"svg.hashsalt": "nqmip-compare", "svg.fonttype": "none",
                                "font.size": 8.5, "legend.fontsize": 7,
                                "text.parse_math": False})
    return plt


def no_minor_labels(ax: Any) -> None:
    """No labels at a log axis's minor ticks (they overlap when the axis spans little)."""
    from matplotlib.ticker import NullFormatter

    ax.xaxis.set_minor_formatter(NullFormatter())


def legend_below(ax: Any, **kwargs: Any) -> None:
    """The axes' legend under the plot, never over a curve (the figure is saved with a
    tight box, so it stays in the picture)."""
    handles, _ = ax.get_legend_handles_labels()
    handles = kwargs.pop("handles", handles)
    count = len(handles)
    if count:
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.2),
                  ncol=min(count, 3), frameon=False, **kwargs)


def label_of(row_or_entry: dict[str, Any]) -> str:
    return cell_label(row_or_entry["method"], row_or_entry.get("warm_start"),
                      row_or_entry.get("params"), row_or_entry.get("target_mode"))


class Styles:
    """One colour, marker and line style per method label, in the order of the rows."""

    def __init__(self, rows: Sequence[dict[str, Any]]) -> None:
        import matplotlib

        palette = matplotlib.colormaps["tab10"]
        colours = [palette(i) for i in range(10)]
        self.labels = list(dict.fromkeys(label_of(r) for r in rows))
        self.kinds = {label_of(r): method_kind(r["method"]) for r in rows}
        self.colour = {lab: colours[i % len(colours)] for i, lab in enumerate(self.labels)}
        self.marker = {lab: MARKERS[i % len(MARKERS)] for i, lab in enumerate(self.labels)}

    def line(self, label: str) -> dict[str, Any]:
        return {"color": self.colour[label], "marker": self.marker[label],
                "linestyle": STYLES[self.kinds[label]], "label": label}


def combined(picture: Picture, heading: str) -> Any:
    """The picture as one figure, its panels two by two, under ``heading`` and its
    detail."""
    plt = pyplot()
    count = len(picture.panels)
    cols = 1 if count == 1 else 2
    lines = math.ceil(count / cols)
    width = PANEL[0] * cols if count > 1 else PANEL[0] * 1.6
    fig, axes = plt.subplots(lines, cols, figsize=(width, PANEL[1] * lines + 0.6),
                             squeeze=False)
    flat = [ax for line in axes for ax in line]
    for ax, draw in zip(flat, picture.panels, strict=False):
        draw(ax)
    for ax in flat[count:]:
        ax.set_visible(False)
    detail = textwrap.fill(picture.detail, width=int(width * 19))  # within the panels
    fig.suptitle(f"{heading[0].upper()}{heading[1:]}\n{detail}", fontsize=9)
    fig.tight_layout()
    return fig


def separate(picture: Picture) -> list[Any]:
    """Each panel of the picture as a figure of its own."""
    plt = pyplot()
    figs = []
    for draw in picture.panels:
        fig, ax = plt.subplots(figsize=PANEL)
        draw(ax)
        fig.tight_layout()
        figs.append(fig)
    return figs


def svg_markup(fig: Any, prefix: str) -> str:
    """The figure as an ``<svg>`` element to put inline in an HTML page: no XML
    declaration nor DOCTYPE, ids prefixed (several pictures share one page), and scaled
    to its container."""
    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None}, bbox_inches="tight")
    pyplot().close(fig)
    text = out.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', text)
    text = re.sub(r'(href|xlink:href)="#([^"]+)"', rf'\1="#{prefix}-\2"', text)
    text = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", text)
    text = re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1', text, count=1)
    return text
