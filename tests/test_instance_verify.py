"""The instance's validation and the independent checker."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nqmip
from nqmip.verify import VerificationError, check_placement
from tests.oracle import solutions

A000170 = [1, 0, 0, 2, 10, 4, 40, 92]


def test_oracle_counts_match_oeis() -> None:
    assert [len(solutions(n)) for n in range(1, 9)] == A000170


def test_chess_weights_follow_the_notebook() -> None:
    w = nqmip.chess_weights(8)
    assert w[0, 0] == 2 and w[0, 1] == 1 and w[7, 7] == 2
    assert w.sum() == 32 * 2 + 32 * 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 0}, "whole number of at least 1"),
        ({"n": -3}, "whole number of at least 1"),
        ({"n": 2.5}, "whole number of at least 1"),
        ({"n": True}, "whole number of at least 1"),
        ({"n": 4, "weights": "checkers"}, "unknown weights preset"),
        ({"n": 4, "weights": np.ones((3, 3))}, "shape"),
        ({"n": 2, "weights": [[1, np.nan], [1, 1]]}, "finite"),
        ({"n": 2, "weights": [[1, "a"], [1, 1]]}, "real numbers"),
        ({"n": 4, "fixed": {4: 0}}, "off the 4 x 4 board"),
        ({"n": 4, "fixed": [(0, -1)]}, "off the 4 x 4 board"),
        ({"n": 4, "fixed": [(0, 1), (0, 2)]}, "two fixed queens"),
        ({"n": 4, "fixed": [(0,)]}, "pair"),
    ],
)
def test_bad_instances_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(nqmip.InstanceError, match=message):
        nqmip.make_instance(**kwargs)


#: Every public door that takes a board size, called with nothing else.
N_DOORS = ("solve", "make_instance", "count_solutions", "solutions", "enumerate_optimal",
           "lex_first", "chess_weights", "random_weights")


@pytest.mark.parametrize("door", N_DOORS)
@pytest.mark.parametrize("n", [8.5, -1, 0, "x", "8", True, None])
def test_every_door_states_the_range_of_n(door: str, n: object) -> None:
    """nqmip.solve(8.5) said 'n must be an integer', nqmip.solve(-1) 'n must be at least
    1' (each half of the range), and chess_weights(8.5) was numpy's TypeError: each door
    now states the whole range, as the command's --n does, from the one check."""
    with pytest.raises(nqmip.InstanceError) as caught:
        call = getattr(nqmip, door)
        result = call(n)
        if door == "solutions":  # a generator: the check runs on the first step
            next(iter(result))
    message = str(caught.value)
    assert message.startswith("n must be a whole number of at least 1"), message
    assert repr(n) in message, message


def test_weights_are_copied_and_read_only() -> None:
    w = np.ones((3, 3))
    inst = nqmip.make_instance(3, w)
    w[0, 0] = 99
    assert inst.weights is not None and inst.weights[0, 0] == 1
    with pytest.raises(ValueError):
        inst.weights[0, 0] = 5


def test_random_weights_are_seeded() -> None:
    a = nqmip.make_instance(6, "random", weights_seed=3).weights
    b = nqmip.make_instance(6, "random", weights_seed=3).weights
    c = nqmip.make_instance(6, "random", weights_seed=4).weights
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_conflicts_counts_pairs() -> None:
    assert nqmip.conflicts([0, 1, 2, 3]) == 6  # one diagonal of 4 queens
    assert nqmip.conflicts([0, 0]) == 1 + 0 + 0  # same column
    assert nqmip.conflicts([1, 3, 0, 2]) == 0
    assert nqmip.conflicts([]) == 0
    with pytest.raises(ValueError):
        nqmip.conflicts([0, 4, 1, 2])


def brute_conflicts(p: list[int]) -> int:
    n = len(p)
    return sum(
        p[i] == p[k] or abs(p[i] - p[k]) == k - i for i in range(n) for k in range(i + 1, n)
    )


@given(st.lists(st.integers(0, 11), min_size=1, max_size=12).filter(lambda p: max(p) < len(p)))
def test_conflicts_equals_pairwise_count(p: list[int]) -> None:
    assert nqmip.conflicts(p) == brute_conflicts(p)


def test_is_solution_checks_fixed_queens() -> None:
    p = (1, 3, 0, 2)
    assert nqmip.is_solution(p)
    assert nqmip.is_solution(p, {0: 1})
    assert not nqmip.is_solution(p, {0: 2})
    assert not nqmip.is_solution((0, 1, 2, 3))
    assert not nqmip.is_solution((0, 7, 1, 2))


@given(st.one_of(st.lists(st.integers(-2, 8), max_size=8),
                st.integers(0, 8).flatmap(lambda n: st.permutations(range(n)))),
       st.dictionaries(st.integers(-1, 8), st.integers(-1, 8), max_size=2))
