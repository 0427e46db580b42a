"""The pictures of ``nqmip-compare --plot FILE`` (and of ``--report``): time against n, with
the time to target; and beside ``FILE`` the time-to-target plots (``-ttt``), the
performance profile (``-profile``) and one board's curves with the primal integral
(``-curve``), drawn by :mod:`nqmip.compare.figures`.

``--plot time.svg`` writes ``time.svg``, ``time-ttt.svg``, ``time-profile.svg`` and
``time-curve.svg`` (PNG and PDF alike), each picture's panels side by side. The report
draws each panel as its own SVG, so that a narrow screen stacks them. Every method keeps
its colour and marker in every picture, and every run's own line its kind's style: exact
methods solid, heuristics dashed, the hybrid dash-dotted; what is not a run (a bound, a
fitted curve, a reference) is thin and dotted or grey. Legends sit under the plots. The
same rows give the same files (SVG ids are salted, no date is written).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from nqmip.compare.canvas import Picture, combined, pyplot
from nqmip.compare.figures import picture_curve, picture_profile, picture_time, picture_ttt
from nqmip.files import picture_kind, write_drawn

#: The pictures of one ``--plot``: the suffix of each file's name, and what it shows.
PICTURES = {
    "": "time to target and wall time against n",
    "-ttt": "time-to-target plots (Aiex, Resende and Ribeiro 2007)",
    "-profile": "performance profile over the boards (Dolan and Moré 2002)",
    "-curve": "incumbent and bound against time on one board, and the primal integral "
              "(Berthold 2013)",
}


def plot_files(path: Path) -> dict[str, Path]:
    """The file of each picture of ``--plot path``, by suffix (:data:`PICTURES`)."""
    return {suffix: path.with_name(f"{path.stem}{suffix}{path.suffix}") for suffix in PICTURES}


def pictures(rows: Sequence[dict[str, Any]]) -> dict[str, Picture]:
    """Every picture of the rows, by suffix (:data:`PICTURES`)."""
    return {"": picture_time(rows), "-ttt": picture_ttt(rows),
            "-profile": picture_profile(rows), "-curve": picture_curve(rows)}


def plot(rows: Sequence[dict[str, Any]], path: Path) -> list[Path]:
    """Write every picture of ``--plot path`` (:func:`plot_files`); the files written."""
    plt = pyplot()
    written = []
    drawn = pictures(rows)
    for suffix, file in plot_files(path).items():
        fig = combined(drawn[suffix], PICTURES[suffix])
        kind = picture_kind(file)
        meta = _metadata(file)
        write_drawn(file, partial(fig.savefig, format=kind, dpi=120, metadata=meta,
                                  bbox_inches="tight"))
        plt.close(fig)
        written.append(file)
    return written


def _metadata(path: Path) -> dict[str, Any]:
    suffix = path.suffix.lower()
    if suffix == ".svg":
        return {"Date": None}
    if suffix == ".pdf":
        return {"CreationDate": None, "ModDate": None}
    return {}
