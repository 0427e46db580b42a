"""nqmip-compare's lists (--n, --methods, --seeds) read alike, and a --param given twice
refused at both commands that take --param, generated over options x spellings.

Found by the input sweep: ``--seeds 1,,2``, ``--seeds ,1`` and ``--seeds 1,`` were run as
the seeds they kept (``--n 4,,6`` and ``--methods sa,,ga`` were refused: 'empty item');
``nqmip-compare --param sa:t_start=1 --param sa:t_start=2`` ran with the last value, where
the solve command refuses a parameter given twice.
"""

from __future__ import annotations

import pytest

from nqmip.cli.solve import solve_weighted_main
from tests.test_cli_bad_input import _plan_only

#: Each list option with two good items, and the spellings of a list with an empty item.
LISTS = {"--n": ("4", "6"), "--methods": ("sa", "ga"), "--seeds": ("1", "2")}
EMPTY_ITEMS = {"middle": "{a},,{b}", "leading": ",{a}", "trailing": "{a},",
               "spaced": "{a}, ,{b}", "only commas": ",,"}
BASE = {"--n": "6", "--methods": "sa", "--time-limit": "1"}


def _argv(option: str, value: str) -> list[str]:
    argv = [f"{option}={value}"]
    for key, default in BASE.items():
        if key != option:
            argv += [key, default]
    return argv


@pytest.mark.parametrize("option", list(LISTS))
@pytest.mark.parametrize("spelling", list(EMPTY_ITEMS))
def test_an_empty_item_is_refused_in_every_list(
        option: str, spelling: str, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = LISTS[option]
    value = EMPTY_ITEMS[spelling].format(a=a, b=b)
    status = _plan_only(_argv(option, value))
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert option in err and ("empty item" in err or "at least one" in err), err


@pytest.mark.parametrize("option", list(LISTS))
def test_a_list_with_spaces_is_read(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = LISTS[option]
    assert _plan_only(_argv(option, f"{a}, {b}")) == 0, capsys.readouterr().err


PARAMS_TWICE = {
    "same value": ("t_start=1", "t_start=1"),
    "two values": ("t_start=1", "t_start=2"),
    "aimed twice": ("sa:t_start=1", "sa:t_start=2"),
}


@pytest.mark.parametrize("kind", list(PARAMS_TWICE))
@pytest.mark.parametrize("door", ["solve", "compare"])
def test_a_param_given_twice_is_refused_at_every_door(
        door: str, kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = PARAMS_TWICE[kind]
    if door == "solve":
        if ":" in first:
            pytest.skip("the solve command's --param names no method")
        status = solve_weighted_main(["--n", "6", "--method", "sa", "--quiet",
                                      "--param", first, "--param", second])
    else:
        status = _plan_only([*_argv("--methods", "sa"), "--param", first, "--param", second])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "twice" in err and "--param" in err, err


def test_a_param_for_all_and_one_for_a_method_are_both_taken(
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*_argv("--methods", "sa"), "--param", "t_start=1", "--param", "sa:t_start=2"]
    assert _plan_only(argv) == 0, capsys.readouterr().err
