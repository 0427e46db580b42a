"""research/open_sizes.py: the probes of the open chess sizes, on small boards where the
answers are known (n = 19: B = 15, optimum 13 black queens; n = 75: no line set at B with
a corner queen)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "research"))

import open_sizes as probes  # noqa: E402


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    probes.main(list(argv))
    return capsys.readouterr().out


def test_the_matching_rows_keep_the_line_bound_at_19(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "hall", "--n-list", "19")
    assert out.startswith("n = 19: line IP Optimal, bound 15.00 (")
    assert "; with the matching rows Optimal, bound 15.00 (" in out


def test_the_board_relaxation_proves_13_at_19(capsys: pytest.CaptureFixture[str]) -> None:
    # the line IP says 15; the optimum is 13 (docs/frontier.md)
    out = run(capsys, "relaxed", "--n-list", "19", "--time-limit", "30")
    assert "B = 15; with the board: Optimal, bound 13.00, best 13.00" in out


def test_the_corner_queen_is_refuted_at_75(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "corner", "--n-list", "75,19")
    lines = out.splitlines()
    assert lines[0].startswith("n = 75: B = 59; corner queen: no line set (proven)")
    assert lines[1].startswith("n = 19: B = 15; corner queen: ")


def test_the_line_sets_at_19_are_counted_and_not_covered(
        capsys: pytest.CaptureFixture[str]) -> None:
    # n = 19 has one line set at B = 15 and no placement with 15 black queens
    out = run(capsys, "count", "--n-list", "19", "--time-limit", "10")
    assert "n = 19: B = 15; 1 line sets in" in out and "(all)" in out
    out = run(capsys, "realise", "--n-list", "19", "--sets", "2", "--cover-seconds", "1")
    assert "n = 19: B = 15; covered 0 of 2 sampled line sets within 1 s (seconds: -)" in out
    out = run(capsys, "cover-lp", "--n-list", "19", "--sets", "2", "--cover-seconds", "1")
    assert out.startswith("n = 19: B = 15; cover LP feasible for ")
