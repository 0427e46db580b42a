"""bnb's LP search on Dask: one process, a cluster of 1 one-thread worker and one of 2,
side by side on the toulbar2 family (docs/cluster.md).

    python benchmarks/bench_cluster.py --n 36,38 --seeds 123456789
    python benchmarks/bench_cluster.py --n 36 --workers 1,2 --scheduler tcp://127.0.0.1:8786

Both local clusters (``LocalCluster``, one-thread worker processes, as
``nqmip.solve(method="bnb", workers=N)`` starts them) are started once, before the runs,
and their workers load the kernels first, so a row's time is the solve's own. With
``--scheduler`` the runs go to that cluster instead (its workers, whatever their number,
under the name of the first of ``--workers``). First, per cluster, the cost of a task that
does nothing (:func:`task_overhead`). Per row: the proof's nodes and wall time, the tasks,
the overhead per task (the worker time outside tasks, workers x wall - the tasks' own
seconds, over the tasks: the ramp-up, the waits at the end of each round, the scheduling)
and the tasks' wall and CPU time per node (where the CPU is short of the wall, the
machine's other processes had the core). Rows go to benchmarks/results/cluster.jsonl with every
task's seconds, nodes, parent (the task whose hand-back it was, -1: the ramp-up's) and
open nodes handed back, which benchmarks/simulate_cluster.py reads. One 1-worker run with
a limit: ``--n 48 --seeds 1 --workers 1 --no-single --time-limit 600``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "benchmarks" / "results" / "cluster.jsonl"


def _warm() -> None:
    from nqmip.bnb.search import warm_up

    warm_up()


def solve_row(n: int, seed: int, mode: str, client: Any, time_limit: float) -> dict[str, Any]:
    import nqmip
    from nqmip.instances.families import toulbar2_tutorial

    instance = toulbar2_tutorial(n, seed)
    begin = time.perf_counter()
    if client is None:
        result = nqmip.solve(instance, method="bnb", threads=1, time_limit=time_limit)
    else:
        result = nqmip.solve(instance, method="bnb", scheduler=client, time_limit=time_limit)
    wall = time.perf_counter() - begin
    cluster = result.extra.get("cluster", {})
    seconds = cluster.get("task_seconds", [])
    workers = cluster.get("workers", 1)
    tasks = len(seconds)
    overhead = (workers * wall - sum(seconds)) / tasks if tasks else None
    return {"n": n, "seed": seed, "mode": mode, "status": result.status.value,
            "objective": result.objective, "bound": result.bound,
            "nodes": result.counters.nodes, "wall": round(wall, 2), "workers": workers,
            "tasks": tasks, "task_seconds": seconds, "rounds": cluster.get("rounds"),
            "task_cpu": cluster.get("task_cpu"), "task_nodes": cluster.get("task_nodes"),
            "task_parent": cluster.get("task_parent"),
            "task_handed": cluster.get("task_handed"),
            "overhead_per_task": None if overhead is None else round(overhead, 4)}


def task_overhead(client: Any, n: int, tasks: int = 200) -> float:
    """Seconds a worker spends per task that does nothing (its subtree pruned at once by
    an unreachable floor): submitting it, its two reads of the shared Variables, its
    result back; ``tasks`` of them, as many at once as the cluster has threads."""
    import numpy as np
    from distributed import Variable

    from nqmip.bnb.distributed import Spec, explore
    from nqmip.instances.families import toulbar2_tutorial

    spec = Spec("overhead", "nqmip-bnb-overhead", toulbar2_tutorial(n, 1), 1e18, None,
                0.0, 1)
    Variable(f"{spec.token}-inc", client).set(None)
    Variable(f"{spec.token}-ctl", client).set({"hungry": False, "stop": False})
    upper = np.packbits(np.ones(n * n, np.uint8)).tobytes()
    slots = sum(w["nthreads"] for w in client.scheduler_info()["workers"].values())
    client.gather([client.submit(explore, spec, (), upper, 0.0, None, 1, pure=False)
                   for _ in range(slots)])  # each worker thread's node LP built first
    begin = time.perf_counter()
    client.gather([client.submit(explore, spec, (), upper, 0.0, None, 1, pure=False)
                   for _ in range(tasks)])
    return (time.perf_counter() - begin) * slots / tasks


def _per_node(row: dict[str, Any]) -> str:
    """The tasks' wall and CPU milliseconds per node (their gap: the machine's load)."""
    if not row["tasks"] or not row["nodes"]:
        return "-"
    wall = 1000 * sum(row["task_seconds"]) / row["nodes"]
    return f"{wall:.1f} / {1000 * (row['task_cpu'] or 0.0) / row['nodes']:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", default="36", help="board sizes, comma-separated")
    parser.add_argument("--seeds", default="123456789", help="toulbar2 family seeds")
    parser.add_argument("--workers", default="1,2", help="cluster sizes, comma-separated")
    parser.add_argument("--scheduler", default=None, help="a running scheduler instead")
    parser.add_argument("--no-single", action="store_true",
                        help="leave out the one-process run")
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--overhead-only", action="store_true",
                        help="only the cost of a task that does nothing, per cluster")
    args = parser.parse_args()
    from dask.distributed import Client, LocalCluster

    sizes = [int(w) for w in args.workers.split(",")]
    clients: dict[str, Any] = {}
    with ExitStack() as stack:
        if args.scheduler is not None:
            clients[f"{sizes[0]} workers"] = stack.enter_context(Client(args.scheduler))
        else:
            for size in sizes:
                cluster = stack.enter_context(LocalCluster(
                    n_workers=size, threads_per_worker=1, processes=True,
                    dashboard_address=None))
                clients[f"{size} worker{'s' if size > 1 else ''}"] = \
                    stack.enter_context(Client(cluster))
        for client in clients.values():
            client.run(_warm)
        _warm()
        for mode, client in clients.items():
            cost = task_overhead(client, int(args.n.split(",")[0]))
            print(f"{mode}: {1000 * cost:.1f} ms of a worker per task that does nothing")
        if args.overhead_only:
            return 0
        modes: list[tuple[str, Any]] = ([] if args.no_single else [("1 process", None)])
        modes += list(clients.items())
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        print("| N | seed | run | status | objective | nodes | wall (s) | tasks | "
              "overhead per task (ms) | tasks' wall / CPU per node (ms) |")
        print("| ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for n in (int(v) for v in args.n.split(",")):
            for seed in (int(v) for v in args.seeds.split(",")):
                for mode, client in modes:
                    row = solve_row(n, seed, mode, client, args.time_limit)
                    with RESULTS.open("a") as out:
                        out.write(json.dumps(row) + "\n")
                    per = row["overhead_per_task"]
                    print(f"| {n} | {seed} | {mode} | {row['status']} | "
                          f"{row['objective']:g} | {row['nodes']} | {row['wall']:.1f} | "
                          f"{row['tasks'] or '-'} | "
                          f"{'-' if per is None else f'{1000 * per:.0f}'} | "
                          f"{_per_node(row)} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
