"""bnb's LP search on a Dask cluster (nqmip.bnb.distributed): the same optimum and proof as
in one process and as HiGHS, with a worker killed mid-proof too; the options refused where
they make no sense."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nqmip
from nqmip.budget import Deadline
from nqmip.instance import make_instance
from nqmip.instances.families import toulbar2_tutorial
from nqmip.jsonlines import sealed, unsealed
from nqmip.methods import METHODS
from nqmip.result import Status, Termination
from nqmip.verify import verified

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """Two one-thread workers in this process (fast to start)."""
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as c:
        yield c


def board(n: int, seed: int) -> np.ndarray:
    return np.asarray(toulbar2_tutorial(n, seed).weights, dtype=float)


@pytest.mark.solver("highs")
@pytest.mark.parametrize("n,seed,sense,fixed", [
    (9, 1, "max", None), (10, 2, "min", None), (11, 3, "max", {0: 3}),
    (12, 4, "min", {2: 5, 5: 0}), (12, 123456789, "max", None)])
def test_the_cluster_proves_the_optimum_of_one_process_and_highs(
        client: Any, n: int, seed: int, sense: str, fixed: dict[int, int] | None) -> None:
    w = board(n, seed)
    spread = nqmip.solve(n, w, fixed=fixed, method="bnb", sense=sense, scheduler=client)
    alone = nqmip.solve(n, w, fixed=fixed, method="bnb", sense=sense)
    highs = nqmip.solve(n, w, fixed=fixed, method="highs", sense=sense)
    assert spread.status is Status.OPTIMAL
    assert spread.objective == spread.bound == alone.objective == highs.objective
    assert spread.placement is not None
    for row, col in (fixed or {}).items():
        assert spread.placement[row] == col
    tasks = spread.extra["cluster"]
    assert tasks["workers"] == 2 and tasks["tasks"] == len(tasks["task_seconds"])
    parents, handed = tasks["task_parent"], tasks["task_handed"]
    assert len(parents) == len(handed) == len(tasks["task_nodes"]) == tasks["tasks"]
    assert all(-1 <= p < i and (p < 0 or handed[p] > 0) for i, p in enumerate(parents))
    # n <= 12: the ramp-up in the caller (its reliability trials rule children out) may end
    # the proof; test_the_tasks_give_their_pseudo_costs_back_to_the_caller has tasks (n = 14)
    assert tasks["tasks"] > 0 or n <= 12


@pytest.mark.solver("highs")
def test_the_tasks_give_their_pseudo_costs_back_to_the_caller(client: Any) -> None:
    """Reliability branching on the cluster: the tasks start from the caller's pseudo-costs
    and give back what they added (not the table they were given), which the caller adds
    to its table; the optimum is HiGHS's. Before, the tasks branched without pseudo-costs
    (no trials) and the caller had no table."""
    from nqmip.bnb.distributed import Spec, cluster_engine, explore
    from nqmip.bnb.lpsearch import lp_branch_and_bound
    from nqmip.cluster import open_cluster
    from nqmip.instance import make_instance

    n = 14
    instance = make_instance(n, board(n, 2))  # maximised, as the search does
    table = np.zeros((2, n * n))
    stats: dict[str, Any] = {}
    deadline = Deadline(120)
    with open_cluster(client) as cluster:
        outcome = lp_branch_and_bound(instance, deadline, spread=lambda w, root: cluster_engine(
            instance, w, cluster, deadline, 0.0, root, None, stats, pseudo=table))
    highs = nqmip.solve(instance, method="highs")
    assert outcome.termination is Termination.OPTIMAL
    assert outcome.objective == outcome.bound == highs.objective
    assert stats["tasks"] > 0 and table[1].sum() > 0
    assert stats["pseudo_costs"] == int(table[1].sum())
    # one task given a table that counts 3 losses on every square: it gives back only
    # its own (a square it did not touch: 0, not 3)
    given = (np.full(n * n, 2.0), np.full(n * n, 3, np.int32))
    spec = Spec("pseudo-test", "nqmip-bnb-pseudo-test", instance, None, None, 0.0, 50, given)
    upper = np.packbits(np.ones(n * n, np.uint8)).tobytes()
    piece = client.submit(explore, spec, (), upper, 1e9, None, 50, False, pure=False).result()
    assert piece.pseudo is not None
    sums, counts = piece.pseudo
    assert counts.sum() > 0 and counts.min() == 0 and sums.min() >= 0.0


def test_a_board_whose_fixed_queens_allow_nothing_is_infeasible(client: Any) -> None:
    # two queens that leave no completion: (0, 0) and (1, 2) on n = 4
    result = nqmip.solve(4, board(4, 1), fixed={0: 0, 1: 2}, method="bnb", scheduler=client)
    assert result.status is Status.INFEASIBLE


def test_a_killed_worker_has_its_tasks_rerun_and_the_same_optimum_is_proven() -> None:
    """Two worker processes; one is killed (SIGKILL) while the proof runs: Dask reruns its
    tasks elsewhere (its nanny starts a new worker) and the optimum is proven as in one
    process."""
    from dask.distributed import Client, LocalCluster

    w = board(24, 123456789)
    alone = nqmip.solve(24, w, method="bnb", time_limit=120)
    assert alone.status is Status.OPTIMAL
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as c:
        c.run(lambda: nqmip.solve(8, "random", method="bnb"))  # kernels loaded before
        out: dict[str, Any] = {}
        run = threading.Thread(target=lambda: out.setdefault(
            "result", nqmip.solve(24, w, method="bnb", scheduler=c, time_limit=180)))
        run.start()
        killed = None
        deadline = time.monotonic() + 60
        while killed is None and run.is_alive() and time.monotonic() < deadline:
            busy = {ws for ws, tasks in c.processing().items() if tasks}
            if busy:
                pids = c.run(os.getpid, workers=[sorted(busy)[0]])
                killed = next(iter(pids.values()))
                os.kill(killed, signal.SIGKILL)
            time.sleep(0.05)
        run.join(200)
    assert killed is not None, "the proof ended before a worker could be killed"
    result = out["result"]
    assert result.status is Status.OPTIMAL
    assert result.objective == result.bound == alone.objective


@pytest.mark.solver("highs")
def test_auto_given_a_scheduler_keeps_its_plan_and_runs_its_bnb_there(client: Any) -> None:
    from dask.distributed import get_task_stream

    w = board(20, 1)
    with get_task_stream(client=client) as stream:
        result = nqmip.solve(20, w, method="auto", scheduler=client, time_limit=120)
    assert result.status is Status.OPTIMAL
    assert result.objective == nqmip.solve(20, w, method="highs").objective
    assert "bnb" in result.provenance.plan
    assert any(str(task["key"]).startswith("nqmip-bnb-") for task in stream.data)


def test_a_stopped_run_continues_from_its_record(client: Any, tmp_path: Path) -> None:
    """Stopped (its deadline cancelled) once its record is written, the search leaves its
    open subtrees and incumbent there; the same call given the file proves the optimum of
    one process, and given it again (a finished record) proves at once."""
    w = board(22, 5)
    record = tmp_path / "bnb.json"
    nqmip.solve(8, "random", method="bnb", scheduler=client)  # the kernels loaded
    stop = Deadline(None)

    def cancel_once_recorded(report: Any) -> None:
        if record.exists():
            stop.cancel()

    first = nqmip.solve(22, w, method="bnb", scheduler=client, record=record,
                        time_limit=stop, on_progress=cancel_once_recorded)
    assert first.status is not Status.OPTIMAL, "the proof ended before it could be stopped"
    kept = json.loads(record.read_text())
    # the round it was in, its open subtrees (none if it stopped between two rounds)
    assert kept["round"] is not None and kept["nodes"] > 0
    resumed = nqmip.solve(22, w, method="bnb", scheduler=client, record=record)
    alone = nqmip.solve(22, w, method="bnb")
    assert resumed.status is Status.OPTIMAL
    assert resumed.objective == resumed.bound == alone.objective
    assert resumed.extra["cluster"]["resumed"] == len(kept["open"])
    assert json.loads(record.read_text())["open"] == []
    again = nqmip.solve(22, w, method="bnb", scheduler=client, record=record)
    assert again.status is Status.OPTIMAL and again.objective == alone.objective
    assert again.extra["cluster"]["tasks"] == 0


#: The subtrees :func:`_explore_failing_on_a_worker` was given (the in-process cluster's
#: workers run in this process and import this module by name).
FAILED: list[tuple[int, ...]] = []


def _explore_failing_on_a_worker(spec: Any, queens: tuple[int, ...], *args: Any,
                                 shared: bool = True) -> Any:
    """bnb's task, failing on a worker as HiGHS's "could not solve a node LP" would (the
    ramp-up in the caller runs as usual)."""
    from nqmip.bnb.tasks import explore

    if shared:
        FAILED.append(tuple(queens))
        raise RuntimeError("HiGHS could not solve a node LP: a failure for the test")
    return explore(spec, queens, *args, shared=shared)


def test_a_failed_task_stays_open_in_the_record(client: Any, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A task that raises ends the run with its error, and the record keeps that task's
    subtree open, so a resumed run searches it. Before, the task left the running set before
    its result was read: the record lost its subtree (and, were it the last open one, said
    the round was over: a resumed run would then have claimed a proof it never made)."""
    from nqmip.bnb import distributed

    w = board(22, 5)
    record = tmp_path / "bnb.json"
    nqmip.solve(8, "random", method="bnb", scheduler=client)  # the kernels loaded
    FAILED.clear()
    monkeypatch.setattr(distributed, "explore", _explore_failing_on_a_worker)
    with pytest.raises(RuntimeError, match="a failure for the test"):
        nqmip.solve(22, w, method="bnb", scheduler=client, record=record)
    monkeypatch.undo()
    kept = json.loads(record.read_text())
    left = {tuple(queens) for _, queens, _ in kept["open"]}
    assert FAILED and set(FAILED) <= left  # every failed task's subtree is still open
    resumed = nqmip.solve(22, w, method="bnb", scheduler=client, record=record)
    alone = nqmip.solve(22, w, method="bnb")
    assert resumed.status is Status.OPTIMAL
    assert resumed.objective == resumed.bound == alone.objective


