"""nqmip-compare: grid parsing, runs in their own processes with a hard limit, JSON Lines,
resume, plots, and the same rows from a local Dask cluster."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import nqmip
from nqmip import compare
from nqmip.compare import Cell, UsageError, main, parse_sizes, run_cell, summarize
from nqmip.compare.plot import plot
from nqmip.compare.store import GRID_KEY
from nqmip.methods import METHODS

from .conftest import COMPARE_GRID, IN_CI

#: The methods of the suite's one sweep (tests/conftest.py), in the grid's order.
METHODS_SWEPT = ("highs", "sa", "minconflicts")

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "compare.py"
# Solver fields that are the same for the same cell wherever it runs.
STABLE = ("n", "method", "weights", "seed", "repeat", "status", "objective", "bound",
          "placement")


def run(*args: str, env: dict[str, str] | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=full_env)


def refused(*args: str) -> subprocess.CompletedProcess[str]:
    """The command's ``main`` in this process, for a call it refuses before any sweep (the
    real command's start-up, 1-2 s a case, is test_the_real_command_refuses_in_one_line's)."""
    return here(*args)


def here(*args: str) -> subprocess.CompletedProcess[str]:
    """The command's ``main`` in this process: what it printed and its status. Its cells
    run in their own processes as the command's do; the command's own start-up (1-2 s a
    call) is left to the tests of the real command (the suite's sweep, the refusal, the
    hard limit, the crash, the Dask run, the board without placement)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as stop:  # argparse's own refusals
            status = int(stop.code or 0)
    return subprocess.CompletedProcess(["nqmip-compare", *args], status, out.getvalue(),
                                       err.getvalue())


def rows_of(path: Path) -> list[dict[str, Any]]:
    """The runs' rows of a records file (not its header row, the grid)."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [row for row in rows if GRID_KEY not in row]


def brute_force_optimum(n: int) -> float:
    w = nqmip.chess_weights(n)
    return max(float(sum(w[i, c] for i, c in enumerate(p)))
               for p in itertools.permutations(range(n)) if nqmip.is_solution(p))


# -- the grid ------------------------------------------------------------------------------


def test_sizes_lists_and_ranges() -> None:
    assert parse_sizes("8,16,32") == [8, 16, 32]
    assert parse_sizes("8:64:8") == [8, 16, 24, 32, 40, 48, 56, 64]
    assert parse_sizes("4:6,10, 12") == [4, 5, 6, 10, 12]
    for bad in ("8,8:10", "", "8,,9", "a", "8:4", "8:16:0", "1:2:3:4", "0", "-3", "8.5"):
        with pytest.raises(UsageError):
            parse_sizes(bad)


def test_grid_cells_and_warm_start_only_on_exact_methods() -> None:
    cells = compare.build_grid([8, 12], ["highs", "ga"], "chess", [0, 1], 5.0, 9.0, "tabu")
    assert len(cells) == 8
    # on each n the exact methods of every repeat first: the heuristics wait for the target
    assert [(c.n, c.repeat, c.method) for c in cells[:4]] == [
        (8, 0, "highs"), (8, 1, "highs"), (8, 0, "ga"), (8, 1, "ga")]
    assert {c.target_mode for c in cells} == {None}  # the default of build_grid: none
    auto = compare.build_grid([8], ["ga", "highs", "auto"], "chess", [0], 5.0, 9.0,
                              target="auto")
    assert [(c.method, c.target_mode) for c in auto] == [
        ("highs", None), ("auto", None), ("ga", "auto")]
    assert {c.warm_start for c in cells if c.method == "highs"} == {"tabu"}
    assert {c.warm_start for c in cells if c.method == "ga"} == {None}
    assert all(c.hard_limit == 9.0 and c.time_limit == 5.0 for c in cells)


@pytest.mark.parametrize("args, message", [
    (["--n", "0"], "at least 1"),
    (["--n", "8:x"], "--n takes"),
    (["--n", "16:8"], "empty"),
    (["--methods", "highs,simplex"], "unknown method 'simplex'"),
    (["--weights", "heavy"], "--weights takes chess, none, random, toulbar2 or a weights file"),
    (["--repeats", "0"], "--repeats"),
    (["--seeds", "1,1"], "repeated seed"),
    (["--seeds", "1,2", "--repeats", "3"], "disagrees"),
    (["--time-limit", "0"], "--time-limit"),
    (["--time-limit", "nan"], "--time-limit"),
    (["--grace", "-1"], "--grace"),
    (["--plot", "out.jpg"], ".png, .svg or .pdf"),
    (["--report", "out.txt"], "an .html file"),
    (["--report", "/nonexistent/dir/r.html"], "folder /nonexistent/dir does not exist"),
    (["--report", "/proc/nqmip-report.html"], "--report: cannot write /proc/nqmip-report.html"),
    (["--output", "/proc/nqmip-out.jsonl"], "--output: cannot write /proc/nqmip-out.jsonl"),
    (["--csv", "/proc/nqmip.csv"], "--csv: cannot write /proc/nqmip.csv"),
    (["--plot", "/proc/t.svg"], "--plot: cannot write /proc/t.svg"),
    (["--output", "/tmp", "--n", "8"], "is a folder"),
    (["--target", "high"], "--target takes auto, none or a number"),
    (["--target", "inf"], "--target takes auto, none or a number"),
    (["--methods", "tabu", "--param", "tabu:nosuch=1"], "tabu has no parameter 'nosuch'"),
    (["--methods", "highs", "--param", "highs:tenure=3"], "highs has no parameter 'tenure'"),
    (["--methods", "tabu,highs", "--param", "strengthen=false"],
     "tabu does not take strengthen (highs does)"),
    (["--methods", "highs", "--param", "target=3"], "grid's own options"),
    (["--resume", "/nonexistent/runs.jsonl"], "no such file"),
    (["--output", "/nonexistent/dir/runs.jsonl"], "folder /nonexistent/dir does not exist"),
    (["--plot", "/nonexistent/dir/t.png"], "folder /nonexistent/dir does not exist"),
    (["--retry-failed"], "needs --resume"),
    (["--warm-start", "simplex"], "--warm-start"),
    (["--workers", "1", "--scheduler", "tcp://127.0.0.1:1"], "not allowed with"),
    (["--json", "--csv"], "not allowed with"),
    (["--markdown", "--csv"], "give --csv a FILE"),
])
def test_bad_input_exits_2_with_one_line(args: list[str], message: str) -> None:
    """In this process (a command per case took 0.5 s of start-up each; the real command's
    refusals: test_the_real_command_refuses_in_one_line, tests/test_cli_bad_input.py)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(args)
        except SystemExit as stop:  # argparse's own refusals
            status = int(stop.code or 0)
    assert status == 2, (out.getvalue(), err.getvalue())
    assert out.getvalue() == ""
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nqmip-compare: error:"), err.getvalue()
    assert message in lines[0]


