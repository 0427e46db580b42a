"""nqmip-compare's instance options (the solve command's: --weights FILE, --costs, --black,
--white, --minimize, --fix, --fixed): a pairwise covering of them and a few methods, taken
from the command's parser, each case either refused in one line (exit 2) or run through
the grid's cells into the runs' own function (:func:`nqmip.compare.harness.solve_cell`,
what each run's process calls), its result checked against :func:`nqmip.solve` on the
same instance built by hand; then the refusals, and one sweep through the real command."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nqmip
from nqmip.compare import build_parser, main
from nqmip.compare.cli import make_plan
from nqmip.compare.grid import UsageError
from nqmip.compare.harness import solve_cell
from nqmip.instances.families import toulbar2_costs

ROOT = Path(__file__).resolve().parent.parent

#: The values tried for each instance option of the command (its parser's dest) and for
#: the methods: a weights file fixes n = 6, the other grids run n = 5 and 6.
VALUES: dict[str, list[Any]] = {
    "weights": ["chess", "random", "none", "toulbar2", "file", "costs"],
    "minimize": [False, True],
    "fixed": ["", "fix", "file"],
    "black": [None, 3.0],
    "methods": ["highs", "cpsat", "sa"],
}


#: The solve command's instance options that nqmip-compare spells otherwise: a grid's
#: ``--weights none`` and ``--weights random`` (each run's seed draws its weights);
#: ``--lex-first`` is another problem (no objective), not an instance.
SPELLED_OTHERWISE = {"feasibility": "weights", "random_weights": "weights",
                     "lex_first": None}
#: Which factor of VALUES tries each instance option of the command.
FACTOR = {"weights": "weights", "costs": "weights", "minimize": "minimize", "fix": "fixed",
          "fixed": "fixed", "black": "black", "white": "black"}


def test_the_covering_is_over_the_solve_commands_instance_options() -> None:
    """Every instance option of the solve command (those of its weights group, the colour
    values, the sense and the fixed queens) is an option of nqmip-compare, or spelled
    otherwise there, and every one is a factor of the covering (a new one fails here)."""
    from nqmip.cli.solve import build_parser as solve_parser

    solve = solve_parser()
    group = next(g for g in solve._mutually_exclusive_groups
                 if any(a.dest == "weights" for a in g._group_actions))
    instance = {a.dest for a in group._group_actions} | {"black", "white", "minimize", "fix",
                                                         "fixed"}
    compare = {a.dest for a in build_parser()._actions}
    for dest in instance:
        if dest in SPELLED_OTHERWISE:
            assert SPELLED_OTHERWISE[dest] is None or SPELLED_OTHERWISE[dest] in compare
        else:
            assert dest in compare and FACTOR[dest] in VALUES, dest


def pairwise(values: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """A small set of cases covering every pair of values of every two factors (greedy)."""
    names = list(values)
    uncovered = {(a, va, b, vb) for a, b in itertools.combinations(names, 2)
                 for va in values[a] for vb in values[b]}
    cases = []
    while uncovered:
        best, gain = None, -1
        for combo in itertools.product(*values.values()):
            case = dict(zip(names, combo, strict=True))
            got = sum((a, case[a], b, case[b]) in uncovered
                      for a, b in itertools.combinations(names, 2))
            if got > gain:
                best, gain = case, got
        assert best is not None
        cases.append(best)
        uncovered -= {(a, best[a], b, best[b]) for a, b in itertools.combinations(names, 2)}
    return cases


CASES = pairwise(VALUES)


def _files(tmp: Path) -> tuple[Path, Path]:
    tmp.mkdir(parents=True, exist_ok=True)
    matrix = tmp / "w6.csv"
    matrix.write_text("\n".join(",".join(str((3 * r + 5 * c) % 7 + 1) for c in range(6))
                                for r in range(6)) + "\n")
    queens = tmp / "queens.txt"
    queens.write_text("# one pre-placed queen\n1,3\n")
    return matrix, queens


def argv_of(case: dict[str, Any], tmp: Path) -> list[str]:
    matrix, queens = _files(tmp)
    argv = ["--methods", case["methods"], "--time-limit", "1"]
    kind = case["weights"]
    if kind == "file":
        argv += ["--weights", str(matrix)]
    elif kind == "costs":
        argv += ["--costs", str(matrix)]
    else:
        argv += ["--n", "5,6", "--weights", kind]
    if case["minimize"]:
        argv.append("--minimize")
    if case["fixed"] == "fix":
        argv += ["--fix", "0,1"]
    elif case["fixed"] == "file":
        argv += ["--fixed", str(queens)]
    if case["black"] is not None:
        argv += ["--black", str(case["black"])]
    return argv


def refusal(case: dict[str, Any]) -> str | None:
    """What the command must refuse the case for (None: it runs)."""
    if case["weights"] == "none" and case["minimize"]:
        return "--minimize needs weights"
    if case["black"] is not None and case["weights"] != "chess":
        return "--black set the chess colours' values"
    return None


def expected(case: dict[str, Any], n: int, seed: int, tmp: Path) -> dict[str, Any]:
    """The keywords of nqmip.solve for the case's instance, built by hand."""
    matrix, _ = _files(tmp)
    kind = case["weights"]
    out: dict[str, Any] = {"sense": "min" if case["minimize"] or kind in ("costs",
                                                                        "toulbar2") else "max"}
    if kind in ("file", "costs"):
        out["weights"] = np.loadtxt(matrix, delimiter=",")
    elif kind == "toulbar2":
        out["weights"] = toulbar2_costs(n)
    elif kind == "random":
        out.update(weights="random", weights_seed=seed)
    elif kind == "chess":
        out["weights"] = "chess"
        if case["black"] is not None:
            out["black"] = case["black"]
    else:
        out["weights"] = None
    out["fixed"] = {"": [], "fix": [(0, 1)], "file": [(1, 3)]}[case["fixed"]]
    return out


