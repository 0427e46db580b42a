"""nqmip-compare measures what the field measures and shows it: the heuristics' target from
their board's exact runs, the report as one self-contained page opened in headless
Chromium (nothing fetched, not blank, readable at a phone's width), and outputs that
cannot be written, found before the sweep or said after it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import nqmip
from nqmip.compare import cli
from nqmip.compare.store import GRID_KEY

from .browser import CHROMIUM, Page, open_page
from .conftest import COMPARE_GRID, IN_CI

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "compare.py"
GRID = COMPARE_GRID


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env={**os.environ, **(env or {})})


def rows_of(path: Path) -> list[dict[str, Any]]:
    """The runs' rows of a records file (not its header row, the grid)."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [row for row in rows if GRID_KEY not in row]


Swept = tuple[Path, subprocess.CompletedProcess[str]]


@pytest.fixture
def sweep(compare_sweep: Swept) -> Swept:
    """The suite's one sweep of :data:`GRID` (tests/conftest.py; test_compare.py's too)."""
    return compare_sweep


def test_heuristics_get_their_boards_optimum_and_stop_there(
        sweep: Swept) -> None:
    folder, p = sweep
    assert p.returncode == 0, p.stderr
    rows = rows_of(folder / "runs.jsonl")
    assert len(rows) == 12
    optimum = {n: nqmip.solve(n, "chess", method="highs").objective for n in (5, 6)}
    for n in (5, 6):
        on_board = [r for r in rows if r["n"] == n]
        methods = [r["method"] for r in on_board]
        assert methods[:2] == ["highs", "highs"]  # the exact runs first
        for r in on_board:
            if r["method"] == "highs":
                assert r["target"] is None and r["target_mode"] is None
                assert r["status"] == "optimal" and r["objective"] == optimum[n]
            else:
                assert r["target_mode"] == "auto" and r["target"] == optimum[n]
                assert nqmip.is_solution(r["placement"])
                if r["objective"] == optimum[n]:  # it stopped there, on the same clock
                    assert r["termination"] in ("target", "optimal", "solution_found")
                    assert 0 < r["timing"]["to_target"] <= r["wall_time"]
                    assert r["trajectory"][-1][1] == optimum[n]
                assert r["load_time"] > 0
    summary = {(e["n"], e["method"]): e for e in json.loads(p.stdout)["summary"]}
    for n in (5, 6):
        assert summary[n, "highs"]["target_source"] == "proven"
        assert summary[n, "highs"]["reached"] == summary[n, "highs"]["proven"] == 2
        sa = summary[n, "sa"]
        assert sa["reached"] == 2 and sa["ttt_median"] is not None  # sa finds n <= 6 at once
    for suffix in ("", "-ttt", "-profile", "-curve"):
        assert "<svg" in (folder / f"t{suffix}.svg").read_text()
    csv = (folder / "summary.csv").read_text().splitlines()  # beside the JSON on stdout
    assert csv[0].startswith("n,method,weights") and len(csv) == 1 + 6


def test_a_target_no_run_reaches_is_said_never(tmp_path: Path) -> None:
    # chess n = 6: the bound is 12 and the optimum 10; a target of 1000 is refused up front
    p = run("--n", "6", "--methods", "minconflicts", "--target", "11", "--time-limit",
            "5", "--markdown", "--no-progress", "--output", str(tmp_path / "r.jsonl"))
    assert p.returncode == 0, p.stderr
    line = next(x for x in p.stdout.splitlines() if x.startswith("| 6 | minconflicts"))
    assert "| 11 given | never 0/1 |" in line and "| never |" in line
    (row,) = rows_of(tmp_path / "r.jsonl")
    assert row["target"] == 11 and row["target_mode"] == "11"


# -- the report -----------------------------------------------------------------------------


def _need_chromium() -> None:
    if CHROMIUM is None:
        if IN_CI:
            pytest.fail("CI=true and chromium is missing: apt-get install -y chromium")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")


