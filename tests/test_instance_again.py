"""An Instance given with any of its parts again is refused by name at every door that
takes one (make_instance, build_model, solve, count_solutions): make_instance dropped them
unsaid (``make_instance(make_instance(8), "chess")`` was the feasibility instance; with
``fixed={0: 0}`` the fixed queen was lost)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import nqmip

INSTANCE = nqmip.make_instance(8)
COSTS = nqmip.make_instance(8, "random", weights_seed=1, sense="min")
DOORS: dict[str, Callable[..., Any]] = {
    "make_instance": nqmip.make_instance,
    "build_model": nqmip.build_model,
    "solve": lambda inst, **kw: nqmip.solve(inst, method="sa", time_limit=5, **kw),
    "count_solutions": lambda inst, **kw: nqmip.count_solutions(inst, **kw),
}
AGAIN: list[tuple[Any, dict[str, Any]]] = [
    (INSTANCE, {"weights": "chess"}), (INSTANCE, {"fixed": {0: 0}}),
    (INSTANCE, {"weights_seed": 3}), (COSTS, {"sense": "max"})]


@pytest.mark.parametrize(("door", "instance", "again"), [
    pytest.param(door, instance, again, id=f"{door}-{next(iter(again))}")
    for door in DOORS for instance, again in AGAIN
    if door != "count_solutions" or set(again) == {"fixed"}])  # the count's one part
def test_a_part_given_again_is_refused_by_name(door: str, instance: Any,
                                               again: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(again))):
        DOORS[door](instance, **again)


def test_the_instance_alone_and_its_own_sense_are_taken() -> None:
    assert nqmip.make_instance(INSTANCE) is INSTANCE
    assert nqmip.make_instance(COSTS, sense="MIN") is COSTS
    assert nqmip.build_model(COSTS, backend="cpsat") is not None  # its sense, not 'max'
