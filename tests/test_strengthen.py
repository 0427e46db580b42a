"""The strengthening cuts off no optimal placement: checked by brute force on small boards.

Every permutation of n <= 8 is enumerated with numpy; the strengthened models' optima (all
pieces on, HiGHS on the matrix model, CP-SAT, GLPK on the Pyomo model) must equal the
brute-force optimum, for chess and random weights, with and without fixed queens.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest

import nqmip
from nqmip.colour.search import search_black_count, start_permutation
from nqmip.formulation import colour_bound as B
from nqmip.formulation import strengthen as S

ALL_ON = {"colour_bound": True, "parity": True, "symmetry": True}


@cache
def solutions(n: int) -> np.ndarray:
    """Every non-attacking placement of an n x n board, one row per placement."""
    perms = np.array(list(itertools.permutations(range(n))), dtype=np.int64).reshape(-1, n)
    keep = np.ones(len(perms), dtype=bool)
    for a, b in itertools.combinations(range(n), 2):
        keep &= np.abs(perms[:, a] - perms[:, b]) != b - a
    return perms[keep]


def brute_force(inst: nqmip.Instance) -> float | None:
    sols = solutions(inst.n)
    for r, c in inst.fixed:
        sols = sols[sols[:, r] == c]
    if len(sols) == 0:
        return None
    w = inst.weight_matrix()
    return float(w[np.arange(inst.n), sols].sum(axis=1).max())


def black_counts(n: int) -> np.ndarray:
    sols = solutions(n)
    return ((sols + np.arange(n)) % 2 == 0).sum(axis=1)


def instances() -> list[nqmip.Instance]:
    out = []
    for n in range(4, 9):
        out.append(nqmip.make_instance(n, "chess"))
        out.append(nqmip.make_instance(n, "random", weights_seed=n))
        out.append(nqmip.make_instance(n, "chess", fixed={1: 3}))
        out.append(nqmip.make_instance(n, "chess", black=1, white=3))
        # symmetric under the transpose: detection must find it, breaking must keep optima
        w = nqmip.random_weights(n, seed=100 + n)
        out.append(nqmip.make_instance(n, w + w.T))
        out.append(nqmip.make_instance(n, w + w.T, fixed={0: 0}))
    return out


def solve_matrix(inst: nqmip.Instance, s: S.Strengthening) -> float | None:
    import highspy

    from nqmip.backends.highs import to_highs_lp
    from nqmip.formulation.matrix import build_linear_model

    rows, ncols, bounds = S.matrix_extras(s)
    lm = build_linear_model(inst, extra_rows=rows, num_extra_cols=ncols,
                            extra_col_bounds=bounds)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.passModel(to_highs_lp(lm, highspy))
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    return float(h.getInfo().objective_function_value)


@pytest.mark.parametrize("inst", instances(), ids=lambda i: i.describe())
def test_strengthened_matrix_optimum_equals_brute_force(inst: nqmip.Instance) -> None:
    expected = brute_force(inst)
    got = solve_matrix(inst, S.plan(inst, **ALL_ON))
    assert (got is None) == (expected is None)
    if expected is not None:
        assert got == pytest.approx(expected)


@pytest.mark.parametrize("piece", sorted(ALL_ON))
@pytest.mark.parametrize("n", [5, 6, 8])
def test_each_piece_alone_keeps_the_optimum(piece: str, n: int) -> None:
    for inst in (nqmip.make_instance(n, "chess"), nqmip.make_instance(n, "chess", fixed={2: 0})):
        pieces = {k: k == piece for k in ALL_ON}
        assert solve_matrix(inst, S.plan(inst, **pieces)) == pytest.approx(brute_force(inst))


@pytest.mark.parametrize("n", [4, 6, 7, 8])
def test_cpsat_and_pyomo_strengthened_equal_brute_force(n: int) -> None:
    from ortools.sat.python import cp_model

    for inst in (nqmip.make_instance(n, "chess"), nqmip.make_instance(n, "chess", fixed={0: 1}),
                 nqmip.make_instance(n, "random", weights_seed=3)):
        s = S.plan(inst, **ALL_ON)
        cps = S.add_to_cpsat(nqmip.build_model(inst, backend="cpsat"), s)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        assert solver.solve(cps.model) == cp_model.OPTIMAL
        assert solver.objective_value == pytest.approx(brute_force(inst))
    model = S.add_to_pyomo(nqmip.build_model(n, "chess"), S.plan(nqmip.make_instance(n, "chess"),
                                                                   **ALL_ON))
    assert hasattr(model, "black_bound") and hasattr(model, "parity")


def test_every_placement_satisfies_bound_and_parity() -> None:
    for n in range(4, 10):
        counts = black_counts(n)
        assert np.all(counts % 2 == n % 2), "parity: #black = n (mod 2)"
        lo, hi = B.black_queen_range(n)
        assert lo <= counts.min() and counts.max() <= hi
        # fixed queens: the bound with a fixed queen still covers every placement keeping it
        sols = solutions(n)
        for r, c in [(0, 0), (1, 3), (n - 1, 2)]:
            keep = sols[:, r] == c
            rng = B.black_queen_range(n, ((r, c),))
            if not keep.any():
                continue
            assert rng is not None
            assert rng[0] <= counts[keep].min() and counts[keep].max() <= rng[1]


def test_black_bound_is_tight_on_small_boards() -> None:
    # Not required for validity, but the whole method relies on it: record where it holds.
    for n in range(4, 10):
        assert B.black_queen_bound(n) == black_counts(n).max(), n


def test_infeasible_boards_are_seen_by_the_bound() -> None:
    assert B.black_queen_range(2) is None and B.black_queen_range(3) is None


def test_detected_symmetries_map_the_weights_onto_themselves() -> None:
    rng = np.random.default_rng(0)
    for n in (4, 5, 6, 7):
        base = rng.integers(1, 9, size=(n, n)).astype(float)
        for name in S.SYMMETRY_NAMES:
            # symmetrise over the group generated by one element
            w = base.copy()
            image = S.symmetry_map(n, name)
            flat = w.ravel()
            for _ in range(4):
                flat = np.maximum(flat, flat[image])
            w = flat.reshape(n, n)
            inst = nqmip.make_instance(n, w)
            found = S.detect_symmetries(inst)
            assert name in found
            for g in found:
                img = S.symmetry_map(n, g)
                assert np.array_equal(w.ravel()[img], w.ravel())
        assert S.detect_symmetries(nqmip.make_instance(n, base)) == ()


def test_chess_symmetries_depend_on_parity_and_fixed_queens() -> None:
    even = set(S.detect_symmetries(nqmip.make_instance(8, "chess")))
    assert even == {"rot180", "transpose", "anti_transpose"}
    odd = set(S.detect_symmetries(nqmip.make_instance(7, "chess")))
    assert odd == set(S.SYMMETRY_NAMES)
    fixed = set(S.detect_symmetries(nqmip.make_instance(8, "chess", fixed={0: 0})))
    assert fixed == {"transpose"}


def test_apply_symmetry_keeps_solutions() -> None:
    for p in map(tuple, solutions(6)):
        for name in S.SYMMETRY_NAMES:
            assert nqmip.is_solution(S.apply_symmetry(p, name))


def test_colour_search_hits_the_requested_count() -> None:
    rng = np.random.default_rng(1)
    for n in (8, 9, 12, 16):
        b = B.black_queen_bound(n)
        p = start_permutation(n, b, (), rng)
        assert p is not None and sorted(p) == list(range(n))
        assert sum((i + c) % 2 == 0 for i, c in enumerate(p)) == b
        found = search_black_count(nqmip.make_instance(n, "chess"), b, seed=0, time_limit=10)
        assert found is not None and nqmip.is_solution(found)
        assert sum((i + c) % 2 == 0 for i, c in enumerate(found)) == b


def test_solve_strengthened_matches_plain_and_brute_force() -> None:
    for inst in (nqmip.make_instance(8, "chess"), nqmip.make_instance(7, "chess", fixed={3: 0}),
                 nqmip.make_instance(8, "random", weights_seed=5)):
        expected = brute_force(inst)
        for method in ("highs", "cpsat"):
            on = nqmip.solve(inst, method=method, time_limit=30)
            off = nqmip.solve(inst, method=method, time_limit=30, strengthen=False)
            assert on.status == off.status == "optimal"
            assert on.objective == off.objective == expected


def test_build_model_default_is_the_textbook_model() -> None:
    assert nqmip.build_model(8, "chess", backend="matrix").num_rows == 46
    assert nqmip.build_model(8, "chess", backend="matrix", strengthen=True).num_rows == 47


@pytest.mark.parametrize(("n", "count"), list(enumerate([1, 0, 0, 2, 10, 4, 40, 92, 352],
                                                        start=1)))
def test_enumeration_matches_oeis_a000170(n: int, count: int) -> None:
    value, placements = nqmip.enumerate_optimal(n)
    assert len(placements) == count
    assert value == (n if count else None)
    assert all(nqmip.is_solution(p) for p in placements)


def test_enumeration_of_weighted_optima_matches_brute_force() -> None:
    for inst in (nqmip.make_instance(6, "random", weights_seed=2),
                 nqmip.make_instance(8, "chess", fixed={0: 2})):
        value, placements = nqmip.enumerate_optimal(inst)
        sols = solutions(inst.n)
        for r, c in inst.fixed:
            sols = sols[sols[:, r] == c]
        w = inst.weight_matrix()
        scores = w[np.arange(inst.n), sols].sum(axis=1)
        best = {tuple(int(v) for v in s) for s in sols[scores == scores.max()]}
        assert value == scores.max() and set(placements) == best