def blank(page: Page) -> bool:
    """No text worth the name, or a screenshot of one colour."""
    from io import BytesIO

    from PIL import Image

    colours = Image.open(BytesIO(page.screenshot)).convert("RGB").getcolors(1 << 20)
    return len(page.text.strip()) < 20 or colours is None or len(colours) < 10


#: At a phone's width: the summary's box scrolled to its right end, what is in view.
SCROLLED = """(() => {
  const table = document.querySelector('table.summary');
  const box = table.parentElement;
  box.scrollLeft = box.scrollWidth;
  const b = box.getBoundingClientRect();
  const row = table.querySelector('tbody tr');
  const cells = Array.from(row.children);
  const inside = c => { const r = c.getBoundingClientRect();
    return r.left >= b.left - 1 && r.right <= b.right + 1; };
  const shown = c => { const r = c.getBoundingClientRect();
    return document.elementFromPoint(r.left + 3, r.top + r.height / 2) === c; };
  return {scrolled: box.scrollLeft > 0, n: inside(cells[0]) && shown(cells[0]),
          method: inside(cells[1]) && shown(cells[1]), runs: inside(cells[2]),
          last: inside(cells[cells.length - 1]),
          texts: [cells[0].innerText, cells[1].innerText],
          fastest: Array.from(table.querySelectorAll('tr.fastest'),
                              tr => tr.children[1].innerText)};
})()"""


def test_the_report_says_who_wins_and_keeps_n_and_method_in_view(
        sweep: Swept) -> None:
    folder, p = sweep
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)["summary"]
    for n in (5, 6):
        on_board = [e for e in summary if e["n"] == n]
        best = min(e["ttt_median"] for e in on_board if e["ttt_median"] is not None)
        for e in on_board:
            assert e["fastest"] == (e["ttt_median"] == best)
            if e["ttt_median"] is not None:
                assert e["ttt_factor"] == pytest.approx(e["ttt_median"] / best)
    text = (folder / "report.html").read_text()
    assert "<th class=\"\">× fastest</th>" in text and "1 (fastest)" in text
    assert "<h2>Conclusions</h2>" in text
    assert "Runs that proved optimality: highs 2/2 at every n" in text
    for n in (5, 6):
        assert re.search(rf"<li>n = {n}: \w+, the fastest (exact method|heuristic), reached "
                         r"the target in [0-9.]+ s \(median\), [0-9.]+× faster than", text)
    _need_chromium()
    phone = open_page(folder / "report.html", 390, 844, probe=SCROLLED)
    seen = phone.probed
    assert seen["scrolled"] and seen["last"] and not seen["runs"], seen
    assert seen["n"] and seen["method"] and seen["texts"] == ["5", "highs"], seen
    assert len(seen["fastest"]) >= 2  # one fastest method (or a tie) per board
    assert "Conclusions" in phone.text and "× fastest" in phone.text


def test_the_report_is_one_page_that_fetches_nothing(
        sweep: Swept, tmp_path: Path) -> None:
    folder, p = sweep
    assert p.returncode == 0, p.stderr
    report = folder / "report.html"
    text = report.read_text()
    # nothing to fetch: no script, no src, no stylesheet link; SVG namespaces are names
    assert "<script" not in text and " src=" not in text and "<link" not in text
    assert not re.search(r"(?:href|src)=\"(?:https?:)?//", text)
    assert "@import" not in text and "url(http" not in text
    _need_chromium()
    laptop = open_page(report, 1280, 900)
    phone = open_page(report, 390, 844)
    for page in (laptop, phone):
        assert page.outside_requests == [], page.outside_requests
        assert not blank(page)
        assert page.scripts == 0 and page.tables == 2 and page.svgs == 7
        for words in ("Summary", "highs", "minconflicts", "to target", "Time-to-target plots",
                      "Performance profile", "primal integral", "nqmip-compare --n 5,6"):
            assert words in page.text, words
    assert phone.scroll_width <= phone.inner_width  # tables scroll in their own box
    (tmp_path / "report-phone.png").write_bytes(phone.screenshot)


