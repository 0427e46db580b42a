"""Cube-and-conquer for the lexicographic descent (:mod:`nqmip.lex.cubes`): the same first
solutions as the descent with one oracle, refutations that stay refutations when split.

The pool is shared by the tests of this file (starting two processes that load the
kernels takes a few seconds); ``split_after=0`` splits every question the propagation does
not settle, ``cube_budget=0`` splits every cube again, down to ``max_depth`` rows.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest

import nqmip
from nqmip.budget import Deadline
from nqmip.instance import make_instance
from nqmip.lex.cubes import CubeOracle, Workers
from nqmip.lex.descent import Descent, FirstFail, ask, descend
from nqmip.methods import LEX_CUBE_ROUTES


@pytest.fixture(scope="module")
def pool() -> Iterator[Workers]:
    workers = Workers(2)
    workers.ready()
    yield workers
    workers.close()


def always_split(n: int, pool: Workers, depth: int = 2, log: bool = False) -> CubeOracle:
    return CubeOracle("first-fail", n, pool, split_after=0.0, cube_budget=0.0,
                      max_depth=depth, log=log)


def split_descent(n: int, pool: Workers, depth: int,
                  log: bool = False) -> tuple[CubeOracle, Descent]:
    """The descent of n (no fixed queen) with :func:`always_split`'s cubes, and its oracle."""
    oracle = always_split(n, pool, depth, log)
    try:
        return oracle, descend(make_instance(n), oracle, Deadline(60))
    finally:
        oracle.close()


@pytest.mark.parametrize("n,fixed", [*((n, {}) for n in range(8, 21)),
                                     (10, {1: 7}), (12, {0: 5, 11: 0}), (14, {3: 3}),
                                     (16, {15: 15, 4: 2})])
def test_cubes_give_the_descents_first_solution(pool: Workers, n: int,
                                                fixed: dict[int, int]) -> None:
    instance = make_instance(n, None, fixed)
    alone = descend(instance, FirstFail(n))
    oracle = always_split(n, pool)
    try:
        cubes = descend(instance, oracle, Deadline(60))
    finally:
        oracle.close()
    assert cubes.complete and alone.complete
    assert cubes.placement == alone.placement
    assert oracle.counters["cube_questions"] > 0  # the questions went to the cubes


def test_a_refuted_question_split_into_cubes_stays_refuted(pool: Workers) -> None:
    # n = 8, queen (0, 0): the first solution has row 1 on column 4, so "row 1 left of
    # column 4" is refuted, and "left of column 5" answered by it
    placed = [(0, 0)]
    assert ask(FirstFail(8), placed, 1, 4, Deadline(10)) is False
    oracle = always_split(8, pool, depth=3)
    try:
        assert ask(oracle, placed, 1, 4, Deadline(30)) is False
        split = oracle.counters["cube_questions"]
        assert split == 1 and oracle.counters["cubes"] > 0
        assert ask(oracle, placed, 1, 5, Deadline(30)) is True
        model = oracle.model()
        assert model[:2] == (0, 4)
        # every column left of 4 refuted by the cubes before: the row is settled
        assert oracle.proves_row
        assert oracle.counters["cubes_reused"] > 0
    finally:
        oracle.close()


def test_lex_first_with_workers(pool: Workers) -> None:
    expected = nqmip.lex_first(14).placement
    result = nqmip.lex_first(14, workers=1)
    assert result.status == "optimal" and result.placement == expected
    with pytest.raises(ValueError, match="workers"):
        nqmip.lex_first(10, workers=0)
    with pytest.raises(TypeError, match="workers"):
        nqmip.lex_first(10, method="search", workers=2)


def test_cubes_on_a_dask_cluster() -> None:
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    try:
        pool = Workers(scheduler=cluster.scheduler_address)
        assert pool.count == 2
        for n in (12, 16):
            oracle = CubeOracle("first-fail", n, pool, split_after=0.0, cube_budget=0.0,
                                max_depth=2)
            try:
                run = descend(make_instance(n), oracle, Deadline(120))
            finally:
                oracle.close()
            assert run.complete
            assert run.placement == descend(make_instance(n), FirstFail(n)).placement
            assert oracle.counters["cube_questions"] > 0
        pool.close()
    finally:
        cluster.close()


