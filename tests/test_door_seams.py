"""The doors agree: the solve command, ``nqmip-compare`` and the API read a time limit,
a target and a weights matrix the same way, and where one door must refuse what another
takes, it says why in one line (exit 2)."""

from __future__ import annotations

import contextlib
import io
import math
import warnings
from collections.abc import Callable, Sequence

import pytest

import nqmip
from nqmip.cli.solve import solve_weighted_main
from nqmip.compare import main as compare_main
from nqmip.option_types import TIME_LIMIT_MAX

#: Spellings of a time limit (the solve command's floor of 0.5 s aside, which counts the
#: interpreter's start, not a solver's run).
SPELLINGS = ["0", "-1", "-0", "nan", "inf", "-inf", "1e30", "2e9", "1e9", "5s", "", "5",
             "1_0", " 5 ", "+5"]


def _said(main: Callable[[Sequence[str]], int], argv: list[str]) -> tuple[object, str]:
    """``main(argv)``'s exit status and its stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code: object = main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, err.getvalue()


def _parse(main: Callable[[Sequence[str]], int], argv: list[str]) -> tuple[bool, str]:
    """Whether ``main`` takes ``argv``'s first option, ``--time-limit`` (the unknown
    method after it stops the command before any run); its stderr."""
    code, said = _said(main, argv)
    return code != 2 or "--time-limit" not in said, said


def _solve_takes(text: str) -> tuple[bool, str]:
    return _parse(solve_weighted_main, [f"--time-limit={text}", "--n", "4", "--method",
                                        "no-such-method"])


def _compare_takes(text: str) -> tuple[bool, str]:
    return _parse(compare_main, [f"--time-limit={text}", "--n", "4", "--methods",
                                 "no-such-method"])


@pytest.mark.parametrize("text", SPELLINGS)
def test_the_commands_take_the_same_time_limits(text: str) -> None:
    """What the solve command takes the compare takes, but a limit beyond
    TIME_LIMIT_MAX (no limit to the solve command): each of the compare's runs needs a
    finite one, and its one-line refusal says so."""
    solve_ok, _ = _solve_takes(text)
    compare_ok, said = _compare_takes(text)
    unlimited = solve_ok and float(text) > TIME_LIMIT_MAX
    assert compare_ok == (solve_ok and not unlimited), (text, said)
    if not compare_ok:
        assert said.count("\n") == 1 and "--time-limit" in said, said
        assert "finite" in said, said  # why the compare refuses what the solve command takes


@pytest.mark.parametrize("text", SPELLINGS)
def test_the_api_takes_the_time_limits_the_solve_command_takes(text: str) -> None:
    """nqmip.solve's time_limit as a number takes what the command takes as text (and
    math.inf, which a program means: no limit, like a limit beyond TIME_LIMIT_MAX)."""
    solve_ok, _ = _solve_takes(text)
    try:
        value: object = float(text)
    except ValueError:
        value = text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            nqmip.solve(4, method="sa", time_limit=value, work_limit=100)
            api_ok = True
        except (TypeError, ValueError):
            api_ok = False
    if isinstance(value, float) and value == math.inf:
        assert api_ok and not solve_ok  # the command's "inf": a slip more than a wish
    elif text.strip() in ("1_0",):  # Python's float("1_0"): the doors read text stricter
        assert not solve_ok
    else:
        assert api_ok == solve_ok, (text, api_ok, solve_ok)


#: Boards as each door spells them: (solve command's options, nqmip-compare's, the API's
#: keywords), the bound of the first two (chess, chess minimised) is n / 2 black squares'
#: worth and the rest white; random weights are drawn with seed 0 at every door.
BOARDS = {
    "chess": ([], [], {"weights": "chess"}),
    "chess minimised": (["--minimize"], ["--minimize"], {"weights": "chess", "sense": "min"}),
    "random": (["--random-weights", "0"], ["--weights", "random", "--seeds", "0"],
               {"weights": "random", "weights_seed": 0}),
}


@pytest.mark.parametrize("method", ["sa", "tabu", "minconflicts"])
@pytest.mark.parametrize("board", list(BOARDS))
def test_a_target_no_placement_reaches_is_refused_alike_at_every_door(
        board: str, method: str) -> None:
    """A target beyond the weights' bound: nqmip.solve, the solve command and
    nqmip-compare refuse it with one line, the same words (the compare ran without it,
    and measured it as never reached)."""
    from nqmip.heuristics.common import weight_bound
    from nqmip.instance import make_instance

    solve_args, compare_args, api = BOARDS[board]
    kind = api["weights"]
    seed = api.get("weights_seed")
    instance = make_instance(6, kind, (), weights_seed=seed, sense=api.get("sense", "max"))
    bound = weight_bound(instance)
    target = bound - 1 if api.get("sense") == "min" else bound + 1
    with pytest.raises(ValueError) as refused:
        nqmip.solve(6, method=method, target=target, time_limit=5, **api)
    words = str(refused.value)
    assert f"{bound:g}" in words
    code, said = _said(solve_weighted_main, ["--n", "6", "--method", method, "--target",
                                             f"{target:g}", *solve_args])
    assert (code, said) == (2, f"solve_weighted: error: {words}\n")
    code, said = _said(compare_main, ["--n", "6", "--methods", method, "--target",
                                      f"{target:g}", "--time-limit", "5", "--no-progress",
                                      *compare_args])
    assert (code, said) == (2, f"nqmip-compare: error: {words}\n")


def test_the_compare_refuses_a_target_beyond_the_tightest_board_of_its_grid() -> None:
    """Over a grid, the refusal names the board whose bound the target passes furthest:
    its 'at most' holds for the whole grid."""
    code, said = _said(compare_main, ["--n", "6:8", "--methods", "sa", "--weights",
                                      "random", "--repeats", "3", "--target", "49",
                                      "--time-limit", "5", "--no-progress"])
    assert code == 2 and said.count("\n") == 1, said
    assert said.endswith("give a target of at most 48 (n = 6, seed 1)\n"), said


def _matrix(n: int = 6):
    import numpy as np

    return np.random.default_rng(5).integers(1, 10, size=(n, n)).astype(float)


def test_the_api_takes_n_from_a_square_matrix_as_the_solve_command_takes_it_from_a_file(
        tmp_path) -> None:
    """The solve command reads n from a weights file; nqmip.solve(None, matrix) reads it
    from the array, with the same answer."""
    import json

    import numpy as np

    matrix = _matrix()
    path = tmp_path / "w.csv"
    np.savetxt(path, matrix, delimiter=",", fmt="%g")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert solve_weighted_main(["--weights", str(path), "--method", "highs",
                                    "--json"]) == 0
    said = json.loads(out.getvalue())
    result = nqmip.solve(None, matrix, method="highs")
    assert (result.n, result.objective, result.placement) == (
        6, said["objective"], tuple(said["placement"]))


def _doors() -> dict[str, Callable[..., object]]:
    from nqmip.enumeration.optimal import enumerate_optimal

    return {
        "make_instance": lambda n, w: nqmip.make_instance(n, w).n,
        "solve highs": lambda n, w: nqmip.solve(n, w, method="highs").n,
        "solve cpsat": lambda n, w: nqmip.solve(n, w, method="cpsat").n,
        "solve sa": lambda n, w: nqmip.solve(n, w, method="sa", work_limit=1000).n,
        "build_model matrix": lambda n, w: nqmip.build_model(n, w, backend="matrix").n,
        "build_model cpsat": lambda n, w: (nqmip.build_model(n, w, backend="cpsat"), 6)[1],
        "enumerate_optimal": lambda n, w: len(enumerate_optimal(n, w)[1][0]),
    }


@pytest.mark.parametrize("door", list(_doors()))
def test_every_api_door_takes_n_from_the_matrix_and_refuses_a_mismatch(door: str) -> None:
    """n=None: the side of a square array (or a generator's rows); an n the shape
    disagrees with, a matrix that is not square: one ValueError naming what to give; no
    matrix at all: the range of n, as with any n refused."""
    call = _doors()[door]
    matrix = _matrix()
    assert call(None, matrix) == 6
    assert call(None, [list(row) for row in matrix]) == 6
    with pytest.raises(ValueError, match=r"shape \(7, 7\) for n = 7, got \(6, 6\): give n=6"):
        call(7, matrix)
    for bad, words in ((matrix[:, :5], r"square weights array, got \(6, 5\)"),
                       ("chess", "n must be a whole number of at least 1"),
                       ("random", "n must be a whole number of at least 1"),
                       (None, "n must be a whole number of at least 1")):
        with pytest.raises(ValueError, match=words):
            call(None, bad)
