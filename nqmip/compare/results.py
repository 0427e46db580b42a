"""The end of a sweep: the summary of its rows on stdout in the form asked, the CSV file,
the pictures and the report (:func:`show_results`), for a finished sweep or for the runs a
stop signal left finished (:class:`SweepInterrupted`)."""

from __future__ import annotations

import argparse
import shlex
import time
from pathlib import Path
from typing import Any

from nqmip.files import write_whole

#: The command's name, as its messages begin.
PROG = "nqmip-compare"


class SweepInterrupted(KeyboardInterrupt):
    """A stop (Ctrl-C, SIGTERM, SIGHUP) ended the sweep; ``rows``: the runs it finished."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        super().__init__()
        self.rows = list(rows)


def _write(what: str, path: Path, work: Any, problems: list[str]) -> None:
    """Run ``work()`` (which writes ``path``); an OSError becomes a line of ``problems``."""
    try:
        work()
    except OSError as exc:
        problems.append(f"{what}: cannot write {path}: {exc.strerror or exc}")


def show_results(args: argparse.Namespace, csv: Path | None, output: Path | None,
                 rows: list[dict[str, Any]], wall: float | None, problems: list[str],
                 interrupted: str = "") -> int | None:
    """Write the CSV file (``csv``), the pictures and the report, then print the summary in
    the form asked (in glyphs the console can encode); what could not be written is added
    to ``problems`` (the files first: a console that fails loses nothing). None when the
    summary was printed, else the status of the console that failed, as at every door
    (:func:`nqmip.cli.streams.deliver`: 74 said in one line, 141 quietly).
    ``interrupted``: a stop ended the sweep, said in the summary and the report."""
    from nqmip.cli.streams import deliver
    from nqmip.compare.summary import summarize

    summary = summarize(rows)
    if csv is not None:
        from nqmip.compare.tables import summary_csv

        path = csv
        _write("--csv", path, lambda: write_whole(path, summary_csv(summary)), problems)
    if args.plot is not None:
        from nqmip.compare.plot import plot

        _write("--plot", args.plot, lambda: plot(rows, args.plot), problems)
    if args.report is not None:
        from nqmip.compare.report import Sweep, write_report

        sweep = Sweep(command=" ".join([PROG, *(shlex.quote(a) for a in args.argv)]),
                      wall=wall, when=time.strftime("%Y-%m-%d %H:%M %Z"),
                      interrupted=interrupted)
        _write("--report", args.report, lambda: write_report(args.report, rows, sweep),
               problems)
    saved = [f for f in (output, csv, args.report) if f is not None]
    where = f"the results are in {', '.join(map(str, saved))}" if saved else ""

    def show() -> None:
        from nqmip.compare.console import print_summary

        print_summary(args, summary, interrupted)

    return deliver(show, PROG, where, what="the summary")
