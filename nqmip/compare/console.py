"""nqmip-compare's summary on its standard output. A console that is not UTF-8
(``PYTHONIOENCODING=ascii``, a cp437 Windows console) gets the stand-ins of
:mod:`nqmip.cli.streams` (``–`` as ``-``, ``×`` as ``x``, ``τ`` as ``tau``; set once by
:func:`~nqmip.cli.streams.plain_fallback` when the command starts): never an exception
after an hour's sweep. Rich itself draws ASCII boxes on such a stream."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO


def write(text: str, stream: TextIO | None = None) -> None:
    """Write ``text`` to the stream (stdout), and flush."""
    stream = stream or sys.stdout
    stream.write(text)
    stream.flush()


def print_rich(renderable: Any, stream: TextIO | None = None) -> None:
    """Print a rich renderable (a table) to the stream: on a terminal as wide as it is,
    on a pipe or a file 180 columns, never wrapped."""
    from rich.console import Console

    stream = stream or sys.stdout
    console = Console(highlight=False, file=stream)
    if not console.is_terminal:  # a pipe or a file: wide enough, never wrapped
        console = Console(highlight=False, file=stream, width=180)
    with console.capture() as capture:
        console.print(renderable)
    write(capture.get(), stream)


def print_summary(args: Any, summary: list[dict[str, Any]], interrupted: str = "") -> None:
    """The summary on stdout: JSON, CSV, Markdown (with its conclusions) or the table
    with its conclusions; ``interrupted``: a stop ended the sweep, said with it (JSON: the
    key ``interrupted``; CSV, which has no place for it: on stderr only)."""
    from nqmip.compare.tables import summary_csv, summary_markdown, summary_table
    from nqmip.compare.verdict import conclusions

    if args.json:
        whole: dict[str, Any] = {"summary": summary,
                                 "runs": sum(e["runs"] for e in summary)}
        if interrupted:
            whole["interrupted"] = interrupted
        write(json.dumps(whole, indent=1) + "\n")
    elif args.csv == "-":
        write(summary_csv(summary))
    else:
        lines = [f"- {line}" for line in conclusions(summary)]
        if interrupted:
            lines.insert(0, f"- {interrupted}")
        if args.markdown:
            write(summary_markdown(summary)
                  + ("\n**Conclusions**\n\n" + "\n".join(lines) + "\n" if lines else ""))
        else:
            print_rich(summary_table(summary))
            write("\n".join(["Conclusions:", *lines]) + "\n" if lines else "")
