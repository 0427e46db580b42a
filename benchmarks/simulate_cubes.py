"""What the first queens' cube-and-conquer would take on more workers, from the log of a
recorded run (benchmarks/bench_lexfirst.py with ``--oracle first-fail@W``: each run's
``CubeOracle.log`` in benchmarks/results/lexfirst_cubes.jsonl).

    python benchmarks/simulate_cubes.py --n 38,39,41 --workers 1,2,8,32,128

The descent asks its questions one after another, so each split question is simulated on
its own and the times add up, with the caller's own time (the questions it answered alone,
and each split question's first ``SPLIT_AFTER`` second: the run's seconds less its split
questions' cube phases) as recorded. A question's cubes cost their recorded CPU seconds
(as if each worker had a core of its own) plus the run's overhead per cube (the workers'
time in a refuted question's cube phase outside the cubes, over the cubes). Two figures:

- ``whole``: the recorded cubes, none split further than in the recorded run, handed out in
  the order they were sent to the first worker free; a cube split in the run (out of its
  budget while no other cube waited) is sent its children when it ends; a question answered
  yes ends when its winning cube does, a refuted one with its last cube. The upper end:
  on more workers a cube is split more often, to feed the idle ones.
- ``split``: a refuted question's work spread evenly (its cubes' seconds over P): the lower
  end, no cube too long to share. A question answered yes is taken as in ``whole``.

The speed-up is the one-worker ``whole`` over the P-worker one. It can pass P: a question
answered yes ends with its winning cube, which more workers start sooner (on one worker
the cubes sent before it run first). The model keeps the recorded questions: on more
workers another cube may win a yes question first, and the descent go on from another
solution. A run stopped at its limit has a last question whose cubes did not all end: its
figures are those of the part it did (marked "cut").
"""

from __future__ import annotations

import argparse
import heapq
import json
import statistics
import sys
from collections import defaultdict, deque
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "benchmarks" / "results" / "lexfirst_cubes.jsonl"


def _recorded_workers(run: dict[str, Any]) -> int:
    method = str(run.get("method", ""))
    digits = "".join(ch for ch in method.split(",")[-1] if ch.isdigit())
    return int(digits or 1)


