"""nqmip-compare's files and console: one sweep per records file (an OS lock, gone with
its process), ``--resume`` refuses another grid's file naming the difference,
``--version``, and a console that cannot print UTF-8 (or cannot print at all) loses no
result."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nqmip._version import __version__
from nqmip.compare import cli
from nqmip.compare.store import GRID_KEY, RowWriter, read_grid, read_grids, read_rows

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "compare.py"
GRID = ("--n", "5,6", "--methods", "highs", "--time-limit", "7")


def run(*args: str, env: dict[str, str] | None = None,
        **kwargs: Any) -> subprocess.CompletedProcess[str]:
    if "stdout" not in kwargs:
        kwargs["capture_output"] = True
    return subprocess.run([sys.executable, str(SCRIPT), *args], text=True, timeout=300,
                          cwd=ROOT, env={**os.environ, **(env or {})}, **kwargs)


@pytest.fixture(scope="module")
def done(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished sweep's records (two highs runs): resuming it runs nothing."""
    out = tmp_path_factory.mktemp("files") / "runs.jsonl"
    p = run(*GRID, "--output", str(out), "--no-progress", "--csv")
    assert p.returncode == 0, p.stderr
    return out


def copy(done: Path, tmp_path: Path) -> Path:
    path = tmp_path / "runs.jsonl"
    shutil.copy(done, path)
    return path


def test_the_file_starts_with_its_grid_and_reads_as_runs(done: Path) -> None:
    first = json.loads(done.read_text().splitlines()[0])
    assert first == {GRID_KEY: read_grid(done)}
    assert read_grid(done) == {"n": [5, 6], "methods": ["highs"], "weights": "chess",
                               "seeds": [0], "time_limit": 7.0, "target": "auto",
                               "warm_start": None, "params": [],
                               "instance": {"sense": "max", "fixed": []}}
    assert [(r["n"], r["method"]) for r in read_rows(done)] == [(5, "highs"), (6, "highs")]


