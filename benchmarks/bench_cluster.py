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

``--sync 0.1,0.05 --repeat 3``: each cluster run once per value of
``nqmip.bnb.tasks.SYNC_SECONDS`` (how often a task reads the shared incumbent and the
caller's word), the values alternated, ``--repeat`` times; the rows then also carry the
worker processes' CPU seconds (their event loops' too, which answer the reads) and the
caller's (the scheduler of a local cluster runs in it), and first, per cluster, the cost
of one read (:func:`read_cost`). The order of the values turns at each repeat (A B B A):
neither always runs first. The medians per value close the output.
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


def _set_sync(seconds: float) -> float:
    """``SYNC_SECONDS`` of this process's tasks set to ``seconds``; the old value."""
    from nqmip.bnb import tasks

    old, tasks.SYNC_SECONDS = tasks.SYNC_SECONDS, seconds
    return old


def _process_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _reads(token: str, n: int, count: int) -> tuple[float, float, float]:
    """On a worker: ``count`` forced reads of the shared Variables (a task's sync);
    their wall, this thread's CPU and the whole process's CPU, per read."""
    from nqmip.bnb.distributed import Spec
    from nqmip.bnb.tasks import _Shared, _tree_for
    from nqmip.instances.families import toulbar2_tutorial

    tree = _tree_for(Spec("reads", token, toulbar2_tutorial(n, 1), None, None, 0.0, 1))
    link = _Shared(token)
    begin, cpu, proc = time.perf_counter(), time.thread_time(), _process_cpu()
    for _ in range(count):
        link.sync(tree, 0.0, tree.step, force=True)
    return ((time.perf_counter() - begin) / count, (time.thread_time() - cpu) / count,
            (_process_cpu() - proc) / count)


def read_cost(client: Any, n: int, count: int = 500) -> tuple[float, float, float, float]:
    """Seconds per read of the shared incumbent and the caller's word (what a task does
    every ``SYNC_SECONDS``), all the cluster's workers reading at once: the worker's wall,
    its thread's CPU, its process's CPU, and the caller's process CPU (a local cluster's
    scheduler), medians over the workers."""
    import statistics

    from distributed import Variable

    token = "nqmip-bnb-reads"
    Variable(f"{token}-inc", client).set(None)
    Variable(f"{token}-ctl", client).set({"hungry": False, "stop": False})
    workers = list(client.scheduler_info()["workers"])
    here = _process_cpu()
    futures = [client.submit(_reads, token, n, count, workers=[w], pure=False)
               for w in workers]
    got = client.gather(futures)
    caller = (_process_cpu() - here) / (count * len(workers))
    return (statistics.median(g[0] for g in got), statistics.median(g[1] for g in got),
            statistics.median(g[2] for g in got), caller)


def solve_row(n: int, seed: int, mode: str, client: Any, time_limit: float,
              sync: float | None = None) -> dict[str, Any]:
    """One proof; with ``sync``, ``SYNC_SECONDS`` set to it on the workers (and here)
    first, and the processes' CPU seconds measured."""
    import nqmip
    from nqmip.instances.families import toulbar2_tutorial

    instance = toulbar2_tutorial(n, seed)
    extra: dict[str, Any] = {}
    if sync is not None and client is not None:
        client.run(_set_sync, sync)
        _set_sync(sync)
        workers_cpu, caller_cpu = client.run(_process_cpu), _process_cpu()
    begin = time.perf_counter()
    if client is None:
        result = nqmip.solve(instance, method="bnb", threads=1, time_limit=time_limit)
    else:
        result = nqmip.solve(instance, method="bnb", scheduler=client, time_limit=time_limit)
    wall = time.perf_counter() - begin
    if sync is not None and client is not None:
        after = client.run(_process_cpu)
        extra = {"sync": sync, "caller_cpu": round(_process_cpu() - caller_cpu, 3),
                 "workers_cpu": round(sum(after[w] - workers_cpu[w] for w in after), 3)}
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
            "overhead_per_task": None if overhead is None else round(overhead, 4), **extra}


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


