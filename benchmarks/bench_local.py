"""Benchmark: tabu search and simulated annealing on n = 8 ... 10^5 (feasibility), and on
weighted boards against the exact optimum.

Times are the heuristic's own ``wall_time`` (numba compile excluded; reported apart) and
the end-to-end ``nqmip.solve`` time, which adds the Result and the independent check.
Medians over several seeded runs, because the machine is shared and noisy.

    python benchmarks/bench_local.py            # prints the tables and writes the docs
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_large_n import write_section

import nqmip

START, END = "<!-- bench_local:start -->", "<!-- bench_local:end -->"


def timed_solve(*args: object, **kwargs: object) -> tuple[nqmip.Result, float]:
    start = time.perf_counter()
    result = nqmip.solve(*args, **kwargs)  # type: ignore[arg-type]
    return result, time.perf_counter() - start - (result.timing.compile or 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()

    from rich.console import Console
    from rich.table import Table

    console = Console()
    compile_times: dict[str, float] = {}
    for method in ("tabu", "sa"):  # first call: compile or load numba's cache, timed apart
        compile_times[method] = nqmip.solve(8, method=method, seed=0).timing.compile or 0.0

    header = ["method", "n", "solved", "wall (median)", "min–max", "end-to-end",
              "iterations", "evaluations"]
    feas_lines = ["| " + " | ".join(header) + " |", "|" + "---:|" * len(header)]
    table = Table(title="feasibility: compile excluded, medians")
    for h in header:
        table.add_column(h, justify="right")
    for method in ("tabu", "sa"):
        for n in (8, 64, 1024, 10**4, 10**5):
            runs = [timed_solve(n, method=method, seed=seed) for seed in range(args.runs)]
            solved = sum(r.status == nqmip.Status.OPTIMAL for r, _ in runs)
            walls = [r.wall_time for r, _ in runs]
            cells = [method, str(n), f"{solved}/{len(runs)}",
                     f"{statistics.median(walls) * 1e3:.2f} ms",
                     f"{min(walls) * 1e3:.2f}–{max(walls) * 1e3:.2f} ms",
                     f"{statistics.median(e for _, e in runs) * 1e3:.1f} ms",
                     f"{statistics.median(r.counters.iterations or 0 for r, _ in runs):,.0f}",
                     f"{statistics.median(r.counters.evaluations or 0 for r, _ in runs):,.0f}"]
            table.add_row(*cells)
            feas_lines.append("| " + " | ".join(cells) + " |")
    console.print(table)

    whead = ["weights", "n", "exact (HiGHS)", "tabu: min / median / max", "tabu wall",
             "sa: min / median / max", "sa wall"]
    weighted_lines = ["| " + " | ".join(whead) + " |", "|" + "---:|" * len(whead)]
    wtable = Table(title="weighted: default budgets, objective over the seeds")
    for h in whead:
        wtable.add_column(h, justify="right")
    for weights in ("chess", "random"):
        for n in (8, 12, 16):
            exact = nqmip.solve(n, weights, method="highs", weights_seed=n, time_limit=60)
            cells = [weights, str(n), f"{exact.objective:g} ({exact.status})"]
            for method in ("tabu", "sa"):
                runs = [nqmip.solve(n, weights, method=method, seed=seed, weights_seed=n)
                        for seed in range(args.runs)]
                values = [r.objective or 0.0 for r in runs]
                cells.append(f"{min(values):g} / {statistics.median(values):g} / "
                             f"{max(values):g}")
                cells.append(f"{statistics.median(r.wall_time for r in runs) * 1e3:.0f} ms")
            wtable.add_row(*cells)
            weighted_lines.append("| " + " | ".join(cells) + " |")
    console.print(wtable)
    note = (f"Compile (or cache load) time, reported apart: tabu {compile_times['tabu']:.2f} s, "
            f"sa {compile_times['sa']:.2f} s. {args.runs} seeds per row. Measured "
            f"{time.strftime('%Y-%m-%d')} with `python benchmarks/bench_local.py` on the "
            "shared 2-core machine.")
    console.print(note)
    if not args.no_doc:
        body = "\n".join(["**Feasibility**", "", *feas_lines, "",
                          "**Weighted** (random weights: integers 1..9, `weights_seed=n`)", "",
                          *weighted_lines, "", note])
        write_section(START, END, body)


if __name__ == "__main__":
    main()
