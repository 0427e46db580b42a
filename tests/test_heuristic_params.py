"""A heuristic's own parameters are refused by name before its run, at every door (the
API, the solve command's --param, compare's --param), generated from each heuristic's
declared signature: an unknown name says which the method takes, a value of another type
says the type, and neither reaches Python's own "got an unexpected keyword argument"."""

from __future__ import annotations

from typing import Any

import pytest

import nqmip
from nqmip.cli.solve import solve_weighted_main
from nqmip.heuristics import HEURISTIC_METHODS
from nqmip.heuristics.common import Bound
from nqmip.heuristics.params import bounds_of, declared, own_parameters
from nqmip.methods import METHODS

#: a board each heuristic takes (topsquares: a weight matrix)
WEIGHTS: dict[str, Any] = {"topsquares": "random", "minconflicts": None}


def scalar_parameters() -> list[tuple[str, str, str]]:
    """(method, parameter, its declared type) for each heuristic's own whole-number or
    number parameter (the GA's configuration has its own checks: its names only)."""
    cases = []
    for method in HEURISTIC_METHODS:
        for name in sorted(own_parameters(method) or ()):
            text = str(declared(method, name))
            if "str" not in text and ("int" in text or "float" in text):
                cases.append((method, name, text))
    return cases


@pytest.mark.parametrize("method", [*HEURISTIC_METHODS, "auto", "highs"])
def test_an_unknown_parameter_is_refused_by_name_before_the_run(method: str) -> None:
    with pytest.raises((TypeError, ValueError)) as refused:
        # a limit that no kernel load fits in: a refusal after the start would come too
        # late, the fallback answering first
        nqmip.solve(8, WEIGHTS.get(method, "chess"), method=method, time_limit=1e-3,
                    iterations_of_nothing=3)
    message = str(refused.value)
    assert "iterations_of_nothing" in message and "keyword argument" not in message
    own = own_parameters(method) if METHODS[method].kind == "heuristic" else None
    if own:
        assert all(name in message for name in own), message


@pytest.mark.parametrize(("method", "name", "kind"), scalar_parameters(),
                         ids=lambda value: str(value).replace(" ", ""))
def test_a_value_of_another_type_is_refused_by_name(method: str, name: str,
                                                     kind: str) -> None:
    with pytest.raises(ValueError, match=f"{method}'s {name} takes"):
        nqmip.solve(8, WEIGHTS.get(method, "chess"), method=method, time_limit=1e-3,
                    **{name: "abc"})
    with pytest.raises(ValueError, match=f"{name} must be"):
        nqmip.solve(8, WEIGHTS.get(method, "chess"), method=method, time_limit=1e-3,
                    **{name: -3})


def outside(bound: Bound) -> list[float]:
    """Values just outside a declared range (each open end itself)."""
    low = bound.low if bound.low_open else (bound.low - 1 if bound.whole else
                                            bound.low - 1e-9)
    values = [low]
    if bound.high is not None:
        values.append(bound.high if bound.high_open else (bound.high + 1 if bound.whole
                                                           else bound.high * 1.5 + 1e-9))
    return [int(v) if bound.whole else float(v) for v in values]


def bounded() -> list[tuple[str, str, Bound]]:
    """(method, parameter, its declared range) for every heuristic's BOUNDS entry."""
    return [(method, name, bound) for method in HEURISTIC_METHODS
            for name, bound in sorted(bounds_of(method).items())]


@pytest.mark.parametrize(("method", "name", "bound"), bounded(),
                         ids=lambda value: str(value) if isinstance(value, str) else "")
def test_a_value_outside_its_declared_range_is_refused_before_the_run(
        method: str, name: str, bound: Bound) -> None:
    """At every door before any kernel loads (compare: before the sweep); before, the
    sweep ran and failed at every cell, and the API raised only at the run's start."""
    from nqmip.compare.checks import check_params
    from nqmip.compare.grid import UsageError

    for value in outside(bound):
        with pytest.raises(ValueError, match=f"{name} must be"):
            nqmip.solve(8, WEIGHTS.get(method, "chess"), method=method, time_limit=1e-3,
                        **{name: value})
        with pytest.raises(UsageError, match=f"--param {name}="):
            check_params([(None, name, value)], [method])
    inside = bound.low + (1 if bound.low_open or bound.whole else 0) if bound.high is None \
        else (bound.low + bound.high) / 2
    check_params([(None, name, int(inside) if bound.whole else float(inside))], [method])


@pytest.mark.parametrize("method", [*HEURISTIC_METHODS, "auto", "highs"])
def test_the_solve_commands_param_is_refused_in_one_line_naming_it(
        method: str, capsys: pytest.CaptureFixture[str]) -> None:
    board = ["--random-weights", "1"] if method == "topsquares" else []
    code = solve_weighted_main(["--n", "8", "--method", method, *board, "--param",
                                "iterations_of_nothing=3"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("solve_weighted: error: --param iterations_of_nothing"), err
    assert f"{method} has no parameter" in err or "unknown GA parameter" in err, err


def test_numpy_scalars_are_taken_as_python_numbers_are() -> None:
    """The API takes numpy's scalars wherever it takes Python numbers (a whole number as
    np.int64, a number as np.float32), and refuses a fraction where a whole one belongs."""
    import numpy as np

    result = nqmip.solve(12, "chess", method="tabu", time_limit=2, samples=np.int32(8),
                         max_iterations=np.int64(50_000))
    assert result.placement is not None
    nqmip.solve(12, "chess", method="sa", time_limit=0.5, cooling=np.float32(0.9))
    with pytest.raises(ValueError, match="max_iterations takes a whole number"):
        nqmip.solve(12, "chess", method="sa", time_limit=0.5, max_iterations=np.float64(5.5))
