"""Boards as pictures: :func:`draw` (matplotlib), :func:`board_svg` (the SVG a
:class:`~nqmip.result.Result` shows in a notebook) and :func:`save_picture` (the solve
command's ``--svg FILE`` / ``--png FILE``).

Every picture is the same way up as the command's text board, a chess diagram: rank 1
(row 0) at the bottom, file a (column 0) at the left, ranks numbered along the left edge
and files named along the bottom (``a`` … ``z``, then ``aa``, ``ab``, … as in a
spreadsheet). Dark and light squares as on a chess board (``(row + col)`` even is dark:
a1 is dark).

- Up to :data:`DRAW_LIMIT` rows every square is drawn, a queen as a disc, a fixed
  (pre-placed) queen with a red ring, every rank and file named where there is room.
- Up to :data:`DOTS_LIMIT` rows each queen is still a dot of its own, never smaller than
  :data:`MIN_DOT` pixels across whatever n (so a queen never vanishes into its square);
  the squares are a pattern while they are at least :data:`MIN_SQUARE` pixels wide;
  every few ranks and files are named.
- Beyond, a board has more queens than the picture has pixels: it is drawn as the count
  of queens in each of :data:`DENSITY_CELLS` × :data:`DENSITY_CELLS` cells, every
  non-empty cell at least :data:`MIN_SHADE` dark.

Nothing here imports the rest of the package: a result is read by its fields.
"""

from __future__ import annotations

import html
import itertools
import math
import string
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nqmip.columns import as_integer_columns
from nqmip.files import picture_kind, write_drawn, write_whole

#: A :class:`nqmip.result.Result`, read by its fields only (this module imports nothing of
#: the package: the result imports it for its notebook picture).
Result = Any

#: Largest n drawn square by square.
DRAW_LIMIT = 64
#: Largest n drawn queen by queen; beyond, the density of the queens.
DOTS_LIMIT = 10_000
#: Cells per side of the density picture of a larger board.
DENSITY_CELLS = 64
#: Smallest diameter of a queen's dot, in pixels; smallest square drawn as a pattern.
MIN_DOT = 4.0
MIN_SQUARE = 1.5
#: The lightest shade of a density cell that holds a queen (0 white, 1 the queen colour).
MIN_SHADE = 0.35
DARK = "#b58863"
LIGHT = "#f0d9b5"
#: The squares of a board drawn queen by queen beyond DRAW_LIMIT: quieter, so that the dots
#: stand out from them.
MUTED_DARK = "#dcc3a1"
MUTED_LIGHT = "#f6ead7"
QUEEN = "#1a1a1a"
FIXED = "#c0392b"
LABEL = "#555555"
#: Pixels between two labels along an edge, at least.
LABEL_GAP = 22
_IDS = itertools.count()


def file_name(col: int) -> str:
    """``a`` … ``z``, then ``aa``, ``ab``, … (column ``col``, 0-based)."""
    letters = string.ascii_lowercase
    name = ""
    col += 1
    while col > 0:
        col, rest = divmod(col - 1, 26)
        name = letters[rest] + name
    return name


def _parts(obj: Any, fixed: Sequence[tuple[int, int]] | None
           ) -> tuple[np.ndarray, tuple[tuple[int, int], ...], Any]:
    """The placement, the fixed queens and the result (None for a bare placement)."""
    placement = getattr(obj, "placement", obj)
    if placement is None:
        raise ValueError("this result has no placement to draw")
    given = as_integer_columns(placement)  # text, 2-D and floats refused in a line
    columns = given.astype(np.int64, copy=False)
    n = columns.size
    if n and (columns.min() < 0 or columns.max() >= n):  # (1, 3, 9) was drawn off the board
        raise ValueError(f"a placement of {n} rows has its columns in 0..{n - 1}, got "
                         f"{int(columns.min() if columns.min() < 0 else columns.max())}")
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


