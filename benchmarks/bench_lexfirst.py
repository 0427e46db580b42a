"""The lexicographically first solution (OEIS A141843) by nqmip's exact search, per n.

Each n runs the lexicographic descent (``nqmip.lex.descent``) with one prefix oracle
(``--oracle first-fail``, the default; ``sat``; ``portfolio``) or the row-ordered search
(``--oracle search``) under a time limit, in a fresh process per n (numba's cache and the
SAT solver loaded first and not timed). A row says what was proven: the whole first
solution, or at the limit the leading rows proven minimal. Every solution is verified; with
``--check`` each proven one is re-derived by ``tools/check_lexfirst.py`` (CP-SAT, or with
``--check sat`` CaDiCaL, refutes every smaller prefix).

    python benchmarks/bench_lexfirst.py --n 4-45 --time-limit 60 --check
    python benchmarks/bench_lexfirst.py --n 46-61 --time-limit 600
    python benchmarks/bench_lexfirst.py --table        # docs/lex-first.md from the results
    python benchmarks/bench_lexfirst.py --compare --n 28-33 --oracle search,first-fail,sat
    python benchmarks/bench_lexfirst.py --compare --runs 1 --record --check sat \
        --n 30-35,37 --oracle first-fail,first-fail@1,first-fail@2   # cube-and-conquer

An oracle ``X@W`` is the descent with oracle X by cube-and-conquer on W local processes
(``nqmip.lex.cubes``; the pool is started and its kernels loaded before the clock, as
the kernels are for every route).

Rows are appended to benchmarks/results/lexfirst.jsonl (in the table, the latest row per n,
a settled row before an unsettled one). The machine is shared and noisy: times are single
runs, nodes and questions are exact.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "benchmarks" / "results" / "lexfirst.jsonl"
#: Each cube-and-conquer run's log (``CubeOracle.log``: what each split question and each
#: cube cost), read by benchmarks/simulate_cubes.py.
CUBE_LOGS = ROOT / "benchmarks" / "results" / "lexfirst_cubes.jsonl"
DOC = ROOT / "docs" / "lex-first.md"

#: OEIS A141843 lists n <= 61 (to 45 by search, 46-47 Engelhardt and Pearson, 48-55
#: Schubert, 56-61 Fischetti and Salvagnin); the same paper (arXiv 1907.08246) also solved
#: these odd sizes. n = 62 is the first open one.
OEIS_UP_TO = 61
PAPER_ODD = (63, 65, 67, 69, 71, 73, 77, 79, 85, 91, 93, 97, 101, 103, 109, 115)


def literature(n: int) -> str:
    if n <= OEIS_UP_TO:
        return "known (OEIS A141843)"
    if n in PAPER_ODD:
        return "known (Fischetti-Salvagnin 2019)"
    return "open"


def parse_sizes(text: str) -> list[int]:
    sizes: list[int] = []
    for part in text.split(","):
        if "-" in part:
            low, high = part.split("-")
            sizes.extend(range(int(low), int(high) + 1))
        else:
            sizes.append(int(part))
    return sizes


def run_one(n: int, time_limit: float, oracle: str) -> dict[str, object]:
    """One n in this process (the child side of :func:`measure`): the descent with
    ``oracle``, or the row-ordered search (``oracle == "search"``)."""
    from nqmip.budget import Deadline
    from nqmip.instance import make_instance
    from nqmip.lex import first_solution
    from nqmip.lex.descent import descend, make_oracle
    from nqmip.verify import is_solution

    if oracle == "search":
        first_solution(8)  # load the compiled kernels
        begin = time.perf_counter()
        found = first_solution(n, deadline=Deadline(time_limit))
        seconds = time.perf_counter() - begin
        row: dict[str, object] = {
            "complete": found.complete, "proven_rows": found.proven_rows,
            "placement": found.placement, "nodes": found.nodes,
            "oracle_nodes": found.oracle_nodes, "oracle_from": found.oracle_from,
            "method": "propagation + first-fail prefix oracle"
            if found.oracle_from >= 0 else "propagation"}
    else:
        kind, _, workers = oracle.partition("@")
        descend(make_instance(8), make_oracle(kind, 8))  # load the kernels and solver
        log: list[dict[str, Any]] | None = None
        if workers:
            run, seconds, log = _cubes(n, kind, int(workers), time_limit)
        else:
            begin = time.perf_counter()
            run = descend(make_instance(n), make_oracle(oracle, n), Deadline(time_limit))
            seconds = time.perf_counter() - begin
        row = {"complete": run.complete, "proven_rows": run.proven_rows,
               "placement": run.placement, "questions": run.questions,
               "improvements": run.improvements, "stats": run.stats,
               "nodes": run.stats.get("ff_nodes", 0),
               "row_seconds": [round(t, 2) for t in run.row_seconds],
               "pending": run.pending,
               "method": f"descent ({run.oracle}"
               + (f", {workers} processes)" if workers else ")")}
        if log is not None:
            row["cube_log"] = log
    placement = row["placement"]
    if placement is not None and not is_solution(placement):  # type: ignore[arg-type]
        raise RuntimeError(f"n = {n}: the search returned a non-solution")
    row["placement"] = None if placement is None else [c + 1 for c in placement]  # type: ignore[attr-defined]
    return {"n": n, "time_limit": time_limit, "seconds": round(seconds, 3), **row}


def _cubes(n: int, kind: str, workers: int, time_limit: float
           ) -> tuple[Any, float, list[dict[str, Any]]]:
    """The descent by cube-and-conquer on ``workers`` processes, started before the clock;
    its seconds and its cubes' log."""
    from nqmip.budget import Deadline
    from nqmip.instance import make_instance
    from nqmip.lex.cubes import CubeOracle, Workers
    from nqmip.lex.descent import descend

    pool = Workers(workers)
    pool.ready()
    try:
        begin = time.perf_counter()
        oracle = CubeOracle(kind, n, pool, log=True)
        try:
            run = descend(make_instance(n), oracle, Deadline(time_limit))
        finally:
            oracle.close()
        return run, time.perf_counter() - begin, oracle.log or []
    finally:
        pool.close()


