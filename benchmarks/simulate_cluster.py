"""What bnb's LP search on Dask would take on more workers, from the tasks of a recorded
run (benchmarks/bench_cluster.py's rows in benchmarks/results/cluster.jsonl).

    python benchmarks/simulate_cluster.py --n 48 --cpu --mode "1 worker" --workers 1,8,32

A round of the search (nqmip.bnb.rounds) ends before the next starts, so each round is
simulated on its own and the rounds' times add up: the ramp-up in the caller (as
recorded), then the round's tasks on P workers, each costing its recorded seconds plus the
overhead per task of the same run (the workers' time outside tasks and ramp-ups, over the
tasks). Three figures:

- ``whole``: the tasks as recorded, none split further, the biggest waiting (its seconds
  and those of the tasks its hand-back became) to the first worker free (list
  scheduling, longest first); a task handed back waits for the task that handed it back
  (where the row records it, ``task_parent``; else all of a round's tasks are there from
  its start): the upper end, since on more workers the idle ones make the running tasks
  hand their open nodes back;
- ``middle``: that re-splitting, simulated (:func:`resplit`): as ``whole``, but when a
  worker is idle and no task is waiting, the first running task to have searched
  :data:`nqmip.bnb.distributed.MIN_NODES` nodes and read the caller's word (each reads it
  as it starts, then every :data:`nqmip.bnb.distributed.SYNC_SECONDS`) stops, and hands
  back its recorded hand-back at once and the rest of its own work as new tasks, as many
  and shared as the recorded hand-backs (:func:`profile`; a row without them borrows the
  last 1-worker row's that has them, else :data:`DEFAULT_PROFILE`);
- ``split``: the round's work spread evenly (its seconds / P, plus one task's overhead per
  task): the lower end, no task too long to share.

Efficiency is the one-worker work (the tasks' seconds) over P x the makespan. ``--sync``
(default: the code's :data:`nqmip.bnb.tasks.SYNC_SECONDS`) is how often a task reads the
word; ``--read-cost`` the seconds a task loses to each read (default 0: reads are free):
the tasks' times are then scaled from the row's reads (every ``sync`` of the row, else
:data:`RECORDED_SYNC`) to those of ``--sync``, the work they are compared with kept as
recorded. With ``--cpu`` the tasks' times are scaled to their CPU time (on a loaded
machine a worker gets part of a core: its wall time is not the work). The model keeps the
recorded tree (the nodes of the run): a larger cluster's incumbents, found in another
order, change it; the scheduler's own cost per task and per read, which grows with the
workers and the tasks, and the network are left out; each round still waits for its last
task (the barrier between rounds).
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import math
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "benchmarks" / "results" / "cluster.jsonl"

#: The hand-back of a task stopped early where no row records one (rows before the task
#: tree was recorded): two halves.
DEFAULT_PROFILE = (0.5, 0.5)
#: How often the tasks of a row read the shared word, where the row does not say (rows
#: recorded before bench_cluster.py's ``--sync``: the code's value then).
RECORDED_SYNC = 0.1


@dataclass
class Work:
    """A task of the simulation: its own seconds, its seconds a node, the recorded tasks
    its hand-back became (their indices) and its whole subtree's seconds."""

    own: float
    rate: float
    kids: list[int] = field(default_factory=list)
    size: float = 0.0


@dataclass
class Model:
    """What :func:`resplit` takes from a row: the tasks (as :class:`Work`), the overhead
    per task, the hand-back's shares, how often a task reads the caller's word (seconds)
    and the nodes a task searches before it stops."""

    tasks: list[Work]
    overhead: float
    shares: tuple[float, ...]
    sync: float
    min_nodes: int

    def stop(self, start: float, work: Work, idle_since: float) -> float:
        """When a task whose work began at ``start`` stops, workers idle since
        ``idle_since``: at its first read of the word after that (it reads it as it
        starts, then every :attr:`sync`), once it has searched :attr:`min_nodes`."""
        reads = math.ceil(max(idle_since - start, 0.0) / self.sync - 1e-9)
        return max(start + reads * self.sync, start + self.min_nodes * work.rate)


