"""What nqmip-compare measures, on rows made by hand: references, time to target from the
trajectory, Berthold's primal integral, time-to-target points and their exponential fit,
performance-profile ratios, the order in which a sweep hands out its cells (the
heuristics after their board's exact methods, with the target those found), and the
progress with its estimate of the time left."""

from __future__ import annotations

import io
import math
from typing import Any

import pytest

from nqmip.compare import build_grid
from nqmip.compare.figures import exponential_fit, profile, ttt_points
from nqmip.compare.measures import (
    primal_gap,
    primal_integral,
    reference,
    references,
    time_to_target,
)
from nqmip.compare.schedule import Sweep


def row(method: str, objective: float | None, trajectory: list[list[Any]] | None = None,
        **fields: Any) -> dict[str, Any]:
    base = {"n": 8, "method": method, "weights": "chess", "seed": 0, "status": "feasible",
            "objective": objective, "bound": None, "wall_time": 10.0, "time_limit": 10.0,
            "trajectory": trajectory or []}
    base.update(fields)
    return base


# -- references and times --------------------------------------------------------------------


def test_the_reference_is_the_target_given_else_a_proof_else_the_best_found() -> None:
    exact = row("highs", 12.0, status="optimal", bound=12.0)
    assert reference([exact]).source == "proven" and reference([exact]).value == 12.0
    found = [row("highs", 11.0, bound=13.0), row("sa", 11.5, bound=16.0)]
    assert (reference(found).value, reference(found).source) == (11.5, "best known")
    assert reference(found).bound == 13.0  # the tightest bound
    given = [*found, row("sa", 11.0, target=11.5, target_mode="auto")]
    assert reference(given).source == "best known"  # auto's target: the best found
    fixed = [*found, row("sa", 11.0, target=20.0, target_mode="20")]
    assert (reference(fixed).value, reference(fixed).source) == (20.0, "given")
    assert reference([row("sa", None, status="timeout")]).source == "none"
    gurobi = row("gurobi", 10.0, bound=1e100)  # Gurobi's infinity is no bound
    assert reference([gurobi]).bound is None


def test_boards_are_told_apart_by_n_weights_and_the_seed_of_random_weights() -> None:
    rows = [row("sa", 12.0), row("sa", 13.0, seed=1),
            row("sa", 40.0, weights="random", seed=0),
            row("sa", 41.0, weights="random", seed=1),
            row("sa", 42.0, weights="random", seed=2, params={"weights_seed": 0})]
    refs = references(rows)
    assert len(refs) == 3  # chess seeds 0 and 1 share a board; weights_seed 0 is seed 0's
    assert {r.value for r in refs.values()} == {13.0, 42.0, 41.0}


def test_time_to_target_is_read_from_the_trajectory() -> None:
    run = row("tabu", 12.0, [[0.05, 9.0, 16.0], [0.3, 11.0, 16.0], [0.9, 12.0, 12.0]])
    assert time_to_target(run, 11.0) == 0.3
    assert time_to_target(run, 10.5) == 0.3
    assert time_to_target(run, 12.0) == 0.9
    assert time_to_target(run, 13.0) is None
    assert time_to_target(run, None) is None
    # the run's own record wins where it was given that target
    told = dict(run, target=12.0, timing={"to_target": 0.85})
    assert time_to_target(told, 12.0) == 0.85
    # an older row without a trajectory: the time to best, else the whole wall time
    assert time_to_target(row("sa", 12.0, timing={"to_best": 0.4}), 12.0) == 0.4
    assert time_to_target(row("sa", 12.0), 12.0) == 10.0
    assert time_to_target(row("sa", None, status="timeout"), 12.0) is None


def test_primal_gap_and_integral_follow_berthold() -> None:
    assert primal_gap(None, 12.0) == 1.0
    assert primal_gap(-1.0, 12.0) == 1.0
    assert primal_gap(0.0, 0.0) == 0.0
    assert primal_gap(9.0, 12.0) == pytest.approx(0.25)
    assert primal_gap(13.0, 12.0) == 0.0  # beyond the reference
    assert primal_gap(13.0, 12.0, sign=-1) == pytest.approx(1 / 13)  # costs
    # no incumbent for 1 s (gap 1), then 9 until 3 s (0.25), then the optimum
    run = row("sa", 12.0, [[1.0, 9.0, None], [3.0, 12.0, None]], wall_time=3.0)
    assert primal_integral(run, 12.0, 10.0) == pytest.approx(1.0 + 2 * 0.25)
    # a run that ends early keeps its last gap until the horizon
    short = row("minconflicts", 9.0, [[0.5, 9.0, None]], wall_time=0.5)
    assert primal_integral(short, 12.0, 10.0) == pytest.approx(0.5 + 9.5 * 0.25)
    assert primal_integral(row("sa", None, status="crashed"), 12.0, 10.0) == 10.0
    assert primal_integral(run, None, 10.0) is None


# -- the pictures' arithmetic ----------------------------------------------------------------


