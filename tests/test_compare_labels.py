"""A cell's label (its method, warm start and ``--param`` values) is text in every form
the sweep writes: rich read ``[population=30]`` as markup and dropped it from the screen
table (and raised MarkupError on ``[/x]``, losing the summary of a finished sweep),
matplotlib read ``$...$`` as a formula (ParseSyntaxException, no plot, no summary), and
a ``|`` split the Markdown row. Built from the committed records of
docs/compare/chess.jsonl, their params replaced by each awkward one."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from nqmip.compare.plot import plot
from nqmip.compare.store import read_rows
from nqmip.compare.summary import summarize
from nqmip.compare.tables import cell_label, summary_markdown, summary_table
from nqmip.methods import METHODS

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "docs" / "compare" / "chess.jsonl"

#: Parameter values a user can give (a record's file name is any text).
AWKWARD = {
    "brackets": {"population": 30},
    "closing-tag": {"record": "rec[/x].jsonl", "workers": 1},
    "rich-style": {"record": "[bold]r.jsonl"},
    "formula": {"record": "o4/a$^$b.jsonl", "workers": 1},
    "pipe": {"record": "o3/r|x.jsonl", "workers": 1},
    "backslash": {"record": "C:\\runs\\r.jsonl", "workers": 1},
}


def _rows(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The records' rows of two methods at one n, the first method's runs with
    ``params``."""
    rows = [r for r in read_rows(RECORDS) if r["n"] == 8 and r["method"] in ("highs", "sa")]
    assert rows, "the committed records hold n = 8's highs and sa runs"
    out = []
    for row in rows:
        row = copy.deepcopy(row)
        if row["method"] == "highs":
            row["params"] = params
        out.append(row)
    return out


@pytest.mark.parametrize("name", sorted(AWKWARD))
def test_the_screen_table_shows_every_label_as_given(name: str) -> None:
    from rich.console import Console

    summary = summarize(_rows(AWKWARD[name]))
    console = Console(record=True, width=400, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(summary_table(summary))
    text = console.export_text()
    for entry in summary:
        label = cell_label(entry["method"], entry["warm_start"], entry["params"],
                           entry.get("target_mode"))
        assert label in text, (label, text)


@pytest.mark.parametrize("name", sorted(AWKWARD))
def test_the_markdown_rows_keep_their_columns(name: str) -> None:
    table = summary_markdown(summarize(_rows(AWKWARD[name]))).split("\n\n")[0]
    lines = table.splitlines()
    widths = {line.replace("\\|", "").count("|") for line in lines}
    assert len(widths) == 1, table  # every row as many cells as the header


@pytest.mark.parametrize("name", ["formula", "closing-tag", "rich-style", "backslash"])
def test_the_plot_draws_every_label_as_text(name: str, tmp_path: Path) -> None:
    written = plot(_rows(AWKWARD[name]), tmp_path / "p.svg")
    assert written and all(path.stat().st_size > 0 for path in written)
    label = cell_label("highs", None, AWKWARD[name])
    svg = (tmp_path / "p.svg").read_text()
    # the legend's text as given (SVG escapes &, <, >; the font is text, not paths)
    assert label.replace("&", "&amp;").replace("<", "&lt;") in svg


def test_a_heuristics_proof_is_said_by_its_own_cause() -> None:
    """The conclusions name what each heuristic's proven run carried: a board settled by
    listing its placements was said to be proven by 'the colour bound', with random
    weights too (no colours at all)."""
    from nqmip.compare.verdict import proof_sentences

    rows = [copy.deepcopy(r) for r in read_rows(RECORDS)
            if r["method"] in ("sa", "highs") and r["n"] in (8, 12)]
    for row in rows:
        if row["n"] == 8 and row["method"] == "sa":
            row["provenance"]["bound_source"] = "exhaustive"
    said = " ".join(proof_sentences(summarize(rows)))
    assert "every placement of a small board listed at n = 8" in said, said
    assert "the colour bound (a proven bound on the queens on black squares, computed " \
           "beside the search) at n = 12" in said, said


RECORD_TAKERS = [name for name, spec in METHODS.items() if spec.honour("record")]


@pytest.mark.parametrize("method", RECORD_TAKERS)
def test_a_cluster_keyword_the_runs_would_refuse_is_refused_before_the_sweep(
        method: str) -> None:
    """``--param M:record=...`` without workers or a scheduler was taken, and every run
    of the sweep failed with nqmip.solve's refusal; so were the other clashes of the
    cluster's keywords."""
    from nqmip.compare.checks import check_params
    from nqmip.compare.grid import UsageError

    with pytest.raises(UsageError, match="give workers or scheduler too"):
        check_params([(method, "record", "r.jsonl")], [method])
    with pytest.raises(UsageError, match="exclude each other"):
        check_params([(method, "workers", 1), (method, "scheduler", "tcp://127.0.0.1:1")],
                     [method])
    check_params([(method, "workers", 1), (method, "record", "r.jsonl")], [method])


def test_a_method_aimed_param_it_does_not_take_names_its_takers() -> None:
    from nqmip.compare.checks import check_params
    from nqmip.compare.grid import UsageError

    with pytest.raises(UsageError) as refused:
        check_params([("highs", "record", 1)], ["highs"])
    said = str(refused.value)
    assert said.startswith("--param highs:record: highs does not take record (")
    assert all(m in said for m in RECORD_TAKERS) and "METHOD:" not in said
