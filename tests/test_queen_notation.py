"""A queen written one way is read alike at every door: the API's ``fixed=[...]`` strings,
``--fix`` of the solve, count and compare commands, and a line of a ``--fixed`` file at
each of them (one reader, :func:`nqmip.instance.parse_queen`).

Found by a sweep of notations x doors: a ``--fixed`` file took ``0 1``, ``0;1``, ``0<TAB>1``
and ``0,1,`` (a line as a spreadsheet or a hand writes it), and ``--fix`` and
``nqmip.solve(fixed=[...])`` refused the same text; a spreadsheet's quoted cells
(``"0","1"``) and header row (``row,col``) were refused in a ``--fixed`` file, which a
weights file takes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import nqmip
from nqmip.cli.count import count_main
from nqmip.cli.solve import solve_weighted_main
from tests.test_cli_bad_input import _plan_only

#: Each notation and the queen it means (None: refused at every door).
NOTATIONS: dict[str, tuple[int, int] | None] = {
    "0,1": (0, 1), "b1": (0, 1), "B1": (0, 1), " 0 , 1 ": (0, 1), "0 1": (0, 1),
    "0;1": (0, 1), "0\t1": (0, 1), "0,1,": (0, 1), "0;1;": (0, 1), "b1,": (0, 1),
    "2 ,3": (2, 3), "c4": (3, 2), '"0","1"': (0, 1), '"0,1"': (0, 1), '"b1"': (0, 1),
    "0": None, "0,1,2": None, "(0,1)": None, "0.0,1": None, "-1,0": None, "a0": None,
    "0,x": None, "\u0660,\u0661": None, "0_0,1": None,
}
FAST = ("0,1", "b1", "0 1", "0;1", "0,1,", '"0","1"', "0", "a0", "(0,1)")

CommandDoor = Callable[[list[str]], int]
COMMANDS: dict[str, tuple[CommandDoor, list[str]]] = {
    "solve": (solve_weighted_main, ["--method", "highs", "--quiet"]),
    "count": (count_main, []),
    "compare": (_plan_only, ["--methods", "highs"]),
}


def _api(text: str) -> Any:
    return nqmip.make_instance(6, None, [text]).fixed


def cases(fast: bool) -> list[Any]:
    doors = ["api", *(f"{d} --fix" for d in COMMANDS), *(f"{d} --fixed" for d in COMMANDS)]
    return [pytest.param(text, door, id=f"{door}-{text!r}") for text in NOTATIONS
            for door in doors if (text in FAST and door in ("api", "solve --fix",
                                                             "count --fixed")) == fast]


def _check(tmp_path: Path, text: str, door: str, capsys: pytest.CaptureFixture[str]) -> None:
    queen = NOTATIONS[text]
    if door == "api":
        if queen is None:
            with pytest.raises(ValueError, match="fixed queen"):
                _api(text)
        else:
            assert _api(text) == (queen,)
        return
    name, how = door.split()
    main, extra = COMMANDS[name]
    if how == "--fix":
        argv = ["--n", "6", f"--fix={text}"]  # as a shell passes "-1,0" after --fix
    else:
        path = tmp_path / "queens.txt"
        path.write_text(text + "\n", encoding="utf-8")
        argv = ["--n", "6", "--fixed", str(path)]
    status = main([*argv, *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    if queen is None:
        assert status == 2 and out == "" and err.count("\n") == 1, (status, err)
        assert "fixed queen" in err, err
    else:
        assert status == 0, (status, err)
        if name == "count":  # the completions of that one queen, as the API counts them
            assert out.strip() == str(nqmip.count_solutions(6, fixed=[queen])), out


@pytest.mark.parametrize(("text", "door"), cases(True))
def test_a_queen_is_read_alike_at_every_door(
        tmp_path: Path, text: str, door: str, capsys: pytest.CaptureFixture[str]) -> None:
    _check(tmp_path, text, door, capsys)


@pytest.mark.parametrize(("text", "door"), cases(False))
def test_every_notation_is_read_alike_at_every_door(
        tmp_path: Path, text: str, door: str, capsys: pytest.CaptureFixture[str]) -> None:
    _check(tmp_path, text, door, capsys)


#: --fixed files with a header row: (content, the queens' completions counted, or None:
#: refused in one line).
HEADERS: dict[str, tuple[str, int | None]] = {
    "row,col": ("row,col\n0,1\n", 1),
    "quoted header": ('"row";"col"\r\n"0";"1"\r\n', 1),
    "header alone": ("row,col\n", 4),
    "header after a comment": ("# queens\nrow col\n0 1\n", 1),
    "header on line 2": ("0,1\nrow,col\n", None),
    "one word": ("queens\n0,1\n", None),
}


@pytest.mark.parametrize("door", list(COMMANDS))
@pytest.mark.parametrize("kind", list(HEADERS))
def test_a_fixed_files_header_row_is_read_alike_at_every_door(
        tmp_path: Path, kind: str, door: str, capsys: pytest.CaptureFixture[str]) -> None:
    text, count = HEADERS[kind]
    path = tmp_path / "queens.csv"
    path.write_bytes(text.encode())
    main, extra = COMMANDS[door]
    status = main(["--n", "6", "--fixed", str(path), *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    if count is None:
        assert status == 2 and err.count("\n") == 1 and "fixed queen" in err, err
    else:
        assert status == 0, err
        if door == "count":
            assert out.strip() == str(count), out
