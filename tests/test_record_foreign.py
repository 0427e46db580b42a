"""A record written by one command, given to another: refused in one line (exit 2), the
file left byte for byte as it was. bnb's record (one JSON object, no last newline) was
read by the count, the first queens and nqmip-compare as a line cut short by a killed run:
dropped, and the file emptied or written over."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOLVE = str(ROOT / "scripts" / "solve_weighted.py")

#: Each command that keeps a record, and how it is given one: (script, arguments) with
#: FILE for the record's path.
DOORS: dict[str, tuple[str, list[str]]] = {
    "bnb": (SOLVE, ["--n", "8", "--method", "bnb", "--workers", "1", "--record", "FILE",
                    "--quiet"]),
    "count": (str(ROOT / "scripts" / "count_solutions.py"), ["--n", "8", "--record", "FILE"]),
    "lex-first": (SOLVE, ["--n", "8", "--lex-first", "--record", "FILE", "--quiet"]),
    "compare": (str(ROOT / "scripts" / "compare.py"),
                ["--n", "5", "--methods", "sa", "--repeats", "1", "--time-limit", "5",
                 "--output", "FILE"]),
}


def _run(door: str, path: Path, resume: bool = False) -> subprocess.CompletedProcess[str]:
    script, argv = DOORS[door]
    args = [str(path) if a == "FILE" else a for a in argv]
    if resume and door == "compare":
        args[args.index("--output")] = "--resume"
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                          cwd=path.parent, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The record each command writes, as it wrote it."""
    pytest.importorskip("distributed")
    folder = tmp_path_factory.mktemp("records")
    kept = {}
    for door in DOORS:
        path = folder / f"{door}.record"
        done = _run(door, path)
        assert done.returncode == 0, (door, done.stderr)
        kept[door] = path.read_bytes()
        assert kept[door], door
    return kept


@pytest.mark.parametrize("reader", sorted(DOORS))
@pytest.mark.parametrize("writer", sorted(DOORS))
def test_another_commands_record_is_refused_and_kept(records: dict[str, bytes], writer: str,
                                                     reader: str, tmp_path: Path) -> None:
    if writer == reader:
        pytest.skip("its own record: continued, tests/test_resume.py")
    path = tmp_path / "given.record"
    path.write_bytes(records[writer])
    done = _run(reader, path, resume=True)
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert path.read_bytes() == records[writer], "the record was written over"


def test_a_bnb_record_without_its_last_newline_is_still_a_whole_record(
        records: dict[str, bytes], tmp_path: Path) -> None:
    """As bnb wrote it before (one JSON object and no newline): not a line cut short."""
    from nqmip.jsonlines import torn_tail

    old = records["bnb"].rstrip(b"\n")
    assert not torn_tail(old) and torn_tail(old[:-1])
    path = tmp_path / "old.record"
    path.write_bytes(old)
    done = _run("count", path)
    assert done.returncode == 2 and path.read_bytes() == old, done.stderr
