"""Boards as pictures: :func:`draw` (matplotlib) and :func:`board_svg` (the SVG a
:class:`~nqmip.result.Result` shows in a notebook).

Up to :data:`DRAW_LIMIT` rows the board is drawn square by square: dark and light squares
as on a chess board (``(row + col)`` even is dark, square a1 at the bottom left), a queen
as a disc, a fixed (pre-placed) queen as a disc with a ring. Larger boards are drawn as a
density picture: the board cut into ``DENSITY_CELLS`` × ``DENSITY_CELLS`` cells, each
shaded by how many of its queens stand on dark squares (orange) and on light squares
(blue); never an n²-cell picture. A caption says status, objective, bound, gap and how the
result was proven.

Nothing here imports the rest of the package: a result is read by its fields.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

#: A :class:`nqmip.result.Result`, read by its fields only (this module imports nothing of
#: the package: the result imports it for its notebook picture).
Result = Any

#: Largest n drawn square by square; beyond it, a density picture.
DRAW_LIMIT = 64
#: Cells per side of the density picture of a large board.
DENSITY_CELLS = 32
DARK = "#b58863"
LIGHT = "#f0d9b5"
QUEEN = "#1a1a1a"
FIXED = "#c0392b"


def _parts(obj: Any, fixed: Sequence[tuple[int, int]] | None
           ) -> tuple[np.ndarray, tuple[tuple[int, int], ...], Any]:
    """The placement, the fixed queens and the result (None for a bare placement)."""
    placement = getattr(obj, "placement", obj)
    if placement is None:
        raise ValueError("this result has no placement to draw")
    columns = np.asarray(placement, dtype=np.int64)
    if columns.ndim != 1:
        raise ValueError(f"a placement is one column per row, got shape {columns.shape}")
    result = obj if hasattr(obj, "placement") else None
    if fixed is None:
        fixed = getattr(obj, "fixed", ()) or ()
    return columns, tuple((int(r), int(c)) for r, c in fixed), result


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    if math.isfinite(value) and float(value).is_integer():
        return str(int(value))
    return f"{value:.6g}"


def caption(result: Result | None, n: int) -> str:
    """One line: size, status, objective, bound, gap and what proves it."""
    if result is None:
        return f"{n}-queens placement"
    parts = [f"n = {n}", str(result.status), f"objective {_fmt(result.objective)}",
             f"bound {_fmt(result.bound)}"]
    if result.gap is not None:
        parts.append(f"gap {result.gap:.1%}")
    proof = result.provenance.proof
    if proof and str(result.status) == "optimal":
        parts.append("proven by " + proof.replace("_", " "))
    parts.append(f"{result.method}, {result.wall_time:.2f} s")
    return " · ".join(parts)


def density(columns: np.ndarray, cells: int) -> tuple[np.ndarray, np.ndarray]:
    """Queens per cell of a ``cells`` × ``cells`` grid over the board: (dark, light)."""
    n = columns.size
    rows = np.arange(n)
    r = rows * cells // n
    c = columns * cells // n
    dark_square = (rows + columns) % 2 == 0
    dark = np.zeros((cells, cells))
    light = np.zeros((cells, cells))
    np.add.at(dark, (r[dark_square], c[dark_square]), 1)
    np.add.at(light, (r[~dark_square], c[~dark_square]), 1)
    return dark, light


def board_svg(obj: Any, *, size: int = 360, fixed: Sequence[tuple[int, int]] | None = None
              ) -> str:
    """An SVG picture of a result's (or a placement's) board, rank 1 at the bottom."""
    columns, fixed_queens, _ = _parts(obj, fixed)
    n = columns.size
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
           f'viewBox="0 0 {size} {size}">']
    if n <= DRAW_LIMIT:
        cell = size / n
        for row in range(n):
            y = (n - 1 - row) * cell
            for col in range(n):
                colour = DARK if (row + col) % 2 == 0 else LIGHT
                out.append(f'<rect x="{col * cell:.2f}" y="{y:.2f}" width="{cell:.2f}" '
                           f'height="{cell:.2f}" fill="{colour}"/>')
        ring = set(fixed_queens)
        for row, col in enumerate(columns.tolist()):
            cx, cy = (col + 0.5) * cell, (n - 1 - row + 0.5) * cell
            out.append(f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="{cell * 0.32:.2f}" '
                       f'fill="{QUEEN}"/>')
            if (row, col) in ring:
                out.append(f'<circle cx="{cx:.2f}" cy="{cy:.2f}" r="{cell * 0.42:.2f}" '
                           f'fill="none" stroke="{FIXED}" stroke-width="{max(cell / 10, 1):.2f}"/>')
    else:
        cells = DENSITY_CELLS
        dark, light = density(columns, cells)
        top = max(dark.max(), light.max(), 1.0)
        cell = size / cells
        for r in range(cells):
            y = (cells - 1 - r) * cell
            for c in range(cells):
                d, lt = dark[r, c] / top, light[r, c] / top
                red = int(255 - 30 * lt)
                green = int(255 - 120 * d - 60 * lt)
                blue = int(255 - 200 * d)
                out.append(f'<rect x="{c * cell:.2f}" y="{y:.2f}" width="{cell:.2f}" '
                           f'height="{cell:.2f}" fill="rgb({red},{green},{blue})"/>')
    out.append(f'<rect width="{size}" height="{size}" fill="none" stroke="#888"/></svg>')
    return "".join(out)


def result_html(result: Result) -> str:
    """A notebook's picture of a result: the board (or its density) and a caption."""
    n = result.n
    if result.placement is None:
        return f"<p><b>{html.escape(caption(result, n))}</b> (no placement)</p>"
    note = "" if n <= DRAW_LIMIT else (
        f"<br/>density of the {n} queens in {DENSITY_CELLS} × {DENSITY_CELLS} cells: orange on "
        "dark squares, blue on light ones")
    return (f"<figure>{board_svg(result)}<figcaption>{html.escape(caption(result, n))}"
            f"{note}</figcaption></figure>")


