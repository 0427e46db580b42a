"""benchmarks/simulate_cluster.py: the re-splitting model (``middle``) against its bracket
(``whole``: the recorded tasks none split further; ``split``: the work spread evenly), on
synthetic recorded rows."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]


def _simulator() -> ModuleType:
    return load_script("simulate_cluster", ROOT / "benchmarks" / "simulate_cluster.py")


def _row(rounds: list[list[tuple[float, int, int]]], ramp_up: float = 0.2,
         overhead: float = 0.01) -> dict[str, Any]:
    """A 1-worker row whose rounds hold tasks (seconds, nodes, parent within the round or
    -1), the workers' time outside tasks and ramp-ups ``overhead`` a task."""
    seconds, nodes, parents, parts = [], [], [], []
    for tasks in rounds:
        at = len(seconds)
        for s, m, parent in tasks:
            seconds.append(s)
            nodes.append(m)
            parents.append(-1 if parent < 0 else at + parent)
        parts.append({"tasks": len(tasks), "ramp_up": ramp_up})
    wall = sum(seconds) + ramp_up * len(rounds) + overhead * len(seconds)
    return {"n": 40, "seed": 1, "mode": "1 worker", "status": "optimal",
            "nodes": sum(nodes), "wall": wall, "workers": 1, "tasks": len(seconds),
            "task_seconds": seconds, "task_nodes": nodes, "task_parent": parents,
            "rounds": parts, "task_cpu": None}


def _tree(seed: int, roots: int = 4) -> list[tuple[float, int, int]]:
    """A round as a 1-worker run records it: tasks of at most 2,000 nodes at 2 ms a node;
    one that used its budget hands back 2 to 8 tasks, taken after it."""
    rng = random.Random(seed)
    tasks: list[tuple[float, int, int]] = []
    todo = [(-1, 0)] * roots
    while todo:
        parent, depth = todo.pop(0)
        budget = depth < 3 and rng.random() < 0.6
        nodes = 2000 if budget else rng.randint(1, 1500)
        tasks.append((nodes * 0.002, nodes, parent))
        if budget:
            todo += [(len(tasks) - 1, depth + 1)] * rng.randint(2, 8)
    return tasks


def test_one_worker_takes_the_sum_of_the_tasks() -> None:
    sim = _simulator()
    row = _row([_tree(1), _tree(2)])
    whole, middle, split, work = sim.simulate(row, 1)
    total = work + 0.01 * len(row["task_seconds"]) + 0.2 * 2
    assert work == pytest.approx(sum(row["task_seconds"]))
    assert middle == pytest.approx(total) and whole == pytest.approx(total)
    assert split == pytest.approx(total)


@pytest.mark.parametrize("workers", [2, 4, 8, 32, 128])
def test_the_middle_lies_between_split_and_whole(workers: int) -> None:
    sim = _simulator()
    row = _row([_tree(3), _tree(4, roots=6)])
    whole, middle, split, _ = sim.simulate(row, workers)
    assert split - 1e-9 <= middle <= whole + 1e-9


def test_resplitting_a_long_task_among_short_ones_beats_whole() -> None:
    sim = _simulator()
    row = _row([[(4.0, 2000, -1)] + [(0.05, 25, -1)] * 20])
    whole, middle, split, _ = sim.simulate(row, 8)
    assert whole == pytest.approx(0.2 + 4.01)  # the long task alone on a worker
    assert split < middle < whole - 1.0


def test_reads_that_cost_stretch_the_tasks_by_the_reads_added() -> None:
    """``--sync``/``--read-cost``: a row recorded with a read every 0.1 s, simulated with
    one every 0.05 s at 2 ms a read, has every task longer by (1 + 0.04) / (1 + 0.02); the
    work it is measured against stays the recorded one, and free reads change nothing on
    one worker."""
    sim = _simulator()
    row = _row([_tree(1), _tree(2)])
    fixed = 0.01 * len(row["task_seconds"]) + 0.2 * 2
    whole, middle, split, work = sim.simulate(row, 1, sync=0.05, read_cost=0.002)
    assert work == pytest.approx(sum(row["task_seconds"]))
    assert middle == pytest.approx(work * 1.04 / 1.02 + fixed)
    assert whole == pytest.approx(middle) and split == pytest.approx(middle)
    assert sim.simulate(row, 1, sync=0.05)[1] == pytest.approx(work + fixed)
    row["sync"] = 0.05  # recorded at 0.05 already: nothing to add
    assert sim.simulate(row, 1, sync=0.05, read_cost=0.002)[1] == pytest.approx(work + fixed)
