"""A record line changed after it was written (edited by hand, damaged on the disk) is
refused, not trusted: each line carries a check of its contents (``nqmip.jsonlines.sealed``).
Before, a count record whose value was edited gave a wrong total with exit status 0, and a
first-queens record with an edited answer ended in "RuntimeError: the oracle's completion
... is not a solution" (exit 1, a solver's failure for an input's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import nqmip

ROOT = Path(__file__).resolve().parent.parent
COUNT = [str(ROOT / "scripts" / "count_solutions.py"), "--n", "10", "--record"]
LEX = [str(ROOT / "scripts" / "solve_weighted.py"), "--n", "14", "--lex-first", "--quiet",
       "--record"]


def _run(argv: list[str], path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *argv, str(path)], capture_output=True, text=True,
                          cwd=path.parent, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def _edit(path: Path, change: Callable[[dict[str, Any]], bool]) -> int:
    """The first line that ``change`` changes (in place, its check kept), rewritten; its
    number."""
    lines = path.read_text().splitlines()
    for number, line in enumerate(lines, 1):
        entry = json.loads(line)
        if change(entry):
            lines[number - 1] = json.dumps(entry)
            path.write_text("\n".join(lines) + "\n")
            return number
    raise AssertionError("no line to change")


def _more_solutions(entry: dict[str, Any]) -> bool:
    if "value" not in entry:
        return False
    entry["value"][0] += 1
    return True


def _another_answer(entry: dict[str, Any]) -> bool:
    if not entry.get("answer"):
        return False
    entry["answer"][-2:] = entry["answer"][:-3:-1]  # the last two columns swapped
    return True


@pytest.mark.parametrize(("argv", "change"), [(COUNT, _more_solutions),
                                              (LEX, _another_answer)], ids=["count", "lex"])
def test_a_line_changed_after_it_was_written_is_refused(argv: list[str],
                                                        change: Callable[..., bool],
                                                        tmp_path: Path) -> None:
    path = tmp_path / "run.record"
    first = _run(argv, path)
    assert first.returncode == 0, first.stderr
    number = _edit(path, change)
    kept = path.read_bytes()
    again = _run(argv, path)
    assert again.returncode == 2, (again.returncode, again.stdout, again.stderr)
    lines = again.stderr.strip().splitlines()
    assert len(lines) == 1 and f"line {number} was changed after it was written" in lines[0]
    assert path.read_bytes() == kept


def test_a_bnb_record_changed_after_it_was_written_is_refused(tmp_path: Path) -> None:
    """bnb's record (one object: the open subtrees, the incumbent, the nodes) too: a
    record stripped of subtrees would have proven a wrong optimum."""
    pytest.importorskip("distributed")
    path = tmp_path / "bnb.record"
    argv = [str(ROOT / "scripts" / "solve_weighted.py"), "--n", "8", "--method", "bnb",
            "--workers", "1", "--quiet", "--record"]
    first = _run(argv, path)
    assert first.returncode == 0, first.stderr
    _edit(path, lambda entry: entry.update(nodes=entry["nodes"] + 1) is None)
    kept = path.read_bytes()
    again = _run(argv, path)
    assert again.returncode == 2, (again.returncode, again.stdout, again.stderr)
    lines = again.stderr.strip().splitlines()
    assert len(lines) == 1 and "was changed after it was written" in lines[0], lines
    assert path.read_bytes() == kept


def test_a_record_without_checks_is_read_as_before(tmp_path: Path) -> None:
    """A record written before the checks: its lines are read as they are."""
    path = tmp_path / "count.record"
    whole = nqmip.count_solutions(10, workers=1, record=path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert all("check" in line for line in lines)
    path.write_text("".join(json.dumps({k: v for k, v in line.items() if k != "check"}) + "\n"
                            for line in lines))
    entries = len(lines)
    again = nqmip.count_solutions(10, workers=1, record=path)
    assert again == whole == 724
    assert len(path.read_text().splitlines()) == entries  # nothing counted again


def test_the_api_refuses_a_changed_record_as_a_value_error(tmp_path: Path) -> None:
    path = tmp_path / "count.record"
    nqmip.count_solutions(10, workers=1, record=path)
    number = _edit(path, _more_solutions)
    with pytest.raises(ValueError, match=f"line {number} was changed"):
        nqmip.count_solutions(10, workers=1, record=path)
