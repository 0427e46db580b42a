"""Every exact backend against brute force, against each other, and on the edge cases."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import nqmip
from nqmip.backends.base import BackendError, BackendUnavailable, RawSolution, get_backend
from nqmip.methods import METHODS
from nqmip.result import Status, Termination
from tests.conftest import options_for
from tests.oracle import best_value


@pytest.mark.parametrize("strengthen", [False, True])
def test_weighted_eight_queens_is_twelve(backend: str, strengthen: bool) -> None:
    if not strengthen and not METHODS[backend].honour("strengthen"):
        pytest.skip(f"{backend} builds no ILP: strengthen is refused (tests/test_contract.py)")
    r = nqmip.solve(8, "chess", method=backend, **options_for(backend, strengthen=strengthen))
    assert r.status == Status.OPTIMAL
    assert r.objective == pytest.approx(12)
    assert r.bound == pytest.approx(12, abs=1e-6)
    assert nqmip.is_solution(r.placement)
    blacks = sum((i + j) % 2 == 0 for i, j in enumerate(r.placement))
    assert blacks == 4  # four queens on each colour, as in the reference notebook
    assert r.solver.startswith(backend)


def test_feasibility_one_to_twelve(backend: str) -> None:
    for n in range(1, 13):
        r = nqmip.solve(n, method=backend)
        if n in (2, 3):
            assert r.status == Status.INFEASIBLE, n
            assert r.placement is None and r.objective is None
        else:
            assert r.status == Status.OPTIMAL, n
            assert r.objective == n and nqmip.is_solution(r.placement)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
def test_random_weights_match_brute_force(backend: str, n: int, seed: int) -> None:
    inst = nqmip.make_instance(n, "random", weights_seed=seed)
    r = nqmip.solve(inst, method=backend)
    assert r.status == Status.OPTIMAL
    assert r.objective == pytest.approx(best_value(n, inst.weights))


def test_fractional_weights_match_brute_force(backend: str) -> None:
    rng = np.random.default_rng(7)
    w = rng.uniform(-1.0, 3.0, size=(7, 7))
    r = nqmip.solve(7, w, method=backend)
    assert r.objective == pytest.approx(best_value(7, w), abs=1e-6)


@functools.cache
def highs_reference(n: int) -> nqmip.Result:
    """HiGHS's answer on the random n-board of seed n: solved once for every backend."""
    return nqmip.solve(n, "random", method="highs", weights_seed=n)


@pytest.mark.parametrize("n", [9, 10, 11, 12])
def test_backends_agree_on_random_weights(backend: str, n: int) -> None:
    reference = highs_reference(n)
    r = nqmip.solve(n, "random", method=backend, weights_seed=n)
    assert r.status == reference.status == Status.OPTIMAL
    assert r.objective == pytest.approx(reference.objective)


@pytest.mark.parametrize(
    ("fixed", "weights"),
    [({0: 0}, "chess"), ({2: 7, 6: 1}, "chess"), ({3: 3}, None), ({0: 1, 7: 4}, "random")],
)
def test_completion_keeps_fixed_queens(backend: str, fixed: dict, weights: str | None) -> None:
    inst = nqmip.make_instance(8, weights, fixed, weights_seed=11)
    r = nqmip.solve(inst, method=backend, **options_for(backend, strengthen=False))
    assert r.status == Status.OPTIMAL
    assert nqmip.is_solution(r.placement, fixed)
    assert r.objective == pytest.approx(best_value(8, inst.weight_matrix(), fixed))


@pytest.mark.parametrize(
    ("n", "fixed"),
    [(4, {0: 0}), (6, {0: 0}), (8, {0: 0, 1: 2, 2: 4})],
)
def test_impossible_completion_is_infeasible(backend: str, n: int, fixed: dict) -> None:
    assert best_value(n, np.ones((n, n)), fixed) is None  # the oracle agrees
    r = nqmip.solve(n, "chess", fixed=fixed, method=backend,
                    **options_for(backend, strengthen=False))
    assert r.status == Status.INFEASIBLE
    assert r.placement is None