def check_row(row: dict[str, object], route: str, per_call: float) -> None:
    """Re-derive a settled row's first solution by tools/check_lexfirst.py."""
    cols = " ".join(map(str, row["placement"]))  # type: ignore[call-overload]
    begin = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "check_lexfirst.py"),
                           "--n", str(row["n"]), "--columns", cols, "--route", route,
                           "--per-call", str(per_call)], capture_output=True, text=True)
    row["checked"] = done.returncode == 0
    row["check_route"] = route
    row["check_seconds"] = round(time.perf_counter() - begin, 1)


def measure(n: int, time_limit: float, check: str | None, oracle: str,
            per_call: float = 60.0) -> dict[str, object]:
    out = subprocess.run([sys.executable, __file__, "--child", str(n), "--time-limit",
                          str(time_limit), "--oracle", oracle], capture_output=True,
                         text=True, check=True)
    row: dict[str, object] = json.loads(out.stdout)
    log = row.pop("cube_log", None)
    if log is not None:  # kept apart: hundreds of entries a run
        CUBE_LOGS.parent.mkdir(parents=True, exist_ok=True)
        with CUBE_LOGS.open("a") as f:
            f.write(json.dumps({k: row[k] for k in ("n", "time_limit", "seconds", "complete",
                                                    "proven_rows", "method")}
                               | {"oracle": oracle, "log": log}) + "\n")
    if check and row["complete"]:
        check_row(row, check, per_call)
    return row


def _work(row: dict[str, object]) -> str:
    """What a row's search did: the descent's questions (improvements) and nodes, or the
    row-ordered search's nodes and oracle nodes."""
    if "questions" in row:
        stats = row.get("stats") or {}
        sat = stats.get("sat_calls") if isinstance(stats, dict) else None
        extra = f", {sat} SAT questions" if sat else ""
        return (f"{row['questions']} questions ({row['improvements']} improved), "
                f"{row['nodes']:,} nodes{extra}")
    return f"{row['nodes']:,} nodes + {row['oracle_nodes']:,} oracle nodes"


def write_table() -> None:
    rows: dict[int, dict[str, object]] = {}
    for line in RESULTS.read_text().splitlines():
        row = json.loads(line)
        old = rows.get(int(row["n"]))
        if old is None or row["complete"] or not old["complete"]:
            rows[int(row["n"])] = row  # the latest row, a settled one before an unsettled
    lines = [
        "| n | first solution (1-based) or proven prefix | proven | time (s) | work | "
        "method | literature |",
        "|---:|---|---|---:|---|---|---|"]
    for n in sorted(rows):
        row = rows[n]
        placement = row["placement"] or []
        k = int(row["proven_rows"])  # type: ignore[call-overload]
        shown = " ".join(map(str, placement if row["complete"] else placement[:k]))  # type: ignore[index]
        if row["complete"]:
            proven = "first"
            if row.get("checked"):
                proven += f" (checked, {row.get('check_route', 'cpsat')})"
        else:
            proven = f"{k} rows at {row['time_limit']:g} s limit"
        lines.append(f"| {n} | {shown or '-'} | {proven} | {row['seconds']} | {_work(row)} "
                     f"| {row['method']} | {literature(n)} |")
    text = DOC.read_text()
    begin, end = "<!-- table:start -->", "<!-- table:end -->"
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    DOC.write_text(head + begin + "\n" + "\n".join(lines) + "\n" + end + tail)
    print("\n".join(lines))


