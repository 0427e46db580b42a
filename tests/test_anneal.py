"""The weighted simulated annealing: its start, its hard mode, its penalty and its schedule."""

from __future__ import annotations

import numpy as np
import pytest

import nqmip
from nqmip.construct import explicit_solution
from nqmip.heuristics.anneal import (
    PARTNER_FOCUS,
    anneal_chunk,
    sa_penalty,
    solve_sa,
)
from nqmip.heuristics.common import ParameterError, kernel_seed, make_rng, weight_bound
from nqmip.heuristics.localsearch import BEST_WEIGHT, CONFLICTS, TEMPERATURE, new_swap_search
from nqmip.verify import conflicts


def test_penalty_is_a_share_of_the_weight_spread() -> None:
    assert sa_penalty(nqmip.make_instance(10)) == 1.0
    assert sa_penalty(nqmip.make_instance(10, "chess")) == pytest.approx(0.75)
    assert sa_penalty(nqmip.make_instance(10, "random", weights_seed=0)) == pytest.approx(1.5)
    flat = nqmip.make_instance(6, np.full((6, 6), 3.0))
    assert sa_penalty(flat) == 1.0


@pytest.mark.parametrize("weights", ["chess", "random"])
def test_a_given_start_is_the_first_best(weights: str) -> None:
    instance = nqmip.make_instance(30, weights, weights_seed=1)
    start = explicit_solution(30)
    assert start is not None
    r = solve_sa(instance, seed=0, max_iterations=1, start=start)
    assert r.placement is not None
    assert r.objective is not None
    assert r.objective >= instance.objective(np.asarray(start)) - 1e-9
    assert r.extra["start"] == "placement"


def test_a_start_must_be_a_permutation_keeping_the_fixed_queens() -> None:
    instance = nqmip.make_instance(8, "chess", fixed={0: 0})
    with pytest.raises(ParameterError):
        solve_sa(instance, seed=0, max_iterations=10, start=[0, 0, 1, 2, 3, 4, 5, 6])
    with pytest.raises(ParameterError):
        solve_sa(instance, seed=0, max_iterations=10, start=[1, 0, 2, 3, 4, 5, 6, 7])
    with pytest.raises(ParameterError):
        solve_sa(instance, seed=0, max_iterations=10, start="sideways")


@pytest.mark.parametrize("weights", ["chess", "random"])
def test_hard_mode_never_adds_a_conflict(weights: str) -> None:
    instance = nqmip.make_instance(60, weights, weights_seed=2)
    start = explicit_solution(60)
    rng = make_rng(3)
    search = new_swap_search(instance, rng, weight_bound(instance), 1.0, start)
    assert search.state[CONFLICTS] == 0
    search.fstate[TEMPERATURE] = 0.3
    top = instance.weight_range()[1]
    moved = 0
    for _ in range(20):
        before = search.perm.copy()
        anneal_chunk(*search.kernel_args(), 0.3, 0.01, 0.95, 200, 0.9, True, top,
                     PARTNER_FOCUS, kernel_seed(rng), 500)
        assert search.state[CONFLICTS] == 0
        assert conflicts(search.perm) == 0
        moved += int((before != search.perm).sum())
    assert moved > 0  # the walk moved, on conflict-free boards only
    assert search.fstate[BEST_WEIGHT] >= instance.objective(np.asarray(start)) - 1e-9


def test_priced_mode_crosses_boards_with_conflicts() -> None:
    """The contrast to the test above: without hard mode the walk does add conflicts."""
    instance = nqmip.make_instance(60, "random", weights_seed=2)
    rng = make_rng(3)
    search = new_swap_search(instance, rng, weight_bound(instance), 1.5, explicit_solution(60))
    search.fstate[TEMPERATURE] = 1.0
    seen = 0
    for _ in range(20):
        anneal_chunk(*search.kernel_args(), 1.0, 0.04, 0.95, 200, 0.9, False, 9.0,
                     PARTNER_FOCUS, kernel_seed(rng), 500)
        seen = max(seen, int(search.state[CONFLICTS]))
    assert seen > 0


def test_hard_mode_is_the_default_for_large_weighted_boards() -> None:
    big = solve_sa(nqmip.make_instance(600, "chess"), seed=0, max_iterations=1000)
    small = solve_sa(nqmip.make_instance(60, "chess"), seed=0, max_iterations=1000)
    feasibility = solve_sa(nqmip.make_instance(600), seed=0, max_iterations=1000)
    assert big.extra["hard"] is True
    assert small.extra["hard"] is False
    assert feasibility.extra["hard"] is False
    assert big.placement is not None  # the min-conflicts start: never empty-handed


def test_a_timed_run_is_sized_to_a_few_cooling_cycles() -> None:
    """With a deadline the schedule is fitted to the time: a handful of reheats, not the
    thousands a fixed per-row schedule makes in the same time (the bounds are loose: the
    first chunk's speed is an estimate on a shared machine)."""
    r = solve_sa(nqmip.make_instance(50, "random", weights_seed=0), seed=0, time_limit=1.0)
    assert 1 <= int(r.extra["restarts"]) <= 40
    fixed = solve_sa(nqmip.make_instance(50, "random", weights_seed=0), seed=0,
                     time_limit=1.0, steps_per_temperature=64)
    assert int(fixed.extra["restarts"]) > int(r.extra["restarts"])


def test_a_long_limit_on_a_small_board_makes_short_cycles() -> None:
    """A cooling cycle is at most CYCLE_STEPS_PER_SQUARE steps a square: a 120 s limit at
    n = 8 made cycles of 20 s, and the optimum (proven by the listing at once) came at the
    first one's end, 23 s in (1.2 s without a limit). The run ends at the optimum."""
    import math

    from nqmip.heuristics.anneal import CYCLE_STEPS_PER_SQUARE

    for _attempt in range(2):  # a first run answers while its kernels compile: again
        r = nqmip.solve(8, "random", weights_seed=0, method="sa", seed=0, time_limit=120)
        if "steps_per_temperature" in r.extra:
            break
    assert r.status is nqmip.Status.OPTIMAL, r
    extra = r.extra
    steps = math.ceil(math.log(extra["t_end"] / extra["t_start"]) / math.log(extra["cooling"]))
    assert extra["steps_per_temperature"] * steps <= CYCLE_STEPS_PER_SQUARE * 64, extra


@pytest.mark.timing
def test_a_cancelled_deadline_stops_the_annealing_from_another_thread() -> None:
    # auto runs the annealing in a thread and cancels its deadline once a proof is done: the
    # cancel reaches the deadline the search follows (a child of the one cancelled).
    import threading
    import time

    from nqmip.budget import Deadline

    nqmip.solve(30, "chess", method="sa", time_limit=0.2, seed=0)  # numba's cache, once
    parent = Deadline(60.0)
    out: list[nqmip.Result] = []
    worker = threading.Thread(target=lambda: out.append(
        nqmip.solve(200, "chess", method="sa", time_limit=parent.sub(), seed=0)))
    begin = time.perf_counter()
    worker.start()
    time.sleep(0.5)
    parent.cancel()
    worker.join(timeout=30)
    assert not worker.is_alive()
    assert time.perf_counter() - begin < 0.5 + 10  # far less than the 60 s it was given
    assert parent.expired() and parent.sub().expired()
    assert out and out[0].placement is not None and conflicts(out[0].placement) == 0
