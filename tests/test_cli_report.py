"""What the solve command shows besides the board: the live line while it runs and the
``--quiet`` line (issues 41 and 42)."""

from __future__ import annotations

import re

import pytest

import nqmip
from nqmip.cli.report import LiveLine, summary_line
from nqmip.progress import Progress


def lines_of(reports: list[Progress], sense: str) -> list[str]:
    line = LiveLine(sense)
    return [line(report) for report in reports]


def shown(text: str, label: str) -> float | None:
    found = re.search(rf"{label} (-?[0-9.]+)", text)
    return None if found is None else float(found.group(1))


@pytest.mark.solver("cpsat")
def test_the_live_line_of_costs_shows_the_cheapest_placement_and_the_true_gap() -> None:
    reports: list[Progress] = []
    result = nqmip.solve(12, weights="random", weights_seed=1, sense="min", method="cpsat",
                         seed=0, time_limit=30, on_progress=reports.append)
    costs = [r.incumbent for r in reports if r.incumbent is not None]
    assert len(set(costs)) > 1, "the run improved its placement at least once"
    best: float | None = None
    bound: float | None = None
    gaps = []
    for report, text in zip(reports, lines_of(reports, "min"), strict=True):
        if report.incumbent is not None:
            best = report.incumbent if best is None else min(best, report.incumbent)
        if report.bound is not None:
            bound = report.bound if bound is None else max(bound, report.bound)
        assert shown(text, "best") == best, text
        if best is not None and bound is not None:
            gap = shown(text, "gap")
            assert gap == pytest.approx(100 * (best - bound) / max(1.0, abs(best)), abs=0.06)
            gaps.append(gap)
    assert best == result.objective
    assert gaps and max(gaps) > 0  # not 0.0 % throughout


def test_the_live_line_of_gains_keeps_the_highest_objective_and_the_lowest_bound() -> None:
    reports: list[Progress] = []
    result = nqmip.solve(10, weights="chess", method="highs", time_limit=30,
                         on_progress=reports.append)
    text = lines_of([*reports, Progress("late", 9.0, incumbent=1.0, bound=99.0)], "max")[-1]
    assert shown(text, "best") == result.objective and shown(text, "bound") == result.bound


def test_the_quiet_line_of_lex_first_shows_the_placement() -> None:
    result = nqmip.lex_first(8, fixed=[(0, 1)])
    assert summary_line(result).split()[:2] == ["optimal", "placement=1,3,5,7,2,0,6,4"]
    none = nqmip.lex_first(3)
    assert summary_line(none).split()[:2] == ["infeasible", "placement=-"]


def test_a_stopped_lex_first_run_shows_its_proven_rows_and_no_weights() -> None:
    """lex-first weighs nothing: no objective, bound, gap or weights' legend; its proven
    rows are printed as columns, not as a count in the note only."""
    import io

    from rich.console import Console

    from nqmip.cli.report import print_result

    result = nqmip.lex_first(40, time_limit=4.0)
    assert result.status == "feasible" and result.placement is not None
    proven = result.extra["proven_rows"]
    out = io.StringIO()
    print_result(result, nqmip.make_instance(40), Console(file=out, width=200))
    text = out.getvalue()
    assert "total weight" not in text and "objective" not in text, text
    shown = ",".join(map(str, result.placement[:proven])) or "none"
    assert f"proven rows  {proven}: {shown}" in text, text