def _plan(argv: list[str]) -> Any:
    args = build_parser().parse_args(argv)
    args.argv = argv
    plan = make_plan(args)
    if plan.writer is not None:
        plan.writer.close()
    return plan


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_each_case_runs_its_instance_or_is_refused(case: dict[str, Any],
                                                   tmp_path: Path) -> None:
    argv = argv_of(case, tmp_path)
    why = refusal(case)
    if why is not None:
        with pytest.raises(UsageError, match=why):
            _plan(argv)
        return
    plan = _plan(argv)
    cells = plan.cells
    assert {c.n for c in cells} == ({6} if case["weights"] in ("file", "costs") else {5, 6})
    cell = cells[0]  # the smallest board; the spec as the run's process reads it
    spec = json.loads(json.dumps(asdict(cell)))
    row = solve_cell(spec)
    want = expected(case, cell.n, cell.seed, tmp_path)
    assert row["sense"] == want["sense"]
    placement = row["placement"]
    assert all(placement[r] == c for r, c in want["fixed"]), (placement, want["fixed"])
    assert sorted(map(tuple, row["fixed"])) == sorted(want["fixed"])
    exact = nqmip.solve(cell.n, method="highs", **want)
    assert exact.status.value == "optimal"
    instance = nqmip.make_instance(cell.n, **want)
    assert row["objective"] == pytest.approx(instance.objective(placement))
    sign = -1 if want["sense"] == "min" else 1
    if row["status"] == "optimal":
        assert row["objective"] == pytest.approx(exact.objective)
    else:  # a heuristic's placement, never better than the optimum
        assert sign * row["objective"] <= sign * exact.objective + 1e-9