def _medians(rows: list[dict[str, Any]]) -> None:
    """Per cluster and ``SYNC_SECONDS``, the medians of the runs' figures."""
    import statistics

    print("| run | sync (s) | runs | nodes | wall (s) | tasks | tasks' CPU (s) | "
          "workers' CPU (s) | caller's CPU (s) | workers' CPU per node (ms) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    keys = sorted({(r["n"], r["seed"], r["mode"], r["sync"]) for r in rows},
                  key=lambda k: (k[0], k[1], k[2], -k[3]))
    for key in keys:
        group = [r for r in rows if (r["n"], r["seed"], r["mode"], r["sync"]) == key]

        def med(name: str, group: list[dict[str, Any]] = group) -> float:
            return statistics.median(float(r[name] or 0.0) for r in group)

        per = statistics.median(1000 * r["workers_cpu"] / r["nodes"] for r in group)
        print(f"| N = {key[0]} seed {key[1]} {key[2]} | {key[3]:g} | {len(group)} | "
              f"{med('nodes'):.0f} | {med('wall'):.1f} | {med('tasks'):.0f} | "
              f"{med('task_cpu'):.1f} | {med('workers_cpu'):.1f} | "
              f"{med('caller_cpu'):.1f} | {per:.2f} |")


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
    parser.add_argument("--sync", default=None,
                        help="values of SYNC_SECONDS, comma-separated, alternated (e.g. "
                             "0.1,0.05); default: the code's")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each cluster and --sync value, alternated")
    args = parser.parse_args()
    syncs: list[float | None] = [None]
    if args.sync is not None:
        try:
            values = [float(v) for v in args.sync.split(",")]
        except ValueError:
            values = [-1.0]
        if not all(0.0 < v <= 60.0 for v in values):
            parser.error(f"--sync takes seconds in (0, 60], comma-separated; got {args.sync}")
        syncs = list(values)
    if args.repeat < 1:
        parser.error(f"--repeat takes a whole number >= 1; got {args.repeat}")
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
        first = int(args.n.split(",")[0])
        for mode, client in clients.items():
            cost = task_overhead(client, first)
            print(f"{mode}: {1000 * cost:.1f} ms of a worker per task that does nothing")
            if args.sync is not None:
                wall, thread, proc, caller = read_cost(client, first)
                print(f"{mode}: one read of the shared Variables: {1000 * wall:.2f} ms of "
                      f"wall, {1000 * thread:.2f} ms of the task thread's CPU, "
                      f"{1000 * proc:.2f} ms of its process's, {1000 * caller:.2f} ms of "
                      "the caller's (the scheduler)")
        if args.overhead_only:
            return 0
        modes: list[tuple[str, Any]] = ([] if args.no_single else [("1 process", None)])
        modes += list(clients.items())
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        print("| N | seed | run | sync (s) | status | objective | nodes | wall (s) | tasks | "
              "overhead per task (ms) | tasks' wall / CPU per node (ms) |")
        print("| ---: | ---: | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        timed: list[dict[str, Any]] = []
        for n in (int(v) for v in args.n.split(",")):
            for seed in (int(v) for v in args.seeds.split(",")):
                for r in range(args.repeat):  # the values in turn, A B B A ...
                    for mode, client in modes:
                        order = syncs if r % 2 == 0 else syncs[::-1]
                        for sync in (order if client is not None else [None]):
                            row = solve_row(n, seed, mode, client, args.time_limit, sync)
                            with RESULTS.open("a") as out:
                                out.write(json.dumps(row) + "\n")
                            if "sync" in row:
                                timed.append(row)
                            per = row["overhead_per_task"]
                            print(f"| {n} | {seed} | {mode} | "
                                  f"{'-' if sync is None else f'{sync:g}'} | "
                                  f"{row['status']} | {row['objective']:g} | "
                                  f"{row['nodes']} | {row['wall']:.1f} | "
                                  f"{row['tasks'] or '-'} | "
                                  f"{'-' if per is None else f'{1000 * per:.0f}'} | "
                                  f"{_per_node(row)} |", flush=True)
        if timed:
            _medians(timed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
