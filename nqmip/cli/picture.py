"""The solve command's pictures: ``--svg FILE`` and ``--png FILE`` (the board drawn by
:mod:`nqmip.drawing`, with its coordinates and caption).

Each file is checked before the solve starts (its folder exists, it is not a folder, a
file can be created there), so a solve is never spent on a picture that cannot be
written; if writing still fails at the end, the result has been printed already and one
line says which file was not written.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from nqmip.cli.parser import UsageError, check_writable

#: The options, each with the kind of picture it writes.
PICTURES = (("svg", "--svg"), ("png", "--png"))


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--svg", metavar="FILE", type=Path,
                        help="also draw the board, with its coordinates, into an SVG file")
    parser.add_argument("--png", metavar="FILE", type=Path,
                        help="also draw the board, with its coordinates, into a PNG file")


def requested(args: argparse.Namespace) -> list[tuple[str, str, Path]]:
    """(kind, flag, path) of each picture asked for."""
    return [(kind, flag, getattr(args, kind)) for kind, flag in PICTURES
            if getattr(args, kind, None) is not None]


def check_pictures(args: argparse.Namespace) -> None:
    pictures = requested(args)
    paths = [os.path.abspath(path) for _, _, path in pictures]
    if len(set(paths)) != len(paths):
        raise UsageError("--svg and --png name the same file")
    for kind, flag, path in pictures:
        other = {"svg": "png", "png": "svg"}[kind]
        if path.suffix.lower() in (f".{other}", ".jpg", ".jpeg", ".pdf", ".gif"):
            # '--png board.svg' wrote PNG bytes under an SVG name, unsaid
            raise UsageError(f"{flag} writes {kind.upper()}, but {path.name} names "
                             f"another format; give a .{kind} name"
                             + (f" (or --{other} {path.name})" if path.suffix.lower()
                                == f".{other}" else ""))
        check_writable(path, flag)


def save_pictures(args: argparse.Namespace, result: Any, prog: str,
                  lines: list[str]) -> tuple[list[str], bool]:
    """Draw the result into each file asked for (before anything is printed: the files
    hold the result whatever becomes of standard output); the files written (as "FLAG
    PATH") and False when one could not be written. What went wrong is added to
    ``lines``, one line per file, to be said on stderr after the result."""
    ok = True
    written: list[str] = []
    for kind, flag, path in requested(args):
        if result.placement is None:
            lines.append(f"{prog}: no placement to draw: {flag} {path} not written")
            continue
        from nqmip.drawing import save_picture

        try:
            save_picture(result, path, kind)
        except OSError as exc:
            lines.append(f"{prog}: {flag} {path} not written "
                         f"({exc.strerror or type(exc).__name__})")
            ok = False
        else:
            written.append(f"{flag} {path}")
    return written, ok


#: Seconds a ``--png`` run keeps back from its time limit to draw the board, matplotlib
#: loaded and warmed before the solve (:func:`ready`): 0.5-0.7 s with two busy cores at
#: n = 30-300. ``--png`` ran 1.7 s past ``--time-limit 3`` (n = 30, highs), 5 s past
#: ``--time-limit 4`` on a loaded machine (matplotlib's import, fonts and the drawing).
PNG_SECONDS = 0.5


def ready(args: argparse.Namespace, time_limit: float | None) -> float | None:
    """The solve's share of ``time_limit`` (the command's, counted from its start): with
    ``--png``, matplotlib is loaded and warmed now (a tiny board drawn in memory), inside
    the limit, and :data:`PNG_SECONDS` are kept for the drawing."""
    if time_limit is None or getattr(args, "png", None) is None:
        return time_limit
    import io

    from matplotlib.figure import Figure

    from nqmip.drawing import draw

    figure = Figure(figsize=(1, 1))
    draw([0], figure.subplots())
    figure.savefig(io.BytesIO(), format="png")
    return time_limit - PNG_SECONDS
