"""Counting and listing every solution: OEIS tables, brute force, the CLI, the split count."""

from __future__ import annotations

import contextlib
import itertools
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
from hypothesis import given, settings
from hypothesis import strategies as st

import nqmip
from nqmip.cli.count import count_main
from nqmip.enumeration.count import CountError, run_count, solutions
from nqmip.enumeration.optimal import enumerate_optimal

from .conftest import IN_CI

ROOT = Path(__file__).resolve().parent.parent

# Typed from OEIS: A000170 (all solutions) n = 1 .. 15, A002562 (classes under the 8
# symmetries of the square) n = 1 .. 12.
A000170 = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184]
A002562 = [1, 0, 0, 1, 2, 1, 6, 12, 46, 92, 341, 1787]


def brute_force(n: int, fixed: dict[int, int]) -> list[tuple[int, ...]]:
    """Every permutation keeping the fixed queens whose diagonals are all distinct."""
    found = []
    for p in itertools.permutations(range(n)):
        if any(p[r] != c for r, c in fixed.items()):
            continue
        if len({i - p[i] for i in range(n)}) == n and len({i + p[i] for i in range(n)}) == n:
            found.append(p)
    return found


@pytest.mark.parametrize(("n", "expected"), list(enumerate(A000170, start=1)))
def test_count_matches_a000170(n: int, expected: int) -> None:
    assert nqmip.count_solutions(n) == expected


@pytest.mark.parametrize(("n", "expected"), list(enumerate(A002562, start=1)))
def test_unique_count_matches_a002562(n: int, expected: int) -> None:
    result = run_count(n, unique=True)
    assert result.count == expected
    # The classes' sizes add up to every solution: each class was found exactly once.
    assert result.solutions == A000170[n - 1]


@pytest.mark.parametrize("n", [1, 4, 5, 6, 7, 8, 9])
def test_fundamental_solutions_generate_every_solution(n: int) -> None:
    every = set(solutions(n))
    images: set[tuple[int, ...]] = set()
    for p, size in solutions(n, unique=True):
        orbit = set()
        q = p
        for _ in range(4):  # the four rotations of p and of its mirror image
            q = tuple(q.index(r) for r in range(n))[::-1]  # quarter turn
            orbit |= {q, q[::-1]}
        assert len(orbit) == size
        assert p == min(orbit)
        assert not orbit & images  # no two fundamental solutions share a class
        images |= orbit
    assert images == every


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=8), st.data())
def test_completions_match_brute_force(n: int, data: st.DataObject) -> None:
    rows = data.draw(st.lists(st.integers(0, n - 1), max_size=min(n, 3), unique=True))
    fixed = {r: data.draw(st.integers(0, n - 1)) for r in rows}
    expected = brute_force(n, fixed)
    if _attacking(fixed):  # an input error now, named by make_instance
        assert expected == []
        with pytest.raises(nqmip.InstanceError, match="attack each other"):
            nqmip.count_solutions(n, fixed=fixed)
        return
    assert nqmip.count_solutions(n, fixed=fixed) == len(expected)
    assert list(solutions(n, fixed)) == expected  # lexicographic order


def _attacking(fixed: dict[int, int]) -> bool:
    queens = list(fixed.items())
    return any(c1 == c2 or abs(r1 - r2) == abs(c1 - c2)
               for k, (r1, c1) in enumerate(queens) for r2, c2 in queens[k + 1:])


@pytest.mark.parametrize(("n", "fixed"), [(10, {0: 1, 5: 4}), (10, {3: 0}), (9, {8: 8})])
def test_completions_at_n_9_10_match_brute_force(n: int, fixed: dict[int, int]) -> None:
    expected = brute_force(n, fixed)
    assert nqmip.count_solutions(n, fixed=fixed) == len(expected)
    assert set(solutions(n, fixed)) == set(expected)


def test_clashing_fixed_queens_are_an_input_error() -> None:
    with pytest.raises(nqmip.InstanceError, match="diagonal"):
        nqmip.count_solutions(8, fixed={0: 0, 1: 1})
    with pytest.raises(nqmip.InstanceError, match="column"):
        list(solutions(8, {2: 3, 6: 3}))


@pytest.mark.parametrize("n", range(1, 11))
def test_listing_equals_enumerate_optimal_of_cpsat(n: int) -> None:
    value, placements, engine = enumerate_optimal(n, engine="cpsat", return_engine=True)
    assert engine == "cpsat"
    assert list(solutions(n)) == placements
    fast = enumerate_optimal(n, return_engine=True)
    assert fast == (value, placements, "bitboard")


def test_listing_is_lazy_and_batched() -> None:
    it = solutions(14, batch=64)
    first = [next(it) for _ in range(100)]
    assert first == sorted(first) and len(set(first)) == 100
    assert all(nqmip.is_solution(p) for p in first)


