"""What bnb's LP search on Dask would take on more workers, from the tasks of a recorded
run (benchmarks/bench_cluster.py's rows in benchmarks/results/cluster.jsonl).

    python benchmarks/simulate_cluster.py --n 36 --workers 8,32,128

A round of the search (nqmip.bnb.rounds) ends before the next starts, so each round is
simulated on its own and the rounds' times add up: the ramp-up in the caller (as
recorded), then the round's tasks on P workers, each costing its recorded seconds plus the
overhead per task measured in the same run. Two figures bracket the makespan:

- ``whole``: the tasks as recorded, none split further, each given to the first worker
  free, longest first (LPT list scheduling): an upper end, since on more workers the idle
  ones make a long task hand its open nodes back;
- ``split``: the round's work spread evenly (its seconds / P, plus one task's overhead per
  task): a lower end, no task too long to share.

Efficiency is the one-worker work (the tasks' seconds) over P x the makespan. With
``--cpu`` the tasks' times are scaled to their CPU time (on a loaded machine a worker gets
part of a core: its wall time is not the work). The model
keeps the recorded tree (the nodes of the run): a larger cluster's incumbents, found in
another order, change it, and the scheduler's own cost per task grows with the tasks.
"""

from __future__ import annotations

import argparse
import heapq
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "cluster.jsonl"


def lpt(seconds: list[float], workers: int) -> float:
    """The makespan of ``seconds`` on ``workers``, longest first to the first one free."""
    free = [0.0] * workers
    for task in sorted(seconds, reverse=True):
        heapq.heapreplace(free, free[0] + task)
    return max(free)


def simulate(row: dict[str, Any], workers: int, cpu: bool = False
             ) -> tuple[float, float, float]:
    """(whole, split, work): the bracket of makespans on ``workers`` and the work; with
    ``cpu`` every task's time scaled by the run's CPU share (its tasks' CPU seconds over
    their wall seconds): as if each worker had a core of its own."""
    seconds = row["task_seconds"]
    overhead = max(row.get("overhead_per_task") or 0.0, 0.0)
    if cpu and row.get("task_cpu"):
        share = row["task_cpu"] / sum(seconds)
        seconds = [s * share for s in seconds]
        overhead *= share
    rounds = row.get("rounds") or [{"tasks": len(seconds), "ramp_up": 0.0}]
    whole = split = 0.0
    at = 0
    for part in rounds:
        tasks = [s + overhead for s in seconds[at: at + part["tasks"]]]
        at += part["tasks"]
        whole += part["ramp_up"] + (lpt(tasks, workers) if tasks else 0.0)
        split += part["ramp_up"] + (sum(tasks) / workers if tasks else 0.0)
    return whole, split, sum(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=None, help="the board size (default: all)")
    parser.add_argument("--workers", default="8,32,128")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--cpu", action="store_true",
                        help="tasks' times scaled to their CPU time (a core per worker)")
    parser.add_argument("--mode", default=None, help="only the runs on this cluster, e.g. "
                                                     "'1 worker'")
    args = parser.parse_args()
    sizes = [int(w) for w in args.workers.split(",")]
    rows = [json.loads(line) for line in args.results.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r.get("task_seconds") and (args.n is None or r["n"] == args.n)
            and (args.mode is None or r["mode"] == args.mode)
            and (not args.cpu or r.get("task_cpu"))]
    if not rows:
        print(f"no cluster run in {args.results}", file=sys.stderr)
        return 1
    print("| N | seed | recorded on | tasks | work (s) | P | makespan (s) | efficiency |")
    print("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        for p in sizes:
            whole, split, work = simulate(row, p, args.cpu)
            print(f"| {row['n']} | {row['seed']} | {row['mode']} | {len(row['task_seconds'])} "
                  f"| {work:.1f} | {p} | {split:.1f} to {whole:.1f} | "
                  f"{work / (p * whole):.0%} to {work / (p * split):.0%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
