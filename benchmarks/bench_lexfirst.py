"""The lexicographically first solution (OEIS A141843) by nqmip's exact search, per n.

Each n runs ``nqmip.lex.first_solution`` (propagation + first-fail prefix oracle) under a
time limit, in a fresh process per n (``/usr/bin/time``-like isolation, numba's cache
loaded first and not timed). A row says what was proven: the whole first solution, or at
the limit the leading rows proven minimal. Every solution is verified; with ``--check`` each
proven one is re-derived by ``tools/check_lexfirst.py`` (CP-SAT refutes every smaller
prefix).

    python benchmarks/bench_lexfirst.py --n 4-33 --time-limit 60
    python benchmarks/bench_lexfirst.py --n 34-61 --time-limit 60
    python benchmarks/bench_lexfirst.py --n 63,65,67 --time-limit 60
    python benchmarks/bench_lexfirst.py --table        # docs/lex-first.md from the results
    python benchmarks/bench_lexfirst.py --compare --n 28-33   # oracle on/off, median of 3

Rows are appended to benchmarks/results/lexfirst.jsonl (the latest row per n and limit
wins in the table). The machine is shared and noisy: times are single runs, nodes are exact.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "benchmarks" / "results" / "lexfirst.jsonl"
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


def run_one(n: int, time_limit: float) -> dict[str, object]:
    """One n in this process (the child side of :func:`measure`)."""
    from nqmip.budget import Deadline
    from nqmip.lex import first_solution
    from nqmip.verify import is_solution

    first_solution(8)  # load the compiled kernels
    begin = time.perf_counter()
    found = first_solution(n, deadline=Deadline(time_limit))
    seconds = time.perf_counter() - begin
    if found.placement is not None and not is_solution(found.placement):
        raise RuntimeError(f"n = {n}: the search returned a non-solution")
    return {"n": n, "time_limit": time_limit, "seconds": round(seconds, 3),
            "complete": found.complete, "proven_rows": found.proven_rows,
            "placement": None if found.placement is None else [c + 1 for c in found.placement],
            "nodes": found.nodes, "oracle_nodes": found.oracle_nodes,
            "oracle_from": found.oracle_from,
            "method": "propagation + first-fail prefix oracle"
            if found.oracle_from >= 0 else "propagation"}


def measure(n: int, time_limit: float, check: bool) -> dict[str, object]:
    out = subprocess.run([sys.executable, __file__, "--child", str(n), "--time-limit",
                          str(time_limit)], capture_output=True, text=True, check=True)
    row: dict[str, object] = json.loads(out.stdout)
    if check and row["complete"]:
        cols = " ".join(map(str, row["placement"]))  # type: ignore[arg-type]
        done = subprocess.run([sys.executable, str(ROOT / "tools" / "check_lexfirst.py"),
                               "--n", str(n), "--columns", cols], capture_output=True,
                              text=True)
        row["checked"] = done.returncode == 0
    return row


def write_table() -> None:
    rows: dict[int, dict[str, object]] = {}
    for line in RESULTS.read_text().splitlines():
        row = json.loads(line)
        rows[int(row["n"])] = row
    lines = [
        "| n | first solution (1-based) or proven prefix | proven | time (s) | nodes | "
        "oracle nodes | method | literature |",
        "|---:|---|---|---:|---:|---:|---|---|"]
    for n in sorted(rows):
        row = rows[n]
        placement = row["placement"] or []
        k = int(row["proven_rows"])  # type: ignore[call-overload]
        shown = " ".join(map(str, placement if row["complete"] else placement[:k]))  # type: ignore[index]
        if row["complete"]:
            proven = "first" + (" (checked)" if row.get("checked") else "")
        else:
            proven = f"{k} rows at {row['time_limit']:g} s limit"
        lines.append(f"| {n} | {shown or '-'} | {proven} | {row['seconds']} | {row['nodes']} "
                     f"| {row['oracle_nodes']} | {row['method']} | {literature(n)} |")
    text = DOC.read_text()
    begin, end = "<!-- table:start -->", "<!-- table:end -->"
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    DOC.write_text(head + begin + "\n" + "\n".join(lines) + "\n" + end + tail)
    print("\n".join(lines))


def compare(sizes: list[int], time_limit: float, runs: int = 3) -> None:
    """Propagation alone against propagation + the prefix oracle: median seconds of
    ``runs`` runs, nodes (exact), side by side."""
    import statistics

    from nqmip.budget import Deadline
    from nqmip.lex import first_solution

    first_solution(8)
    first_solution(24)  # both kernels' paths loaded
    print(f"{'n':>4} {'plain s':>9} {'plain nodes':>12} {'oracle s':>9} {'lex+oracle nodes':>17}"
          f" {'ratio':>6}")
    for n in sizes:
        cells = []
        for oracle_from in (-1, 0):
            times = []
            for _ in range(runs):
                found = first_solution(n, deadline=Deadline(time_limit), oracle_from=oracle_from)
                times.append(found.seconds if found.complete else float("inf"))
            cells.append((statistics.median(times), found.nodes + found.oracle_nodes))
        ratio = cells[0][0] / cells[1][0] if cells[1][0] > 0 else float("nan")
        print(f"{n:>4} {cells[0][0]:>9.3f} {cells[0][1]:>12} {cells[1][0]:>9.3f} "
              f"{cells[1][1]:>17} {ratio:>6.2f}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="4-33", help="sizes: 4-33 or 34,35,63")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--check", action="store_true",
                        help="re-derive each proven first solution with CP-SAT")
    parser.add_argument("--table", action="store_true", help="write docs/lex-first.md")
    parser.add_argument("--compare", action="store_true",
                        help="propagation alone vs + prefix oracle (median of 3 runs)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(run_one(args.child, args.time_limit)))
        return 0
    if args.table:
        write_table()
        return 0
    if args.compare:
        compare(parse_sizes(args.n), args.time_limit)
        return 0
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    print(f"{'n':>4} {'proven':>8} {'time':>8} {'nodes':>11} {'oracle':>11}  solution/prefix")
    for n in parse_sizes(args.n):
        row = measure(n, args.time_limit, args.check)
        with RESULTS.open("a") as f:
            f.write(json.dumps(row) + "\n")
        placement = row["placement"] or []
        shown = placement if row["complete"] else placement[: int(row["proven_rows"])]  # type: ignore[index, call-overload]
        print(f"{n:>4} {'first' if row['complete'] else str(row['proven_rows']) + ' rows':>8} "
              f"{row['seconds']:>8} {row['nodes']:>11} {row['oracle_nodes']:>11}  "
              f"{' '.join(map(str, shown))}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
