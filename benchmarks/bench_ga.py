"""Genetic algorithm benchmark: the seeds' presets against our default.

    python benchmarks/bench_ga.py                # full run (about 2 minutes on 2 cores)
    python benchmarks/bench_ga.py --runs 200 --big-seeds 1 --skip-000-big   # quick look

Part 1 (n = 8, ``--runs`` seeded runs per configuration, seeds 0..runs-1): evaluations to
the first solution, counted as documented in docs/genetic-algorithm.md (every initial
individual, every child, every swap tried by the local improvement is one evaluation).
Part 2 (n = 1000): seed 000's run (preset "000", population 1000) and our default, time to
a solution after compilation. Part 3: numba compile time, cold (empty cache) and from the
cache, each in a fresh process (``nqmip.compare.run_in_process``).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from nqmip.compare import run_in_process
from nqmip.heuristics.ga.run import solve_ga
from nqmip.instance import make_instance
from nqmip.verify import is_solution

console = Console(width=150)

#: (label, solve_ga parameters) for the n = 8 table.
EIGHT_QUEENS: list[tuple[str, dict[str, Any]]] = [
    ("001 preset (best of 5)", {"preset": "crossfill-ea"}),
    ("001 preset, uniform parents (its code's bug)",
     {"preset": "crossfill-ea", "selection": "random"}),
    ("004 preset", {"preset": "roulette-generational"}),
    ("000 preset (population 1000)", {"preset": "chu-beasley"}),
    ("default", {}),
    ("default, population 1000 (restarts only)", {"population": 1000}),
]


def eight_queens(runs: int) -> None:
    instance = make_instance(8)
    solve_ga(instance, seed=0)  # compile / load the cache outside the timings
    table = Table(title=f"n = 8, {runs} seeded runs each: evaluations to the first solution")
    for column in ("configuration", "solved", "in initial pop.", "mean", "median", "std",
                   "best", "worst", "time/run"):
        table.add_column(column, justify="left" if column == "configuration" else "right")
    table.add_row("001's paper (30 runs)", "30/30", "8", "271.3", "214", "223.0", "100",
                  "1040", "-", style="dim")
    for label, params in EIGHT_QUEENS:
        evaluations = []
        solved = in_initial = 0
        start = time.perf_counter()
        for seed in range(runs):
            result = solve_ga(instance, seed=seed, **params)
            if result.placement is not None:
                assert is_solution(result.placement)
                solved += 1
            in_initial += bool(result.extra["found_in_initial"])
            evaluations.append(result.counters.evaluations)
        per_run = (time.perf_counter() - start) / runs
        ev = np.array(evaluations)
        table.add_row(label, f"{solved}/{runs}", str(in_initial), f"{ev.mean():.1f}",
                      f"{np.median(ev):.0f}", f"{ev.std(ddof=1):.1f}", str(ev.min()),
                      str(ev.max()), f"{per_run * 1e3:.2f} ms")
    console.print(table)


def big(seeds: int, seeds_000: int) -> None:
    n = 1000
    instance = make_instance(n)
    solve_ga(make_instance(8), seed=0)
    table = Table(title=f"n = {n}: time to a solution (after compilation)")
    for column in ("configuration", "seed", "solved", "wall time", "evaluations",
                   "iterations", "improvements", "in initial pop."):
        table.add_column(column, justify="left" if column == "configuration" else "right")
    rows: list[tuple[str, dict[str, Any], int]] = [
        ("default", {}, seeds),
        ("000 preset, partners = all", {"preset": "chu-beasley", "partners": "all"}, seeds_000),
        ("000 preset (population 1000)", {"preset": "chu-beasley"}, seeds_000),
    ]
    for label, params, count in rows:
        times = []
        for seed in range(count):
            result = solve_ga(instance, seed=seed, **params)
            ok = result.placement is not None and is_solution(result.placement)
            times.append(result.wall_time)
            table.add_row(label, str(seed), "yes" if ok else "no", f"{result.wall_time:.3f} s",
                          str(result.counters.evaluations), str(result.counters.iterations),
                          str(result.counters.improvements), str(result.extra["found_in_initial"]))
        if count > 1:
            median = statistics.median(times)
            table.add_row(f"{label}: median of {count}", "", "", f"{median:.3f} s",
                          "", "", "", "", style="bold")
    console.print(table)


def compile_probe(_: object) -> float | None:
    """In a fresh process: the GA's compile (or cache load) time on its first call."""
    return solve_ga(make_instance(8), seed=0).timing.compile


def compile_times() -> None:
    table = Table(title="numba compile time of the GA kernels (fresh process each)")
    table.add_column("cache")
    table.add_column("compile_time", justify="right")
    with tempfile.TemporaryDirectory() as cache:
        for label in ("cold (empty cache)", "warm (loaded from cache)"):
            outcome = run_in_process(f"{Path(__file__).resolve()}:compile_probe", None,
                                     hard_limit=600, env={"NUMBA_CACHE_DIR": cache})
            if outcome.status != "ok":
                raise RuntimeError(f"compile probe: {outcome.status}: {outcome.message}")
            table.add_row(label, f"{float(outcome.value):.2f} s")
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1000, help="seeded runs per n=8 row")
    parser.add_argument("--big-seeds", type=int, default=11, help="seeds for default n=1000")
    parser.add_argument("--seeds-000", type=int, default=3, help="seeds for preset 000 n=1000")
    parser.add_argument("--skip-000-big", action="store_true", help="skip 000 at n=1000")
    parser.add_argument("--skip-compile", action="store_true")
    args = parser.parse_args()
    eight_queens(args.runs)
    big(args.big_seeds, 0 if args.skip_000_big else args.seeds_000)
    if not args.skip_compile:
        compile_times()


if __name__ == "__main__":
    main()
