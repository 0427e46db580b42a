"""The clique rows of the LP search (:mod:`nqmip.bnb.cliques`): every one holds on every
placement (brute force, n = 4 to 9), its squares attack one another pairwise, the
separation finds exactly the violated ones, and the LP search with them proves the optima
it proves without."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import nqmip
from nqmip.bnb import cliques, conflicts, lpsearch
from nqmip.bnb.lp import NodeLP, root_cliques
from nqmip.budget import Deadline
from nqmip.construct import explicit_solution
from nqmip.instance import make_instance
from nqmip.instances.families import toulbar2_tutorial
from nqmip.sense import to_maximisation
from tests.oracle import best_value, solutions
from tests.test_bnb_lp import assert_proves_brute_force


def _attack(a: int, b: int, n: int) -> bool:
    (r, c), (s, d) = divmod(a, n), divmod(b, n)
    return r == s or c == d or r - c == s - d or r + c == s + d


def _holds(n: int, rows: list[np.ndarray]) -> bool:
    """Whether every row (a set of squares, at most one queen) holds on every placement."""
    boards = np.zeros((len(solutions(n)), n * n), np.int8)
    boards[np.arange(len(boards))[:, None], np.arange(n) * n + solutions(n)] = 1
    return all(int(boards[:, cells].sum(axis=1).max()) <= 1 for cells in rows)


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8, 9])
def test_every_clique_holds_on_every_placement(n: int) -> None:
    rows = cliques.every(n)
    assert rows  # from n = 3 on there are 2 x 2 blocks
    assert _holds(n, rows)
    for cells in rows:
        assert all(_attack(int(a), int(b), n) for a, b in itertools.combinations(cells, 2))
    # the check sees a row that is not valid: two squares of one placement
    first = solutions(n)[0]
    assert not _holds(n, [*rows, np.array([first[0], n + first[1]], np.int32)])


def test_the_shapes_are_the_queens_graphs_cliques_off_the_lines() -> None:
    """On a board of 8, every maximal clique of the queens' graph not on a line (Bron and
    Kerbosch, by networkx) is one of the rows, and every row lies in one of them."""
    networkx = pytest.importorskip("networkx")
    n = 8
    graph = networkx.Graph()
    graph.add_nodes_from(range(n * n))
    graph.add_edges_from((a, b) for a, b in itertools.combinations(range(n * n), 2)
                         if _attack(a, b, n))
    rows = {tuple(int(c) for c in cells) for cells in cliques.every(n)}
    maximal = []
    for clique in networkx.find_cliques(graph):
        r, c = np.divmod(np.asarray(clique), n)
        if min(len(set(r)), len(set(c)), len(set(r - c)), len(set(r + c))) > 1:
            maximal.append(set(clique))
            assert tuple(sorted(clique)) in rows
    assert all(any(set(row) <= clique for clique in maximal) for row in rows)



def lp_points(n: int, tries: int) -> Iterator[np.ndarray]:
    """Node LP solutions of the toulbar2 family's n-board (seed 1) under ``tries`` random
    sets of squares closed (a tenth-to-a-third of them, seeded by n): points that satisfy
    the lines, for a separation to cut; the infeasible ones left out."""
    rng = np.random.default_rng(n)
    node = NodeLP(to_maximisation(toulbar2_tutorial(n, 1))[0].weights.astype(np.float64))
    for _ in range(tries):
        upper = (rng.random(n * n) > 0.3).astype(np.int8)
        sol = node.solve(np.zeros(n * n, np.int8), upper, None, None)
        if sol is not None:
            yield sol.x

@pytest.mark.parametrize("n", [5, 7, 10])
def test_separation_finds_exactly_the_violated_cliques(n: int) -> None:
    """On points that satisfy the lines (an LP's solutions), ``violated`` returns each
    clique of ``every`` whose sum passes 1 + tol, once, the most violated first."""
    found = 0
    for x in lp_points(n, 20):
        got = cliques.violated(n, x, most=10 ** 6)
        sums = [float(x[cells].sum()) for cells in got]
        assert sums == sorted(sums, reverse=True)
        expected = {tuple(cells) for cells in cliques.every(n)
                    if x[cells].sum() > 1.0 + cliques.MIN_VIOLATION}
        assert [tuple(sorted(cells)) for cells in got] == \
            [tuple(sorted(cells)) for cells in got if tuple(sorted(cells)) in expected]
        assert {tuple(sorted(cells)) for cells in got} == expected
        assert len(got) == len(expected)
        found += len(got)
    assert found > 0


def _switch(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    monkeypatch.setattr(lpsearch, "CLIQUES", on)


@pytest.mark.parametrize(("n", "seed"), [(6, 0), (7, 1), (8, 2)])
@pytest.mark.parametrize("threads", [1, 2])
def test_with_cliques_the_search_proves_the_brute_force_optimum(
        n: int, seed: int, threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the cliques at the root and at every node, the LP search proves the
    brute-force optimum, values maximised and costs minimised, with and without fixed
    queens, in rounds or not, on one thread or two, and the cliques are added."""
    _switch(monkeypatch, True)
    w = np.random.default_rng(500 + seed).integers(1, 40, (n, n)).astype(float)
    added = 0
    for sense, fixed in itertools.product(("max", "min"), ({}, {1: 3}, {0: 0, 3: 2})):
        sign = 1.0 if sense == "max" else -1.0
        expected = best_value(n, sign * w, fixed)
        inst, offset = to_maximisation(make_instance(n, w, sense=sense, fixed=fixed))
        for rounds_on in (True, False):
            stats: dict[str, Any] = {}
            out = lpsearch.lp_branch_and_bound(inst, Deadline(None), rounds=rounds_on,
                                               threads=threads, neighbourhood=False,
                                               stats=stats)
            added += sum(worker.cuts for worker in stats["lps"])
            assert_proves_brute_force(out, expected, w, sense, fixed, offset)
    assert added > 0


@pytest.mark.parametrize("n", [12, 14])
def test_with_cliques_the_search_proves_what_it_proves_without(
        n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Toulbar2 boards (costs minimised): the same optimum with the cliques as without,
    from the explicit placement and in rounds, and the cliques bring the root's bound
    down (kept in the LP)."""
    start = tuple(int(c) for c in explicit_solution(n))
    for seed in (1, 2):
        inst = to_maximisation(toulbar2_tutorial(n, seed))[0]
        got = {}
        for on in (False, True):
            _switch(monkeypatch, on)
            stats: dict[str, Any] = {}
            out = lpsearch.lp_branch_and_bound(inst, Deadline(None), start,
                                               neighbourhood=False, stats=stats)
            assert out.termination is nqmip.Termination.OPTIMAL
            assert out.objective == out.bound
            got[on] = (out.objective, stats["lps"][0].cuts)
        assert got[True][0] == got[False][0]
        assert got[True][1] > 0 == got[False][1]
        w = inst.weights.astype(np.float64)
        lower, upper = np.zeros(n * n, np.int8), np.ones(n * n, np.int8)
        node_lp = NodeLP(w)
        plain = node_lp.solve(lower, upper, None, None)
        assert plain is not None
        cut = root_cliques([node_lp], lower, plain, lambda: None)
        assert cut is not None and cut.value < plain.value - 1e-3
        again = node_lp.solve(lower, upper, None, None)  # the rows stay
        assert again is not None and again.value == pytest.approx(cut.value)


@pytest.mark.parametrize(("n", "seed"), [(7, 3), (8, 4)])
def test_conflict_learning_beside_the_cliques_keeps_the_optimum(
        n: int, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Conflict learning prices only the lines (the cliques' duals left out, which any
    prices of the lines still bound): with both on, the brute-force optimum."""
    _switch(monkeypatch, True)
    monkeypatch.setattr(lpsearch, "CONFLICTS", True)
    w = np.random.default_rng(700 + seed).integers(1, 40, (n, n)).astype(float)
    stats: dict[str, Any] = {}
    out = lpsearch.lp_branch_and_bound(make_instance(n, w), Deadline(None),
                                       neighbourhood=False, stats=stats)
    assert out.termination is nqmip.Termination.OPTIMAL
    assert out.objective == out.bound == best_value(n, w)
    assert all(isinstance(store, conflicts.Nogoods) for store in stats["nogoods"])
    assert sum(worker.cuts for worker in stats["lps"]) > 0


def test_a_basis_brings_back_its_rows_and_one_whose_rows_are_gone_is_not_used() -> None:
    """A node solved from a basis first drops the rows added after it was taken (its
    subtree's cliques); a basis whose rows were dropped and replaced is not handed to
    HiGHS (the rows go back to the root's); each LP's value is a fresh LP's with the same
    rows."""
    n = 10
    w = to_maximisation(toulbar2_tutorial(n, 2))[0].weights.astype(np.float64)
    lower, upper = np.zeros(n * n, np.int8), np.ones(n * n, np.int8)
    node = NodeLP(w)
    base = node.rows
    a, b, c = (np.array(cells, np.int32) for cells in ([0, 1, n, n + 1], [22, 24, 33],
                                                       [55, 56, 65, 66]))
    node.add_rows([a])
    first = node.solve(lower, upper, None, None)
    node.add_rows([b])
    second = node.solve(lower, upper, None, None)
    assert first is not None and second is not None and node.rows == base + 2
    child = lower.copy()
    child[3] = 1
    got = node.solve(child, upper, first.basis, None)  # b dropped
    assert node.rows == base + 1 and [list(r) for r in node.added()] == [list(a)]
    fresh = NodeLP(w)
    fresh.add_rows([a])
    want = fresh.solve(child, upper, None, None)
    assert got is not None and want is not None and got.value == pytest.approx(want.value)
    node.add_rows([c])  # where b was: second's rows are gone
    got = node.solve(lower, upper, second.basis, None)
    assert node.rows == base and node.added() == []
    plain = NodeLP(w).solve(lower, upper, None, None)
    assert got is not None and plain is not None and got.value == pytest.approx(plain.value)