def labelled(n: int, square: float) -> list[int]:
    """The ranks (or files) named along an edge of squares ``square`` pixels wide, 0-based:
    all where there is room; else every other one (1, 3, 5, …), or the first and every
    5, 10, 20, 50, … × 10^k-th (counted from 1, as the names are); the last always."""
    if square >= LABEL_GAP:
        return list(range(n))
    want = LABEL_GAP / max(square, 1e-9)
    step = next(s * 10**k for k in range(12) for s in (1, 2, 5) if s * 10**k >= want)
    if step == 2:
        marks = list(range(0, n, 2))
    else:
        marks = [0, *range(step - 1, n, step)]
        if len(marks) > 1 and marks[1] * square < LABEL_GAP:
            marks.pop(1)
    if marks[-1] != n - 1:
        if len(marks) > 1 and (n - 1 - marks[-1]) * square < LABEL_GAP:
            marks.pop()
        marks.append(n - 1)
    return marks


def density(columns: np.ndarray, cells: int) -> np.ndarray:
    """Queens per cell of a ``cells`` × ``cells`` grid over the board, ``[row, col]``."""
    n = columns.size
    counts = np.zeros((cells, cells))
    np.add.at(counts, (np.arange(n) * cells // n, columns * cells // n), 1)
    return counts


def shade(counts: np.ndarray) -> np.ndarray:
    """0 for an empty cell, else from :data:`MIN_SHADE` (one queen) to 1 (the fullest)."""
    top = max(float(counts.max()), 2.0)
    scaled = MIN_SHADE + (1 - MIN_SHADE) * np.log(np.maximum(counts, 1.0)) / math.log(top)
    return np.where(counts > 0, np.clip(scaled, MIN_SHADE, 1.0), 0.0)


def _squares(n: int, cell: float, x0: float, y0: float) -> list[str]:
    """The board's squares: one rect each up to DRAW_LIMIT, else a 2 × 2 pattern."""
    side = n * cell
    if n <= DRAW_LIMIT:
        return [f'<rect x="{x0 + col * cell:.2f}" y="{y0 + (n - 1 - row) * cell:.2f}" '
                f'width="{cell:.2f}" height="{cell:.2f}" '
                f'fill="{DARK if (row + col) % 2 == 0 else LIGHT}"/>'
                for row in range(n) for col in range(n)]
    out = [f'<rect x="{x0}" y="{y0}" width="{side:.2f}" height="{side:.2f}" '
           f'fill="{MUTED_LIGHT}"/>']
    if cell >= MIN_SQUARE:
        tile = f"nqmip-squares-{next(_IDS)}"
        # the tile's top-left square is rank n, file a: dark when (n - 1 + 0) is even
        dark = [(dx, dy) for dx in (0, 1) for dy in (0, 1) if (n - 1 - dy + dx) % 2 == 0]
        rects = "".join(f'<rect x="{dx * cell:.3f}" y="{dy * cell:.3f}" width="{cell:.3f}" '
                        f'height="{cell:.3f}" fill="{MUTED_DARK}"/>' for dx, dy in dark)
        out.append(f'<defs><pattern id="{tile}" x="{x0}" y="{y0}" width="{2 * cell:.3f}" '
                   f'height="{2 * cell:.3f}" patternUnits="userSpaceOnUse">{rects}'
                   f'</pattern></defs><rect x="{x0}" y="{y0}" width="{side:.2f}" '
                   f'height="{side:.2f}" fill="url(#{tile})"/>')
    return out


def _queens(columns: np.ndarray, fixed: tuple[tuple[int, int], ...], cell: float,
            x0: float, y0: float) -> list[str]:
    n = columns.size
    radius = max(cell * (0.32 if n <= DRAW_LIMIT else 0.45), MIN_DOT / 2)
    out = [f'<circle cx="{x0 + (col + 0.5) * cell:.2f}" cy="{y0 + (n - row - 0.5) * cell:.2f}" '
           f'r="{radius:.2f}" fill="{QUEEN}"/>' for row, col in enumerate(columns.tolist())]
    ring = max(cell * 0.42, radius + 1.5)
    out += [f'<circle cx="{x0 + (col + 0.5) * cell:.2f}" cy="{y0 + (n - row - 0.5) * cell:.2f}" '
            f'r="{ring:.2f}" fill="none" stroke="{FIXED}" '
            f'stroke-width="{max(cell / 10, 1.2):.2f}"/>' for row, col in fixed]
    return out


def _density_cells(columns: np.ndarray, side: float, x0: float, y0: float) -> list[str]:
    cells = DENSITY_CELLS
    level = shade(density(columns, cells))
    step = side / cells
    out = [f'<rect x="{x0}" y="{y0}" width="{side:.2f}" height="{side:.2f}" fill="#ffffff"/>']
    for r, c in zip(*np.nonzero(level), strict=True):
        grey = round(255 * (1 - float(level[r, c])))
        out.append(f'<rect x="{x0 + c * step:.2f}" y="{y0 + (cells - 1 - r) * step:.2f}" '
                   f'width="{step:.2f}" height="{step:.2f}" fill="rgb({grey},{grey},{grey})"/>')
    return out


def _labels(n: int, cell: float, x0: float, y0: float, font: float) -> list[str]:
    side = n * cell
    style = f'font-family="sans-serif" font-size="{font:.1f}" fill="{LABEL}"'
    out = [f'<text x="{x0 - 4:.2f}" y="{y0 + (n - row - 0.5) * cell + font * 0.35:.2f}" '
           f'text-anchor="end" {style}>{row + 1}</text>' for row in labelled(n, cell)]
    out += [f'<text x="{x0 + (col + 0.5) * cell:.2f}" y="{y0 + side + font + 3:.2f}" '
            f'text-anchor="middle" {style}>{file_name(col)}</text>'
            for col in labelled(n, cell)]
    return out


#: Pixels from one line of an SVG picture's title to the next (12-pixel type).
TITLE_LINE = 15
#: Pixels a character of 12-pixel sans-serif type takes on average, with a margin for a
#: wider font than Chromium's (measured there: 4.7 on a caption; DejaVu Sans is wider).
TITLE_CHAR = 6.2


def title_lines(title: str, width: float) -> list[str]:
    """``title`` in lines that fit ``width`` pixels of 12-pixel type, broken after a
    " · " where one falls within the line, else at a space."""
    import textwrap

    chars = max(int(width / TITLE_CHAR), 20)
    lines: list[str] = []
    for part in title.split(" · "):
        if lines and len(lines[-1]) + 3 + len(part) <= chars:
            lines[-1] += " · " + part
        else:
            if lines:
                lines[-1] += " ·"
            lines += textwrap.wrap(part, chars) or [""]
    return lines


def board_svg(obj: Any, *, size: int = 360, fixed: Sequence[tuple[int, int]] | None = None,
              title: str | None = None) -> str:
    """An SVG picture of a result's (or a placement's) board, ``size`` pixels a side, with
    its coordinates: rank 1 at the bottom, file a at the left; ``title`` above it."""
    columns, fixed_queens, _ = _parts(obj, fixed)
    n = columns.size
    cell = size / max(n, 1)
    font = min(max(cell * 0.5, 9.0), 12.0) if n <= DRAW_LIMIT else 10.0
    x0 = 8 + 0.62 * font * len(str(n))
    width = x0 + size + 6
    lines = title_lines(title, width - x0 - 4) if title else []
    y0 = 4 + (TITLE_LINE * len(lines) + 3 if lines else 0)
    height = y0 + size + font + 8
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.2f} {height:.2f}">']
    out += [f'<text x="{x0:.2f}" y="{14 + TITLE_LINE * k}" font-family="sans-serif" '
            f'font-size="12">{html.escape(line)}</text>' for k, line in enumerate(lines)]
    frame = (f'<rect x="{x0}" y="{y0}" width="{size}" height="{size}" fill="none" '
             'stroke="#888"/>')
    if n <= DOTS_LIMIT:  # the frame under the queens: a queen on the edge stays whole
        out += [*_squares(n, cell, x0, y0), frame, *_queens(columns, fixed_queens, cell, x0, y0)]
    else:
        out += [*_density_cells(columns, size, x0, y0), frame]
    out += _labels(n, cell, x0, y0, font)
    out.append("</svg>")
    return "".join(out)


def note(n: int) -> str:
    """What the picture of an n-board shows, in one sentence (none for a small board)."""
    if n <= DRAW_LIMIT:
        return ""
    if n <= DOTS_LIMIT:
        return (f"each dot one of the {n} queens; rank 1 (row 0) at the bottom, file a "
                "(column 0) at the left")
    return (f"the {n} queens counted in {DENSITY_CELLS} × {DENSITY_CELLS} cells (darker: "
            "more; white: none); rank 1 (row 0) at the bottom")


def result_html(result: Result) -> str:
    """A notebook's picture of a result: the board with its coordinates and a caption."""
    n = result.n
    if result.placement is None:
        return f"<p><b>{html.escape(caption(result, n))}</b> (no placement)</p>"
    size = 360 if n <= DRAW_LIMIT else 480
    extra = f"<br/>{html.escape(note(n))}" if note(n) else ""
    return (f"<figure>{board_svg(result, size=size)}<figcaption>"
            f"{html.escape(caption(result, n))}{extra}</figcaption></figure>")


def draw(obj: Any, ax: Any = None, *, fixed: Sequence[tuple[int, int]] | None = None,
         title: str | None = None) -> Any:
    """Draw a :class:`~nqmip.result.Result` or a placement (one column per row) with
    matplotlib, on ``ax`` or a new figure's axes; returns the axes.

    Rank 1 (row 0) is at the bottom and file a (column 0) at the left, as on a chess
    diagram, ranks and files named along the edges; fixed queens (``fixed``, or the
    result's own) have a red ring. Up to :data:`DOTS_LIMIT` rows each queen is a dot;
    beyond, the density of the queens.
    """
    import textwrap

    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    columns, fixed_queens, result = _parts(obj, fixed)
    n = columns.size
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 5))
    points = 72 * 5 / max(n, 1)  # a square's side in points on a 5-inch board
    if n <= DOTS_LIMIT:
        if n <= DRAW_LIMIT or points * 1.4 >= MIN_SQUARE:
            squares = (np.add.outer(np.arange(n), np.arange(n)) % 2 == 0).astype(int)
            tones = [LIGHT, DARK] if n <= DRAW_LIMIT else [MUTED_LIGHT, MUTED_DARK]
            ax.imshow(squares, cmap=ListedColormap(tones), origin="lower",
                      extent=(-0.5, n - 0.5, -0.5, n - 0.5), interpolation="nearest")
        else:
            ax.set_facecolor(MUTED_LIGHT)
        dot = max(points * (0.64 if n <= DRAW_LIMIT else 0.9), MIN_DOT)
        ax.scatter(columns, np.arange(n), s=dot**2, c=QUEEN, zorder=3, linewidths=0)
        if fixed_queens:
            rows, cols = zip(*fixed_queens, strict=True)
            ax.scatter(cols, rows, s=(max(points * 0.84, dot + 3)) ** 2, facecolors="none",
                       edgecolors=FIXED, linewidths=2, zorder=4)
    else:
        level = shade(density(columns, DENSITY_CELLS))
        ax.imshow(level, cmap="Greys", vmin=0, vmax=1, origin="lower",
                  extent=(-0.5, n - 0.5, -0.5, n - 0.5), interpolation="nearest")
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(-0.5, n - 0.5)
    marks = labelled(n, 360 / max(n, 1))
    ax.set_xticks(marks, [file_name(c) for c in marks], fontsize=8)
    ax.set_yticks(marks, [str(r + 1) for r in marks], fontsize=8)
    ax.tick_params(length=0)
    text = title if title is not None else caption(result, n)
    if title is None and note(n):
        text += " · " + note(n)
    ax.set_title("\n".join(textwrap.wrap(text, 60)), fontsize=9)
    return ax


def save_picture(obj: Any, path: str | Path, kind: str | None = None, *,
                 size: int = 600) -> Path:
    """Write the board of a result (or a placement) to ``path`` as ``kind``: ``"svg"``
    (:func:`board_svg` with the caption above) or ``"png"`` (drawn by :func:`draw`); by
    default the kind the file name ends with."""
    path = Path(path)
    kind = (kind or picture_kind(path)).lower()
    if kind not in ("svg", "png"):
        raise ValueError(f"a picture is svg or png, not {kind!r}")
    columns, _, result = _parts(obj, None)
    text = caption(result, columns.size)
    if note(columns.size):
        text += " · " + note(columns.size)
    if kind == "svg":
        write_whole(path, board_svg(obj, size=size, title=text) + "\n")
        return path
    from matplotlib.figure import Figure  # no pyplot: no backend is chosen or changed

    figure = Figure(figsize=(6, 6.4))
    draw(obj, figure.subplots())
    figure.tight_layout()
    write_drawn(path, lambda out: figure.savefig(out, dpi=110, format="png"))
    return path
