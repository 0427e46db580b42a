"""A record the API cannot write is refused before any work, at each door that takes one
(the command's --record was already): ``count_solutions(8, record="/nonexistent/d/r")``
raised FileNotFoundError after the count (2.25 s), and ``solve(..., workers=1,
record=...)`` its RecordUnwritten 2.9 s into the search."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import nqmip

DOORS: dict[str, Callable[[str], Any]] = {
    "count_solutions": lambda record: nqmip.count_solutions(11, workers=1, record=record),
    "solve": lambda record: nqmip.solve(24, "random", weights_seed=1, method="bnb",
                                        workers=1, record=record, time_limit=30),
}


@pytest.mark.parametrize("door", list(DOORS))
@pytest.mark.parametrize("where", ["missing folder", "a device"])
def test_an_unwritable_record_is_refused_before_any_work(door: str, where: str,
                                                         tmp_path: Path) -> None:
    record = str(tmp_path / "no" / "r.jsonl") if where == "missing folder" else "/dev/zero"
    begin = time.perf_counter()
    with pytest.raises(ValueError, match="record"):
        DOORS[door](record)
    assert time.perf_counter() - begin < 2.0  # refused, not failed at the first write
