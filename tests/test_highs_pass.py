"""The arrays handed to HiGHS piece by piece (nqmip.formulation.matrix.pass_to_highs) are
the model to_highs_lp describes, and a deadline that ends during the pass stops it.

The pass replaced ``passModel(to_highs_lp(lm))`` in the HiGHS backend and the LP bound:
that route holds the GIL for whole seconds on large boards (2.5 s of field copies and a
1.1 s ``passModel`` at n = 2,000), so a 5 s limit was answered at 6.2 to 7.5 s."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import nqmip
from nqmip.backends.base import SolveOptions
from nqmip.backends.highs import HighsBackend
from nqmip.bounds import lp_bound
from nqmip.budget import Deadline
from nqmip.formulation import matrix
from nqmip.formulation.matrix import build_linear_model, pass_to_highs, to_highs_lp
from nqmip.formulation.strengthen import linear_extras
from nqmip.result import Status, Termination

highspy = pytest.importorskip("highspy")

CASES: dict[str, Any] = {
    "chess-8": nqmip.make_instance(8, "chess"),
    "chess-9-fixed": nqmip.make_instance(9, "chess", fixed={0: 2, 4: 5}),
    "random-7": nqmip.make_instance(7, "random", weights_seed=3),
    "costs-6": nqmip.make_instance(6, "random", weights_seed=1, sense="min"),
    "feasibility-6": nqmip.make_instance(6),
    "fractional-5": nqmip.make_instance(5, np.arange(25).reshape(5, 5) / 3),
    "all-fixed-4": nqmip.make_instance(4, "chess", fixed={0: 1, 1: 3, 2: 0, 3: 2}),
    "no-cell-left-4": nqmip.make_instance(4, "chess", fixed={0: 0, 1: 2}),
}


def _dense(h: Any) -> tuple[np.ndarray, ...]:
    """The model HiGHS holds as dense arrays: costs, column bounds, row bounds, the
    matrix, integrality and offset."""
    lp = h.getLp()
    m = lp.a_matrix_
    a = np.zeros((lp.num_row_, lp.num_col_))
    start, index, value = list(m.start_), list(m.index_), list(m.value_)
    rowwise = m.format_ == highspy.MatrixFormat.kRowwise
    for major in range(lp.num_row_ if rowwise else lp.num_col_):
        for k in range(start[major], start[major + 1]):
            if rowwise:
                a[major, index[k]] = value[k]
            else:
                a[index[k], major] = value[k]
    integer = [int(t == highspy.HighsVarType.kInteger) for t in lp.integrality_]
    return (np.asarray(lp.col_cost_), np.asarray(lp.col_lower_), np.asarray(lp.col_upper_),
            np.asarray(lp.row_lower_), np.asarray(lp.row_upper_), a,
            np.asarray(integer or [0] * lp.num_col_), np.array([lp.offset_]),
            np.array([int(lp.sense_ == highspy.ObjSense.kMaximize)]))


def _highs() -> Any:
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


@pytest.mark.parametrize("pieces", [None, 7], ids=["one-piece", "pieces-of-7"])
@pytest.mark.parametrize("strengthen", [False, True], ids=["textbook", "strengthened"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_pass_is_the_model_to_highs_lp_describes(
        name: str, strengthen: bool, pieces: int | None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    instance = CASES[name]
    lm = build_linear_model(instance, **linear_extras(instance, strengthen))
    if pieces is not None:  # many calls of addRows: rows split across them stay whole
        monkeypatch.setattr(matrix, "HIGHS_PIECE_NONZEROS", pieces)
    expected, got = _highs(), _highs()
    expected.passModel(to_highs_lp(lm, highspy))
    assert pass_to_highs(got, lm, highspy) is True
    for want, have in zip(_dense(expected), _dense(got), strict=True):
        np.testing.assert_array_equal(have, want)
    expected.run()
    got.run()
    assert got.getModelStatus() == expected.getModelStatus()
    assert got.getInfo().objective_function_value == pytest.approx(
        expected.getInfo().objective_function_value)


def test_the_lp_pass_has_no_integer_column() -> None:
    instance = CASES["random-7"]
    h = _highs()
    assert pass_to_highs(h, build_linear_model(instance), highspy, integer=False)
    assert not any(t == highspy.HighsVarType.kInteger for t in h.getLp().integrality_)
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    assert h.getInfo().objective_function_value == pytest.approx(
        lp_bound(instance))


@pytest.mark.parametrize("after", [0, 2], ids=["before-any-row", "after-two-pieces"])
def test_a_deadline_that_ends_during_the_pass_stops_it(
        after: int, monkeypatch: pytest.MonkeyPatch) -> None:
    instance = CASES["chess-8"]
    lm = build_linear_model(instance)
    monkeypatch.setattr(matrix, "HIGHS_PIECE_NONZEROS", 8)
    deadline = Deadline()
    looks = []

    class Watching:
        def expired(self) -> bool:
            looks.append(1)
            if len(looks) > after:
                deadline.cancel()
            return deadline.expired()

        def cancelled(self) -> bool:
            return deadline.cancelled()

    h = _highs()
    assert pass_to_highs(h, lm, highspy, deadline=Watching()) is False
    assert h.getNumRow() < lm.num_rows  # it stopped handing rows over


@pytest.mark.parametrize(("reason", "termination"), [
    ("time_limit", Termination.TIME_LIMIT), ("target", Termination.TARGET),
    ("interrupted", Termination.INTERRUPTED)])
def test_the_backend_answers_the_stop_without_running_an_incomplete_model(
        reason: str, termination: Termination) -> None:
    """Stopped during the pass, HiGHS is not run: the answer says why it stopped (a
    target reached by the start is no time limit)."""
    deadline = Deadline()
    deadline.cancel(reason)
    raw = HighsBackend().solve(CASES["chess-8"], SolveOptions(deadline=deadline))
    assert raw.termination is termination
    assert raw.status is Status.UNKNOWN and raw.placement is None
    assert ("handed to HiGHS" in raw.message) == (termination is Termination.TIME_LIMIT)