def test_the_real_command_refuses_in_one_line() -> None:
    p = run("--repeats", "0")
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nqmip-compare: error:"), p.stderr
    assert "--repeats" in lines[0]


def test_help_is_fast_and_does_not_load_solvers() -> None:
    code = ("import sys, nqmip.compare as c; c.build_parser(); "
            "bad = [m for m in ('pyomo', 'ortools', 'numba', 'matplotlib', 'dask') "
            "if m in sys.modules]; print(bad)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.stdout.strip() == "[]", p.stderr


# -- end to end ----------------------------------------------------------------------------


Swept = tuple[Path, subprocess.CompletedProcess[str]]


@pytest.mark.timing
def test_tiny_grid_end_to_end_then_resume(compare_sweep: Swept, tmp_path: Path) -> None:
    """The suite's one sweep (tests/conftest.py: n = 5,6, highs, sa and minconflicts,
    2 repeats, 10 s; test_compare_report.py checks its report), then resumed."""
    folder, p = compare_sweep
    assert p.returncode == 0, p.stderr
    out = tmp_path / "runs.jsonl"  # a copy: the resume below appends to it
    out.write_text((folder / "runs.jsonl").read_text())
    rows = rows_of(out)
    assert len(rows) == 12
    for row in rows:
        assert list(row)[:len(compare.ROW_FIELDS)] == list(compare.ROW_FIELDS)
        assert row["weights"] == "chess" and row["time_limit"] == 10
        assert row["hard_limit"] == 40  # time limit + the default grace of 30 s
        assert row["status"] in ("optimal", "feasible"), row
        assert nqmip.is_solution(row["placement"])
        assert row["wall_time"] <= row["process_time"] < row["hard_limit"]
    assert {(r["n"], r["method"], r["seed"]) for r in rows} == {
        (n, m, s) for n in (5, 6) for m in METHODS_SWEPT for s in (0, 1)}
    exact = {r["n"]: r["objective"] for r in rows if r["method"] == "highs"}
    assert exact == {n: brute_force_optimum(n) for n in (5, 6)}
    assert all(r["status"] == "optimal" for r in rows if r["method"] == "highs")
    assert all(r["counters"]["evaluations"] > 0 for r in rows if r["method"] == "minconflicts")
    # stdout is the JSON summary alone; the progress on stderr has no control characters
    summary = json.loads(p.stdout)["summary"]
    assert [(e["n"], e["method"], e["runs"]) for e in summary] == [
        (n, m, 2) for n in (5, 6) for m in METHODS_SWEPT]
    assert summary[0]["status"] == {"optimal": 2}
    assert summary[0]["objective_median"] == brute_force_optimum(5)
    assert "\x1b" not in p.stderr and "[12/12]" in p.stderr
    # two runs at once (--jobs 2): n = 5's two exact runs start together, either ends first
    assert re.search(r"^\[1/12\] n=5 highs seed=[01]: optimal", p.stderr, re.M), p.stderr
    assert "left" in p.stderr
    for name in ("t.svg", "t-ttt.svg", "t-profile.svg", "t-curve.svg"):  # PNG: below
        picture = folder / name
        assert "<svg" in picture.read_text() and picture.stat().st_size > 10_000

    # resume: nothing left to do, the file is untouched, the summary is the same
    before = out.read_text()
    p = here(*COMPARE_GRID, "--resume", str(out), "--csv")
    assert p.returncode == 0, p.stderr
    assert out.read_text() == before
    assert "12 of 12 cells already done" in p.stderr
    assert p.stdout.splitlines()[0].startswith("n,method,weights")
    assert len(p.stdout.splitlines()) == 7

    # a larger grid only runs the new cells; a truncated last line (a killed sweep) is
    # ignored
    with open(out, "a") as handle:
        handle.write('{"n": 7, "method": "hi')
    grid = list(COMPARE_GRID)
    grid[grid.index("--n") + 1] = "5:7"
    p = here(*grid, "--resume", str(out), "--no-progress", "--jobs", "2")
    assert p.returncode == 0, p.stderr
    rows = compare.read_rows(out)
    assert len(rows) == 18
    assert sorted((r["method"], r["seed"]) for r in rows if r["n"] == 7) == [
        (m, s) for m in sorted(METHODS_SWEPT) for s in (0, 1)]
    assert "7" in p.stdout and "minconflicts" in p.stdout  # the rich table


@pytest.mark.timing
def test_hard_timeout_kills_an_overrunning_solver(tmp_path: Path) -> None:
    # a run that hangs past its own limit of 1 s (the harness's fault 'hang': a solver that
    # hears no limit) is killed at the hard limit of 2 s (a hard limit at or below the time
    # limit is refused: tests/test_compare_options.py)
    out = tmp_path / "runs.jsonl"
    start = time.perf_counter()
    p = run("--n", "8", "--methods", "highs", "--time-limit", "1", "--hard-limit", "2",
            "--output", str(out), "--csv", env={compare.FAULT_ENV: "hang"})
    elapsed = time.perf_counter() - start
    assert p.returncode == 1, p.stderr  # a failed run: the summary, then exit 1
    (row,) = rows_of(out)
    assert row["status"] == "timeout" and row["objective"] is None
    assert "hard limit of 2 s" in row["message"]
    assert "nqmip-compare: failed: n=8 highs seed=0: timeout: killed after the hard limit " \
        "of 2 s" in p.stderr
    assert 2.0 <= row["process_time"] < 4.0
    assert elapsed < 20
    assert ",timeout=1," in p.stdout


def test_crashed_cell_is_reported_and_the_sweep_goes_on(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    p = run("--n", "6,7", "--methods", "minconflicts", "--output", str(out), "--csv",
            env={compare.FAULT_ENV: "abort"})
    assert p.returncode == 1, p.stderr
    rows = rows_of(out)
    assert [r["status"] for r in rows] == ["crashed", "crashed"]
    assert all("SIGABRT" in r["message"] for r in rows)
    # each failed cell's reason in one line, as it comes and again after the summary
    for n in (6, 7):
        line = f"n={n} minconflicts seed=0: crashed: worker process died (killed by SIGABRT)"
        assert p.stderr.count(line) == 2, p.stderr
    assert "crashed=1" in p.stdout  # the CSV's status column


def test_out_of_memory_cell_is_reported() -> None:
    # 100 MB of address space is too little to load the solvers: the run dies, not the sweep
    row = run_cell(Cell(n=8, method="highs", weights="chess", seed=0, repeat=0,
                        time_limit=10, hard_limit=60, memory_limit_mb=100))
    assert row["status"] in ("crashed", "error"), row
    assert row["message"]


def test_solver_exception_is_an_error_row() -> None:
    row = run_cell(Cell(n=8, method="highs", weights="bogus", seed=0, repeat=0,
                        time_limit=10, hard_limit=60))
    assert row["status"] == "error"
    assert "InstanceError" in row["message"] and "bogus" in row["message"]
    assert sorted(row) == sorted(compare.ROW_FIELDS)


def test_hung_worker_is_killed() -> None:
    os.environ[compare.FAULT_ENV] = "hang"
    try:
        row = run_cell(Cell(n=8, method="highs", weights="chess", seed=0, repeat=0,
                            time_limit=0.5, hard_limit=1.5))
    finally:
        del os.environ[compare.FAULT_ENV]
    assert row["status"] == "timeout" and 1.5 <= row["process_time"] < 3.5


def test_random_weights_follow_the_seed(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    p = here("--n", "6", "--methods", "highs,glpk", "--weights", "random", "--seeds", "3,4",
            "--output", str(out), "--markdown", "--no-progress")
    assert p.returncode == 0, p.stderr
    rows = rows_of(out)
    for seed in (3, 4):
        same = [r for r in rows if r["seed"] == seed]
        w = nqmip.random_weights(6, seed)
        for r in same:
            assert r["weights_name"] == f"random(seed={seed})"
            assert r["objective"] == sum(w[i, c] for i, c in enumerate(r["placement"]))
        if all(r["status"] == "optimal" for r in same):  # glpk may be missing off CI
            assert len({r["objective"] for r in same}) == 1
    assert p.stdout.startswith("| n | method |")


# -- summary and plot ----------------------------------------------------------------------


def test_summary_medians_and_plot(tmp_path: Path) -> None:
    def row(method: str, n: int, status: str, wall: float, obj: float | None) -> dict[str, Any]:
        base = dict.fromkeys(compare.ROW_FIELDS)
        base.update(n=n, method=method, weights="chess", status=status, wall_time=wall,
                    objective=obj, bound=None if obj is None else 12.0, time_limit=10.0,
                    timing={"wall": wall, "to_best": wall / 2},
                    trajectory=[] if obj is None else [[wall / 2, obj, None]])
        return base

    rows = [row("highs", 8, "optimal", 0.1, 12), row("highs", 8, "optimal", 0.3, 12),
            row("highs", 8, "timeout", 9.0, None), row("ga", 8, "feasible", 0.2, 10),
            row("highs", 12, "optimal", 2.0, 20), row("ga", 12, "feasible", 0.4, 18)]
    summary = summarize(rows)
    first = summary[0]
    assert (first["n"], first["method"], first["runs"]) == (8, "highs", 3)
    assert first["status"] == {"optimal": 2, "timeout": 1} and first["failed"] == 1
    assert first["time_median"] == 0.3 and first["time_min"] == 0.1 and first["time_max"] == 9
    assert first["objective_median"] == 12 and first["kind"] == "exact"
    assert (first["target"], first["target_source"]) == (12, "proven")
    # two runs of three reached the target, at half their wall time: the median is the
    # larger of them (the third never reached it: infinitely slow)
    assert first["reached"] == 2 and first["ttt_median"] == 0.15
    assert (first["ttt_min"], first["ttt_max"]) == (0.05, 0.15)
    assert summary[1]["kind"] == "heuristic" and summary[1]["reached"] == 0
    assert summary[1]["gap_median"] == pytest.approx(2 / 10)  # to the board's best bound 12
    markdown = compare.summary_markdown(summary)
    assert "| 8 | highs | 3 (1 failed) | 12 opt | 2/3 | 2/3 | 0.15 (0.050–0.15) |" in markdown
    assert "| 8 | ga | 1 | 12 opt | never 0/1 | 0/1 | never |" in markdown
    for suffix in (".png", ".svg"):
        path = tmp_path / f"plot{suffix}"
        assert len(plot(rows, path)) == 4
        assert path.stat().st_size > 5_000
    assert (tmp_path / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = (tmp_path / "plot.svg").read_text()
    assert "<svg" in svg and "time to target (median)" in svg
    assert "time to target, n = 12" in (tmp_path / "plot-ttt.svg").read_text()


# -- Dask ----------------------------------------------------------------------------------


def test_dask_local_cluster_gives_the_same_rows(compare_sweep: Swept, tmp_path: Path) -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        if IN_CI:
            pytest.fail('CI=true and Dask is missing: pip install "nqmip[dask]"')
        pytest.skip('Dask is not installed: pip install "nqmip[dask]"')
    # the suite's sweep (tests/conftest.py) in local processes; on the cluster its exact
    # method and one heuristic (aiming at the exact runs' optimum, as there) on its first
    # board, both repeats: four cells over the two workers (both boards, eight cells,
    # checked nothing more)
    folder, p = compare_sweep
    assert p.returncode == 0, p.stderr
    grid = list(COMPARE_GRID)
    grid[grid.index("--methods") + 1] = "highs,minconflicts"
    grid[grid.index("--n") + 1] = "5"
    dask = tmp_path / "dask.jsonl"
    p = run(*grid, "--output", str(dask), "--json", "--workers", "2", timeout=180)
    assert p.returncode == 0, p.stderr
    dask_rows = rows_of(dask)
    local_rows = [r for r in rows_of(folder / "runs.jsonl")
                  if r["method"] in ("highs", "minconflicts") and r["n"] == 5]
    assert len(dask_rows) == len(local_rows) == 4
    assert all(list(r) == list(local_rows[0]) for r in dask_rows)  # same fields, same order

    def stable(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return sorted(tuple(json.dumps(r[k]) for k in STABLE) for r in rows)

    assert stable(dask_rows) == stable(local_rows)  # same seeds, same answers


# -- warm starts and the hybrid solve -------------------------------------------------------


def test_warm_start_reaches_the_exact_methods(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    p = here("--n", "8", "--methods", "highs,sa", "--warm-start", "sa", "--time-limit", "20",
            "--output", str(out), "--no-progress", "--csv")
    assert p.returncode == 0, p.stderr
    rows = {r["method"]: r for r in rows_of(out)}
    assert rows["highs"]["warm_start"] == "sa" and rows["sa"]["warm_start"] is None
    assert rows["highs"]["status"] == "optimal" and rows["highs"]["objective"] == 12
    assert rows["highs"]["provenance"]["start_accepted"] is not None
    assert rows["highs"]["timing"]["start"] is not None
    # sense max, warm_start sa, no params, no target (it ran first), kind exact
    assert "highs,chess,max,sa,,,exact" in p.stdout


def test_auto_is_just_another_method(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    p = here("--n", "8", "--methods", "auto", "--time-limit", "20", "--output", str(out),
            "--no-progress", "--json")
    assert p.returncode == 0, p.stderr
    (row,) = rows_of(out)
    assert row["status"] == "optimal" and row["objective"] == 12
    assert json.loads(p.stdout)["summary"][0]["kind"] == "hybrid"


def test_params_reach_solve_and_key_the_cells(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    quick = ("--time-limit", "3", "--no-progress")
    p = here("--n", "6", "--methods", "highs,tabu", "--param", "highs:strengthen=false",
             "--param", "tabu:tenure=15", "--output", str(out), *quick, "--csv")
    assert p.returncode == 0, p.stderr
    rows = {r["method"]: r for r in rows_of(out)}
    assert rows["highs"]["params"] == {"strengthen": False}
    assert rows["tabu"]["params"] == {"tenure": 15}
    assert rows["highs"]["status"] == "optimal"
    assert rows["tabu"]["status"] == "optimal"  # its colour bound (6 at n = 6) proves it
    assert '"{""strengthen"": false}"' in p.stdout  # the CSV's params column
    # the same grid is done; without the parameters it is another grid: --resume refuses
    # it (its every cell would run again beside the file's), --output appends it
    p = here("--n", "6", "--methods", "highs,tabu", "--param", "highs:strengthen=false",
             "--param", "tabu:tenure=15", "--resume", str(out), *quick, "--csv")
    assert p.returncode == 0 and len(rows_of(out)) == 2
    p = refused("--n", "6", "--methods", "highs", "--resume", str(out), *quick,
                "--markdown")
    assert p.returncode == 2 and len(rows_of(out)) == 2
    assert "--param highs:strengthen=false, tabu:tenure=15 in the file, none here" in p.stderr
    p = here("--n", "6", "--methods", "highs", "--output", str(out), *quick,
             "--markdown")
    assert p.returncode == 0 and len(rows_of(out)) == 3
    assert rows_of(out)[-1]["params"] is None
    # a bad value is refused before the sweep, by name, in one line, nothing written
    p = refused("--n", "6", "--methods", "tabu", "--param", "tabu:tenure=-3", "--output",
                str(out), *quick, "--csv")
    assert p.returncode == 2 and len(rows_of(out)) == 3
    assert len(p.stderr.splitlines()) == 1 and "--param tenure=-3" in p.stderr
    # a parameter no method of the grid takes is refused before the sweep, by name
    for bad, message in ((["--param", "x"], "NAME=VALUE"),
                         (["--param", "cpsat:x=1"], "not in --methods"),
                         (["--param", "seed=3"], "grid's own options"),
                         (["--param", "sa:tenure=3"], "'sa' is not in --methods")):
        p = refused("--methods", "highs", *bad)
        assert p.returncode == 2 and message in p.stderr and len(p.stderr.splitlines()) == 1


# -- the harness and the store on their own --------------------------------------------------


def test_rows_are_the_result_dict_plus_the_cell() -> None:
    from nqmip.compare.grid import CELL_FIELDS
    from nqmip.compare.harness import HARNESS_FIELDS

    cell = Cell(n=6, method="highs", weights="chess", seed=2, repeat=0, time_limit=20,
                hard_limit=60, params={"strengthen": False})
    row = run_cell(cell)
    direct = nqmip.solve(6, "chess", method="highs", time_limit=20, seed=2,
                         strengthen=False).to_dict()
    assert set(row) == set(CELL_FIELDS) | set(direct) | set(HARNESS_FIELDS)
    assert list(row) == list(compare.ROW_FIELDS)
    for name in ("status", "termination", "objective", "bound", "placement", "weights_name",
                 "provenance", "solver"):
        assert row[name] == direct[name], name
    assert row["params"] == {"strengthen": False} and row["weights"] == "chess"
    assert row["objective"] == brute_force_optimum(6)


def test_run_in_process_runs_any_target(tmp_path: Path) -> None:
    task = tmp_path / "task.py"
    task.write_text(
        "import os\n"
        "def double(x):\n    return {'twice': 2 * x['v'], 'env': os.environ.get('NQ_X')}\n"
        "def fail(x):\n    raise ValueError(f'no {x}')\n")
    ok = compare.run_in_process(f"{task}:double", {"v": 21}, hard_limit=60,
                                env={"NQ_X": "here"})
    assert ok.status == "ok" and ok.value == {"twice": 42, "env": "here"} and not ok.message
    assert ok.process_time > 0
    bad = compare.run_in_process(f"{task}:fail", 7, hard_limit=60)
    assert bad.status == "error" and bad.value is None and bad.message == "ValueError: no 7"
    missing = compare.run_in_process("nqmip.compare.grid:no_such_function", 0, hard_limit=60)
    assert missing.status == "error" and "no_such_function" in missing.message


def test_store_reads_old_records_under_todays_keys(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    old_compare = {"n": 6, "method": "highs", "weights": "random", "seed": 3,
                   "warm_start": None, "params": None, "time_limit": 20,
                   "status": "optimal", "objective": 40.0, "instance": "random(seed=3)"}
    old_result = {"n": 6, "method": "highs", "weights": "random(seed=4)", "seed": 4,
                  "time_limit": 20, "status": "optimal", "objective": 41.0}
    new = {"n": 6, "method": "highs", "weights": "chess", "seed": 0, "time_limit": 20,
           "status": "optimal", "objective": 10.0, "weights_name": "chess"}
    path.write_text("".join(json.dumps(r) + "\n" for r in (old_compare, old_result, new)))
    rows = compare.read_rows(path)
    assert [r["weights_name"] for r in rows] == ["random(seed=3)", "random(seed=4)", "chess"]
    assert [r["weights"] for r in rows] == ["random", "random", "chess"]
    assert "instance" not in rows[0] and rows[2] == new
    # ... so they count as done for --resume of the same cells
    from nqmip.compare.store import rows_for_grid

    cells = compare.build_grid([6], ["highs"], "random", [3, 4, 5], 20.0, 50.0)
    assert [r["seed"] for r in rows_for_grid(cells, rows)] == [3, 4]
    # and writing appends after a truncated line without gluing to it
    with open(path, "a") as handle:
        handle.write('{"n": 7')
    with compare.RowWriter(path) as writer:
        writer.write(new)
    assert len(compare.read_rows(path)) == 4


def test_summary_puts_quality_beside_time() -> None:
    """Each run against its board's reference: the best objective any method reached
    there when none was proven, another board its own."""
    rows = [
        {"n": 40, "method": "highs", "weights": "chess", "status": "feasible",
         "objective": 70.0, "bound": 72.0, "wall_time": 3.0},
        {"n": 40, "method": "ga", "weights": "chess", "status": "feasible",
         "objective": 63.0, "wall_time": 0.1},
        {"n": 40, "method": "ga", "weights": "random", "status": "feasible",
         "objective": 300.0, "wall_time": 0.1},
    ]
    summary = {(e["method"], e["weights"]): e for e in compare.summarize(rows)}
    assert summary[("highs", "chess")]["target"] == 70.0
    assert summary[("highs", "chess")]["target_source"] == "best known"
    assert summary[("highs", "chess")]["reached"] == 1
    assert summary[("ga", "chess")]["reached"] == 0
    assert summary[("ga", "chess")]["gap_median"] == pytest.approx(9 / 63)  # to 72
    assert summary[("ga", "random")]["target"] == 300.0  # another board, its own best
    markdown = compare.summary_markdown(list(summary.values()))
    assert "70 best" in markdown and "never" in markdown and "14.3%" in markdown


def test_no_arguments_print_usage_and_run_nothing() -> None:
    p = refused()
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("usage: nqmip-compare") and "--n and --methods" in p.stderr
    assert not Path("/nonexistent").exists()


def test_a_corrupt_resume_file_is_refused_naming_the_line(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"n": 5, "method": "highs", "weights": "chess", "status": "optimal"}\n'
                    'not json\n{"n": 5, "method": "highs", "weights": "chess", '
                    '"status": "optimal", "objective": "twelve"}\n')
    before = runs.read_text()
    p = refused("--n", "5", "--methods", "highs", "--resume", str(runs))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
    assert "line 2" in p.stderr and str(runs) in p.stderr
    assert runs.read_text() == before  # nothing appended to a file it cannot read


def test_a_heuristics_gap_is_measured_against_the_best_bound_of_the_board() -> None:
    from nqmip.compare.summary import summarize

    rows = [
        {"n": 8, "method": "highs", "weights": "chess", "status": "optimal",
         "objective": 12.0, "bound": 12.0, "gap": 0.0, "wall_time": 0.1},
        {"n": 8, "method": "sa", "weights": "chess", "status": "feasible",
         "objective": 12.0, "bound": 16.0, "gap": 1 / 3, "wall_time": 1.0},
        {"n": 9, "method": "sa", "weights": "chess", "status": "feasible",
         "objective": 13.0, "bound": 18.0, "gap": 5 / 13, "wall_time": 1.0},
    ]
    by = {(e["n"], e["method"]): e for e in summarize(rows)}
    assert by[8, "sa"]["gap_median"] == 0.0 and by[8, "sa"]["best_bound"] == 12.0
    assert by[8, "highs"]["gap_median"] == 0.0
    # alone on its board, the heuristic's own bound is the tightest known
    assert by[9, "sa"]["gap_median"] == pytest.approx(5 / 13)


def test_costs_are_compared_the_other_way_round() -> None:
    """Minimised rows (sense "min"): the best objective is the least, the tightest bound the
    greatest lower bound, and a run reaches a target at or below it."""
    from nqmip.compare.summary import summarize

    rows = [
        {"n": 20, "method": "bnb", "weights": "toulbar2", "status": "optimal", "sense": "min",
         "objective": 69.0, "bound": 69.0, "gap": 0.0, "wall_time": 0.3,
         "trajectory": [[0.1, 75.0, 60.0], [0.2, 69.0, 69.0]]},
        {"n": 20, "method": "highs", "weights": "toulbar2", "status": "feasible",
         "sense": "min", "objective": 71.0, "bound": 60.0, "wall_time": 9.0,
         "trajectory": [[1.0, 71.0, 60.0]]},
        {"n": 20, "method": "sa", "weights": "toulbar2", "status": "feasible", "sense": "min",
         "objective": 69.0, "bound": 20.0, "wall_time": 1.0, "target": 69.0,
         "target_mode": "auto", "timing": {"to_target": 0.7},
         "trajectory": [[0.3, 80.0, 20.0], [0.7, 69.0, 20.0]]},
    ]
    by = {e["method"]: e for e in summarize(rows)}
    assert by["bnb"]["target"] == 69.0 and by["bnb"]["target_source"] == "proven"
    assert by["bnb"]["ttt_median"] == 0.2 and by["sa"]["ttt_median"] == 0.7
    assert by["highs"]["reached"] == 0
    assert by["highs"]["gap_median"] == pytest.approx(2 / 71)
    assert by["sa"]["best_bound"] == 69.0  # the greatest lower bound, not the least


def test_the_toulbar2_family_is_a_grid_weight() -> None:
    row = run_cell(Cell(n=12, method="bnb", weights="toulbar2", seed=0, repeat=0,
                        time_limit=30, hard_limit=90))
    assert row["status"] == "optimal" and row["sense"] == "min" and row["objective"] == 48


@pytest.mark.parametrize(("option", "value", "words"), [
    ("--methods", "sa,sa", "--methods: sa is given twice"),
    ("--methods", "sa,,ga", "--methods: empty item"),
    ("--n", "8,8", "--n: 8 is given twice"),
    ("--n", "8:12,10", "--n: 10 is given twice"),
])
def test_an_item_given_twice_or_empty_is_refused_not_dropped(
        option: str, value: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Before, the grid ran each once and said nothing of the repeat or the empty item."""
    argv = {"--n": ["--n", "8"], "--methods": ["--methods", "sa"]}
    argv[option] = [option, value]
    assert main([*argv["--n"], *argv["--methods"], "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err


def _takes(method: str, weights: str, uniform: bool = False) -> bool:
    from nqmip.methods import METHODS, check_weights

    kind = {"chess": "colour", "none": "none"}.get(weights, "dense")  # random, toulbar2
    try:
        check_weights(METHODS[method], feasibility=kind == "none", colours=kind == "colour",
                      dense=kind == "dense", uniform=uniform)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("method,weights,params", [
    pytest.param(m, w, p, id=f"{m}-{w}{'-uniform' if p else ''}")
    for m in nqmip.all_methods() for w in compare.grid.WEIGHT_CHOICES
    for p in ([[]] + ([["--param", "black=1", "--param", "white=1"]] if w == "chess" else []))
    if not _takes(m, w, uniform=bool(p))])
def test_a_method_made_for_other_weights_is_refused_before_the_sweep(
        method: str, weights: str, params: list[str], tmp_path: Path) -> None:
    """Each method the grid's weights do not suit (every such pair of the method table) is
    refused in one line before any run, as nqmip.solve refuses it. Before, the sweep ran
    it and failed there: `compare.py --n 6 --methods topsquares` ran one cell, 'error:
    ValueError: method 'topsquares' takes a weight matrix', exit 1."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["--n", "6", "--methods", method, "--weights", weights, *params,
                       "--time-limit", "1", "--output", str(tmp_path / "r.jsonl")])
    lines = err.getvalue().strip().splitlines()
    assert status == 2 and out.getvalue() == "" and len(lines) == 1, err.getvalue()
    assert f"--methods {method} with --weights {weights}" in lines[0]
    assert not (tmp_path / "r.jsonl").exists() or not rows_of(tmp_path / "r.jsonl")
    with pytest.raises(ValueError):  # what nqmip.solve says of one of its runs
        nqmip.solve(6, {"none": None, "toulbar2": "random"}.get(weights, weights),
                    method=method, time_limit=1,
                    **({"black": 1, "white": 1} if params else {}))


@pytest.mark.parametrize("heuristic,weights", [
    pytest.param(h, w, id=f"{h}-{w}") for h in METHODS if METHODS[h].kind == "heuristic"
    for w in compare.grid.WEIGHT_CHOICES if not _takes(h, w)])
def test_a_warm_start_made_for_other_weights_is_refused_before_the_sweep(
        heuristic: str, weights: str, tmp_path: Path) -> None:
    """--warm-start names a heuristic the grid's weights do not suit: refused in one line
    before any run (before: `compare.py --n 6 --methods highs --warm-start topsquares`
    failed its cell, exit 1)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["--n", "6", "--methods", "highs", "--weights", weights,
                       "--warm-start", heuristic, "--time-limit", "1",
                       "--output", str(tmp_path / "r.jsonl")])
    lines = err.getvalue().strip().splitlines()
    assert status == 2 and out.getvalue() == "" and len(lines) == 1, err.getvalue()
    assert f"--warm-start {heuristic} with --weights {weights}" in lines[0]


def test_a_board_without_placement_counts_as_proven_and_says_so() -> None:
    """n = 3 has no placement: auto and every exact method installed prove it, and the
    summary counts that proof and says so (it counted 0 proofs and said no method reached
    the target)."""
    from nqmip.backends.base import get_backend
    from nqmip.compare.verdict import conclusions
    from nqmip.methods import EXACT_METHODS
    exact = [m for m in EXACT_METHODS if m == "bnb" or get_backend(m).available()]
    if IN_CI:
        assert set(exact) == set(EXACT_METHODS), "CI=true: every exact backend must run"
    p = run("--n", "3", "--methods", ",".join(["auto", *exact]), "--json",
            "--time-limit", "20")
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)["summary"]
    assert len(summary) == len(exact) + 1
    assert all(e["proven"] == e["runs"] == 1 for e in summary)
    said = conclusions(summary)
    assert said[0].startswith("n = 3: no placement exists, proven by auto, ")
    assert said[1].startswith("Runs that proved optimality (or that no placement exists)")
