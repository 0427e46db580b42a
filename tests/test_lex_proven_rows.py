"""Every lex_first answer at a limit says how many leading rows it proved
(``extra["proven_rows"]``, documented for every limited answer), the watchdog's answer for a
search that had not returned included: it had none (first-fail and highs-pyomo at 1 ms on
n = 40). Generated from the lex methods of the method table, with and without a fixed
queen."""

from __future__ import annotations

import pytest

import nqmip
from nqmip.methods import LEX_METHODS
from nqmip.result import Status

N = 40


@pytest.mark.parametrize("fixed", [None, {0: 1}])
@pytest.mark.parametrize("limit", [0.001, 0.01])
@pytest.mark.parametrize("method", list(LEX_METHODS))
def test_a_limited_lex_first_answer_says_its_proven_rows(method: str, limit: float,
                                                         fixed: dict[int, int] | None) -> None:
    result = nqmip.lex_first(N, fixed=fixed, method=method, time_limit=limit)
    proven = result.extra.get("proven_rows")
    assert isinstance(proven, int) and 0 <= proven <= N, (result.status, result.message)
    if result.status is Status.OPTIMAL:
        assert proven == N
    if result.placement is None:
        assert proven == 0