#: The pseudo-cost tables :func:`_explore_seeing_the_table` was given, in order.
SEEN: list[tuple[np.ndarray, np.ndarray] | None] = []


def _explore_seeing_the_table(spec: Any, *args: Any, shared: bool = True) -> Any:
    """bnb's task (the ramp-up's in the caller too), noting the table it starts from."""
    from nqmip.bnb.tasks import explore

    SEEN.append(None if spec.pseudo is None else
                (spec.pseudo[0].copy(), spec.pseudo[1].copy()))
    return explore(spec, *args, shared=shared)


@pytest.mark.solver("highs")
def test_a_continued_run_starts_from_the_pseudo_costs_its_record_kept(
        client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record keeps reliability branching's pseudo-cost table, and a run given it starts
    from that table (its first task, the ramp-up's, is handed it); a record without one (as
    written before) starts a new table. Before, the record kept no table and every
    continued run started from zeros."""
    from nqmip.bnb import distributed

    n = 14
    w = board(n, 2)
    record = tmp_path / "bnb.json"
    first = nqmip.solve(n, w, method="bnb", scheduler=client, record=record)
    assert first.status is Status.OPTIMAL
    body = unsealed(record.read_text())  # its check off: it is made again
    assert sum(body["pseudo"][1]) == first.extra["cluster"]["pseudo_costs"] > 0
    # a table no search makes (3 to 7 losses a square) and the run made to start again
    counts = 3 + np.arange(n * n) % 5
    sums = 0.5 * counts + 0.001 * np.arange(n * n)
    body.update(pseudo=[sums.tolist(), counts.tolist()], round=None, floor=None, open=[],
                incumbent=None, nodes=0)
    record.write_text(sealed(body))
    monkeypatch.setattr(distributed, "explore", _explore_seeing_the_table)
    SEEN.clear()
    resumed = nqmip.solve(n, w, method="bnb", scheduler=client, record=record)
    assert resumed.status is Status.OPTIMAL and resumed.objective == first.objective
    assert SEEN and SEEN[0] is not None
    assert np.array_equal(SEEN[0][1], counts) and np.allclose(SEEN[0][0], sums)
    assert resumed.extra["cluster"]["pseudo_resumed"] == counts.sum()
    kept = np.asarray(json.loads(record.read_text())["pseudo"])
    assert (kept[1] >= counts).all() and (kept[0] >= sums - 1e-9).all()
    # a record as written before the table was kept: a new table
    del body["pseudo"]
    record.write_text(json.dumps(body))  # no check either
    SEEN.clear()
    fresh = nqmip.solve(n, w, method="bnb", scheduler=client, record=record)
    assert fresh.status is Status.OPTIMAL and fresh.objective == first.objective
    assert SEEN and SEEN[0] is not None and not SEEN[0][1].any()
    assert "pseudo_resumed" not in fresh.extra["cluster"]
    # a table of another size is not this search's
    body["pseudo"] = [[0.0] * 3, [0] * 3]
    record.write_text(sealed(body))
    with pytest.raises(ValueError, match="is not a record"):
        nqmip.solve(n, w, method="bnb", scheduler=client, record=record)


def test_a_record_of_a_round_without_its_hair_is_searched_again(client: Any,
                                                                tmp_path: Path) -> None:
    """A record written before a round's floor kept a rounding hair holds a whole floor: on
    toulbar2 N = 18 seed 2 (cost optimum 64, 260 maximised) its round at the optimum, with
    nothing open, ended empty and the continued run said "optimal 65"; now the round runs
    again from its root, with the hair, and proves 64."""
    inst = toulbar2_tutorial(18, 2)
    record = tmp_path / "bnb.json"
    first = nqmip.solve(inst, method="bnb", scheduler=client, record=record)
    assert first.status is Status.OPTIMAL and first.objective == 64.0
    body = unsealed(record.read_text())  # as written before (no check): the round at 260
    body.update(round={"proven": 261, "delta": 2, "last_nodes": None, "floor": 260.0},
                floor=260.0, open=[], incumbent=None, nodes=0)
    record.write_text(json.dumps(body))
    again = nqmip.solve(inst, method="bnb", scheduler=client, record=record)
    assert again.status is Status.OPTIMAL
    assert again.objective == again.bound == 64.0


def test_a_record_of_another_board_is_refused(client: Any, tmp_path: Path) -> None:
    record = tmp_path / "bnb.json"
    nqmip.solve(8, board(8, 1), method="bnb", scheduler=client, record=record)
    with pytest.raises(ValueError, match="belongs to another search"):
        nqmip.solve(8, board(8, 2), method="bnb", scheduler=client, record=record)
    record.write_text("not a record")
    with pytest.raises(ValueError, match="is not a record"):
        nqmip.solve(8, board(8, 1), method="bnb", scheduler=client, record=record)


def test_workers_and_scheduler_are_bnb_options_only() -> None:
    with pytest.raises(ValueError, match="does not take workers"):
        nqmip.solve(8, "random", method="highs", workers=2)
    with pytest.raises(ValueError, match="does not take workers"):  # auto: a scheduler
        nqmip.solve(8, "random", method="auto", workers=2)
    with pytest.raises(ValueError, match="exclude each other"):
        nqmip.solve(8, "random", method="bnb", workers=2, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match="threads with workers"):
        nqmip.solve(8, "random", method="bnb", workers=2, threads=2)
    with pytest.raises(ValueError, match="work_limit with scheduler"):
        nqmip.solve(8, "random", method="bnb", scheduler="tcp://127.0.0.1:1", work_limit=5)
    with pytest.raises(TypeError, match="scheduler must be"):
        nqmip.solve(8, "random", method="bnb", scheduler=8786)
    with pytest.raises(ValueError, match="give workers or scheduler too"):
        nqmip.solve(8, "random", method="bnb", record="run.json")


@pytest.mark.parametrize("argv,flags", [
    (["--workers", "2", "--threads", "2"], ("--threads with --workers", "drop one")),
    (["--scheduler", "tcp://127.0.0.1:1", "--work-limit", "5"],
     ("--work-limit with --scheduler", "drop one")),
    (["--record", "run.json"], ("--record keeps", "give --workers or --scheduler too")),
    (["--workers", "0"], ("--workers", "from 1 to 256")),
])
def test_the_solve_command_refuses_a_bad_cluster_in_one_line_naming_its_flags(
        argv: list[str], flags: tuple[str, ...]) -> None:
    from nqmip.cli.solve import solve_weighted_main
    from tests.test_inputs_environments import assert_one_line_refusal, run_main

    assert_one_line_refusal(*run_main(solve_weighted_main,
                                      ["--n", "10", "--method", "bnb", *argv]), *flags)


#: The methods that run on a local cluster of their own (the method table's ``workers``).
ON_WORKERS = sorted(m.name for m in METHODS.values() if m.honour("workers"))


@pytest.mark.parametrize("method", ON_WORKERS)
def test_a_run_on_workers_stopped_by_its_limit_answers_with_its_own_best(method: str) -> None:
    # Closing a local cluster's worker processes takes seconds, more than a stopped run has
    # to answer: the run answered with the explicit construction, not its incumbent ("out
    # of time: the bnb search did not stop in time": 150 where it held 256)
    instance = make_instance(30, "random", weights_seed=1)
    r = nqmip.solve(instance, method=method, workers=2, time_limit=12)
    assert "did not stop in time" not in r.message, r.message
    assert r.status in (Status.FEASIBLE, Status.OPTIMAL)
    verified(instance, r)