def test_a_short_list_of_ints_is_judged_as_its_array(p: list[int],
                                                     fixed: dict[int, int]) -> None:
    """A list or tuple of Python ints is checked with sets (nqmip.verify.SMALL), an array
    through numpy: the same answers, off-board columns and fixed queens included."""
    expected = nqmip.is_solution(np.array(p, dtype=np.int64), fixed)
    assert nqmip.is_solution(p, fixed) == nqmip.is_solution(tuple(p), fixed) == expected
    on_board = all(0 <= col < len(p) for col in p)
    keeps = all(0 <= row < len(p) and p[row] == col for row, col in fixed.items())
    assert expected == (on_board and brute_conflicts(p) == 0 and keeps)


def test_every_permutation_up_to_7_is_judged_as_its_array() -> None:
    for n in range(8):
        for p in itertools.permutations(range(n)):
            assert nqmip.is_solution(p) == nqmip.is_solution(np.array(p)), p


def test_a_short_list_of_other_things_is_not_a_solution() -> None:
    assert nqmip.is_solution([1, 3, 0, 2]) and nqmip.is_solution([])
    for odd in ([1.0, 3.0, 0.0, 2.0], [True, False], ["1", "3", "0", "2"], [[1], [3]],
                [1, 3, 0, 2.0], [True, 3, 5, 0, 2, 4], (np.bool_(True), 3, 5, 0, 2, 4)):
        assert not nqmip.is_solution(odd), odd
    assert nqmip.is_solution([np.int64(c) for c in (1, 3, 0, 2)])  # numpy's path
    assert nqmip.is_solution(list(range(1, 130, 2)) + list(range(0, 130, 2)))  # past SMALL


def test_check_placement_rejects_wrong_objective() -> None:
    w = nqmip.chess_weights(4)
    assert check_placement((1, 3, 0, 2), 4, w, None, 6.0, source="t") == 6.0
    with pytest.raises(VerificationError, match="worth"):
        check_placement((1, 3, 0, 2), 4, w, None, 5.0, source="t")
    with pytest.raises(VerificationError, match="attacking"):
        check_placement((0, 1, 2, 3), 4, w, None, None, source="t")
    with pytest.raises(VerificationError, match="fixed"):
        check_placement((1, 3, 0, 2), 4, w, {0: 2}, None, source="t")
    with pytest.raises(VerificationError, match="queens"):
        check_placement((1, 3, 0), 4, w, None, None, source="t")


def test_result_gap_and_json() -> None:
    r = nqmip.solve(4, "chess")
    assert r.gap == 0.0
    d = r.to_dict()
    assert d["status"] == "optimal" and d["placement"] == list(r.placement)
    assert nqmip.Result(**{**{k: getattr(r, k) for k in r.__dataclass_fields__},
                           "bound": 10.0}).gap == pytest.approx(4 / 6)


def test_a_large_placement_is_checked_once_on_its_way_out(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """A placement of 10^6 queens leaves a heuristic, the call and the costs' view: its
    board is checked for attacks once (3 or 4 times before: 1 s each at 10^8 queens), the
    objective on each view again, a wrong claim still refused."""
    from nqmip import verify
    from nqmip.construct import explicit_solution
    from nqmip.heuristics.common import heuristic_result
    from nqmip.instance import make_instance
    from nqmip.result import ARRAY_PLACEMENT_FROM, Termination

    checks: list[int] = []
    real = verify.conflicts
    monkeypatch.setattr(verify, "conflicts", lambda cols: checks.append(1) or real(cols))
    n = ARRAY_PLACEMENT_FROM
    columns = explicit_solution(n)
    assert columns is not None
    gains = make_instance(n, "chess")
    result = heuristic_result(gains, "test", columns, wall_time=0.0, seed=0,
                              termination=Termination.TIME_LIMIT)
    result = verify.verified(gains, result)
    costs = make_instance(n, "chess", sense="min")
    verify.check_placement(result.placement, n, costs.colours, costs.fixed,
                           result.objective, source="costs")
    assert len(checks) == 1 and result.placement is not None
    with pytest.raises(VerificationError, match="fixed queens not kept"):
        row = 5
        verify.check_placement(result.placement, n, gains.colours,
                               ((row, (int(columns[row]) + 1) % n),), None, source="fixed")
    with pytest.raises(VerificationError, match="solver reports objective"):
        verify.verified(gains, result.with_(objective=result.objective + 100))
    assert len(checks) == 2  # other fixed queens: checked again
    writable = np.array(columns)  # not read-only: a caller may change it, checked each time
    verify.check_placement(writable, n, None, (), None, source="w")
    verify.check_placement(writable, n, None, (), None, source="w")
    assert len(checks) == 4


@pytest.mark.parametrize(("fixed", "line"), [
    (((0, 0), (1, 1)), "a diagonal"), (((0, 1), (1, 0)), "an anti-diagonal"),
    (((0, 0), (3, 0)), "a column")])
def test_two_fixed_queens_that_attack_are_refused_naming_their_line(
        fixed: tuple[tuple[int, int], ...], line: str) -> None:
    """The one-line refusal names the line the two queens share, in English."""
    with pytest.raises(nqmip.InstanceError, match=f"attack each other along {line}$"):
        nqmip.solve(6, fixed=list(fixed), method="highs")
