"""benchmarks/simulate_cubes.py: the first queens' cube-and-conquer on more workers, from a
run's log, on synthetic logs whose makespans are known by hand; and on a real log, the
simulation on the recorded workers within reach of the recorded time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]


sim = load_script("simulate_cubes", ROOT / "benchmarks" / "simulate_cubes.py")


def _cube(question: int, ident: int, cpu: float, answer: Any = False,
          parent: int | None = None) -> dict[str, Any]:
    return {"question": question, "cube": ident, "parent": parent, "depth": 1,
            "answer": answer, "sent": 0.0, "done": 0.0, "cpu": cpu, "wall": cpu}


def _run(questions: list[tuple[bool, float, list[dict[str, Any]]]], caller: float,
         workers: int = 1) -> dict[str, Any]:
    """A run whose split questions (answer, cube phase's seconds, cubes) follow one another
    after ``caller`` seconds of the caller's own."""
    log: list[dict[str, Any]] = []
    now = caller
    for qid, (answer, phase, cubes) in enumerate(questions, 1):
        log += [{**c, "question": qid} for c in cubes]
        log.append({"question": qid, "row": 3, "limit": 9, "asked": now, "split": now,
                    "ended": now + phase, "answer": answer})
        now += phase
    return {"n": 30, "seconds": now, "complete": True, "proven_rows": 30,
            "method": f"descent (first-fail cubes, {workers} processes)", "log": log}


def test_a_refuted_question_is_bracketed_by_its_even_share_and_its_list_schedule() -> None:
    cubes = [_cube(0, i, s) for i, s in enumerate([4.0, 1.0, 1.0, 1.0, 1.0])]
    run = _run([(False, 8.0, cubes)], caller=2.0)
    whole, split, work, extra = sim.simulate(run, 2)
    assert extra == pytest.approx(0.0)  # 8 s on 1 worker, 8 s of cubes
    assert work == pytest.approx(10.0)
    assert split == pytest.approx(2.0 + 8.0 / 2)
    assert whole == pytest.approx(2.0 + 4.0)  # 4 on one worker, the four 1 s on the other
    assert sim.simulate(run, 1)[:2] == pytest.approx((10.0, 10.0))


def test_a_split_cubes_children_wait_for_it_and_a_yes_ends_at_its_winner() -> None:
    refuted = [_cube(0, 0, 3.0, None), _cube(0, 1, 1.0), _cube(0, 2, 2.0, parent=0),
               _cube(0, 3, 2.0, parent=0)]
    won = [_cube(0, 4, 1.0), _cube(0, 5, 5.0, True), _cube(0, 6, 0.0, "stopped")]
    run = _run([(False, 8.0, refuted), (True, 6.0, won)], caller=1.0)
    whole, split, work, _ = sim.simulate(run, 2)
    # the children start at 3 s (when their parent ends), side by side: 5 s; the yes: its
    # winner on the second worker from the start, 5 s; the stopped cube costs nothing
    assert whole == pytest.approx(1.0 + 5.0 + 5.0)
    assert split == pytest.approx(1.0 + 8.0 / 2 + 5.0)
    assert work == pytest.approx(1.0 + 8.0 + 6.0)
    assert sim.simulate(run, 8)[0] == pytest.approx(1.0 + 5.0 + 5.0)


def test_the_overhead_is_the_workers_time_outside_cubes_in_refuted_questions() -> None:
    cubes = [_cube(0, i, 1.0) for i in range(4)]
    run = _run([(False, 3.0, cubes)], caller=0.0, workers=2)  # 6 s of workers, 4 s cubes
    _, split, work, extra = sim.simulate(run, 2)
    assert extra == pytest.approx(0.5)
    assert work == pytest.approx(6.0) and split == pytest.approx(3.0)


def test_a_cut_question_is_extrapolated_from_the_median_of_its_ended_cubes() -> None:
    """A run stopped in a question (no question entry; its cubes not ended logged as
    stopped): each of those costs the median of the ended ones, the question refuted."""
    cut = [_cube(7, 0, 2.0), _cube(7, 1, 6.0), _cube(7, 2, 4.0),
           *(_cube(7, i, 0.0, "stopped") for i in range(3, 9))]
    for i, cube in enumerate(cut):
        cube["sent"], cube["done"] = 1.0, 1.0 + (6.0 if i < 3 else 12.0)
    run = {"n": 40, "seconds": 13.0, "complete": False, "proven_rows": 12,
           "method": "descent (first-fail cubes, 1 processes)", "log": cut}
    assert sim.simulate(run, 2)[2] == pytest.approx(1.0 + 12.0)  # the ended cubes only
    whole_run = sim.extrapolated(run)
    assert whole_run is not None
    whole, split, work, _ = sim.simulate(whole_run, 3)
    assert work == pytest.approx(1.0 + 12.0 + 6 * 4.0)  # caller 1 s, 6 cubes at 4 s
    assert split == pytest.approx(1.0 + 36.0 / 3)
    assert whole == pytest.approx(1.0 + 14.0)  # workers: 2 4 4 4 | 6 4 | 4 4 4, as sent
    assert sim.extrapolated({**run, "complete": True}) is None
    assert sim.extrapolated({**run, "log": cut[3:]}) is None  # nothing ended: no median
    assert sim.censored(run) == ""
    assert sim.censored({**run, "log": cut[3:]}).endswith("the 1 running each took over 12 s")


def test_a_real_runs_log_is_read_and_bracketed() -> None:
    """n = 22 by cubes on 2 processes: the log CubeOracle writes is the simulator's input;
    on every P the even share is at most the list schedule, the work the same."""
    from nqmip.budget import Deadline
    from nqmip.instance import make_instance
    from nqmip.lex.cubes import CubeOracle, Workers
    from nqmip.lex.descent import descend

    pool = Workers(2)
    pool.ready()
    try:
        oracle = CubeOracle("first-fail", 22, pool, split_after=0.0, cube_budget=0.2,
                            max_depth=3, log=True)
        run = descend(make_instance(22), oracle, Deadline(120))
        oracle.close()
    finally:
        pool.close()
    assert run.complete and oracle.counters["cubes"] > 0
    record = {"n": 22, "seconds": run.seconds, "complete": True, "proven_rows": 22,
              "method": "descent (first-fail cubes, 2 processes)", "log": oracle.log}
    works = set()
    for workers in (1, 2, 8):
        whole, split, work, extra = sim.simulate(record, workers)
        assert 0 < split <= whole + 1e-9 and extra >= 0
        works.add(round(work, 9))
    assert len(works) == 1
