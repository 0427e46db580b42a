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


def _takes(name: str, sense: str, instance: nqmip.Instance | None = None) -> bool:
    try:
        check_instance_weights(METHODS[name], instance or _zeros(sense))
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



def _unsettled(sense: str) -> nqmip.Instance:
    """A board no method settles in a second and a half: random weights at n = 40 (within
    Gurobi's pip licence)."""
    return nqmip.make_instance(40, "random", weights_seed=1, sense=sense)


UNSETTLED = [pytest.param(name, sense, marks=[pytest.mark.solver(name)]
                          if METHODS[name].kind == "exact" and name != "auto" else [],
                          id=f"{name}-{sense}")
             for name in METHODS for sense in ("max", "min")
             if _takes(name, sense, _unsettled(sense))]


@pytest.mark.parametrize(("method", "sense"), UNSETTLED)
def test_the_quiet_line_says_why_a_run_stopped_unsettled(method: str, sense: str) -> None:
    """--quiet's line said "feasible ... time=1.02s" whether the run was stopped by its
    limit, its budget or Ctrl-C: only the exit status told them apart."""
    from nqmip.cli.report import summary_line

    r = nqmip.solve(_unsettled(sense), method=method, time_limit=1.5)
    line = summary_line(r)
    if r.status in ("optimal", "infeasible"):
        assert "stopped=" not in line, line
    else:
        assert line.split()[-1] == f"stopped={r.termination}", line