def test_the_browser_check_can_fail(tmp_path: Path) -> None:
    _need_chromium()
    fetching = tmp_path / "fetching.html"
    fetching.write_text('<html><body><p>a page that fetches a picture and a script</p>'
                        '<img src="http://127.0.0.1:9/x.png">'
                        '<script src="http://127.0.0.1:9/a.js"></script></body></html>')
    page = open_page(fetching)
    assert set(page.outside_requests) == {"http://127.0.0.1:9/x.png", "http://127.0.0.1:9/a.js"}
    empty = tmp_path / "empty.html"
    empty.write_text("<!DOCTYPE html><html><head><title>x</title></head><body></body></html>")
    assert blank(open_page(empty))


def test_the_report_is_the_same_for_the_same_rows(
        sweep: Swept) -> None:
    from nqmip.compare import read_rows
    from nqmip.compare.report import Sweep, report_html

    rows = read_rows(sweep[0] / "runs.jsonl")
    meta = Sweep(command="nqmip-compare ...", wall=1.0, when="now", host="h", cpus=2)
    assert report_html(rows, meta) == report_html(rows, meta)


# -- outputs --------------------------------------------------------------------------------


def test_rows_that_cannot_be_written_are_said_and_the_summary_printed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # a disk that fills during the sweep: every row's write fails (ENOSPC); /dev/full, the
    # way this was tried before, is refused before the sweep as a record that is no file
    def full(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("nqmip.compare.store.RowWriter.write", full)
    runs = tmp_path / "runs.jsonl"
    code = cli.main(["--n", "5", "--methods", "highs", "--time-limit", "10", "--output",
                     str(runs), "--csv", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 74  # EX_IOERR: a file not written, as at every door
    assert out.startswith("n,method,weights") and "\n5,highs," in out
    assert f"cannot write {runs}: No space left on device" in err
    assert "Traceback" not in err


def test_a_report_that_cannot_be_written_at_the_end_is_said(
        sweep: Swept, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder, _ = sweep

    def full(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("nqmip.compare.report.write_report", full)
    code = cli.main([*GRID, "--resume", str(folder / "runs.jsonl"), "--report",
                     str(folder / "again.html"), "--markdown", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 74  # EX_IOERR: a file not written, as at every door
    assert out.startswith("| n | method |") and "| 6 | sa |" in out
    assert f"--report: cannot write {folder / 'again.html'}: No space left on device" in err


def test_an_unavailable_method_is_refused_before_the_sweep(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    p = run("--n", "8", "--methods", "highs,glpk", "--output", str(out),
            env={"PATH": str(tmp_path)})  # no glpsol on this PATH
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr
    assert lines[0].startswith("nqmip-compare: error: --methods: glpk is not available here: ")
    assert "glpsol" in lines[0]  # the install hint
    assert not out.exists()


def test_a_method_skipped_at_some_sizes_is_not_said_to_prove_at_every_n() -> None:
    """gurobi past its licence at n = 46 ran at n = 6 only: the conclusions said 'gurobi
    1/1 at every n'."""
    from nqmip.compare.verdict import proof_sentences

    def entry(method: str, n: int) -> dict[str, Any]:
        return {"method": method, "warm_start": None, "params": [], "target_mode": None,
                "n": n, "proven": 1, "runs": 1, "reached": 1, "status": {},
                "kind": "exact", "target_source": "proven", "unproven_bounds": []}

    text = proof_sentences([entry("highs", 6), entry("gurobi", 6), entry("highs", 46)])[0]
    assert "highs 1/1 at every n" in text and "gurobi 1/1 at n = 6." in text, text
