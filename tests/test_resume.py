"""A run killed (SIGKILL, its whole process group) and resumed from its record: the same
answer as a run never stopped, and no task finished before the kill done again.

- the descent's cube-and-conquer (:mod:`nqmip.lex.record`): every question answered
  before the kill is answered from the record (none asked again), no cube the record
  holds refuted is sent to a worker again (``CubeRecord.again``), each answer kept once;
- the count (``nqmip-count --record``): the sub-trees the record holds are not counted
  again (``Count.resumed``; the record holds each one once);
- bnb on a cluster (:mod:`nqmip.bnb.record`, rewritten whole every
  ``RECORD_SECONDS``): the record holds the frontier (no open subtree inside another: a
  task that had finished is not open with the subtrees it handed back), and the run given
  it starts from exactly those.

The killed run is a child process started for it; the resumed one runs here.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import nqmip
from nqmip.enumeration.count import run_count
from nqmip.instance import make_instance
from nqmip.instances.families import toulbar2_tutorial
from nqmip.lex.cubes import CubeOracle, Workers
from nqmip.lex.descent import FirstFail, descend
from nqmip.lex.record import CubeRecord

ROOT = Path(__file__).resolve().parents[1]

#: The killed descent: every question split into cubes (split_after 0, cube budget 0),
#: one worker process, its answers kept in the record.
LEX_CHILD = """
import sys
from nqmip.instance import make_instance
from nqmip.lex.cubes import CubeOracle, Workers
from nqmip.lex.descent import descend
from nqmip.lex.record import CubeRecord

if __name__ == "__main__":
    n = int(sys.argv[1])
    record = CubeRecord(sys.argv[2], n)
    workers = Workers(1)
    workers.ready()
    oracle = CubeOracle("first-fail", n, workers, split_after=0.0, cube_budget=0.0,
                        max_depth=2, record=record)
    descend(make_instance(n, None), oracle)
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}


def _kill_when(argv: list[str], ready: Callable[[], bool], pause: float,
               seconds: float = 120.0) -> None:
    """Run ``argv`` in a process group of its own and SIGKILL the whole group once
    ``ready()`` holds (looked at every ``pause`` seconds); it must still be running then."""
    proc = subprocess.Popen(argv, env=_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True, cwd=ROOT)
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end and proc.poll() is None:
            if ready():
                break
            time.sleep(pause)
        assert proc.poll() is None, f"the run ended before its kill: {proc.stderr.read()}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def _killed_at(argv: list[str], record: Path, lines: int, seconds: float = 120.0) -> int:
    """Run ``argv`` (:func:`_kill_when`) until ``record`` holds ``lines`` whole lines; the
    lines it then holds."""
    _kill_when(argv, lambda: record.exists() and record.read_text().count("\n") >= lines,
               0.005, seconds)
    return record.read_text().count("\n")


