"""The LP search of nqmip's branch and bound (:mod:`nqmip.bnb.lpsearch`) and its rounds of
a falling target (:mod:`nqmip.bnb.rounds`): optimal against brute force in both senses, with
fixed queens and real weights, rounds or not; a stopped search keeps a valid bound."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import nqmip
from nqmip.bnb import binary, lp, lpsearch, parallel, rounds, search
from nqmip.bnb.lp import NodeLP
from nqmip.budget import Deadline
from nqmip.construct import explicit_solution
from nqmip.instance import Instance, make_instance
from nqmip.instances.families import toulbar2_tutorial
from nqmip.sense import to_maximisation
from tests.oracle import best_value


def assert_proves_brute_force(out: Any, expected: float | None, w: np.ndarray, sense: str,
                              fixed: dict[int, int], offset: float | None) -> None:
    """The LP search's answer ``out`` (in the maximisation's terms, ``offset``: costs) is
    the brute-force optimum ``expected`` of the ``sense``-signed weights ``w``, proven and
    keeping ``fixed``, or infeasible where there is none."""
    if expected is None:
        assert out.termination is nqmip.Termination.INFEASIBLE
        return
    sign = 1.0 if sense == "max" else -1.0
    n = len(w)
    assert out.termination is nqmip.Termination.OPTIMAL
    assert out.placement is not None and nqmip.is_solution(out.placement)
    assert all(out.placement[row] == col for row, col in fixed.items())
    assert out.objective == out.bound
    value = out.objective if sense == "max" else offset - out.objective
    assert value == w[np.arange(n), list(out.placement)].sum()
    assert value == pytest.approx(sign * expected)


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("in_rounds", "threads"), [(True, 1), (False, 1), (True, 2)])
def test_random_weights_match_brute_force(n: int, seed: int, in_rounds: bool,
                                          threads: int) -> None:
    w = np.random.default_rng(seed).integers(1, 10, (n, n)).astype(float)
    out = lpsearch.lp_branch_and_bound(make_instance(n, w), Deadline(None), rounds=in_rounds,
                                       threads=threads)
    assert out.termination is nqmip.Termination.OPTIMAL
    assert out.placement is not None and nqmip.is_solution(out.placement)
    assert out.objective == best_value(n, w) == out.bound
    assert out.objective == w[np.arange(n), list(out.placement)].sum()


@pytest.mark.parametrize("n", [6, 8])
def test_real_weights_and_costs(n: int) -> None:
    w = np.random.default_rng(n).random((n, n))
    out = lpsearch.lp_branch_and_bound(make_instance(n, w), Deadline(None))
    assert out.objective == pytest.approx(best_value(n, w))
    low = lpsearch.lp_branch_and_bound(to_maximisation(make_instance(n, w, sense="min"))[0],
                                       Deadline(None))
    assert low.placement is not None
    assert w[np.arange(n), list(low.placement)].sum() == pytest.approx(-best_value(n, -w))


@pytest.mark.parametrize("fixed", [{0: 2}, {1: 3, 4: 1}, {0: 0, 1: 2}, {0: 0, 2: 1, 4: 2}])
def test_fixed_queens(fixed: dict[int, int]) -> None:
    n = 8
    w = np.random.default_rng(5).integers(1, 10, (n, n)).astype(float)
    expected = best_value(n, w, fixed)
    out = lpsearch.lp_branch_and_bound(make_instance(n, w, fixed=fixed), Deadline(None))
    if expected is None:
        assert out.termination is nqmip.Termination.INFEASIBLE and out.placement is None
    else:
        assert out.termination is nqmip.Termination.OPTIMAL and out.objective == expected
        assert out.placement is not None
        assert all(out.placement[row] == col for row, col in fixed.items())


@pytest.mark.parametrize("n", [2, 3])
def test_no_placement_is_infeasible(n: int) -> None:
    out = lpsearch.lp_branch_and_bound(make_instance(n, "random"), Deadline(None))
    assert out.termination is nqmip.Termination.INFEASIBLE


def test_the_engines_agree_on_the_toulbar2_family() -> None:
    # N = 14: the kernel and the LP search (in rounds, and given a poor start) prove the
    # same optimum; the search goes through the public solve too (verified placement)
    inst = to_maximisation(toulbar2_tutorial(14))[0]
    kernel = search.branch_and_bound(inst, Deadline(None), engine="kernel")
    lp = search.branch_and_bound(inst, Deadline(None), engine="lp")
    explicit = nqmip.solve(14, method="sa", time_limit=0.2, seed=0).placement
    started = search.branch_and_bound(inst, Deadline(None), start=explicit, engine="lp")
    assert kernel.objective == lp.objective == started.objective == lp.bound
    assert lp.termination is started.termination is nqmip.Termination.OPTIMAL


def test_a_round_keeps_a_placement_worth_its_target() -> None:
    # toulbar2 family N = 18 seed 2: the round whose target is the optimum, 260, found no
    # placement (its floor was 260 itself, and a node whose LP came out at 260 less a
    # rounding hair was cut off) and the search ended at 259; the kernel and the plain LP
    # search prove 260
    inst = to_maximisation(toulbar2_tutorial(18, 2))[0]
    kernel = search.branch_and_bound(inst, Deadline(None), engine="kernel")
    plain = lpsearch.lp_branch_and_bound(inst, Deadline(None), rounds=False)
    out = lpsearch.lp_branch_and_bound(inst, Deadline(None))
    assert kernel.objective == plain.objective == 260.0
    assert out.termination is nqmip.Termination.OPTIMAL
    assert out.objective == out.bound == 260.0


@pytest.mark.parametrize("family", ["toulbar2", "random"])
def test_the_rounds_prove_the_kernels_optimum_on_every_board(family: str) -> None:
    # the class of the board above: the LP search in rounds of a falling target (its
    # default) against the kernel's proof on every board of a sweep, costs minimised
    # (toulbar2) and values maximised (random 1..9); before the rounds kept a rounding hair
    # under their floor, toulbar2 N = 18 seed 2 ended "optimal" one below the optimum
    from nqmip.instances.families import random_1_9

    wrong = []
    for n in (14, 16, 18, 20):
        for seed in (1, 2, 3, 4):
            board = toulbar2_tutorial(n, seed) if family == "toulbar2" else random_1_9(n, seed)
            inst = to_maximisation(board)[0]
            kernel = search.branch_and_bound(inst, Deadline(None), engine="kernel")
            out = lpsearch.lp_branch_and_bound(inst, Deadline(None))
            assert out.termination is nqmip.Termination.OPTIMAL
            if not kernel.objective == out.objective == out.bound:
                wrong.append((n, seed, kernel.objective, out.objective, out.bound))
    assert not wrong, wrong


def stopped_after(inst: Instance, chunks: int, **options: Any) -> Any:
    """The LP search of ``inst`` cancelled at its ``chunks``-th look at the incumbent (one
    look a chunk), with ``options`` (rounds, threads); its outcome."""
    deadline = Deadline(None)
    seen = [0]

    def stop_after() -> None:
        seen[0] += 1
        if seen[0] >= chunks:
            deadline.cancel()

    return lpsearch.lp_branch_and_bound(inst, deadline, incumbent=lambda: stop_after(),
                                        **options)


def test_a_stopped_search_keeps_a_valid_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # toulbar2 family N = 20 (69 in costs): stopped after a few chunks, in rounds or not,
    # the bound (maximisation) is at least the optimum and the placement at most it
    inst = to_maximisation(toulbar2_tutorial(20))[0]
    optimum = lpsearch.lp_branch_and_bound(inst, Deadline(None)).objective
    assert optimum is not None
    monkeypatch.setattr(parallel, "OFFER_NODES", 1)
    for in_rounds, threads in ((True, 1), (False, 1), (True, 2)):
        for chunks in (1, 2, 5, 20):
            out = stopped_after(inst, chunks, rounds=in_rounds, threads=threads)
            assert out.bound is not None and out.bound >= optimum
            assert out.objective is None or out.objective <= optimum
            if out.termination is not nqmip.Termination.OPTIMAL:
                assert out.termination is nqmip.Termination.INTERRUPTED


def test_rounds_raise_the_proven_bound_before_the_proof() -> None:
    # the bound the rounds report falls from the root's towards the optimum, never below it
    inst = to_maximisation(toulbar2_tutorial(16))[0]
    seen: list[float] = []
    out = lpsearch.lp_branch_and_bound(inst, Deadline(None),
                                       report=lambda inc, bound: seen.append(bound or 0.0))
    assert out.objective is not None and out.root_bound is not None
    assert all(out.objective <= b <= out.root_bound for b in seen if b)


def test_the_round_step_follows_the_growth() -> None:
    assert rounds._next_delta(2, None, 10) == 2
    assert rounds._next_delta(2, 10, 160) == 1  # 4 a unit: one unit makes 4 times
    assert rounds._next_delta(4, 100, 200) == 8  # 1.19 a unit: 8 units make 4 times
    assert rounds._next_delta(4, 100, 50) == 8  # shrinking: double


def test_the_plain_search_comes_once_predicted_small() -> None:
    # 583 nodes after 151 four units higher: 1.40 a unit; an incumbent 6 below the proven
    # bound is predicted 7.5 times the last round (plain at 8), one 7 below 10.5 times
    assert rounds.PLAIN_GROWTH == 8.0 and rounds.PLAIN_STABLE
    assert rounds._plain_soon(6, 4, 151, 583)
    assert not rounds._plain_soon(7, 4, 151, 583)
    assert not rounds._plain_soon(1, 4, None, 583)  # no growth known yet


@pytest.mark.parametrize(("n", "seed", "want", "best"), [
    # after the empty round at 340 (39 nodes, 22 at 342), the dives hold 332 since the
    # round at 342: 7 below the proven 339, predicted 5.3 times that round, so the plain
    # search from 332 (532 nodes; before, a round at 335, 272 nodes, held the optimum)
    (20, 7, [346, 344, 342, 340, None], 334.0),
    # after the empty round at 264 the incumbent had risen (256 to 258) in it: a round
    # at 260 still, though the plain search was predicted 6.5 times that round
    (18, 2, [272, 270, 268, 264, 260], 260.0)])
def test_the_rounds_go_plain_from_a_close_incumbent(monkeypatch: pytest.MonkeyPatch, n: int,
                                                     seed: int, want: list[int | None],
                                                     best: float) -> None:
    floors: list[float | None] = []
    real = lpsearch.in_rounds

    def watched(*args: Any) -> Any:
        engine = args[6]

        def seen(begin: Any, floor: float | None, report: Any, ceiling: Any) -> Any:
            floors.append(None if floor is None else round(floor))
            return engine(begin, floor, report, ceiling)

        return real(*args[:6], seen, *args[7:])

    monkeypatch.setattr(lpsearch, "in_rounds", watched)
    monkeypatch.setattr(lpsearch, "CLIQUES", False)  # the trees these rounds were read from
    inst = to_maximisation(toulbar2_tutorial(n, seed))[0]
    out = lpsearch.lp_branch_and_bound(inst, Deadline(None),
                                       tuple(int(c) for c in explicit_solution(n)),
                                       neighbourhood=False)
    assert out.objective == out.bound == best
    assert floors == want


def test_with_a_gap_the_bound_stays_valid() -> None:
    inst = make_instance(12, "random", weights_seed=4)
    exact = lpsearch.lp_branch_and_bound(inst, Deadline(None)).objective
    gapped = lpsearch.lp_branch_and_bound(inst, Deadline(None), mip_gap=0.05)
    assert exact is not None and gapped.objective is not None and gapped.bound is not None
    assert gapped.objective <= exact <= gapped.bound
    assert gapped.bound <= gapped.objective * 1.05 + 1


def test_two_workers_prove_what_one_proves() -> None:
    # the toulbar2 family at N = 18 and random weights at n = 12: two workers sharing the
    # tree end with the same optimum (and the same bound) as one
    for inst in (to_maximisation(toulbar2_tutorial(18))[0],
                 make_instance(12, "random", weights_seed=7)):
        one = lpsearch.lp_branch_and_bound(inst, Deadline(None))
        two = lpsearch.lp_branch_and_bound(inst, Deadline(None), threads=2)
        assert one.termination is two.termination is nqmip.Termination.OPTIMAL
        assert one.objective == two.objective == two.bound
        assert two.placement is not None and nqmip.is_solution(two.placement)


def test_auto_runs_the_lp_search_and_the_heuristics_from_30_free_rows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # toulbar2 family N = 30 (30 free rows, no Gurobi, no SCIP): auto's plan is the LP
    # search beside the heuristics' slices; whatever it reaches in 3 s is verified and its
    # lower bound (costs) is at most its placement's cost
    import sys

    from nqmip.backends.base import get_backend

    for module, name in (("gurobipy", "gurobi"), ("pyscipopt", "scip")):
        monkeypatch.setitem(sys.modules, module, None)
        monkeypatch.setattr(get_backend(name), "_checked", False)  # asked again
        monkeypatch.setattr(get_backend(name), "_why", None)
    r = nqmip.solve(toulbar2_tutorial(30), method="auto", time_limit=3, seed=0)
    assert "bnb" in r.provenance.plan and "sa" in r.provenance.plan
    assert not any("highs" in step for step in r.provenance.plan)  # no MIP beside it
    assert r.placement is not None and nqmip.is_solution(r.placement)
    assert r.bound is not None and r.objective is not None and r.bound <= r.objective


@pytest.mark.parametrize("n", [6, 8, 10, 13])
def test_the_dive_completes_the_board_on_the_allowed_squares(n: int) -> None:
    # with a queen placed, the dive's completion is a placement that keeps it and uses
    # only allowed squares; with too few allowed squares it says there is none
    from nqmip.bnb.dive import dive

    rng = np.random.default_rng(n)
    rowf, colf = np.ones(n, np.int8), np.ones(n, np.int8)
    d1f, d2f = np.ones(2 * n - 1, np.int8), np.ones(2 * n - 1, np.int8)
    out = np.full(n, -1, np.int64)
    r0, c0 = 1, 2
    out[r0] = c0
    rowf[r0] = colf[c0] = d1f[r0 - c0 + n - 1] = d2f[r0 + c0] = 0
    lines = [a.copy() for a in (rowf, colf, d1f, d2f)]
    allowed = np.ones((n, n), np.int8)
    assert dive(allowed, rng.random((n, n)), rowf, colf, d1f, d2f, 10**6, out)
    assert nqmip.is_solution(tuple(out)) and out[r0] == c0
    assert all((a == b).all() for a, b in zip(lines, (rowf, colf, d1f, d2f), strict=True))
    allowed[:, :] = 0
    allowed[np.arange(n), np.arange(n)] = 1  # one diagonal: no placement
    out = np.full(n, -1, np.int64)
    assert not dive(allowed, rng.random((n, n)), *[np.ones_like(a) for a in lines],
                    10**6, out)
    assert (out == -1).all()


@pytest.mark.parametrize("seed", range(40))
def test_the_dive_to_the_need_finds_a_completion_worth_it(seed: int) -> None:
    # dive_to with room enough ends at a completion worth the need whenever one exists
    # (the brute force's), keeps the placed queen and gives the lines back; with no need
    # it is the dive's first completion
    import itertools

    from nqmip.bnb.dive import dive, dive_to

    rng = np.random.default_rng(seed)
    n = 7
    w = rng.integers(0, 20, (n, n)).astype(float)
    allowed = (rng.random((n, n)) < 0.85).astype(np.int8)
    allowed[1, 2] = 1
    key = rng.random((n, n))
    values = [sum(w[r, p[r]] for r in range(n)) for p in itertools.permutations(range(n))
              if p[1] == 2 and nqmip.is_solution(p) and allowed[np.arange(n), p].all()]

    def lines() -> list[np.ndarray]:
        rowf, colf = np.ones(n, np.int8), np.ones(n, np.int8)
        d1f, d2f = np.ones(2 * n - 1, np.int8), np.ones(2 * n - 1, np.int8)
        rowf[1] = colf[2] = d1f[1 - 2 + n - 1] = d2f[3] = 0
        return [rowf, colf, d1f, d2f]

    for need in (max(values, default=0.0), max(values, default=0.0) - 5, -np.inf):
        out = np.full(n, -1, np.int64)
        out[1] = 2
        given = lines()
        found = dive_to(allowed, key, w, need, *given, 10**6, out)
        assert found == bool(values)
        assert all((a == b).all() for a, b in zip(lines(), given, strict=True))
        if found:
            assert nqmip.is_solution(tuple(out)) and out[1] == 2
            assert allowed[np.arange(n), out].all() and w[np.arange(n), out].sum() >= need
    first = np.full(n, -1, np.int64)
    first[1] = 2
    if dive(allowed, key, *lines(), 10**6, first):
        assert (first == out).all()


@pytest.mark.parametrize("seed", range(12))
def test_reduced_cost_fixing_and_branching_rules_keep_the_optimum(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reduced-cost fixing rules squares out for whole subtrees: with it, without it, with
    pseudo-cost branching and with reliability branching (whose trials rule squares out
    too) the LP search proves the brute-force optimum."""
    n = 7
    w = np.random.default_rng(100 + seed).integers(1, 40, (n, n)).astype(float)
    for fixing, pseudo, reliable in ((True, False, False), (False, False, False),
                                     (True, True, False), (True, False, True),
                                     (False, False, True)):
        monkeypatch.setattr(lpsearch, "REDUCED_COST_FIXING", fixing)
        monkeypatch.setattr(lpsearch, "PSEUDO_COSTS", pseudo)
        monkeypatch.setattr(lpsearch, "RELIABILITY", reliable)
        out = lpsearch.lp_branch_and_bound(make_instance(n, w), Deadline(None),
                                           neighbourhood=False)
        assert out.termination is nqmip.Termination.OPTIMAL
        assert out.placement is not None and nqmip.is_solution(out.placement)
        assert out.objective == out.bound == best_value(n, w)


