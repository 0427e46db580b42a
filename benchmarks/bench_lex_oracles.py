"""Prefix oracles side by side on the hard refutation questions of the lexicographic descent.

Each question is one the descent stalls on (docs/lex-first.md): the first solution's leading
rows placed, the next row restricted to the columns left of the first solution's; none has
a completion, so the oracle has to refute it. One oracle per process run; the figures are
the oracle's nodes (first-fail) or conflicts (CP-SAT), the wall seconds and the CPU seconds
of the process (every thread).

    python benchmarks/bench_lex_oracles.py --question 34 --oracle first-fail
    python benchmarks/bench_lex_oracles.py --question 34 --oracle cpsat-int --workers 2
    python benchmarks/bench_lex_oracles.py --question 34 --oracle cpsat-bool \
        --params linearization_level=2
    python benchmarks/bench_lex_oracles.py --question 34 --oracle gurobi

The first-fail variants measured beside them (the bound of the matchings, the sums as a
propagator, failed-literal probing with the sums, ``--oracle first-fail-matching``,
``first-fail-filter``, ``first-fail-probe-39``, ``first-fail-free``) are in commit 49074e4
of this script and of nqmip/lex/descent_kernels.py; none was kept (docs/lex-first.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: n -> (the placed rows' columns, 1-based, the asked row's limit, 1-based: columns < it)
QUESTIONS = {
    30: ("1 3 5 2 4 9 11 13 15", 7),
    34: ("1 3 5 2 4 9 11 13 15 6", 18),
    36: ("1 3 5 2 4 9 11 13 15 6 8", 22),
}


def question(n: int) -> tuple[list[tuple[int, int]], int, int]:
    """The placed queens (0-based), the asked row and its limit (0-based, exclusive)."""
    cols, limit = QUESTIONS[n]
    placed = [(r, int(c) - 1) for r, c in enumerate(cols.split())]
    return placed, len(placed), limit - 1


def first_fail(n: int, time_limit: float) -> dict[str, object]:
    from nqmip.budget import Deadline
    from nqmip.lex.descent import FirstFail, ask

    oracle = FirstFail(n)
    ask(FirstFail(8), [], -1, 8, Deadline(None))  # the kernels loaded before the clock
    placed, row, limit = question(n)
    wall, cpu = time.perf_counter(), time.process_time()
    answer = ask(oracle, placed, row, limit, Deadline(time_limit))
    return {"answer": answer, "wall": time.perf_counter() - wall,
            "cpu": time.process_time() - cpu, **oracle.stats()}


def cpsat(n: int, time_limit: float, boolean: bool, workers: int,
          params: dict[str, str]) -> dict[str, object]:
    from ortools.sat import sat_parameters_pb2
    from ortools.sat.python import cp_model

    placed, row, limit = question(n)
    fixed = dict(placed)
    model = cp_model.CpModel()
    if boolean:
        x = [[model.NewBoolVar(f"x{r}_{c}") for c in range(n)] for r in range(n)]
        for i in range(n):
            model.AddExactlyOne(x[i])
            model.AddExactlyOne(x[r][i] for r in range(n))
        for d in range(2 * n - 1):
            model.AddAtMostOne(x[r][d - r] for r in range(n) if 0 <= d - r < n)
            model.AddAtMostOne(x[r][r + d - n + 1] for r in range(n)
                               if 0 <= r + d - n + 1 < n)
        for r, c in fixed.items():
            model.Add(x[r][c] == 1)
        model.AddBoolOr(x[row][:limit])
    else:
        q = [model.NewIntVar(0, n - 1, f"q{r}") for r in range(n)]
        model.AddAllDifferent(q)
        model.AddAllDifferent(q[r] + r for r in range(n))
        model.AddAllDifferent(q[r] - r for r in range(n))
        for r, c in fixed.items():
            model.Add(q[r] == c)
        model.Add(q[row] < limit)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.max_time_in_seconds = time_limit
    for key, value in params.items():
        field = sat_parameters_pb2.SatParameters.DESCRIPTOR.fields_by_name[key]
        kind = {field.TYPE_BOOL: lambda v: v.lower() in ("1", "true"),
                field.TYPE_DOUBLE: float}.get(field.type, int)
        setattr(solver.parameters, key, kind(value))
    wall, cpu = time.perf_counter(), time.process_time()
    status = solver.Solve(model)
    answer = {cp_model.INFEASIBLE: False, cp_model.FEASIBLE: True,
              cp_model.OPTIMAL: True}.get(status)
    return {"answer": answer, "wall": time.perf_counter() - wall,
            "cpu": time.process_time() - cpu, "conflicts": solver.NumConflicts(),
            "branches": solver.NumBranches()}


def gurobi(n: int, time_limit: float, workers: int,
           params: dict[str, str]) -> dict[str, object]:
    """The 0-1 model of the question as a MIP (an integer program, as Fischetti and
    Salvagnin ask theirs), Gurobi with ``workers`` threads."""
    import gurobipy as gp

    placed, row, limit = question(n)
    env = gp.Env(params={"OutputFlag": 0})
    m = gp.Model(env=env)
    x = m.addVars(n, n, vtype=gp.GRB.BINARY)
    for i in range(n):
        m.addConstr(x.sum(i, "*") == 1)
        m.addConstr(x.sum("*", i) == 1)
    for d in range(2 * n - 1):
        m.addConstr(gp.quicksum(x[r, d - r] for r in range(n) if 0 <= d - r < n) <= 1)
        m.addConstr(gp.quicksum(x[r, r + d - n + 1] for r in range(n)
                                if 0 <= r + d - n + 1 < n) <= 1)
    for r, c in placed:
        x[r, c].LB = 1
    m.addConstr(gp.quicksum(x[row, c] for c in range(limit)) == 1)
    m.Params.Threads = workers
    m.Params.TimeLimit = time_limit
    for key, value in params.items():
        m.setParam(key, float(value) if "." in value else int(value))
    wall, cpu = time.perf_counter(), time.process_time()
    m.optimize()
    answer = {gp.GRB.INFEASIBLE: False, gp.GRB.OPTIMAL: True}.get(m.Status)
    return {"answer": answer, "wall": time.perf_counter() - wall,
            "cpu": time.process_time() - cpu, "nodes": int(m.NodeCount)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--question", type=int, choices=sorted(QUESTIONS), required=True)
    parser.add_argument("--oracle", default="first-fail",
                        choices=("first-fail", "cpsat-int", "cpsat-bool", "gurobi"))
    parser.add_argument("--workers", type=int, default=1, help="CP-SAT's workers")
    parser.add_argument("--params", default="",
                        help="CP-SAT parameters, key=value,key=value")
    parser.add_argument("--time-limit", type=float, default=300.0)
    args = parser.parse_args()
    params = dict(p.split("=", 1) for p in args.params.split(",") if p)
    if args.oracle == "first-fail":
        row = first_fail(args.question, args.time_limit)
    elif args.oracle == "gurobi":
        row = gurobi(args.question, args.time_limit, args.workers, params)
    else:
        row = cpsat(args.question, args.time_limit, args.oracle == "cpsat-bool",
                    args.workers, params)
    row = {"question": args.question, "oracle": args.oracle, "workers": args.workers,
           "params": args.params, **row}
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
