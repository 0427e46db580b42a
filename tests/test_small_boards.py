"""First contact on small boards: every method of the method table on n <= 8 against a brute
force over every placement, auto's plan for fixed queens on a small board, glpsol under a
limit below a second, and what the exact methods' default start is called."""

from __future__ import annotations

import time
from functools import cache

import numpy as np
import pytest

import nqmip
from nqmip.methods import METHODS
from nqmip.result import Status, Termination


@cache
def placements(n: int) -> np.ndarray:
    """Every placement of n queens (rows of columns), by backtracking in plain Python."""
    found: list[tuple[int, ...]] = []

    def place(cols: tuple[int, ...]) -> None:
        row = len(cols)
        if row == n:
            found.append(cols)
            return
        for col in range(n):
            if all(col != c and abs(col - c) != row - r for r, c in enumerate(cols)):
                place((*cols, col))

    place(())
    return np.array(found, dtype=np.int64).reshape(len(found), n)


def brute_force(instance: nqmip.Instance) -> float | None:
    """The optimum over every placement keeping the fixed queens (None: no placement)."""
    every = placements(instance.n)
    for row, col in instance.fixed:
        every = every[every[:, row] == col]
    if not len(every):
        return None
    values = np.array([instance.objective(tuple(int(c) for c in p)) for p in every])
    return float(values.max() if instance.sense != "min" else values.min())