def test_enumerate_optimal_weighted_bitboard_equals_cpsat() -> None:
    for args in ((8, "chess", {0: 2}), (9, "random", None)):
        fast = enumerate_optimal(*args, weights_seed=4, return_engine=True)
        slow = enumerate_optimal(*args, weights_seed=4, engine="cpsat", return_engine=True)
        assert fast[2] == "bitboard" and slow[2] == "cpsat"
        assert fast[:2] == slow[:2] and fast[1]


def test_refusals() -> None:
    with pytest.raises(CountError, match="n <= 32"):
        nqmip.count_solutions(33)
    with pytest.raises(CountError, match="unique"):
        nqmip.count_solutions(8, fixed={0: 0}, unique=True)
    with pytest.raises(nqmip.InstanceError):
        nqmip.count_solutions(0)
    with pytest.raises(nqmip.InstanceError):
        nqmip.count_solutions(8, fixed={0: 9})
    from nqmip.enumeration.optimal import EnumerationError

    with pytest.raises(EnumerationError, match="GiB"):
        enumerate_optimal(18)


def test_split_count_over_processes_equals_single() -> None:
    single = run_count(12)
    split = run_count(12, workers=2)
    assert split.count == single.count == 14200 and split.tasks >= 16
    assert run_count(12, unique=True, workers=2).count == 1787
    assert run_count(11, fixed={0: 3}, workers=2).count == nqmip.count_solutions(11, {0: 3})