def test_cli_workers_for_lex_first_only() -> None:
    import json
    import subprocess
    import sys

    command = [sys.executable, "-m", "nqmip.cli.solve", "--n", "12"]
    out = subprocess.run([*command, "--lex-first", "--workers", "2", "--json"],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["placement"] == list(nqmip.lex_first(12).placement or ())
    bad = subprocess.run([*command, "--workers", "2"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.strip().count("\n") == 0 and "--workers" in bad.stderr


def test_a_cube_is_split_only_to_feed_an_idle_worker(pool: Workers) -> None:
    # cube_budget=0: past its budget at once, a cube still goes on while others wait in
    # the queue (its work would be lost); before, every cube not settled by propagation
    # was split, down to max_depth rows (n = 16: 802,007 cubes)
    n = 18
    oracle, run = split_descent(n, pool, depth=6)
    assert oracle.log is None  # kept only when asked: a long run's cubes are many
    assert run.complete and run.placement == descend(make_instance(n), FirstFail(n)).placement
    assert oracle.counters["cubes_split"] * 4 <= oracle.counters["cubes"]


def test_the_log_accounts_for_every_cube_collected_and_each_split_question(
        pool: Workers) -> None:
    """What benchmarks/simulate_cubes.py reads: each cube collected once, under a split
    question, after its parent, its CPU time the one the counters sum."""
    oracle, run = split_descent(16, pool, depth=4, log=True)
    assert run.complete and oracle.log is not None
    questions = [e for e in oracle.log if "cube" not in e]
    cubes = [e for e in oracle.log if "cube" in e]
    assert len(questions) == oracle.counters["cube_questions"] > 0
    c = oracle.counters
    collected = [e for e in cubes if e["answer"] != "stopped"]
    assert len(collected) == c["cubes_refuted"] + c["cube_wins"] + c["cubes_split"] > 0
    assert len(cubes) == c["cubes"]  # the rest stopped by a yes, each logged once
    asked = {q["question"]: q for q in questions}
    ids = [e["cube"] for e in cubes]
    assert len(set(ids)) == len(ids) and min(ids) >= 0
    seen: set[int] = set()
    for cube in sorted(cubes, key=lambda e: e["done"]):
        question = asked[cube["question"]]
        assert question["asked"] <= question["split"] <= cube["sent"] <= cube["done"]
        assert cube["done"] <= question["ended"] + 1e-3
        assert cube["parent"] is None or cube["parent"] in seen  # split before its kids
        assert cube["answer"] in (True, False, None, "stopped") and cube["cpu"] >= 0
        seen.add(cube["cube"])
    assert sum(q["answer"] for q in questions) == c["cube_wins"]
    assert round(sum(e["cpu"] for e in cubes) * 1000) == run.stats["cube_cpu_ms"]


def free_address() -> str:
    """A local tcp address nobody listens on (a port the system just gave and took back)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{sock.getsockname()[1]}"


def test_an_unreachable_scheduler_is_refused_in_one_line_at_once() -> None:
    # the cubes open their cluster as the rest of the package does (nqmip.cluster): before,
    # Dask's own Client waited 30 s and the command ended in its traceback
    import subprocess
    import sys
    import time
    from pathlib import Path

    from nqmip.cluster import ClusterError

    pytest.importorskip("distributed")
    address = free_address()
    script = Path(__file__).resolve().parent.parent / "scripts" / "solve_weighted.py"
    begin = time.perf_counter()
    out = subprocess.run([sys.executable, str(script), "--n", "12", "--lex-first",
                          "--scheduler", address], capture_output=True, text=True,
                         timeout=120)
    seconds = time.perf_counter() - begin
    assert out.returncode == 2, (out.returncode, out.stderr[-2000:])
    assert out.stdout == "" and "Traceback" not in out.stderr
    assert out.stderr.strip().count("\n") == 0 and address in out.stderr
    assert seconds < 8.0, seconds  # a second or two; Dask's default was 30 s
    begin = time.perf_counter()
    with pytest.raises(ClusterError, match=address):
        nqmip.lex_first(12, scheduler=address)
    assert time.perf_counter() - begin < 5.0


@pytest.mark.parametrize("kind", LEX_CUBE_ROUTES)
def test_a_killed_pool_process_has_its_cubes_asked_again(kind: str) -> None:
    # A pool process killed (SIGKILL, out of memory) broke the pool: the descent raised
    # BrokenProcessPool ("solve_weighted --lex-first --n 44 --workers 2" with one worker
    # killed: exit 1 and no answer); its cubes are asked again of a new pool, as Dask
    # reruns a lost task
    n = 18
    instance = make_instance(n, None)
    alone = descend(instance, FirstFail(n))
    workers = Workers(2)
    # started, not waited for (``ready``: both load the kernels, seconds on a loaded
    # machine): its processes exist, and the pool breaks when one is killed all the same
    workers.executor  # noqa: B018
    oracle = CubeOracle(kind, n, workers, split_after=0.0, cube_budget=0.0, max_depth=2)
    killed: list[int] = []

    def kill_one(tries: int = 1) -> None:  # one process of a pool that runs
        for _ in range(tries):
            executor = workers._executor
            pids = [] if getattr(executor, "_broken", True) else list(executor._processes)
            if pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pids[0], signal.SIGKILL)
                    killed.append(pids[0])
                return
            time.sleep(0.05)

    try:
        kill_one()  # before the descent: its first cube meets a broken pool
        assert killed, "no process of the started pool to kill"
        time.sleep(0.5)
        threading.Thread(target=kill_one, args=(200,), daemon=True).start()  # the next
        cubes = descend(instance, oracle, Deadline(120))
    finally:
        oracle.close()
        workers.close()
    assert killed and workers.restarts >= 1
    assert cubes.complete and cubes.placement == alone.placement
