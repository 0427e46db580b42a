"""Odd values at every API door that takes them, generated over doors x values: each is
answered or refused by a TypeError/ValueError naming the parameter, in one line, never
Python's or numpy's own words, never taken as something else.

Classes found by a sweep of the API's parameters x odd values (bools, strings, NaN,
complex, containers, masked arrays, non-callables):

- ``black``/``white``: :func:`nqmip.chess_weights` took ``True`` as 1.0, ``'8'`` and
  ``b'8'`` as 8.0 and NaN as a weight, and met ``float()``'s own message for a complex,
  a list or None; ``solve``/``build_model``/``make_instance`` refused them (one rule
  now, :func:`nqmip.weights.colour_value`);
- ``strengthen`` of :func:`nqmip.build_model`: ``'no'``, ``'False'``, ``1``, ``[]`` were
  taken as booleans (``solve`` refused them);
- masked weights: numpy reads a masked array as its data, the masked cells' values
  included (the mask silently dropped);
- ``on_progress`` not callable: ``solve`` ran, and the first report met "'int' object is
  not callable", naming no parameter;
- ``random_weights(rows=...)`` took ``True``, ``'2'``, ``2.5``, ``0`` and ``-1`` (as 1 or 2
  rows); ``nqmip.Deadline('x')`` met math's 'must be real number, not str' and took
  ``True`` as one second; ``is_solution``/``conflicts`` of None met "'NoneType' object is
  not iterable" and read a string digit by digit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import nqmip

BAD_COLOURS = {
    "True": True, "np.bool_": np.bool_(False), "'8'": "8", "b'8'": b"8", "nan": math.nan,
    "inf": math.inf, "-inf": -math.inf, "complex": 1j, "np.complex64": np.complex64(1),
    "list": [8], "array": np.array([8.0]), "None": None,
}
COLOUR_DOORS = {
    "chess_weights": lambda label, value: nqmip.chess_weights(6, **{label: value}),
    "make_instance": lambda label, value: nqmip.make_instance(6, "chess", **{label: value}),
    "build_model": lambda label, value: nqmip.build_model(6, "chess", backend="matrix",
                                                          **{label: value}),
    "solve": lambda label, value: nqmip.solve(6, "chess", method="highs", **{label: value}),
}
FAST_COLOURS = ("True", "'8'", "nan", "complex", "list")


def refused(call: Any, name: str) -> str:
    """The message of the TypeError/ValueError ``call`` raises: one line naming ``name``,
    not Python's own words."""
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    message = str(info.value)
    assert name in message and "\n" not in message, message
    for words in ("float() argument", "could not convert", "object is not callable",
                  "only 0-dimensional", "only length-1"):
        assert words not in message, message
    return message


def colour_cases(fast: bool) -> list[Any]:
    return [pytest.param(door, label, key, id=f"{door}-{label}-{key}")
            for door in COLOUR_DOORS for label in ("black", "white") for key in BAD_COLOURS
            if (key in FAST_COLOURS and label == "black") == fast]


@pytest.mark.parametrize(("door", "label", "key"), colour_cases(True))
def test_a_bad_colour_value_is_refused_by_name(door: str, label: str, key: str) -> None:
    value = BAD_COLOURS[key]
    if door == "solve" and value is None:
        pytest.skip("solve's black=None is its default")
    if door in ("make_instance", "build_model") and value is None:
        pytest.skip("black=None is the default")
    refused(lambda: COLOUR_DOORS[door](label, value), label)


@pytest.mark.parametrize(("door", "label", "key"), colour_cases(False))
def test_every_bad_colour_value_is_refused_by_name(door: str, label: str, key: str) -> None:
    test_a_bad_colour_value_is_refused_by_name(door, label, key)


@pytest.mark.parametrize("value", [3, 0.5, np.float32(3), np.int64(-1)])
def test_a_good_colour_value_is_taken_at_every_door(value: Any) -> None:
    matrix = nqmip.chess_weights(4, black=value)
    assert matrix[0, 0] == float(value) and matrix[0, 1] == 1.0
    model = nqmip.build_model(4, "chess", backend="matrix", black=value)
    assert float(model.cost[0]) == float(value)


