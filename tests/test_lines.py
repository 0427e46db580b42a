"""Line sets, exact cover and the colour proof: checked against brute force.

Every claim the colour proof makes rests on two facts tested here: each placement's line
set is a solution of the line model (so enumerating the line models misses no placement),
and a refuted black count has no placement (brute force over every solution, n <= 9).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nqmip
from nqmip.colour import lines as L
from nqmip.colour.exact_cover import find_exact_cover
from nqmip.colour.proof import colour_proof
from nqmip.colour.search import search_black_count, search_line_sets
from nqmip.formulation import colour_bound as S
from tests.oracle import solutions


def black_counts(n: int) -> np.ndarray:
    sols = solutions(n)
    return ((sols + np.arange(n)) % 2 == 0).sum(axis=1)


def is_exact_cover(opt_items: np.ndarray, chosen: np.ndarray, n_items: int) -> bool:
    counts = np.bincount(opt_items[chosen].ravel(), minlength=n_items)
    return bool(np.all(counts == 1))


def brute_cover_exists(opt_items: np.ndarray, n_items: int) -> bool:
    k = opt_items.shape[1]
    size = n_items // k
    if size * k != n_items:
        return False
    return any(is_exact_cover(opt_items, np.array(c), n_items)
               for c in itertools.combinations(range(len(opt_items)), size))


def test_exact_cover_reports_exhaustion_on_an_odd_cycle() -> None:
    # three items, options {0,1}, {1,2}, {0,2}: every pair overlaps, no exact cover
    out = find_exact_cover(np.array([[0, 1], [1, 2], [0, 2]]), 3, seed=0, time_limit=1)
    assert out.options is None and out.exhausted
    # an item no option covers
    out = find_exact_cover(np.array([[0, 1]]), 3, seed=0, time_limit=1)
    assert out.options is None and out.exhausted


def test_exact_cover_rejects_bad_items() -> None:
    with pytest.raises(ValueError, match="outside"):
        find_exact_cover(np.array([[0, 5]]), 3)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), items=st.integers(2, 7), extra=st.integers(0, 9))
def test_exact_cover_agrees_with_brute_force(seed: int, items: int, extra: int) -> None:
    rng = np.random.default_rng(seed)
    n_items = 2 * items
    planted = rng.permutation(n_items).reshape(-1, 2) if rng.random() < 0.5 else np.empty((0, 2))
    noise = np.array([rng.choice(n_items, 2, replace=False) for _ in range(extra)]).reshape(-1, 2)
    opt_items = np.concatenate([planted, noise]).astype(np.int32)
    if len(opt_items) == 0:
        return
    out = find_exact_cover(opt_items, n_items, seed=seed, time_limit=2, node_limit=10_000)
    expected = brute_cover_exists(opt_items, n_items)
    if out.options is not None:
        assert is_exact_cover(opt_items, out.options, n_items)
    assert (out.options is not None) == expected
    assert out.exhausted == (not expected)


def test_every_placement_is_a_solution_of_its_line_model() -> None:
    for n in range(4, 9):
        counts = black_counts(n)
        for b in sorted(set(counts.tolist())):
            listed = L.enumerate_line_sets(n, b, max_count=10**6, time_limit=30)
            assert listed is not None
            listed_set = set(listed)
            for p in solutions(n)[counts == b]:
                assert L.LineSet.of(p) in listed_set, (n, b, p)


def test_realisations_of_a_line_set_are_exactly_its_placements() -> None:
    n = 8
    for p in solutions(n)[:20]:
        lines = L.LineSet.of(p)
        cells, opt_items = L.realisation_options(n, lines)
        out = find_exact_cover(opt_items, 4 * n, seed=1, time_limit=5)
        assert out.options is not None
        q = np.empty(n, dtype=np.int64)
        q[cells[out.options, 0]] = cells[out.options, 1]
        assert nqmip.is_solution(q) and L.LineSet.of(q) == lines
        outcome, placement = L.cover_by_mip(n, lines)
        assert outcome is L.Cover.FOUND and placement is not None
        assert L.LineSet.of(placement) == lines


@pytest.mark.parametrize("n", range(4, 10))
def test_refutation_is_sound_and_finds_the_missing_counts(n: int) -> None:
    counts = set(black_counts(n).tolist())
    lo, hi = S.black_queen_range(n)  # type: ignore[misc]
    for b in range(n % 2, n + 1, 2):
        outcome = L.refute_black_count(n, b, max_line_sets=10**6, time_limit=60)
        if b in counts:
            assert not outcome.refuted, (n, b)
        elif lo <= b <= hi:
            # inside the bound but impossible: the line sets see it on these boards
            assert outcome.refuted, (n, b)


def test_refutation_with_fixed_queens_matches_brute_force() -> None:
    n = 8
    sols = solutions(n)
    counts = black_counts(n)
    for r, c in [(0, 0), (2, 5)]:
        keep = sols[:, r] == c
        for b in range(0, n + 1, 2):
            outcome = L.refute_black_count(n, b, ((r, c),), max_line_sets=10**6, time_limit=60)
            if np.any(counts[keep] == b):
                assert not outcome.refuted
                found = search_black_count(nqmip.make_instance(n, "chess", fixed={r: c}), b,
                                           seed=0, time_limit=5)
                assert found is not None and found[r] == c and S.black_count(found) == b


def test_line_search_says_when_no_line_set_exists() -> None:
    inst = nqmip.make_instance(8, "chess")
    assert search_line_sets(inst, 8, seed=0, time_limit=5) == ()
    assert search_black_count(inst, 8, seed=0, time_limit=5) is None


@pytest.mark.parametrize("n", [36, 52])
def test_line_search_reaches_the_bound_where_the_walk_did_not(n: int) -> None:
    b = S.black_queen_bound(n)
    found = search_line_sets(nqmip.make_instance(n, "chess"), b, seed=0, time_limit=60)
    assert found and nqmip.is_solution(found) and S.black_count(found) == b


def test_colour_proof_refutes_the_bound_at_19() -> None:
    # B = 15 black queens at n = 19, but no placement has them (the MIP agrees: the
    # frontier's Gurobi/HiGHS runs proved 32 = 19 + 13 by search).
    told: list[int] = []
    proof = colour_proof(nqmip.make_instance(19, "chess"), time_limit=60, seed=0,
                         on_refuted=told.append)
    assert proof is not None and proof.proven
    assert S.black_queen_bound(19) == 15 and proof.refuted == (15,)
    assert told == [15]  # as soon as it was refuted
    assert proof.black == 13 and proof.objective == proof.bound == 32
    r = nqmip.solve(19, "chess", method="auto", seed=0, time_limit=60)
    assert r.status == "optimal" and r.objective == 32
    assert r.provenance.refuted_black_counts == (15,)


def test_colour_proof_for_white_heavy_weights_matches_brute_force() -> None:
    for n in (6, 7, 8):
        inst = nqmip.make_instance(n, "chess", black=1, white=3)
        proof = colour_proof(inst, time_limit=30, seed=0)
        assert proof is not None and proof.proven
        w = inst.weight_matrix()
        best = float(w[np.arange(n), solutions(n)].sum(axis=1).max())
        assert proof.objective == proof.bound == best


def placements_of_covers(
    options: tuple[np.ndarray, np.ndarray, int], size: int,
    placement_of: Callable[[np.ndarray], tuple[int, ...]],
) -> set[tuple[int, ...]]:
    """The placements of every exact cover (by brute force over ``size`` options) of the
    ``(cells, opt_items, n_items)`` of a realisation."""
    cells, opt_items, n_items = options
    return {placement_of(cells[list(c)])
            for c in itertools.combinations(range(len(cells)), size)
            if is_exact_cover(opt_items, np.array(c), n_items)}


@pytest.mark.parametrize("n", [8, 9])
def test_symmetric_covers_are_exactly_the_symmetric_placements(n: int) -> None:
    sols = solutions(n)
    symmetric = [p for p in sols if np.all(p[::-1] == n - 1 - p)]
    assert symmetric  # n = 8 and 9 have half-turn-symmetric solutions
    for p in symmetric:
        lines = L.LineSet.of(p)
        # every cover of the pair options is a symmetric placement on those lines, and
        # the placement itself is one of the covers
        placements = placements_of_covers(L.symmetric_realisation_options(n, lines), n // 2,
                                          lambda chosen: L.symmetric_placement(n, chosen))
        assert tuple(int(c) for c in p) in placements
        on_lines = {tuple(int(c) for c in q) for q in sols
                    if np.all(q[::-1] == n - 1 - q) and L.LineSet.of(q) == lines}
        assert placements == on_lines


def quarter_symmetric(p: np.ndarray) -> bool:
    n = len(p)
    rotated = np.empty(n, dtype=p.dtype)
    rotated[p] = n - 1 - np.arange(n)  # (i, j) -> (j, n-1-i)
    return bool(np.all(rotated == p))


def quarter_turn_solutions(n: int) -> list[np.ndarray]:
    """Every quarter-turn-symmetric placement by plain backtracking over the orbits of four
    squares ((i, j) -> (j, n-1-i)), independent of the package: the 73,712 placements of
    n = 13 take 11 s to list in pure Python, their quarter-turn ones a fraction of that."""
    found: list[np.ndarray] = []
    p = [-1] * n

    def orbit(i: int, j: int) -> list[tuple[int, int]]:
        return [(i, j), (j, n - 1 - i), (n - 1 - i, n - 1 - j), (n - 1 - j, i)]

    def place() -> None:
        row = next((i for i in range(n) if p[i] < 0), None)
        if row is None:
            found.append(np.array(p, dtype=np.int64))
            return
        for c in range(n):
            squares = set(orbit(row, c))
            rows = [i for i, _ in squares]
            if len(set(rows)) < len(rows) or any(p[i] >= 0 for i in rows):
                continue
            trial = list(p)
            for i, j in squares:
                trial[i] = j
            placed = [(i, j) for i, j in enumerate(trial) if j >= 0]
            if len({j for _, j in placed}) < len(placed) or \
                    len({i + j for i, j in placed}) < len(placed) or \
                    len({i - j for i, j in placed}) < len(placed):
                continue
            saved = list(p)
            p[:] = trial
            place()
            p[:] = saved

    place()
    return found


def test_quarter_turn_solutions_are_those_of_the_plain_list() -> None:
    sizes = [len(quarter_turn_solutions(n)) for n in range(1, 14)]
    assert sizes == [1, 0, 0, 2, 2, 0, 0, 0, 0, 0, 0, 8, 8]  # OEIS A033148
    for n in range(1, 10):
        plain = {tuple(map(int, q)) for q in solutions(n) if quarter_symmetric(q)}
        assert {tuple(map(int, q)) for q in quarter_turn_solutions(n)} == plain, n


@pytest.mark.parametrize("n", [5, 13])
def test_quarter_covers_are_exactly_the_quarter_turn_placements(n: int) -> None:
    from ortools.sat.python import cp_model

    quarter = quarter_turn_solutions(n)
    assert quarter  # n = 5 and 13 have quarter-turn-symmetric solutions (9 has none)
    for p in quarter:
        lines = L.LineSet.of(p)
        # its line set satisfies the quarter-turn line model at its black count
        model, u, v = L.line_model(n, S.black_count(p))
        for k in range(2 * n - 1):
            model.Add(u[k] == v[k])
            model.Add(u[k] == int(k in lines.anti))
        assert cp_model.CpSolver().Solve(model) in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        placements = placements_of_covers(L.quarter_realisation_options(n, lines), n // 4,
                                          lambda chosen: L.quarter_placement(n, chosen))
        assert tuple(int(c) for c in p) in placements
        on_lines = {tuple(int(c) for c in q) for q in quarter if L.LineSet.of(q) == lines}
        assert placements == on_lines


def test_quarter_turn_line_sets_give_quarter_turn_placements() -> None:
    from nqmip.budget import Deadline
    from nqmip.colour.search import _symmetric_attempt

    rng = np.random.default_rng(0)
    deadline = Deadline.of(30)
    found: object = False
    while found is False:  # False: that line set had no cover in time, draw another
        found = _symmetric_attempt(25, 17, True, rng, deadline)
    assert isinstance(found, tuple) and found and nqmip.is_solution(found)
    assert quarter_symmetric(np.array(found)) and S.black_count(found) == 17
    # chess n = 17 has B = 13, but no quarter-turn line set with 13 black queens
    assert _symmetric_attempt(17, 13, True, rng, Deadline.of(10)) == ()


def test_symmetric_search_reaches_the_bound_and_says_when_none_exists() -> None:
    from nqmip.colour.search import search_symmetric

    found = search_symmetric(30, S.black_queen_bound(30), seed=0, time_limit=30)
    assert found and nqmip.is_solution(found)
    assert S.black_count(found) == S.black_queen_bound(30)
    assert all(found[30 - 1 - i] == 30 - 1 - c for i, c in enumerate(found))
    # a count of the wrong parity (#black = n mod 2) has no line set at all
    assert search_symmetric(20, 13, seed=0, time_limit=10) == ()


def test_corner_construction_reaches_the_bound_where_no_odd_symmetric_set_does() -> None:
    from nqmip.colour.search import corner_possible, search_symmetric

    # chess n = 21, B = 15: no half-turn-symmetric line set of 21 queens has 15 black
    # ones, but a symmetric placement of 20 queens with 14 never uses its main diagonal,
    # so the corner queen (20, 20) completes it
    n, b = 21, S.black_queen_bound(21)
    assert b == 15 and search_symmetric(n, b, seed=0, time_limit=10, corner=False) == ()
    found = search_symmetric(n, b, seed=0, time_limit=30)
    assert found and nqmip.is_solution(found) and S.black_count(found) == b
    assert found[-1] == n - 1
    assert all(found[n - 2 - i] == n - 2 - c for i, c in enumerate(found[:-1]))
    # the line model with the corner queen fixed decides where it cannot help
    assert not corner_possible(75, S.black_queen_bound(75))  # chess n = 75, B = 59
    assert corner_possible(79, S.black_queen_bound(79))  # B = 61: reached this way


def test_cpsat_cover_agrees_with_the_mip() -> None:
    n = 8
    for p in solutions(n)[:6]:
        cells, opt_items = L.realisation_options(n, L.LineSet.of(p))
        assert L._cover_cpsat(n, cells, opt_items, time_limit=10)[0] is L.Cover.FOUND
    lines = L.enumerate_line_sets(19, 15)
    assert lines is not None and len(lines) == 1  # B = 15 at n = 19: refuted
    cells, opt_items = L.realisation_options(19, lines[0])
    assert L._cover_cpsat(19, cells, opt_items, time_limit=30)[0] is L.Cover.INFEASIBLE
    assert L._cover_mip(19, cells, opt_items, time_limit=30)[0] is L.Cover.INFEASIBLE


def test_second_stream_proves_at_the_bound_or_returns_nothing() -> None:
    from nqmip.colour.proof import search_at_bound
    from nqmip.result import Status

    # chess n = 66: B = 50 is reached (docs/frontier.md), and reaching it is a proof
    r = search_at_bound(nqmip.make_instance(66, "chess"), seed=1, time_limit=30)
    assert r is not None and r.status == Status.OPTIMAL
    assert r.placement is not None and nqmip.is_solution(r.placement)
    assert S.black_count(r.placement) == S.black_queen_bound(66) == 50
    assert r.objective == r.bound == 66 + 50 and r.provenance.proof == "colour_bound"
    # white worth more: the bound is the fewest black queens
    inst = nqmip.make_instance(8, "chess", black=1, white=3)
    r = search_at_bound(inst, seed=0, time_limit=30)
    fewest = S.black_queen_bound(8, maximise=False)
    assert r is not None and r.placement is not None and S.black_count(r.placement) == fewest
    # n = 19: B = 15 has no placement (refuted by the proof): nothing, not a wrong proof
    assert search_at_bound(nqmip.make_instance(19, "chess"), seed=0, time_limit=1) is None
    # once the proof beside it has refuted 15, it searches at 13 and names the refuted count
    r = search_at_bound(nqmip.make_instance(19, "chess"), seed=0, time_limit=30,
                        refuted=lambda: (15,))
    assert r is not None and r.status == Status.OPTIMAL and r.placement is not None
    assert S.black_count(r.placement) == 13 and r.objective == r.bound == 19 + 13
    assert r.provenance.refuted_black_counts == (15,) and "15 black" in r.message
    assert search_at_bound(nqmip.make_instance(8, "random"), seed=0, time_limit=1) is None


def test_second_stream_moves_when_the_caller_cancels_its_attempt() -> None:
    import threading

    from nqmip.budget import Deadline
    from nqmip.colour.proof import search_at_bound

    # n = 19 from B = 15, which no placement has: the attempt there would run to the
    # deadline, unless the caller (as auto does when the proof refutes 15) cancels it
    refuted: list[int] = []
    attempts: list[Deadline] = []

    def refute() -> None:
        refuted.append(15)
        attempts[-1].cancel()

    timer = threading.Timer(1.0, refute)
    timer.start()
    try:
        r = search_at_bound(nqmip.make_instance(19, "chess"), seed=0, time_limit=40,
                            refuted=lambda: tuple(refuted), attempts=attempts.append)
    finally:
        timer.cancel()
    assert r is not None and r.placement is not None and S.black_count(r.placement) == 13
    assert r.provenance.refuted_black_counts == (15,) and len(attempts) == 2


@pytest.mark.timing
def test_auto_ends_when_the_proof_wins_beside_the_second_stream() -> None:
    # chess n = 66 with a limit that starts the second stream: the proof (or the stream)
    # proves within seconds, and the other stops then, not at the limit
    r = nqmip.solve(66, "chess", method="auto", time_limit=30, seed=0)
    assert r.status == "optimal" and r.objective == 66 + 50
    assert r.wall_time < 15, r.wall_time


def test_auto_without_a_limit_returns_where_the_bound_is_not_reached() -> None:
    import subprocess
    import sys

    # chess n = 93: no placement has been found at B = 73 (docs/frontier.md). Without a
    # limit the proof has COLOUR_PROOF_SECONDS (3 s here); the second stream beside it
    # searched at the bound for ever before, and auto never returned.
    code = ("import nqmip, nqmip.auto.colour_plan as h; h.COLOUR_PROOF_SECONDS = 3.0; "
            "r = nqmip.solve(93, 'chess', method='auto', seed=0); "
            "print(r.status.value, r.objective)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=90, check=True)
    status, objective = out.stdout.split()
    assert status == "feasible" and 93 + 61 <= float(objective) < 93 + 73
