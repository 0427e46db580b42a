"""``record`` (the file a cluster run keeps its state in) checked by the one validator
(:func:`nqmip.option_types.check_value`, kind ``path``) at every API door that takes it:
``solve(method="bnb", workers=...)``, ``lex_first(workers=...)``, ``count_solutions``.

Found by the input sweep: a folder met Python's ``IsADirectoryError`` (a traceback) at
solve and lex_first; an int met ``os.fspath``'s own words ('expected str, bytes or
os.PathLike object, not int') at lex_first and count_solutions, naming no parameter.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import nqmip

DOORS: dict[str, Callable[[Any], Any]] = {
    "solve": lambda r: nqmip.solve(5, "chess", method="bnb", workers=1, record=r),
    "lex_first": lambda r: nqmip.lex_first(5, method="first-fail", workers=1, record=r),
    "count_solutions": lambda r: nqmip.count_solutions(5, workers=1, record=r),
}


def bad_records(tmp_path: Path) -> dict[str, Any]:
    return {"folder": str(tmp_path), "folder Path": tmp_path, "int": 5, "bytes": b"x.json",
            "empty": "", "list": ["x.json"]}


@pytest.mark.parametrize("door", list(DOORS))
@pytest.mark.parametrize("kind", ["folder", "folder Path", "int", "bytes", "empty", "list"])
def test_a_bad_record_is_refused_by_name(tmp_path: Path, door: str, kind: str) -> None:
    value = bad_records(tmp_path)[kind]
    with pytest.raises((TypeError, ValueError)) as info:
        DOORS[door](value)
    message = str(info.value)
    assert message.startswith("record must be a file's path"), message
    assert "\n" not in message and "Errno" not in message and "os.PathLike" not in message