NOT_BOOLEANS = {"'no'": "no", "'False'": "False", "1": 1, "0": 0, "1.0": 1.0, "[]": [],
                "np.array(True)": np.array(True)}
BOOL_DOORS = {
    "build_model": lambda value: nqmip.build_model(6, "chess", backend="matrix",
                                                   strengthen=value),
    "solve": lambda value: nqmip.solve(6, "chess", method="highs", strengthen=value),
}


@pytest.mark.parametrize("door", list(BOOL_DOORS))
@pytest.mark.parametrize("key", list(NOT_BOOLEANS))
def test_strengthen_takes_only_a_boolean_at_every_door(door: str, key: str) -> None:
    refused(lambda: BOOL_DOORS[door](NOT_BOOLEANS[key]), "strengthen")


@pytest.mark.parametrize("value", [True, False, np.bool_(True), None])
def test_build_model_takes_a_boolean_strengthen(value: Any) -> None:
    model = nqmip.build_model(5, "chess", backend="matrix", strengthen=value)
    plain = nqmip.build_model(5, "chess", backend="matrix")
    assert (len(model.row_lower) > len(plain.row_lower)) == bool(value)


MASKED_DOORS = {
    "solve": lambda w: nqmip.solve(6, w, method="highs"),
    "solve(n=None)": lambda w: nqmip.solve(None, w, method="highs"),
    "make_instance": lambda w: nqmip.make_instance(6, w),
    "build_model": lambda w: nqmip.build_model(6, w, backend="matrix"),
}


@pytest.mark.parametrize("door", list(MASKED_DOORS))
def test_masked_weights_are_refused_or_read_whole(door: str) -> None:
    data = np.arange(36.0).reshape(6, 6)
    masked = np.ma.masked_array(data, mask=np.eye(6, dtype=bool))
    message = refused(lambda: MASKED_DOORS[door](masked), "weights")
    assert "masked" in message
    whole = np.ma.masked_array(data)  # nothing masked: its numbers are the weights
    if door == "solve":
        assert MASKED_DOORS[door](whole).objective == nqmip.solve(6, data, method="highs").objective


@pytest.mark.parametrize("value", [5, "print", [print]], ids=["int", "str", "list"])
def test_on_progress_must_be_callable(value: Any) -> None:
    refused(lambda: nqmip.solve(6, "chess", method="sa", time_limit=5, on_progress=value),
            "on_progress")


@pytest.mark.parametrize("value", [True, "2", 2.5, 0, -1, None], ids=repr)
def test_random_weights_rows_is_a_whole_number_of_at_least_one(value: Any) -> None:
    if value is None:
        assert nqmip.random_weights(6, 1, rows=value).shape == (6, 6)
        return
    refused(lambda: nqmip.random_weights(6, 1, rows=value), "rows")


@pytest.mark.parametrize("value", ["x", True, [5], 1j])
def test_a_deadline_takes_only_seconds(value: Any) -> None:
    refused(lambda: nqmip.Deadline(value), "time limit")


@pytest.mark.parametrize("door", ["is_solution", "conflicts"])
@pytest.mark.parametrize("value", [None, "024135", 5], ids=repr)
def test_a_placement_that_is_no_sequence_is_refused(door: str, value: Any) -> None:
    refused(lambda: getattr(nqmip, door)(value), "placement")
    assert getattr(nqmip, door)((1, 3, 5, 0, 2, 4)) in (True, 0)


@pytest.mark.parametrize("deadline", [5, "x", 2.5])
def test_a_deadline_that_is_not_one_is_refused(deadline: object) -> None:
    """make_instance's ``deadline`` (the random draw's clock) took 5 unsaid."""
    with pytest.raises(TypeError, match=r"deadline must be an nqmip\.Deadline"):
        nqmip.make_instance(8, "random", deadline=deadline)  # type: ignore[arg-type]