@pytest.mark.parametrize("threads", [None, 2])
@pytest.mark.timing
def test_time_limit_returns_incumbent_and_bound(backend: str, threads: int | None) -> None:
    """A limit's stop says time_limit: CP-SAT's two workers, interleaved, stop some 0.1 s
    short of a short limit by this clock, which was read as a Ctrl-C ('interrupted')."""
    r = nqmip.solve(40, "chess", method=backend, time_limit=1.0,
                    **options_for(backend, seed=1, threads=threads))
    # A functional check (the limit is honoured), with wide slack for model building.
    assert r.wall_time < 20
    assert r.status in (Status.OPTIMAL, Status.FEASIBLE, Status.UNKNOWN)
    if r.status == Status.FEASIBLE:
        assert r.termination == Termination.TIME_LIMIT
        assert nqmip.is_solution(r.placement)
        if r.bound is not None:
            assert r.bound >= r.objective - 1e-6


@pytest.mark.solver("cpsat")
def test_cpsat_off_the_main_thread_reads_an_early_stop_as_its_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Off the main thread CP-SAT hears no Ctrl-C: a stop nobody cancelled is its own
    limit, however short of it this thread's clock says it came (two workers interleaved
    stop about 0.1 s early: nqmip.solve said 'interrupted' for a 1 s limit in CI). The
    clock is held still, so every stop looks early."""
    import threading
    import types

    from nqmip.backends import cpsat
    from nqmip.backends.base import SolveOptions
    from nqmip.budget import Deadline

    monkeypatch.setattr(cpsat, "time", types.SimpleNamespace(perf_counter=lambda: 0.0))
    box: dict[str, object] = {}
    worker = threading.Thread(target=lambda: box.setdefault("raw", cpsat.CpSatBackend().solve(
        nqmip.make_instance(40, "random", weights_seed=1), SolveOptions(deadline=Deadline(0.5)))))
    worker.start()
    worker.join(60)
    assert box["raw"].termination is Termination.TIME_LIMIT  # type: ignore[attr-defined]


def test_glpk_missing_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("nqmip.backends.glpk.shutil.which", lambda _: None)
    with pytest.raises(BackendUnavailable, match="apt-get install glpk-utils"):
        nqmip.solve(8, "chess", method="glpk")


def test_gurobi_missing_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("nqmip.backends.base.module_available", lambda _: False)
    monkeypatch.setattr(get_backend("gurobi"), "_checked", False)  # asked again, and
    monkeypatch.setattr(get_backend("gurobi"), "_why", None)  # both restored after
    with pytest.raises(BackendUnavailable, match=r"nqmip\[gurobi\]"):
        nqmip.solve(8, "chess", method="gurobi")


@pytest.mark.solver("gurobi")
def test_gurobi_size_limit_is_explained() -> None:
    try:
        r = nqmip.solve(46, method="gurobi", time_limit=5)
    except BackendError as exc:
        assert "size-limited" in str(exc)
    else:  # a full licence: then the answer must verify
        assert nqmip.is_solution(r.placement)


def test_unknown_method_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown method"):
        nqmip.solve(8, method="cplex")


def test_a_wrong_backend_answer_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = get_backend("highs")
    lie = RawSolution(Status.OPTIMAL, Termination.OPTIMAL, (1, 3, 0, 2), 99.0, 99.0)
    monkeypatch.setattr(type(backend), "solve", lambda *_: lie)  # the class: an
    # instance patch would leave a bound `solve` behind, hiding later tests' class patches
    with pytest.raises(nqmip.VerificationError, match="worth"):
        # strengthen=False: the colour-bound shortcut would answer without the backend
        nqmip.solve(4, "chess", method="highs", strengthen=False)
    clash = RawSolution(Status.OPTIMAL, Termination.OPTIMAL, (0, 1, 2, 3), 4.0, 4.0)
    monkeypatch.setattr(type(backend), "solve", lambda *_: clash)
    with pytest.raises(nqmip.VerificationError, match="attacking"):
        nqmip.solve(4, method="highs")


def test_build_model_matches_the_reference_notebook() -> None:
    import pyomo.environ as pyo

    m = nqmip.build_model(8, weights="chess")
    assert len(list(m.component_data_objects(pyo.Var))) == 64
    assert all(v.is_binary() for v in m.component_data_objects(pyo.Var))
    assert len(list(m.component_data_objects(pyo.Constraint))) == 46
    assert (len(m.rows), len(m.cols), len(m.diagonals), len(m.anti_diagonals)) == (8, 8, 15, 15)
    assert pyo.value(m.w[0, 0]) == 2 and pyo.value(m.w[0, 1]) == 1


def test_build_model_other_backends() -> None:
    cps = nqmip.build_model(6, "chess", backend="cpsat")
    assert cps.n == 6 and len(cps.x) == 36 and len(cps.queen) == 6
    lm = nqmip.build_model(8, "chess", backend="matrix")
    assert (lm.num_rows, lm.num_cols, lm.num_nonzeros) == (46, 64, 256)
    with pytest.raises(ValueError, match="unknown model backend"):
        nqmip.build_model(8, backend="cplex")


def test_bound_is_whole_where_the_weights_are() -> None:
    """A solver's fractional bound on whole weights is rounded to the whole number it
    implies (floor for a maximum, ceil for a minimum); real weights keep theirs."""
    whole = nqmip.make_instance(9, np.arange(81.0).reshape(9, 9) % 7 + 1)
    assert whole.integral
    assert whole.rounded_bound(55.999) == 55.0
    assert whole.rounded_bound(55.9999999) == 56.0  # within the solver's tolerance
    real = nqmip.make_instance(9, np.arange(81.0).reshape(9, 9) / 7)
    assert not real.integral and real.rounded_bound(55.5) == 55.5
    # A stopped HiGHS run: its LP-based bound comes back whole, in both senses.
    for sense in ("max", "min"):
        r = nqmip.solve(40, "random", weights_seed=3, sense=sense, method="highs",
                        time_limit=2.0, seed=0)
        if r.status != Status.OPTIMAL and r.bound is not None:
            assert float(r.bound).is_integer(), r.bound
            assert (r.bound >= r.objective) if sense == "max" else (r.bound <= r.objective)
    # auto's anytime plan: the LP relaxation's bound (431.885 at n = 48, seed 0), whole.
    r = nqmip.solve(48, "random", weights_seed=0, time_limit=2.0, seed=0)
    assert r.provenance.bound_source == "lp_relaxation"
    assert r.bound is not None and float(r.bound).is_integer() and r.bound >= r.objective


@pytest.mark.timing
def test_a_limited_solve_leaves_nothing_armed_for_the_next(
        capfd: pytest.CaptureFixture[str]) -> None:
    """A solve given a time limit that ends early leaves no clock running: the solves
    after it, in the same process, past that limit, are still proven with the optimum,
    and nothing is printed. toulbar2's timer (armed by its time limit, never stopped)
    fired a second later into whatever ran: it printed 'Time limit expired... Aborting...'
    on standard output and cut the next toulbar2 solve short, which answered 'optimal'
    with less than the optimum (n = 24, random weights: 198 'proven', 203 is optimal).

    Every exact backend in one test, so that they wait out their limits together (a test
    a backend waited 2.2 s each): each backend's limited solve, then rounds of every
    backend's solves until each has started one 1.6 s or more after its own limited solve
    (and at least three), then nothing printed 2.2 s after the last limited solve began."""
    import time

    from nqmip.backends.base import EXACT_METHODS

    from .conftest import IN_CI

    backends = [name for name in EXACT_METHODS if get_backend(name).available()]
    missing = sorted(set(EXACT_METHODS) - set(backends))
    if missing and IN_CI:
        pytest.fail(f"CI=true and backends {missing} are not available", pytrace=False)
    if not backends:
        pytest.skip("no exact backend is available")
    boards = [(9, seed) for seed in range(3)]
    optimum = {seed: best_value(9, nqmip.make_instance(9, "random", weights_seed=seed).dense)
               for _, seed in boards}
    limited: dict[str, float] = {}
    for backend in backends:
        limited[backend] = time.perf_counter()
        nqmip.solve(8, "random", method=backend, time_limit=1)
    capfd.readouterr()
    latest = dict.fromkeys(backends, float("-inf"))  # each backend's last solve's start
    rounds = 0
    while rounds < 3 or any(latest[b] - limited[b] < 1.6 for b in backends):
        n, seed = boards[rounds % len(boards)]
        for backend in backends:
            latest[backend] = time.perf_counter()
            r = nqmip.solve(n, "random", method=backend, weights_seed=seed)
            assert r.status == Status.OPTIMAL, (backend, r.status, r.message)
            assert r.objective == pytest.approx(optimum[seed]), (backend, seed, r.objective)
        rounds += 1
    time.sleep(max(0.0, 2.2 - (time.perf_counter() - max(limited.values()))))
    assert capfd.readouterr().out == ""
    if missing:
        pytest.skip(f"backends {missing} are not available (the others passed)")