def fixed_queen(n: int) -> tuple[int, int]:
    """A queen with a completion (row n // 2 of the first placement; n = 2, 3: the corner)."""
    every = placements(n)
    return (n // 2, int(every[0][n // 2])) if len(every) else (0, 0)


#: (n, weights, sense, one fixed queen): boards on which every method is checked.
BOARDS = [(1, "chess", "max", False), (1, "chess", "min", False),  # lns looped at n = 1, min
          (3, "random", "max", True), (4, None, "max", False),
          (5, "chess", "min", True), (6, "random", "min", False), (6, "chess", "max", True),
          (7, "random", "max", True), (8, "chess", "max", False), (8, "random", "max", False),
          (8, None, "max", True)]


def _call(method: str, n: int, weights: str | None, sense: str,
          fixed: bool) -> tuple[nqmip.Instance, nqmip.Result] | None:
    spec = METHODS[method]
    kind = "none" if weights is None else "colour" if weights == "chess" else "dense"
    if kind not in spec.weights:
        return None  # refused by name (tests/test_methods_table checks those)
    instance = nqmip.make_instance(n, weights, [fixed_queen(n)] if fixed else None,
                                   weights_seed=n, sense=sense if weights else "max")
    return instance, nqmip.solve(instance, method=method)


@pytest.mark.parametrize("method", [
    pytest.param(name, marks=[pytest.mark.solver(name)] if spec.kind == "exact" else [])
    for name, spec in METHODS.items()])
def test_every_method_answers_small_boards_as_brute_force_does(method: str) -> None:
    """Exact methods (and auto): the optimum, proven, or infeasible where no placement
    exists. Heuristics: optimal exactly when they reach the optimum, which on these
    boards they stop at (the bound they know is the proven optimum)."""
    kind = METHODS[method].kind
    for n, weights, sense, fixed in BOARDS:
        called = _call(method, n, weights, sense, fixed)
        if called is None:
            continue
        instance, result = called
        optimum = brute_force(instance)
        where = (method, n, weights, sense, fixed, result.status, result.objective, optimum)
        if optimum is None:
            assert result.placement is None, where
            assert result.status is (Status.INFEASIBLE if kind != "heuristic"
                                     else result.status), where
            assert result.status in (Status.INFEASIBLE, Status.UNKNOWN), where
            continue
        assert result.placement is not None and nqmip.is_solution(result.placement), where
        assert all(result.placement[r] == c for r, c in instance.fixed), where
        assert result.objective == pytest.approx(instance.objective(result.placement)), where
        at_optimum = result.objective == pytest.approx(optimum)
        # exact methods prove it; every heuristic knows the optimum as its bound here and
        # stops there, optimal exactly at it (a heuristic may end short of it: feasible,
        # the bound the optimum)
        assert (result.status is Status.OPTIMAL) == at_optimum, where
        assert at_optimum or kind == "heuristic", where
        if result.status is not Status.OPTIMAL:
            assert result.bound == pytest.approx(optimum), where


def test_auto_answers_a_small_board_with_a_fixed_queen_by_highs_alone() -> None:
    # n = 8, --fix 1,3: the colour proof's, the annealing's, the completion search's (or
    # bnb's) kernels loaded first, 1-3 s where HiGHS answers in hundredths
    for weights in ("chess", "random", None):
        result = nqmip.solve(8, weights, fixed=[(1, 3)], weights_seed=1)
        assert result.status is Status.OPTIMAL
        assert result.provenance.plan == ("highs",), result.provenance
    none = nqmip.solve(3, "chess", fixed=[(0, 0)])  # no completion: HiGHS says so
    assert none.status is Status.INFEASIBLE and none.provenance.plan == ("highs",)


def test_glpsol_is_given_whole_seconds_below_the_limit() -> None:
    from nqmip.backends.glpk import GLPSOL_MARGIN, glpsol_seconds

    assert glpsol_seconds(None) is None
    assert glpsol_seconds(0.3) is None  # the deadline alone ends it
    assert glpsol_seconds(1.0 + GLPSOL_MARGIN) == 1
    assert glpsol_seconds(1.5) == 1
    assert glpsol_seconds(10.0) == 9


@pytest.mark.solver("glpk")
def test_glpsol_ends_at_a_limit_below_a_second() -> None:
    # --tmlim 1 (ceil of 0.3) ran glpsol 1 s; the watchdog answered at 0.83 s with "did
    # not stop in time"; now its process ends at the deadline. One retry: on a loaded
    # machine Pyomo's writing of the model (no deadline is heard there) can take the
    # watchdog's margin too (a CI run: "did not stop in time" at 0.95 s)
    nqmip.solve(6, "chess", method="glpk")  # Pyomo's import apart
    for _attempt in range(2):
        begin = time.perf_counter()
        result = nqmip.solve(40, "chess", method="glpk", time_limit=0.3)
        elapsed = time.perf_counter() - begin
        if elapsed < 0.3 + 1.0 and "did not stop in time" not in result.message:
            break
    assert result.termination is Termination.TIME_LIMIT, result
    assert "did not stop in time" not in result.message, result.message
    assert "glpsol ended at the deadline" in result.message, result.message
    assert result.placement is not None and nqmip.is_solution(result.placement)
    assert elapsed < 0.3 + 1.0, elapsed


def test_the_exact_pipelines_own_start_says_whether_it_was_climbed() -> None:
    # a time limit and no warm start: the explicit construction climbed by swaps was
    # labelled "explicit" (random n = 48: the construction 249, the climb 389)
    from nqmip.construct import explicit_solution

    instance = nqmip.make_instance(30, "random", weights_seed=1)
    result = nqmip.solve(instance, method="highs", time_limit=0.5)
    assert result.provenance.warm_start == "climbed", result.provenance
    assert result.provenance.start_objective is not None
    assert result.provenance.start_objective > instance.objective(explicit_solution(30))
    assert result.provenance.plan == ("highs",)
    # under a work limit (no clock) the start is the construction itself
    counted = nqmip.solve(instance, method="highs", time_limit=0.5, work_limit=1)
    assert counted.provenance.warm_start == "explicit", counted.provenance
    assert counted.provenance.start_objective == instance.objective(explicit_solution(30))


def test_the_listing_holds_every_placement_keeping_the_fixed_queens() -> None:
    from nqmip.heuristics.exhaustive import EXHAUSTIVE_MAX_FREE, every_placement

    counts = {1: 1, 2: 0, 3: 0, 4: 2, 5: 10, 6: 4, 7: 40, 8: 92, 9: 352, 10: 724}
    for n, count in counts.items():
        listed = every_placement(nqmip.make_instance(n))
        assert listed is not None and len(listed) == count, n
        assert all(nqmip.is_solution(tuple(int(c) for c in p)) for p in listed)
    for n in (5, 6, 8):
        every = placements(n)
        for fixed in ({0: 0}, {1: 3}, {n - 1: 2}, {0: 1, 2: 0}, {1: 0, 3: 1}):
            listed = every_placement(nqmip.make_instance(n, fixed=fixed))
            expected = every[np.all([every[:, r] == c for r, c in fixed.items()], axis=0)]
            assert listed is not None
            assert sorted(map(tuple, listed.tolist())) == sorted(map(tuple, expected.tolist()))
    assert every_placement(nqmip.make_instance(EXHAUSTIVE_MAX_FREE + 1)) is None


def test_a_short_limit_leaves_the_larger_listings_out() -> None:
    # 11-12 free rows are listed only with a second or more left: sa at n = 12 under a
    # 0.1 s limit answered at 0.26-0.35 s with the construction, the listing's time
    from nqmip.heuristics.exhaustive import ALWAYS_FREE, LIST_MIN_SECONDS

    assert ALWAYS_FREE < 12
    short = nqmip.solve(12, "random", weights_seed=3, method="sa", time_limit=0.1)
    assert short.provenance.bound_source != "exhaustive", short.provenance
    roomy = nqmip.solve(12, "random", weights_seed=3, method="sa",
                        time_limit=LIST_MIN_SECONDS + 0.5)
    assert roomy.provenance.bound_source == "exhaustive", roomy.provenance
    assert roomy.bound == 92.0  # the optimum (HiGHS proves it too)