def test_a_file_another_sweep_writes_is_refused(done: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = copy(done, tmp_path)
    before = path.read_text()
    with RowWriter(path):  # another sweep, writing the file (the same lock)
        for option in ("--resume", "--output"):
            code = cli.main([*GRID, option, str(path), "--no-progress", "--csv"])
            out, err = capsys.readouterr()
            assert code == 2 and out == "", err
            assert err.strip().splitlines() == [
                f"nqmip-compare: error: {option}: {path} is being written by another "
                "nqmip-compare sweep (it holds the file's lock); wait for it to end or give "
                "another file"]
    assert path.read_text() == before
    # the lock goes with its process, however it ends: a killed holder blocks nothing
    holder = subprocess.run(
        [sys.executable, "-c", "import fcntl, os, signal, sys; f = open(sys.argv[1], 'a'); "
         "fcntl.flock(f, fcntl.LOCK_EX); os.kill(os.getpid(), signal.SIGKILL)", str(path)],
        timeout=60)
    assert holder.returncode == -signal.SIGKILL
    assert cli.main([*GRID, "--resume", str(path), "--no-progress", "--csv"]) == 0
    assert capsys.readouterr().out.count("\n") == 3  # the header and both rows: nothing ran
    assert path.read_text() == before


@pytest.mark.parametrize(("args", "named"), [
    (("--time-limit", "9"), "--time-limit 7 in the file, 9 here"),
    (("--weights", "random"), "--weights chess in the file, random here"),
    (("--param", "strengthen=false"),
     "--param none in the file, strengthen=false here"),
])
def test_resume_with_another_grid_is_refused_naming_the_difference(
        done: Path, tmp_path: Path, args: tuple[str, ...], named: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = copy(done, tmp_path)
    grid = dict(zip(GRID[::2], GRID[1::2], strict=True)) | dict(zip(args[::2], args[1::2],
                                                                   strict=True))
    argv = [a for kv in grid.items() for a in kv]
    code = cli.main([*argv, "--resume", str(path), "--no-progress", "--csv"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith(f"nqmip-compare: error: --resume: {path} holds another grid's "
                           "sweep: ") and named in line, line


def test_an_old_file_without_its_grid_is_checked_by_its_rows(
        done: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text("".join(line + "\n" for line in done.read_text().splitlines()[1:]))
    assert read_grid(path) is None and len(read_rows(path)) == 2
    code = cli.main(["--n", "5,6", "--methods", "highs", "--time-limit", "3", "--resume",
                     str(path), "--no-progress", "--csv"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "--time-limit 7 in the file, 3 here" in err
    assert cli.main([*GRID, "--resume", str(path), "--no-progress", "--csv"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3
    assert read_grid(path) is None  # an old file stays as it was


def test_fewer_sizes_on_resume_are_said(done: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = copy(done, tmp_path)
    code = cli.main(["--n", "5", "--methods", "highs", "--time-limit", "7", "--resume",
                     str(path), "--no-progress", "--csv"])
    out, err = capsys.readouterr()
    assert code == 0 and len(out.splitlines()) == 2
    assert "--n 5,6 in the file, 5 here" in err


def test_version_is_the_other_commands_format() -> None:
    p = run("--version")
    assert p.returncode == 0 and p.stdout == f"nqmip-compare {__version__}\n"
    other = subprocess.run([sys.executable, str(ROOT / "scripts" / "solve_weighted.py"),
                            "--version"], capture_output=True, text=True, timeout=120)
    assert other.stdout.split()[1] == p.stdout.split()[1]


@pytest.mark.parametrize("encoding", ["ascii", "cp437"])
def test_a_console_without_utf8_gets_the_table(done: Path, tmp_path: Path,
                                               encoding: str) -> None:
    path = copy(done, tmp_path)
    p = run(*GRID, "--resume", str(path), env={"PYTHONIOENCODING": encoding})
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    assert "x fastest" in p.stdout and "1 (fastest)" in p.stdout
    assert "Conclusions:" in p.stdout
    assert "n = 6: the fastest exact method is highs" in p.stdout
    p = run(*GRID, "--resume", str(path), "--markdown", env={"PYTHONIOENCODING": encoding})
    assert p.returncode == 0 and "| x fastest |" in p.stdout, p.stderr


def test_a_summary_that_cannot_be_printed_loses_no_file(done: Path, tmp_path: Path) -> None:
    path = copy(done, tmp_path)
    csv = tmp_path / "summary.csv"
    with open("/dev/full", "w") as full:  # every write to stdout fails: a dead console
        p = run(*GRID, "--resume", str(path), "--csv", str(csv), stdout=full,
                stderr=subprocess.PIPE)
    assert p.returncode == 74  # EX_IOERR, as at every door
    assert "Traceback" not in p.stderr
    lines = [x for x in p.stderr.splitlines() if "could not be printed" in x]
    assert len(lines) == 1 and str(csv) in lines[0], p.stderr
    assert csv.read_text().startswith("n,method") and ",ttt_factor,fastest," in csv.read_text()


def test_each_grid_appended_to_a_file_can_be_resumed(
        done: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = copy(done, tmp_path)
    other = ["--n", "5", "--methods", "highs", "--time-limit", "3", "--no-progress", "--csv"]
    assert cli.main([*other, "--output", str(path)]) == 0  # another grid, appended
    capsys.readouterr()
    assert [g["time_limit"] for g in read_grids(path)] == [7.0, 3.0]
    assert len(read_rows(path)) == 3
    for argv in (other, [*GRID, "--no-progress", "--csv"]):  # either resumes, runs nothing
        before = path.read_text()
        assert cli.main([*argv, "--resume", str(path)]) == 0
        assert path.read_text() == before
    code = cli.main(["--n", "5", "--methods", "highs", "--time-limit", "4", "--resume",
                     str(path), "--no-progress", "--csv"])
    assert code == 2 and "--time-limit 3 in the file, 4 here" in capsys.readouterr().err


def test_an_output_file_not_of_rows_is_refused_and_left(tmp_path: Path) -> None:
    """``--output`` on a weights CSV appended the sweep's rows to it (exit 0), and
    ``--resume`` on it then refused it: refused before any run now, the file as it was."""
    junk = tmp_path / "weights.csv"
    text = (ROOT / "docs" / "examples" / "weights6.csv").read_text()
    junk.write_text(text)
    p = run(*GRID, "--output", str(junk), "--no-progress")
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and "not a row written by nqmip-compare" in p.stderr
    assert junk.read_text() == text


def test_an_output_that_holds_the_cells_runs_them_again_and_says_so(
        done: Path, tmp_path: Path) -> None:
    records = copy(done, tmp_path)
    before = len(read_rows(records))
    p = run(*GRID, "--output", str(records), "--no-progress")
    assert p.returncode == 0, p.stderr
    assert f"already holds {before} runs of this sweep's cells" in p.stderr
    assert len(read_rows(records)) == 2 * before