def test_time_to_target_points_and_the_exponential_fit() -> None:
    xs, ys = ttt_points([0.3, 0.1, 0.2], runs=4)  # the fourth run never reached it
    # the empirical distribution i / R: 3 of 4 runs reach 3/4; all R runs reach 1
    assert xs == [0.1, 0.2, 0.3] and ys == pytest.approx([0.25, 0.5, 0.75])
    assert ttt_points([0.3, 0.1, 0.2], runs=3)[1][-1] == 1.0
    # times drawn from a shifted exponential come back near their shift and scale
    shift, scale = 0.5, 2.0
    times = [shift - scale * math.log(1 - (i + 0.5) / 400) for i in range(400)]
    fit = exponential_fit(times)
    assert fit is not None
    assert fit[0] == pytest.approx(shift, abs=0.05) and fit[1] == pytest.approx(scale, rel=0.05)
    assert exponential_fit([1.0, 1.0, 1.0, 1.0, 1.0]) is None


def test_performance_profile_ratios() -> None:
    rows = [row("highs", 12.0, [[1.0, 12.0, None]]), row("sa", 12.0, [[0.5, 12.0, None]]),
            row("highs", 20.0, [[2.0, 20.0, None]], n=12),
            row("sa", 18.0, [[0.1, 18.0, None]], n=12)]
    ratios, boards = profile(rows)
    assert boards == 2
    assert ratios["highs"] == [2.0, 1.0] and ratios["sa"] == [1.0, math.inf]


# -- the order of a sweep --------------------------------------------------------------------


def test_heuristics_wait_for_their_boards_exact_runs_and_get_their_optimum() -> None:
    cells = build_grid([8, 12], ["sa", "highs"], "chess", [0, 1], 5.0, 9.0, target="auto")
    sweep = Sweep(cells)
    taken = []
    for _ in range(3):  # with three at once: both exact cells of n = 8, then n = 12's
        ticket, cell = sweep.take(0.0)  # type: ignore[misc]
        taken.append((ticket, cell))
    assert [(c.n, c.method) for _, c in taken] == [(8, "highs"), (8, "highs"), (12, "highs")]
    sweep.finish(taken[0][0], row("highs", 12.0, status="optimal"))
    fourth = sweep.take(0.0)
    assert fourth is not None and (fourth[1].n, fourth[1].method) == (12, "highs")
    assert sweep.take(0.0) is None  # n = 8's second exact run still runs
    sweep.finish(taken[1][0], row("highs", 12.0, status="optimal", seed=1))
    fifth = sweep.take(0.0)
    assert fifth is not None and (fifth[1].n, fifth[1].method, fifth[1].target) == (8, "sa", 12.0)
    # a board whose exact runs found no proof gives its best objective
    sweep.finish(taken[2][0], row("highs", 19.0, n=12))
    sweep.finish(fourth[0], row("highs", None, n=12, status="timeout", seed=1))
    targets = [(c.n, c.target) for _, c in iter(lambda: sweep.take(0.0), None)]
    assert targets == [(8, 12.0), (12, 19.0), (12, 19.0)]
    assert not sweep.pending and len(sweep.running) == 4


def test_fixed_and_no_targets_do_not_wait() -> None:
    for mode, expected in (("none", None), ("40", 40.0)):
        cells = build_grid([8], ["highs", "sa"], "chess", [0], 5.0, 9.0, target=mode)
        sweep = Sweep(cells)
        first = sweep.take(0.0)
        second = sweep.take(0.0)
        assert first is not None and second is not None
        assert (second[1].method, second[1].target) == ("sa", expected)


def test_resumed_exact_rows_give_the_target() -> None:
    cells = build_grid([8], ["highs", "sa"], "chess", [0], 5.0, 9.0, target="auto")
    sweep = Sweep([c for c in cells if c.method == "sa"],
                  previous=[row("highs", 12.0, status="optimal")])
    taken = sweep.take(0.0)
    assert taken is not None and taken[1].target == 12.0


# -- progress --------------------------------------------------------------------------------


def test_progress_shows_done_total_running_and_time_left() -> None:
    from rich.console import Console

    from nqmip.compare.progress import SweepProgress, duration

    assert (duration(45), duration(185), duration(3720)) == ("45 s", "3 min 05 s",
                                                               "1 h 02 min")
    cells = build_grid([8], ["highs", "sa"], "chess", [0, 1], 5.0, 9.0, target="auto")
    sweep = Sweep(cells)
    progress = SweepProgress(sweep, jobs=1)
    progress.console = Console(file=io.StringIO(), force_terminal=True, width=200,
                               record=True)
    progress.live = True
    with progress:
        ticket, cell = sweep.take(0.0)  # type: ignore[misc]
        progress.started(cell)
        assert progress.running_text().startswith("n=8 highs seed=0 (")
        sweep.finish(ticket, row("highs", 12.0, status="optimal", process_time=2.0))
        progress.finished(cell, row("highs", 12.0, status="optimal", process_time=2.0))
        # three cells left, each expected to take what the one finished took (2 s)
        assert progress.left() == pytest.approx(6.0)
        ticket, cell = sweep.take(0.0)  # type: ignore[misc]
        progress.started(cell)
        failed = row("highs", None, status="error", seed=1, message="Boom: no solver\nhere")
        sweep.finish(ticket, failed)
        progress.finished(cell, failed)
    text = progress.console.export_text()
    assert "2/4" in text and "left" in text
    assert "failed: n=8 highs seed=1: error: Boom: no solver here" in text
