"""The solve command refuses an option its method does not take by the flag the user typed,
in one line with exit status 2, for every method of the table (the weighted methods and
--lex-first's): generated from the table, not listed by hand.

Before, ``--no-warm-start`` given to a method that takes no start was refused as
"does not take --warm-start" (a flag the user had not typed), and ``--lex-first --param
tenure=3`` was answered in the API's words ("unexpected parameters for lex_first method
'first-fail': tenure (it takes workers, scheduler, record)": those three are flags, not
``--param``'s)."""

from __future__ import annotations

import pytest

from nqmip.cli.options import FLAGS
from nqmip.cli.solve import solve_weighted_main
from nqmip.lex.solve import SEARCH_PARAMS
from nqmip.methods import LEX_METHODS, METHODS, Method

#: The value each flag is given (``None``: a switch).
VALUES = {"--seed": "1", "--threads": "2", "--warm-start": "sa", "--no-warm-start": None,
          "--no-strengthen": None, "--target": "5", "--verbose": None,
          "--work-limit": "10", "--workers": "2", "--scheduler": "tcp://127.0.0.1:9",
          "--record": "RECORD"}
#: The option of the method table each flag gives.
OPTION = {**{flag: name for name, flag in FLAGS.items()}, "--no-warm-start": "warm_start"}
#: The options --lex-first does not check against the table: its cubes' (cube-and-conquer)
#: and --verbose (the command's own output there).
CUBES = {"workers", "scheduler", "record", "verbose"}


def _refused(spec: Method, lex: bool) -> list[str]:
    return [flag for flag in VALUES if OPTION[flag] not in spec.honours
            and not (lex and OPTION[flag] in CUBES)]


CASES = [(name, False, flag) for name, spec in METHODS.items()
         for flag in _refused(spec, False)] + \
        [(name, True, flag) for name, spec in LEX_METHODS.items()
         for flag in _refused(spec, True)]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    status = solve_weighted_main(argv)
    return status, capsys.readouterr().err.splitlines()


@pytest.mark.parametrize(("method", "lex", "flag"), CASES)
def test_an_option_not_taken_is_refused_by_the_flag_typed(
        method: str, lex: bool, flag: str, tmp_path: object,
        capsys: pytest.CaptureFixture[str]) -> None:
    value = VALUES[flag]
    if value == "RECORD":
        value = str(tmp_path) + "/record.jsonl"
    argv = ["--n", "8", "--method", method, "--time-limit", "30", flag,
            *([] if value is None else [value]), *(["--lex-first"] if lex else [])]
    status, err = _run(argv, capsys)
    assert status == 2 and len(err) == 1, err
    assert "does not take " + flag in err[0], err[0]


@pytest.mark.parametrize("method", list(LEX_METHODS))
def test_a_param_lex_first_does_not_take_is_refused_in_the_commands_words(
        method: str, capsys: pytest.CaptureFixture[str]) -> None:
    own = SEARCH_PARAMS if method == "search" else ()
    status, err = _run(["--n", "8", "--lex-first", "--method", method, "--time-limit", "30",
                        "--param", "tenure=3"], capsys)
    assert status == 2 and len(err) == 1, err
    assert err[0].startswith("solve_weighted: error: --param tenure: ")
    assert ("its own: " + ", ".join(own)) in err[0] if own else "takes no --param" in err[0]
