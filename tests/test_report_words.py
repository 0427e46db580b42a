"""What a reader sees of a result: no "-0.0" (weights of -0.0 summed to a negative zero,
printed and written as "-0.0") and a word for every source of a bound (a run stopped
before it returned said "lower bound 65 from reported")."""

from __future__ import annotations

import math
import re

import pytest

import nqmip
from nqmip.cli.report import BOUND_WORDS
from nqmip.methods import METHODS, check_instance_weights
from nqmip.result import Provenance


def _zeros(sense: str) -> nqmip.Instance:
    return nqmip.make_instance(6, "chess", black=-0.0, white=-0.0, sense=sense)


def _takes(name: str, sense: str) -> bool:
    try:
        check_instance_weights(METHODS[name], _zeros(sense))
    except ValueError:  # quota: one value on every square
        return False
    return True


CASES = [pytest.param(name, sense, marks=[pytest.mark.solver(name)]
                      if METHODS[name].kind == "exact" and name != "auto" else [],
                      id=f"{name}-{sense}")
         for name in METHODS for sense in ("max", "min") if _takes(name, sense)]


@pytest.mark.parametrize(("method", "sense"), CASES)
def test_weights_of_negative_zero_give_a_plain_zero(method: str, sense: str) -> None:
    r = nqmip.solve(_zeros(sense), method=method, time_limit=20)
    assert r.objective == 0 and math.copysign(1.0, r.objective) == 1.0, r.objective
    assert r.bound is None or math.copysign(1.0, r.bound) == 1.0, r.bound
    assert "-0.0" not in r.to_json()


def test_every_source_of_a_bound_has_its_words() -> None:
    text = Provenance.__doc__ or ""
    listed = text[text.index("``bound_source``"):text.index("``refuted_black_counts``")]
    sources = set(re.findall(r'``"([a-z_]+)"``', listed))
    assert {"solver", "reported", "row_column_maxima"} <= sources, sources
    assert sources <= set(BOUND_WORDS), sources - set(BOUND_WORDS)
