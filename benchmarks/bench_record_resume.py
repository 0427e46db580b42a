"""bnb's LP search on Dask continued from its record, with and without the pseudo-cost
table the record keeps (docs/cluster.md).

    python benchmarks/bench_record_resume.py --n 32 --seeds 123456789 --workers 1 --repeat 2

Per board, on a local cluster of ``--workers`` one-thread processes (started once, its
kernels loaded first): the whole proof once (its nodes and wall time), then the same proof
stopped at half that wall time with a record (``record=``), then, ``--repeat`` times and
alternated (A B B A ...), the proof continued from a copy of that record as written (the
table kept) and from a copy without the table (as a record written before it kept one:
a new table). Per run: the nodes of the continued part (the run's nodes less the nodes the
record holds of the round it stopped in, which the continued run counts again), its wall
time and its tasks' CPU seconds. Rows go to benchmarks/results/cluster_resume.jsonl.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "benchmarks" / "results" / "cluster_resume.jsonl"


def _warm() -> None:
    from nqmip.bnb.search import warm_up

    warm_up()


def _run(instance: Any, client: Any, record: Path | None,
         time_limit: float) -> tuple[Any, float]:
    import nqmip

    begin = time.perf_counter()
    result = nqmip.solve(instance, method="bnb", scheduler=client, record=record,
                         time_limit=time_limit)
    return result, time.perf_counter() - begin


def board(n: int, seed: int, client: Any, repeat: int, time_limit: float,
          folder: Path) -> list[dict[str, Any]]:
    """The rows of one board (see the module)."""
    from nqmip.instances.families import toulbar2_tutorial

    instance = toulbar2_tutorial(n, seed)
    whole, wall = _run(instance, client, None, time_limit)
    print(f"N = {n} seed {seed}: whole proof {whole.status.value} {whole.objective:g}, "
          f"{whole.counters.nodes} nodes, {wall:.1f} s", flush=True)
    stopped = folder / f"stopped-{n}-{seed}.json"
    cut, cut_wall = _run(instance, client, stopped, wall / 2)
    kept = json.loads(stopped.read_text())
    table = kept.get("pseudo")
    print(f"stopped after {cut_wall:.1f} s: {cut.status.value}, {cut.counters.nodes} nodes "
          f"({cut.counters.nodes / whole.counters.nodes:.0%} of the whole), the record: "
          f"{len(kept['open'])} open, {kept['nodes']} nodes of its round, the table's "
          f"count {0 if table is None else sum(table[1])}", flush=True)
    rows = []
    for r in range(repeat):
        for with_table in ((True, False) if r % 2 == 0 else (False, True)):
            copy = folder / f"copy-{n}-{seed}.json"
            body = dict(kept)
            if not with_table:
                body.pop("pseudo", None)
            copy.write_text(json.dumps(body))
            result, took = _run(instance, client, copy, time_limit)
            extra = result.extra.get("cluster", {})
            row = {"n": n, "seed": seed, "workers": extra.get("workers"),
                   "table": with_table, "status": result.status.value,
                   "objective": result.objective, "whole_nodes": whole.counters.nodes,
                   "whole_wall": round(wall, 2), "stopped_nodes": cut.counters.nodes,
                   "record_nodes": kept["nodes"],
                   "resumed_nodes": result.counters.nodes - kept["nodes"],
                   "wall": round(took, 2), "task_cpu": extra.get("task_cpu"),
                   "pseudo_resumed": extra.get("pseudo_resumed", 0)}
            rows.append(row)
            print(f"| {n} | {seed} | {'kept' if with_table else 'new'} | {row['status']} | "
                  f"{row['objective']:g} | {row['resumed_nodes']} | {took:.1f} | "
                  f"{row['task_cpu']} |", flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", default="32", help="board sizes, comma-separated")
    parser.add_argument("--seeds", default="123456789", help="toulbar2 family seeds")
    parser.add_argument("--workers", type=int, default=1, help="one-thread workers")
    parser.add_argument("--repeat", type=int, default=2,
                        help="continued runs with and without the table, alternated")
    parser.add_argument("--time-limit", type=float, default=600.0)
    args = parser.parse_args()
    if args.workers < 1 or args.repeat < 1:
        parser.error("--workers and --repeat take whole numbers >= 1")
    from dask.distributed import Client, LocalCluster

    folder = Path(tempfile.mkdtemp(prefix="nqmip-resume-"))
    rows: list[dict[str, Any]] = []
    try:
        with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            client.run(_warm)
            _warm()
            print("| N | seed | table | status | objective | nodes continued | wall (s) | "
                  "tasks' CPU (s) |")
            print("| ---: | ---: | --- | --- | ---: | ---: | ---: | ---: |")
            for n in (int(v) for v in args.n.split(",")):
                for seed in (int(v) for v in args.seeds.split(",")):
                    got = board(n, seed, client, args.repeat, args.time_limit, folder)
                    rows += got
                    with RESULTS.open("a") as out:
                        for row in got:
                            out.write(json.dumps(row) + "\n")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("| N | seed | table | runs | nodes continued | wall (s) | tasks' CPU (s) |")
    print("| ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for key in sorted({(r["n"], r["seed"], r["table"]) for r in rows},
                      key=lambda k: (k[0], k[1], not k[2])):
        group = [r for r in rows if (r["n"], r["seed"], r["table"]) == key]
        print(f"| {key[0]} | {key[1]} | {'kept' if key[2] else 'new'} | {len(group)} | "
              f"{statistics.median(r['resumed_nodes'] for r in group):.0f} | "
              f"{statistics.median(r['wall'] for r in group):.1f} | "
              f"{statistics.median(r['task_cpu'] or 0.0 for r in group):.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