def profile(row: dict[str, Any], sizes: list[float] | None = None
            ) -> tuple[float, ...] | None:
    """How a hand-back shares its work among its tasks: the recorded hand-backs' tasks'
    subtree seconds (``sizes``, by default the row's), largest first, as parts of their
    sum; as many parts as the median hand-back has tasks (a longer one's tail summed into
    the last), averaged. None if the row records no hand-back."""
    if sizes is None:
        sizes = [t.size for t in model(row)[0].tasks]
    kids: dict[int, list[float]] = {}
    for i, parent in enumerate(row.get("task_parent") or []):
        if parent >= 0:
            kids.setdefault(parent, []).append(sizes[i])
    backs = [sorted(v, reverse=True) for v in kids.values() if sum(v) > 0]
    if not backs:
        return None
    k = max(1, round(statistics.median(len(b) for b in backs)))
    mean = [0.0] * k
    for back in backs:
        parts = back[: k - 1] + [sum(back[k - 1:])] + [0.0] * (k - len(back))
        for j in range(k):
            mean[j] += parts[j] / sum(back) / len(backs)
    return tuple(s / sum(mean) for s in mean if s > 0)


def model(row: dict[str, Any], cpu: bool = False,
          shares: tuple[float, ...] = DEFAULT_PROFILE, sync: float | None = None,
          read_cost: float = 0.0) -> tuple[Model, list[float]]:
    """The row's tasks as :class:`Work` (their seconds scaled to CPU with ``cpu``) and the
    one-worker work of each task; a hand-back shared as the row's, else as ``shares``;
    the word read every ``sync`` seconds (None: the code's), each read costing a task
    ``read_cost`` seconds: the tasks' times scaled from the row's reads to these."""
    from nqmip.bnb.distributed import MIN_NODES, SYNC_SECONDS

    sync = SYNC_SECONDS if sync is None else sync
    reads = (1.0 + read_cost / sync) / (1.0 + read_cost / (row.get("sync") or RECORDED_SYNC))
    seconds = list(row["task_seconds"])
    share = row["task_cpu"] / sum(seconds) if cpu and row.get("task_cpu") else 1.0
    seconds = [s * share for s in seconds]
    nodes = row.get("task_nodes") or [None] * len(seconds)
    rate = sum(seconds) / max(row.get("nodes") or 1, 1)
    ramp = sum(r["ramp_up"] for r in row.get("rounds") or [])
    outside = row.get("workers", 1) * (row["wall"] - ramp) - sum(row["task_seconds"])
    overhead = max(outside / len(seconds), 0.0) * share
    parents = row.get("task_parent") or [-1] * len(seconds)
    tasks = [Work(s * reads, (s / m if m else rate) * reads)
             for s, m in zip(seconds, nodes, strict=True)]
    for i, parent in enumerate(parents):
        if parent >= 0:
            tasks[parent].kids.append(i)
    for i in reversed(range(len(tasks))):  # a hand-back's tasks come after their parent
        tasks[i].size = tasks[i].own + sum(tasks[k].size for k in tasks[i].kids)
    own = profile(row, [t.size for t in tasks])
    return Model(tasks, overhead, own or shares, sync, MIN_NODES), seconds


def resplit(m: Model, roots: list[int], workers: int, stops: bool = True) -> float:
    """The makespan of a round whose first tasks are ``roots`` (indices of ``m.tasks``) on
    ``workers``: the biggest waiting task to each idle worker; a task ends after its
    overhead and its own seconds and hands back its recorded tasks; with ``stops``, while a
    worker is idle and none waits, the first running task to stop (:meth:`Model.stop`; of
    two at once, the one with more work left) hands back its recorded tasks and its work
    left, shared as ``m.shares``."""
    seq = itertools.count()
    queue: list[tuple[float, int, Work]] = []

    def wait(work: Work) -> None:
        heapq.heappush(queue, (-work.size, next(seq), work))

    for i in roots:
        wait(m.tasks[i])
    running: list[tuple[float, float, Work]] = []  # (its work's start, its end, the task)
    now, idle_since = 0.0, None
    while True:
        while queue and len(running) < workers:
            work = heapq.heappop(queue)[2]
            running.append((now + m.overhead, now + m.overhead + work.own, work))
        if not running:
            return now
        hungry = not queue and len(running) < workers
        idle_since = (now if idle_since is None else idle_since) if hungry else None
        ends = [(end, 0, -(end - now), j) for j, (_, end, _) in enumerate(running)]
        if hungry and stops:
            assert idle_since is not None
            ends += [(stop, 1, -(end - stop), j) for j, (start, end, w) in enumerate(running)
                     if (stop := max(m.stop(start, w, idle_since), now)) < end - w.rate]
        now, stopped, _, j = min(ends)
        _, end, work = running.pop(j)
        for k in work.kids:
            wait(m.tasks[k])
        if stopped:
            left = end - now
            kept = m.shares[: max(1, int(left / work.rate) if work.rate > 0 else 1)]
            total = sum(kept)  # fewer pieces than the profile's: they share all that is left
            for part in kept:
                share = part / total * left
                wait(Work(share, work.rate, size=share))


