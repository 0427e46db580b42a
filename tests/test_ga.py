"""The genetic algorithm: validity, fixed queens, reproducibility, operators, counting."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nqmip.heuristics.common import ParameterError
from nqmip.heuristics.ga.config import PRESETS, GAConfig
from nqmip.heuristics.ga.run import solve_ga
from nqmip.instance import InstanceError, make_instance
from nqmip.result import Status, Termination
from nqmip.verify import conflicts, is_solution

ga_kernels = pytest.importorskip("nqmip.heuristics.ga.operator_kernels")

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def known_solution(n: int) -> list[int]:
    """The classical explicit construction (n >= 4), independent of every solver."""
    evens = list(range(2, n + 1, 2))
    odds = list(range(1, n + 1, 2))
    if n % 6 == 2:
        odds = [3, 1, *range(7, n + 1, 2), 5]
    elif n % 6 == 3:
        evens = [*range(4, n + 1, 2), 2]
        odds = [*range(5, n + 1, 2), 1, 3]
    return [c - 1 for c in evens + odds]


@pytest.mark.parametrize("n", range(4, 31))
def test_known_solution_oracle(n: int) -> None:
    assert is_solution(known_solution(n))


@SETTINGS
@given(
    n=st.integers(4, 30),
    seed=st.integers(0, 2**32 - 1),
    fixed_rows=st.sets(st.integers(0, 29), max_size=6),
    preset=st.sampled_from(["default", "crossfill-ea"]),
)
def test_solutions_verify_and_keep_fixed_queens(
    n: int, seed: int, fixed_rows: set[int], preset: str
) -> None:
    solution = known_solution(n)
    fixed = {r: solution[r] for r in fixed_rows if r < n}
    instance = make_instance(n, fixed=fixed)
    result = solve_ga(instance, seed=seed, preset=preset, max_evaluations=200_000)
    if preset == "default":
        assert result.placement is not None, "a solution exists (the oracle's)"
    if result.placement is not None:
        assert is_solution(result.placement, fixed)
        assert result.status is Status.OPTIMAL
    else:
        assert result.status is Status.UNKNOWN
        assert result.extra["best_conflicts"] > 0


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_same_seed_same_result(preset: str) -> None:
    params = {"population": 30} if preset == "chu-beasley" else {}
    instance = make_instance(12, weights="chess")
    runs = [solve_ga(instance, seed=7, preset=preset, max_evaluations=3000, **params)
            for _ in range(2)]
    assert len({(r.placement, r.counters, r.objective) for r in runs}) == 1
    # A generous time limit only adds clock checks between chunks: the same placement (the
    # colour bound arrives beside a limited run, so it may stop a chunk sooner or later)
    limited = solve_ga(instance, seed=7, time_limit=60.0, preset=preset,
                       max_evaluations=3000, **params)
    assert (limited.placement, limited.objective) == (runs[0].placement, runs[0].objective)
    other = solve_ga(make_instance(30), seed=8, preset=preset, **params)
    again = solve_ga(make_instance(30), seed=8, preset=preset, **params)
    assert other.placement == again.placement
    assert other.counters.evaluations == again.counters.evaluations


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_presets_solve_eight_queens(preset: str) -> None:
    for seed in range(5):
        result = solve_ga(make_instance(8), seed=seed, preset=preset)
        assert result.status is Status.OPTIMAL
        assert result.termination is Termination.SOLUTION_FOUND
        assert is_solution(result.placement)


def test_chess_weighted_reaches_twelve() -> None:
    instance = make_instance(8, weights="chess")
    for seed in range(5):
        result = solve_ga(instance, seed=seed, max_evaluations=50_000)
        assert result.objective == 12.0
        assert conflicts(result.placement) == 0
        # the GA knows the optimum (12: on a board this small every placement is listed,
        # nqmip.heuristics.exhaustive; the colour bound beyond): reaching it proves the
        # placement optimal and ends the run long before its budget (with the row maxima,
        # 16, it ran it all)
        assert result.status is Status.OPTIMAL
        assert result.provenance.bound_source == "exhaustive" and result.bound == 12
        assert result.counters.evaluations < 50_000


def test_weighted_never_returns_conflicts() -> None:
    # n = 3 has no solution: weighted or not, nothing is returned.
    result = solve_ga(make_instance(3, weights="chess"), seed=1, max_evaluations=2000)
    assert result.placement is None and result.status is Status.UNKNOWN
    assert result.extra["best_conflicts"] >= 1


def test_counting_001_preset() -> None:
    # No solution exists for n = 3: the run ends at the budget, within the last batch of
    # two children, and every initial individual and child is one evaluation.
    result = solve_ga(make_instance(3), seed=0, preset="crossfill-ea")
    assert result.termination is Termination.ITERATION_LIMIT
    assert 10_000 <= result.counters.evaluations <= 10_002
    assert result.counters.evaluations == 100 + 2 * result.counters.iterations
    in_initial = 0
    for seed in range(40):
        r = solve_ga(make_instance(8), seed=seed, preset="crossfill-ea")
        # the initial population included
        assert r.counters.evaluations == 100 + 2 * r.counters.iterations
        if r.extra["found_in_initial"]:
            in_initial += 1
            assert r.counters.evaluations == 100 and r.counters.iterations == 0
    assert in_initial > 0


def test_counting_004_and_improvement() -> None:
    r = solve_ga(make_instance(10), seed=3, preset="roulette-generational")
    # the whole population each generation
    assert r.counters.evaluations == 100 * (1 + r.counters.iterations)
    # Without improvement, the default counts one evaluation per child; with it, the
    # tried swaps come on top.
    plain = solve_ga(make_instance(3), seed=1, improve="none", max_evaluations=500)
    assert plain.counters.evaluations == 8 + plain.counters.iterations
    assert plain.counters.improvements == 0
    tried = solve_ga(make_instance(3), seed=1, max_evaluations=500)
    assert tried.counters.evaluations > 8 + tried.counters.iterations


def test_parameter_validation() -> None:
    with pytest.raises(ParameterError, match="population"):
        solve_ga(make_instance(8), seed=0, population=0)
    with pytest.raises(ParameterError, match="p_mutation"):
        solve_ga(make_instance(8), seed=0, p_mutation=1.5)
    with pytest.raises(ParameterError, match="p_crossover"):
        solve_ga(make_instance(8), seed=0, p_crossover=-0.1)
    with pytest.raises(ParameterError, match="unknown selection"):
        solve_ga(make_instance(8), seed=0, selection="lottery")
    with pytest.raises(ParameterError, match="unknown crossover"):
        GAConfig.build(crossover="ox")
    with pytest.raises(ParameterError, match="unknown GA preset"):
        GAConfig.build("002")
    with pytest.raises(ParameterError, match="unknown GA parameter"):
        GAConfig.build(populaton=10)
    with pytest.raises(ParameterError, match="partners"):
        GAConfig.build(partners="some")
    with pytest.raises(ParameterError, match="tournament_k"):
        GAConfig.build(tournament_k=0)
    with pytest.raises(ParameterError, match="children"):
        GAConfig.build(children=3)
    with pytest.raises(ParameterError, match="pmx_segment"):
        GAConfig.build(pmx_segment=(0.5, 0.1))


@pytest.mark.timing
def test_time_limit_is_honoured() -> None:
    result = solve_ga(make_instance(300), seed=0, preset="chu-beasley", time_limit=0.3)
    assert result.termination is Termination.TIME_LIMIT
    assert result.wall_time < 2.0


def test_clashing_fixed_queens_are_an_input_error() -> None:
    with pytest.raises(InstanceError, match=r"\(0, 0\) and \(1, 1\).*diagonal"):
        solve_ga(make_instance(8, fixed={0: 0, 1: 1}), seed=0)


def test_import_does_not_load_numba() -> None:
    code = "import sys, nqmip, nqmip.heuristics.ga.run; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


# --- operators: valid permutations that keep the fixed rows ------------------------------


@st.composite
def parents_and_free_rows(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    n = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**31 - 2))
    rng = np.random.default_rng(seed)
    fixed_rows = rng.random(n) < draw(st.floats(0.0, 0.6))
    free = np.flatnonzero(~fixed_rows).astype(np.int64)
    p1 = rng.permutation(n).astype(np.int32)
    p2 = p1.copy()
    p2[free] = rng.permutation(p1[free])  # same values on the fixed rows
    return p1, p2, free, seed


def _check_child(child: np.ndarray, p1: np.ndarray, free: np.ndarray) -> None:
    assert sorted(child.tolist()) == list(range(child.size))
    fixed = np.setdiff1d(np.arange(child.size), free)
    assert np.array_equal(child[fixed], p1[fixed])


@SETTINGS
@given(parents_and_free_rows())
def test_operators_make_valid_permutations(case: tuple) -> None:
    p1, p2, free, seed = case
    n = p1.size
    ga_kernels.seed_numba(seed)
    used = np.zeros(n, dtype=np.bool_)
    position = np.zeros(n, dtype=np.int64)
    scratch = np.zeros(n, dtype=np.int64)
    a = np.empty(n, dtype=np.int32)
    b = np.empty(n, dtype=np.int32)
    m = free.size
    for seg in ((0, 0), (1, 3), (max(1, m // 3), max(1, m // 2))):
        ga_kernels.pmx(p1, p2, a, free, position, *seg)
        _check_child(a, p1, free)
    for cut in range(m + 1):
        ga_kernels.cut_crossfill(p1, p2, a, free, used, cut)
        _check_child(a, p1, free)
        assert np.array_equal(a[free[:cut]], p1[free[:cut]])
    ga_kernels.crossfill_001(p1, p2, a, b, free, used, scratch)
    _check_child(a, p1, free)
    _check_child(b, p1, free)
    assert np.array_equal(a[free[: m // 2]], p1[free[: m // 2]])
    ga_kernels.gene_draw(p1, p2, a, free, used)
    _check_child(a, p1, free)
    for distinct in (True, False):
        a[:] = p1
        ga_kernels.swap_mutation(a, free, 1.0, distinct)
        _check_child(a, p1, free)
        if distinct and m >= 2:
            assert int((a != p1).sum()) == 2
    a[:] = p1
    ga_kernels.per_gene_mutation(a, free, 0.5)
    _check_child(a, p1, free)


def test_pmx_is_pmx() -> None:
    # Worked by hand: segment 3..6 of p1 into p2; 6 -> 4 -> 1 and 3 -> 7 by the mapping.
    p1 = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8], dtype=np.int32)
    p2 = np.array([8, 2, 6, 7, 1, 5, 4, 0, 3], dtype=np.int32)
    free = np.arange(9, dtype=np.int64)
    child = np.empty(9, dtype=np.int32)
    for seed in range(200):
        ga_kernels.seed_numba(seed)
        ga_kernels.pmx(p2, p1, child, free, np.zeros(9, dtype=np.int64), 4, 4)
        # locate the segment: 4 consecutive positions copied from p1
        starts = [s for s in range(6) if np.array_equal(child[s:s + 4], p1[s:s + 4])]
        if 3 in starts:
            assert child.tolist() == [8, 2, 1, 3, 4, 5, 6, 0, 7]
            return
    pytest.fail("segment 3..6 never drawn")


def test_reference_numbers_are_aliases_of_the_named_presets() -> None:
    for number, name in (("000", "chu-beasley"), ("001", "crossfill-ea"),
                         ("004", "roulette-generational")):
        assert GAConfig.build(number).describe() == GAConfig.build(name).describe()


def test_descent_is_capped_on_large_boards_so_a_time_limit_holds() -> None:
    """One improvement call is bounded work: uncapped below IMPROVE_UNCAPPED_M free rows,
    IMPROVE_WORK / m steps above (a kernel call reads no clock)."""
    from nqmip.heuristics.ga import codes as k
    from nqmip.heuristics.ga.operators import IMPROVE_UNCAPPED_M, IMPROVE_WORK

    config = GAConfig.build("default")
    small, _ = config.arrays(IMPROVE_UNCAPPED_M, True, 1.0)
    large, _ = config.arrays(10**5, True, 1.0)
    assert small[k.I_IMPROVE_STEPS] == 0
    assert large[k.I_IMPROVE_STEPS] == IMPROVE_WORK // 10**5
    explicit, _ = GAConfig.build("default", improve_steps=3).arrays(10**5, True, 1.0)
    assert explicit[k.I_IMPROVE_STEPS] == 3