def draw(obj: Any, ax: Any = None, *, fixed: Sequence[tuple[int, int]] | None = None,
         title: str | None = None) -> Any:
    """Draw a :class:`~nqmip.result.Result` or a placement (one column per row) with
    matplotlib, on ``ax`` or a new figure's axes; returns the axes.

    Rank 1 (row 0) is at the bottom and file a (column 0) at the left, as on a chess
    diagram; fixed queens (``fixed``, or the result's own) have a red ring. Boards larger
    than :data:`DRAW_LIMIT` are drawn as a density picture of the queens by square colour.
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    columns, fixed_queens, result = _parts(obj, fixed)
    n = columns.size
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 5))
    if n <= DRAW_LIMIT:
        squares = (np.add.outer(np.arange(n), np.arange(n)) % 2 == 0).astype(int)
        ax.imshow(squares, cmap=ListedColormap([LIGHT, DARK]), origin="lower",
                  extent=(-0.5, n - 0.5, -0.5, n - 0.5))
        ax.scatter(columns, np.arange(n), s=(240 / n) ** 2, c=QUEEN, zorder=3)
        if fixed_queens:
            rows, cols = zip(*fixed_queens, strict=True)
            ax.scatter(cols, rows, s=(360 / n) ** 2, facecolors="none", edgecolors=FIXED,
                       linewidths=2, zorder=4)
        if n <= 26:
            ax.set_xticks(range(n), [chr(ord("a") + c) for c in range(n)])
            ax.set_yticks(range(n), [str(r + 1) for r in range(n)])
        else:
            ax.set_xticks([])
            ax.set_yticks([])
    else:
        dark, light = density(columns, DENSITY_CELLS)
        top = max(dark.max(), light.max(), 1.0)
        image = np.ones((DENSITY_CELLS, DENSITY_CELLS, 3))
        image[..., 1] -= 0.47 * dark / top + 0.23 * light / top
        image[..., 2] -= 0.78 * dark / top
        image[..., 0] -= 0.12 * light / top
        ax.imshow(np.clip(image, 0, 1), origin="lower", extent=(0, n, 0, n))
        ax.set_xlabel("column")
        ax.set_ylabel("row")
    import textwrap

    text = title if title is not None else caption(result, n)
    ax.set_title("\n".join(textwrap.wrap(text, 60)), fontsize=9)
    return ax