def simulate(row: dict[str, Any], workers: int, cpu: bool = False,
             shares: tuple[float, ...] = DEFAULT_PROFILE, sync: float | None = None,
             read_cost: float = 0.0) -> tuple[float, float, float, float]:
    """(whole, middle, split, work): the makespans on ``workers`` (see the module) and
    the one-worker work; with ``cpu`` every task's time scaled by the run's CPU share (its
    tasks' CPU seconds over their wall seconds): as if each worker had a core of its own;
    ``shares``: a hand-back's where the row records none; ``sync`` and ``read_cost``
    as :func:`model`'s (the work is the recorded one)."""
    m, seconds = model(row, cpu, shares, sync, read_cost)
    parents = row.get("task_parent") or [-1] * len(seconds)
    rounds = row.get("rounds") or [{"tasks": len(seconds), "ramp_up": 0.0}]
    ramp = 1.0 if not cpu or not row.get("task_cpu") else row["task_cpu"] / sum(
        row["task_seconds"])
    whole = middle = split = 0.0
    at = 0
    for part in rounds:
        span = range(at, at + part["tasks"])
        at += part["tasks"]
        up = part["ramp_up"] * ramp
        roots = [i for i in span if parents[i] < span.start]
        whole += up + resplit(m, roots, workers, stops=False)
        split += up + sum(m.tasks[i].own + m.overhead for i in span) / workers
        middle += up + resplit(m, roots, workers)
    return whole, middle, split, sum(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=None, help="the board size (default: all)")
    parser.add_argument("--workers", default="8,32,128")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--cpu", action="store_true",
                        help="tasks' times scaled to their CPU time (a core per worker)")
    parser.add_argument("--mode", default=None, help="only the runs on this cluster, e.g. "
                                                     "'1 worker'")
    parser.add_argument("--sync", type=float, default=None,
                        help="seconds between a task's reads of the word (default: the "
                             "code's SYNC_SECONDS)")
    parser.add_argument("--read-cost", type=float, default=0.0,
                        help="seconds a task loses to each read (default 0)")
    args = parser.parse_args()
    if args.sync is not None and not 0.0 < args.sync <= 60.0:
        parser.error(f"--sync takes seconds in (0, 60]; got {args.sync}")
    if not 0.0 <= args.read_cost <= 1.0:
        parser.error(f"--read-cost takes seconds in [0, 1]; got {args.read_cost}")
    sizes = [int(w) for w in args.workers.split(",")]
    rows = [json.loads(line) for line in args.results.read_text().splitlines() if line.strip()]
    tree = [r for r in rows if r.get("task_parent") and r["mode"] == "1 worker"]
    shares = (profile(tree[-1]) if tree else None) or DEFAULT_PROFILE
    rows = [r for r in rows if r.get("task_seconds") and (args.n is None or r["n"] == args.n)
            and (args.mode is None or r["mode"] == args.mode)
            and (not args.cpu or r.get("task_cpu"))]
    if not rows:
        print(f"no cluster run in {args.results}", file=sys.stderr)
        return 1
    print("| N | seed | recorded on | status | tasks | work (s) | P | makespan (s): split "
          "| middle | whole | efficiency: whole | middle | split |")
    print("| ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
          "| ---: |")
    for row in rows:
        kind = "tree" if row.get("task_parent") is not None else "no tree"
        for p in sizes:
            whole, middle, split, work = simulate(row, p, args.cpu, shares, args.sync,
                                                  args.read_cost)
            print(f"| {row['n']} | {row['seed']} | {row['mode']} | {row['status']}, {kind} "
                  f"| {len(row['task_seconds'])} | {work:.1f} | {p} | {split:.1f} "
                  f"| {middle:.1f} | {whole:.1f} | {work / (p * whole):.0%} "
                  f"| {work / (p * middle):.0%} | {work / (p * split):.0%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