def _ended(cubes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cubes that ended (not stopped by a yes or by the limit)."""
    return [c for c in cubes if c["answer"] != "stopped"]


def _cut(run: dict[str, Any]) -> list[dict[str, Any]]:
    """The cubes of the question the run's limit cut (logged with no question entry)."""
    answered = {e["question"] for e in run["log"] if "cube" not in e}
    return [e for e in run["log"] if "cube" in e and e["question"] not in answered]


def parts(run: dict[str, Any]) -> tuple[float, list[dict[str, Any]], dict[int, list[dict]]]:
    """(the caller's seconds, the split questions, their cubes by question)."""
    questions = [e for e in run["log"] if "cube" not in e]
    cubes: dict[int, list[dict]] = defaultdict(list)
    for e in run["log"]:
        if "cube" in e:
            cubes[e["question"]].append(e)
    phases = sum(q["ended"] - q["split"] for q in questions)
    open_ = _cut(run)
    if open_:  # a question cut by the limit: its phase from its first cube to the end
        phases += max(e["done"] for e in open_) - min(e["sent"] for e in open_)
    return max(run["seconds"] - phases, 0.0), questions, cubes


def overhead(run: dict[str, Any], questions: list[dict[str, Any]],
             cubes: dict[int, list[dict]]) -> float:
    """Seconds per cube the recorded workers spent in refuted questions outside cubes."""
    workers = _recorded_workers(run)
    spent = count = 0.0
    for q in questions:
        if q["answer"]:
            continue
        done = _ended(cubes[q["question"]])
        spent += (q["ended"] - q["split"]) * workers - sum(c["wall"] for c in done)
        count += len(done)
    return max(spent / count, 0.0) if count else 0.0


def whole(cubes: list[dict], workers: int, extra: float, answer: bool | None) -> float:
    """The makespan of one question's recorded cubes on ``workers`` (see the module): list
    scheduling in the order sent, a split cube's children ready when it ends."""
    done = sorted(_ended(cubes), key=lambda c: c["cube"])
    kids: dict[int | None, list[dict]] = defaultdict(list)
    for c in done:
        kids[c["parent"]].append(c)
    ready = deque(kids[None])
    running: list[tuple[float, int, dict]] = []
    now, idle = 0.0, workers
    while ready or running:
        while ready and idle:
            cube = ready.popleft()
            idle -= 1
            heapq.heappush(running, (now + cube["cpu"] + extra, cube["cube"], cube))
        now, _, cube = heapq.heappop(running)
        idle += 1
        if answer and cube["answer"] is True:
            return now
        ready.extend(kids[cube["cube"]])
    return now


def simulate(run: dict[str, Any], workers: int) -> tuple[float, float, float, float]:
    """(whole, split, work, overhead per cube) for ``run`` on ``workers``."""
    caller, questions, cubes = parts(run)
    extra = overhead(run, questions, cubes)
    answers = {q["question"]: q["answer"] for q in questions}
    slow = fast = caller
    work = caller
    for qid, group in cubes.items():
        seconds = sum(c["cpu"] + extra for c in _ended(group))
        work += seconds
        span = whole(group, workers, extra, answers.get(qid))
        slow += span
        fast += span if answers.get(qid) else seconds / workers
    return slow, fast, work, extra


def extrapolated(run: dict[str, Any]) -> dict[str, Any] | None:
    """``run`` with its cut question (stopped at the limit) refuted, each cube it did not
    end costing the median CPU time of those it ended (None: it ended none, or the run was
    not cut): the time to settle that question if its cubes are alike, a lower end for
    the run, whose later questions are not known."""
    cut = _cut(run)
    ended = [e["cpu"] for e in _ended(cut)]
    if run["complete"] or not ended:
        return None
    median = statistics.median(ended)
    log = [e for e in run["log"] if e not in cut] + [
        e if e["answer"] != "stopped" else {**e, "answer": False, "cpu": median,
                                            "wall": median} for e in cut]
    log.append({"question": cut[0]["question"], "row": -1, "limit": -1, "answer": False,
                "asked": min(e["sent"] for e in cut), "split": min(e["sent"] for e in cut),
                "ended": max(e["done"] for e in cut)})
    return {**run, "log": log}


def censored(run: dict[str, Any]) -> str:
    """For a run cut in a question none of whose cubes ended: how long the ones running
    had taken (the first sent, one a recorded worker), a lower end for each; else ''."""
    cut = _cut(run)
    if run["complete"] or not cut or _ended(cut):
        return ""
    first = min(e["sent"] for e in cut)
    return (f"none of its last question's {len(cut)} cubes ended; the "
            f"{_recorded_workers(run)} running each took over {run['seconds'] - first:.0f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", default=None, help="board sizes, e.g. 38,39,41 (default: all)")
    parser.add_argument("--workers", default="1,2,8,32,128")
    parser.add_argument("--logs", type=Path, default=LOGS)
    parser.add_argument("--extrapolate", action="store_true",
                        help="a run cut by its limit: its last question settled as if every "
                             "cube cost the median of those it ended (see extrapolated())")
    args = parser.parse_args()
    sizes = None if args.n is None else {int(n) for n in args.n.split(",")}
    runs = [json.loads(line) for line in args.logs.read_text().splitlines() if line.strip()]
    runs = [r for r in runs if sizes is None or r["n"] in sizes]
    known = [(r, censored(r)) for r in runs]
    for run, said in known:
        if said:  # nothing to simulate: what is known
            print(f"n = {run['n']}: cut at {run['proven_rows']} rows; {said}")
    runs = [r for r, said in known if not said]
    if args.extrapolate:
        runs = [e | {"extrapolated": True} for r in runs
                if (e := (extrapolated(r) if not r["complete"] else r)) is not None]
    if not runs:
        print(f"no cube-and-conquer log in {args.logs}", file=sys.stderr)
        return 1
    print("| n | recorded | settled | cubes | overhead a cube (ms) | P "
          "| makespan (s): split | whole | speed-up (whole) |")
    print("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for run in runs:
        count = len(_ended([e for e in run["log"] if "cube" in e]))
        one = simulate(run, 1)[0]
        settled = "yes" if run["complete"] else f"cut ({run['proven_rows']} rows)" + (
            ", its last question extrapolated" if run.get("extrapolated") else "")
        for p in (int(w) for w in args.workers.split(",")):
            slow, fast, _, extra = simulate(run, p)
            print(f"| {run['n']} | {run['seconds']:.1f} s on {_recorded_workers(run)} "
                  f"| {settled} | {count} | {1000 * extra:.0f} | {p} | {fast:.1f} "
                  f"| {slow:.1f} | {one / slow:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