def refused(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as stop:
            status = int(stop.code or 0)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(("args", "message"), [
    (["--n", "5,6", "--weights", "{matrix}"], "--n 5,6 but --weights"),
    (["--n", "6:8", "--fix", "0,6"], "--fix 0,6 is off the 6 x 6 board"),
    (["--n", "8", "--fixed", "{n6}"], "--n 8 but"),
    (["--weights", "none", "--minimize"], "--minimize needs weights (costs): --weights none"),
    (["--weights", "random", "--white", "2"], "--white set the chess colours' values"),
    (["--costs", "{matrix}", "--black", "2"], "--black set the chess colours' values"),
    (["--fix", "0,0", "--fix", "1,1"], "attack"),
    (["--fix", "0,0", "--fix", "0,0"], "--fix 0,0 is given twice"),
    (["--param", "sense=min"], "--param sense: set it with --minimize"),
    (["--param", "fixed=[[0,0]]"], "--param fixed: set it with --fix/--fixed"),
    (["--black", "3", "--param", "black=4"], "--black and --param black"),
    (["--weights", "chesss"], "--weights takes chess, none, random, toulbar2 or a weights"),
    (["--weights", "{missing}"], "--weights: file not found"),
    (["--weights", "{matrix}", "--costs", "{matrix}"], "not allowed with argument"),
    (["--black", "inf"], "--black"),
])
def test_instance_refusals_exit_2_in_one_line(args: list[str], message: str,
                                             tmp_path: Path) -> None:
    matrix, _ = _files(tmp_path)
    n6 = tmp_path / "n6.txt"
    n6.write_text("letting n = 6\nletting init = [[0, 1]]\n")
    names = {"{matrix}": str(matrix), "{n6}": str(n6), "{missing}": str(tmp_path / "no.csv")}
    status, out, err = refused("--methods", "highs", *(names.get(a, a) for a in args))
    lines = err.strip().splitlines()
    assert status == 2 and out == "", err
    assert len(lines) == 1 and lines[0].startswith("nqmip-compare: error:"), err
    assert message in lines[0], lines[0]


def test_resume_refuses_a_file_of_another_instance(tmp_path: Path) -> None:
    """A records file of a sweep with fixed queens, resumed without them (or with costs):
    every cell would run again, so it is refused, the instances named."""
    path = tmp_path / "runs.jsonl"
    grid = {"n": [5], "methods": ["highs"], "weights": "chess", "seeds": [0],
            "time_limit": 5.0, "target": "auto", "warm_start": None, "params": [],
            "instance": {"sense": "max", "fixed": [[0, 1]]}}
    path.write_text(json.dumps({"nqmip_compare_grid": grid}) + "\n")
    for extra in ([], ["--fix", "0,1", "--minimize"]):
        status, _, err = refused("--n", "5", "--methods", "highs", "--time-limit", "5",
                                 "--resume", str(path), *extra)
        assert status == 2, err
        assert "max, fixed 0,1 in the file" in err and len(err.strip().splitlines()) == 1
    args = build_parser().parse_args(["--n", "5", "--methods", "highs", "--time-limit", "5",
                                      "--resume", str(path), "--fix", "0,1"])
    args.argv = []
    plan = make_plan(args)  # the same instance: resumed
    assert plan.writer is not None
    plan.writer.close()
    assert [c.fixed for c in plan.cells] == [((0, 1),)]


def test_a_sweep_with_costs_and_fixed_queens_through_the_real_command(
        tmp_path: Path) -> None:
    """Each run's own process gets the instance (a weights file's matrix, the costs, the
    fixed queen): the rows, the JSON summary, the CSV and the target all say so."""
    matrix, _ = _files(tmp_path)
    out = tmp_path / "runs.jsonl"
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "compare.py"),
                        "--costs", str(matrix), "--fix", "b1", "--methods", "highs,sa",
                        "--time-limit", "5", "--json", "--no-progress",
                        "--output", str(out), "--csv", str(tmp_path / "s.csv")],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    optimum = nqmip.solve(6, np.loadtxt(matrix, delimiter=","), fixed=[(0, 1)], sense="min",
                          method="highs")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    header, runs = rows[0]["nqmip_compare_grid"], rows[1:]
    assert header["instance"]["sense"] == "min" and header["instance"]["fixed"] == [[0, 1]]
    assert header["instance"]["weights_file"] == str(matrix)
    assert {r["method"] for r in runs} == {"highs", "sa"}
    for r in runs:
        assert r["sense"] == "min" and r["fixed"] == [[0, 1]] and r["placement"][0] == 1
        assert r["objective"] == pytest.approx(optimum.objective)
    summary = json.loads(p.stdout)["summary"]
    assert {(e["sense"], json.dumps(e["fixed"]), e["target"]) for e in summary} == {
        ("min", "[[0, 1]]", optimum.objective)}
    import csv

    table = list(csv.DictReader(io.StringIO((tmp_path / "s.csv").read_text())))
    assert {(e["sense"], e["fixed"]) for e in table} == {("min", "0,1")}