def test_record_resumes_without_losing_or_recounting(tmp_path: Path) -> None:
    record = tmp_path / "n12.jsonl"
    run_count(12, record=record)
    lines = record.read_text().splitlines()
    assert len(lines) >= 8
    # A run killed after a few sub-trees (the last line torn mid-write): the rerun counts
    # only the rest and the total is unchanged.
    record.write_text("\n".join(lines[:5]) + "\n" + lines[5][: len(lines[5]) // 2])
    resumed = run_count(12, record=record, workers=2)
    assert resumed.count == 14200 and resumed.resumed == 5
    prefixes = [tuple(json.loads(line)["task"]) for line in record.read_text().splitlines()
                if line.endswith("}")]
    assert sorted(prefixes) == sorted(set(prefixes))  # nothing counted twice
    assert run_count(12, record=record).resumed == resumed.tasks
    with pytest.raises(CountError, match="another count"):
        run_count(11, record=record)


def test_split_count_on_a_local_dask_cluster() -> None:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        if IN_CI:
            pytest.fail('CI=true and dask is missing: pip install "nqmip[dask]"')
        pytest.skip('dask is not installed: pip install "nqmip[dask]"')
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        result = run_count(12, scheduler=client)
    assert result.count == 14200 and result.engine.endswith("Dask") and result.tasks >= 16


def test_cli_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert count_main(["--n", "8"]) == 0
    assert capsys.readouterr().out == "92\n"
    assert count_main(["--n", "8", "--unique"]) == 0
    assert capsys.readouterr().out == "12\n"
    assert count_main(["--n", "8", "--fix", "0,0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["count"] == 4
    assert count_main(["--n", "8", "--unique", "--list", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 12 and sum(line["class_size"] for line in lines) == 92


@pytest.mark.parametrize("argv", [
    ["--n", "33"], ["--n", "0"], ["--n", "x"], ["--n", "8", "--fix", "1"],
    ["--n", "8", "--fix", "0,8"], ["--n", "8", "--unique", "--fix", "0,0"],
    ["--n", "8", "--workers", "0"], ["--n", "8", "--list", "--workers", "2"], [],
])
def test_cli_bad_input_exits_2_with_one_line(argv: list[str],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert count_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("nqmip-count: error:") and err.count("\n") == 1


@pytest.mark.parametrize(("argv", "words"), [
    (["--n", "6", "--list", "--verbose"], "--verbose says the count's timings"),
    (["--n", "6", "--plot", "{tmp}/p.png", "--verbose"], "--verbose says the count's timings"),
    (["--n", "6", "--plot", "{tmp}/p.png", "--json"], "--plot alone prints nothing"),
    (["--n", "8", "--unique", "--fix", "0,0"], "with --fix/--fixed drop --unique"),
])
def test_an_option_that_would_do_nothing_is_refused(argv: list[str], words: str,
                                                    tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Before, --verbose beside --list/--plot and --json beside --plot alone were dropped
    (exit 0, nothing said), and --unique with fixed queens was refused in the API's words
    (unique=False)."""
    assert count_main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nqmip-count: error:") and err.count("\n") == 1 and words in err
    assert not (tmp_path / "p.png").exists()


def test_script_runs_from_a_checkout() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "count_solutions.py"),
                          "--n", "8"], capture_output=True, text=True, env=env, check=True)
    assert out.stdout == "92\n"
    bad = subprocess.run([sys.executable, str(ROOT / "scripts" / "count_solutions.py"),
                          "--n", "40"], capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


@pytest.mark.parametrize("n", [6, 7, 8, 9])
def test_constellation_orbits_cover_every_border_placement(n: int) -> None:
    from nqmip.enumeration.constellations import starts

    # Every non-attacking choice of one queen per border line (a corner queen serves two),
    # by brute force: the orbits' sizes must add up to exactly these.
    m = n - 1
    placements = 0
    for top, bottom, left, right in itertools.product(range(n), repeat=4):
        queens = {(0, top), (m, bottom), (left, 0), (right, m)}
        rows_differ = len({r for r, _ in queens}) == len(queens)
        on_lines = [sum(1 for r, c in queens if line(r, c)) for line in (
            lambda r, c: r == 0, lambda r, c: r == m, lambda r, c: c == 0, lambda r, c: c == m)]
        if not rows_differ or on_lines != [1, 1, 1, 1] or _attacking(dict(queens)):
            continue
        placements += 1
    found, weights = starts(n)
    assert int(weights.sum()) == placements
    assert len({tuple(row) for row in found.tolist()}) == len(found)


def interrupted_after(seconds: float, count: Callable[[], object]
                      ) -> tuple[float, BaseException | None]:
    """Run ``count`` with Ctrl-C sent to this (the main) thread ``seconds`` into it; (the
    seconds it took, what it raised)."""
    import _thread
    import threading

    stopped: BaseException | None = None
    ctrl_c = threading.Timer(seconds, _thread.interrupt_main)
    start = time.perf_counter()
    ctrl_c.start()
    try:
        count()
    except KeyboardInterrupt as exc:
        stopped = exc
    finally:
        ctrl_c.cancel()
    return time.perf_counter() - start, stopped


@pytest.mark.timing
def test_ctrl_c_stops_a_count_in_one_process_with_its_finished_part() -> None:
    """A count in one process (no workers) hears Ctrl-C while a kernel runs, not when the
    count ends (n = 16 takes seconds), and says how much its finished sub-trees hold."""
    from nqmip.enumeration.count import A000170 as KNOWN
    from nqmip.enumeration.count_tasks import CountInterrupted

    run_count(13)  # the kernels compiled and loaded before the clock starts
    seconds, stopped = interrupted_after(0.5, lambda: run_count(16))
    assert isinstance(stopped, CountInterrupted), stopped
    assert seconds < 0.5 + 2.0, f"{seconds:.2f} s to stop"
    assert stopped.done is not None and stopped.total is not None
    assert 0 <= stopped.done < stopped.total and stopped.what == "solutions"
    assert 0 <= stopped.count == stopped.solutions < KNOWN[15]


def test_ctrl_c_on_a_count_beyond_the_bitboards_is_no_total() -> None:
    """Beyond n = 32 the completions are one search on the free board; Ctrl-C stops it
    with what it had found, never passed off as the count (it was returned as one)."""
    from nqmip.enumeration.count_tasks import CountInterrupted

    n = 40
    queens = [*range(1, n, 2), *range(0, n, 2)]  # a solution of n = 40
    assert nqmip.is_solution(queens)
    assert nqmip.count_solutions(n, {r: queens[r] for r in range(20)}) == 4375  # warm
    fixed = {r: queens[r] for r in range(16)}  # 9,383,007 completions: minutes to count
    seconds, stopped = interrupted_after(0.5, lambda: nqmip.count_solutions(n, fixed))
    assert isinstance(stopped, CountInterrupted), stopped
    assert stopped.done is None and stopped.what == "completions"
    assert 0 <= stopped.count < 9_383_007
    assert seconds < 0.5 + 2.0, f"{seconds:.2f} s to stop"


def signalled_single_count(after: float) -> tuple[float, subprocess.CompletedProcess[str]]:
    command = [sys.executable, "-m", "nqmip.cli.count", "--n", "17"]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(after)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return time.perf_counter() - sent, subprocess.CompletedProcess(command, proc.returncode,
                                                                   out, err)


@pytest.mark.timing
def test_nqmip_count_in_one_process_stops_on_ctrl_c_saying_what_it_counted() -> None:
    """``nqmip-count --n 17`` (half a minute on a loaded machine) in one process: SIGINT
    mid-count ends it within seconds (the Python exit of numba's modules takes about one
    of them there), status 130, nothing on stdout, the part counted said to be a part.
    Once more, later, if the signal came while the command was still starting."""
    seconds, done = signalled_single_count(6.0)
    if "sub-trees" not in done.stderr or seconds > 3.0:
        seconds, done = signalled_single_count(12.0)
    assert done.returncode == 130, done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith("nqmip-count: interrupted after "), done.stderr
    assert "(a part of the count, not the total)" in done.stderr
    assert seconds <= 3.0, f"{seconds:.2f} s from SIGINT to exit"


def _kill_a_pool_process(killed: list[int]) -> None:
    """In a thread: SIGKILL one process of the count's pool once two run (the pool may
    start late: a cold numba cache compiles the count's kernels first, and a 4 s watch
    gave up before it, failing on 'assert killed')."""
    import multiprocessing
    import threading

    def kill_one() -> None:
        until = time.monotonic() + 120
        while time.monotonic() < until:
            alive = [p for p in multiprocessing.active_children() if p.is_alive()]
            if len(alive) >= 2:
                time.sleep(0.2)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(alive[0].pid, signal.SIGKILL)
                    killed.append(alive[0].pid)
                return
            time.sleep(0.01)

    threading.Thread(target=kill_one, daemon=True).start()


@pytest.mark.parametrize("unique", [False, True])
def test_a_killed_process_of_the_pool_leaves_the_count_exact(unique: bool,
                                                             tmp_path: Path) -> None:
    # One process of the count's pool killed (SIGKILL, out of memory): the count raised
    # BrokenProcessPool with a traceback (nqmip-count --n 16 --workers 2, a process killed
    # at 2 s), or hung waiting for the others; its unfinished sub-trees are counted again
    # in a new pool, and the record of a stopped count holds no sub-tree twice
    killed: list[int] = []
    _kill_a_pool_process(killed)
    n = 16
    got = run_count(n, unique=unique, workers=2, record=tmp_path / "count.jsonl")
    assert killed
    assert got.count == (1846955 if unique else 14772512)
    lines = (tmp_path / "count.jsonl").read_text().splitlines()
    tasks = [json.dumps(json.loads(line).get("task")) for line in lines]
    tasks = [t for t in tasks if t != "null"]  # the record's header
    assert tasks and len(tasks) == len(set(tasks)), "a sub-tree recorded twice"


def test_a_count_whose_pool_dies_past_its_restarts_says_so_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # past count_tasks.RESTARTS (here none allowed) the count gives up: the command said so
    # with a BrokenProcessPool traceback (exit 1); now one line naming it, exit 1
    from nqmip.enumeration import count_tasks

    monkeypatch.setattr(count_tasks, "RESTARTS", 0)
    killed: list[int] = []
    _kill_a_pool_process(killed)
    status = count_main(["--n", "16", "--workers", "2", "--no-progress"])
    captured = capsys.readouterr()
    assert killed and status == 1, (status, captured.err)
    assert captured.out == ""
    assert captured.err.startswith("nqmip-count: processes of the count's pool died"), \
        captured.err
    assert captured.err.count("\n") == 1, captured.err


@pytest.mark.parametrize("engine", ["auto", "bitboard", "cpsat"])
@pytest.mark.parametrize("sense", ["max", "min"])
def test_every_engine_lists_the_optima_of_the_instances_sense(engine: str, sense: str) -> None:
    """An Instance of costs (``sense='min'``) lists its cheapest placements by every
    engine: the bitboard engine (auto's choice here) listed the dearest (a 6-board of
    costs: 25 where 12 is least; CP-SAT said 12)."""
    from itertools import permutations

    for n, seed, fixed in ((5, 1, None), (6, 4, None), (7, 2, {0: 2})):
        inst = nqmip.make_instance(n, "random", fixed=fixed, weights_seed=seed, sense=sense)
        w = inst.weight_matrix()
        values: dict[tuple[int, ...], float] = {
            p: float(w[np.arange(n), list(p)].sum()) for p in permutations(range(n))
            if len({r - p[r] for r in range(n)}) == n == len({r + p[r] for r in range(n)})
            and all(p[r] == c for r, c in (fixed or {}).items())}
        best = (min if sense == "min" else max)(values.values())
        optimum, found = nqmip.enumerate_optimal(inst, engine=engine)
        assert optimum == best, (n, seed, optimum, best)
        assert found == sorted(p for p, v in values.items() if v == best)


@pytest.mark.parametrize("bad", [-1, 0, 1.5, True, "2"])
def test_max_solutions_must_be_a_whole_number_from_1(bad: object) -> None:
    """-1 was a slice (the last optimum dropped), 1.5 a TypeError from inside, 0 a list of
    none."""
    with pytest.raises((TypeError, ValueError), match="max_solutions"):
        nqmip.enumerate_optimal(6, "chess", max_solutions=bad)  # type: ignore[arg-type]