def _torn_at(record: Path, lines: int) -> None:
    """Leave ``record`` as a kill while writing its line ``lines + 1`` would: its first
    ``lines`` whole lines and half of the next. The kill is sent once the child has written
    ``lines`` lines, but a loaded machine may let it write many more first (in CI it had
    written all but the last few answers, so the resumed run had nothing left to keep)."""
    kept = record.read_text().splitlines(keepends=True)
    if len(kept) > lines:
        record.write_text("".join(kept[:lines]) + kept[lines][: len(kept[lines]) // 2])


def _entries(record: Path) -> list[str]:
    return [line for line in record.read_text().splitlines() if line.endswith("}")]


def test_a_killed_descent_resumes_from_its_record_asking_nothing_twice(tmp_path: Path) -> None:
    n = 14  # a full run keeps 38 answers (16 questions, 22 refuted cubes)
    record = tmp_path / "lex.jsonl"
    _killed_at([sys.executable, "-c", LEX_CHILD, str(n), str(record)], record, 20)
    _torn_at(record, 20)
    before = [json.loads(line) for line in _entries(record)]
    questions = sum("question" in e for e in before)
    cubes = sum("cube" in e for e in before)
    assert questions >= 1 and cubes >= 1, before
    kept = CubeRecord(record, n)
    workers = Workers(1)
    try:
        oracle = CubeOracle("first-fail", n, workers, split_after=0.0, cube_budget=0.0,
                            max_depth=2, record=kept)
        resumed = descend(make_instance(n, None), oracle)
        oracle.close()
    finally:
        workers.close()
        kept.close()
    assert resumed.complete
    assert resumed.placement == descend(make_instance(n, None), FirstFail(n)).placement
    # the questions answered before the kill: answered from the record, in the same order
    assert oracle.counters["questions_recorded"] == questions
    assert kept.again == 0  # no cube the record held refuted was conquered again
    after = _entries(record)
    assert len(after) == len(set(after)), "an answer kept twice"
    assert len(after) > len(before)  # the rest of the descent kept too


def test_a_killed_count_resumes_from_its_record_counting_nothing_twice(tmp_path: Path) -> None:
    n = 16
    record = tmp_path / "count.jsonl"
    argv = [sys.executable, str(ROOT / "scripts" / "count_solutions.py"), "--n", str(n),
            "--workers", "2", "--record", str(record), "--no-progress"]
    _killed_at(argv, record, 40)
    at_kill = [tuple(json.loads(line)["task"]) for line in _entries(record)]
    resumed = run_count(n, workers=2, record=record)
    assert resumed.count == 14772512
    assert resumed.resumed == len(at_kill) > 0
    tasks = [tuple(json.loads(line)["task"]) for line in _entries(record)]
    assert tasks[: len(at_kill)] == at_kill
    assert len(tasks) == len(set(tasks)) == resumed.tasks  # each sub-tree counted once


#: The killed branch and bound: on an in-process cluster of two one-thread workers, its
#: record rewritten every 0.1 s, tasks of 4 nodes (many of them).
BNB_CHILD = """
import sys
import numpy as np
import nqmip
import nqmip.bnb.distributed as dist
import nqmip.bnb.record as rec
from dask.distributed import Client, LocalCluster
from nqmip.instances.families import toulbar2_tutorial

if __name__ == "__main__":
    n, seed = int(sys.argv[1]), int(sys.argv[2])
    rec.RECORD_SECONDS = 0.1
    dist.NODE_BUDGET = 4
    w = np.asarray(toulbar2_tutorial(n, seed).weights, dtype=float)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        nqmip.solve(n, w, method="bnb", scheduler=client, record=sys.argv[3])
"""


def _bnb_killed(n: int, seed: int, record: Path, nodes: int) -> dict[str, object]:
    """The record of the child above, SIGKILLed once its record holds ``nodes`` nodes
    and open subtrees."""

    def ready() -> bool:
        with contextlib.suppress(OSError, ValueError):  # being moved over
            kept = json.loads(record.read_text())
            return bool(kept["nodes"] >= nodes and kept["open"])
        return False

    _kill_when([sys.executable, "-c", BNB_CHILD, str(n), str(seed), str(record)], ready, 0.01)
    got: dict[str, object] = json.loads(record.read_text())
    return got


def test_a_killed_bnb_on_a_cluster_resumes_from_its_frontier(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    from dask.distributed import Client, LocalCluster

    n, seed = 14, 5
    w = np.asarray(toulbar2_tutorial(n, seed).weights, dtype=float)
    record = tmp_path / "bnb.json"
    kept = _bnb_killed(n, seed, record, 60)
    frontier = [frozenset(q) for _, q, _ in kept["open"]]  # type: ignore[attr-defined]
    assert len(frontier) == len(set(frontier)), "a subtree open twice"
    inside = [(a, b) for a in frontier for b in frontier if a < b]
    assert not inside, f"{len(inside)} open subtrees inside another: searched twice"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        resumed = nqmip.solve(n, w, method="bnb", scheduler=client, record=record)
    alone = nqmip.solve(n, w, method="bnb")
    assert resumed.status is alone.status is nqmip.Status.OPTIMAL
    assert resumed.objective == resumed.bound == alone.objective
    assert resumed.extra["cluster"]["resumed"] == len(frontier)
    assert resumed.counters.nodes is not None and resumed.counters.nodes >= kept["nodes"]