def compare(sizes: list[int], time_limit: float, oracles: list[str], runs: int = 3,
            record: bool = False, check: str | None = None, per_call: float = 60.0) -> None:
    """The routes side by side in one process, each n: median seconds of ``runs`` runs
    (inf: not settled within the limit) and the ratio of each to the first route. With
    ``record`` every run is appended to the results; with ``check`` the first solution of
    each n is checked once (the routes must agree on it; every settled row says so)."""
    import statistics

    print(f"{'n':>4} " + " ".join(f"{o:>14}" for o in oracles) + "  ratios to the first")
    for n in sizes:
        medians = []
        rows = []
        for oracle in oracles:
            times = []
            for _ in range(runs):
                row = measure(n, time_limit, None, oracle)
                rows.append(row)
                times.append(row["seconds"] if row["complete"] else float("inf"))
            medians.append(statistics.median(times))  # type: ignore[type-var]
        settled = {tuple(r["placement"]) for r in rows if r["complete"]}  # type: ignore[call-overload]
        if len(settled) > 1:
            raise RuntimeError(f"n = {n}: the routes disagree on the first solution")
        if check and settled:
            first = next(r for r in rows if r["complete"])
            check_row(first, check, per_call)
            for r in rows:
                if r["complete"]:
                    r.update({k: first[k] for k in ("checked", "check_route",
                                                    "check_seconds")})
        if record:
            with RESULTS.open("a") as f:
                for r in rows:
                    f.write(json.dumps(r) + "\n")
        ratios = [medians[0] / m if m > 0 else float("nan") for m in medians[1:]]
        checked = f"  checked={rows[0].get('checked')}" if check and settled else ""
        print(f"{n:>4} " + " ".join(f"{m:>14.3f}" for m in medians) + "  "
              + " ".join(f"{r:.2f}" for r in ratios) + checked, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="4-33", help="sizes: 4-33 or 34,35,63")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--oracle", default="first-fail",
                        help="the descent's oracle (first-fail, sat, portfolio) or 'search' "
                        "(the row-ordered search); with --compare a comma-separated list")
    parser.add_argument("--check", nargs="?", const="cpsat", choices=("cpsat", "sat"),
                        help="re-derive each proven first solution by tools/check_lexfirst.py "
                        "(route: cpsat, the default, or sat)")
    parser.add_argument("--per-call", type=float, default=60.0,
                        help="the checker's seconds per refutation (default 60)")
    parser.add_argument("--table", action="store_true", help="write docs/lex-first.md")
    parser.add_argument("--compare", action="store_true",
                        help="the routes of --oracle side by side (median of 3 runs)")
    parser.add_argument("--runs", type=int, default=3, help="--compare: runs per route")
    parser.add_argument("--record", action="store_true",
                        help="--compare: append every run to the results")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(run_one(args.child, args.time_limit, args.oracle)))
        return 0
    if args.table:
        write_table()
        return 0
    if args.compare:
        compare(parse_sizes(args.n), args.time_limit, args.oracle.split(","), args.runs,
                args.record, args.check, args.per_call)
        return 0
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    print(f"{'n':>4} {'proven':>8} {'time':>8}  work; solution/prefix")
    for n in parse_sizes(args.n):
        row = measure(n, args.time_limit, args.check, args.oracle, args.per_call)
        with RESULTS.open("a") as f:
            f.write(json.dumps(row) + "\n")
        placement = row["placement"] or []
        shown = placement if row["complete"] else placement[: int(row["proven_rows"])]  # type: ignore[index, call-overload]
        checked = f" checked={row['checked']}" if "checked" in row else ""
        print(f"{n:>4} {'first' if row['complete'] else str(row['proven_rows']) + ' rows':>8} "
              f"{row['seconds']:>8}  {_work(row)}{checked}; {' '.join(map(str, shown))}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