@pytest.mark.parametrize(("n", "seed"), [(10, 1), (11, 2), (12, 3)])
def test_reliability_branching_proves_the_highs_optimum(
        n: int, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reliability branching (trials of the children whose pseudo-costs are not yet
    reliable, within an iteration limit, ruling squares out) proves HiGHS's optimum of
    toulbar2 boards, and the trials do run."""
    board = toulbar2_tutorial(n, seed)
    expected = nqmip.solve(board, method="highs")
    inst, offset = to_maximisation(board)
    monkeypatch.setattr(lpsearch, "RELIABILITY", True)
    tried = [0]
    trial = NodeLP.trial

    def counted(self: NodeLP, *args: Any) -> float | None:
        tried[0] += 1
        return trial(self, *args)

    monkeypatch.setattr(NodeLP, "trial", counted)
    out = lpsearch.lp_branch_and_bound(inst, Deadline(None), neighbourhood=False)
    assert out.termination is nqmip.Termination.OPTIMAL
    assert out.placement is not None and nqmip.is_solution(out.placement)
    assert out.objective == out.bound
    assert expected.objective is not None and out.objective is not None
    assert offset - out.objective == pytest.approx(expected.objective)
    assert tried[0] > 0


@pytest.mark.parametrize("hot", [True, False])
@pytest.mark.parametrize(("n", "seed"), [(7, 0), (8, 1), (9, 2)])
def test_the_hot_start_skips_set_basis_and_keeps_the_optimum(
        n: int, seed: int, hot: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``HOT_START`` a run from the basis HiGHS already holds (a node's first child
    or trial right after the node) skips setBasis, and the LP search still proves the
    brute-force optimum, with reliability branching's trials in between or not; off,
    every run sets its basis."""
    monkeypatch.setattr(lp, "HOT_START", hot)
    monkeypatch.setattr(lpsearch, "CLIQUES", False)  # with them N = 8's tree has no such run
    w = np.random.default_rng(200 + seed).integers(1, 40, (n, n)).astype(float)
    for reliable in (True, False):
        monkeypatch.setattr(lpsearch, "RELIABILITY", reliable)
        stats: dict[str, Any] = {}
        out = lpsearch.lp_branch_and_bound(make_instance(n, w), Deadline(None),
                                           neighbourhood=False, stats=stats)
        assert out.termination is nqmip.Termination.OPTIMAL
        assert out.placement is not None and nqmip.is_solution(out.placement)
        assert out.objective == out.bound == best_value(n, w)
        skipped = sum(worker.hot for worker in stats["lps"])
        assert (skipped > 0) if hot else (skipped == 0)


def test_the_bounds_sent_by_difference_stay_the_nodes() -> None:
    """``NodeLP`` sends HiGHS only the column bounds that changed since its last run
    (``lp.INCREMENTAL_BOUNDS``): after a walk of nodes and trials, each from another
    node's bounds, HiGHS's columns hold exactly the last node's, and each node's LP value
    is the one a fresh NodeLP finds under the same bounds."""
    n = 10
    w = to_maximisation(toulbar2_tutorial(n, 3))[0].weights.astype(np.float64)
    rng = np.random.default_rng(7)
    walked = NodeLP(w)
    root = walked.solve(np.zeros(n * n, np.int8), np.ones(n * n, np.int8), None, None)
    assert root is not None
    walked.limit(5)
    for step in range(60):
        lower = np.zeros(n * n, np.int8)
        lower[rng.choice(n, size=int(rng.integers(0, 3)), replace=False) * (n + 1)] = 1
        upper = (rng.random(n * n) > 0.3).astype(np.int8) | lower
        if step % 3 == 2:  # a trial: the iteration limit, one more queen
            child = lower.copy()
            child[int(rng.integers(n * n))] = 1
            walked.trial(child, upper, root.basis, -1e9)
            lower = child
        else:
            walked.limit(None)
            got = walked.solve(lower, upper, root.basis, None)
            fresh = NodeLP(w).solve(lower, upper, None, None)
            assert (got is None) == (fresh is None)
            if got is not None and fresh is not None:
                assert got.value == pytest.approx(fresh.value, abs=1e-7)
            walked.limit(5)
        held = walked.h.getLp()
        assert np.array_equal(np.asarray(held.col_lower_), lower.astype(np.float64))
        assert np.array_equal(np.asarray(held.col_upper_), upper.astype(np.float64))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("sense", ["max", "min"])
@pytest.mark.parametrize(("n", "seed"), [(8, 0), (9, 1)])
def test_binary_branching_proves_the_brute_force_optimum(
        n: int, seed: int, sense: str, threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``BINARY`` (a fractional square's two children: a queen placed, the square
    forbidden; strong branching's trials ruling squares out) the LP search proves the
    brute-force optimum, values maximised and costs minimised, with and without fixed
    queens, in rounds or not, on one thread or two (whose tasks carry down children), and
    binary branching does choose squares."""
    monkeypatch.setattr(lpsearch, "BINARY", True)
    chosen = [0]
    choose = binary.choose

    def counted(*args: Any) -> Any:
        picked = choose(*args)
        chosen[0] += picked is not None
        return picked

    monkeypatch.setattr(binary, "choose", counted)
    w = np.random.default_rng(300 + seed).integers(1, 40, (n, n)).astype(float)
    sign = 1.0 if sense == "max" else -1.0
    for fixed in ({}, {1: 3}, {0: 0, 3: 2}):
        expected = best_value(n, sign * w, fixed)
        inst, offset = to_maximisation(make_instance(n, w, sense=sense, fixed=fixed))
        for rounds_on in (True, False):
            out = lpsearch.lp_branch_and_bound(inst, Deadline(None),
                                               rounds=rounds_on, threads=threads,
                                               neighbourhood=False)
            assert_proves_brute_force(out, expected, w, sense, fixed, offset)
    assert chosen[0] > 0


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", [12, 14])
def test_binary_branching_proves_the_kernels_optimum(
        n: int, threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """On toulbar2 boards (costs minimised) the LP search with ``BINARY`` proves the
    kernel's optimum, given the explicit placement or in rounds, on one thread or two
    (where a hungry worker is handed down children: seen at N = 12 to 20)."""
    start = tuple(int(c) for c in explicit_solution(n))
    for seed in (1, 2):
        inst = to_maximisation(toulbar2_tutorial(n, seed))[0]
        kernel = search.branch_and_bound(inst, Deadline(None), engine="kernel")
        monkeypatch.setattr(lpsearch, "BINARY", True)
        for rounds_on in (True, False):
            out = lpsearch.lp_branch_and_bound(inst, Deadline(None), start, rounds=rounds_on,
                                               threads=threads, neighbourhood=False)
            assert out.termination is nqmip.Termination.OPTIMAL
            assert kernel.objective == out.objective == out.bound
        monkeypatch.setattr(lpsearch, "BINARY", False)


def test_binary_branching_is_refused_on_a_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lpsearch, "BINARY", True)
    with pytest.raises(ValueError, match="BINARY"):
        lpsearch.lp_branch_and_bound(make_instance(6, "random"), Deadline(None),
                                     spread=lambda w, root: None)
