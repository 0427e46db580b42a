"""auto against HiGHS alone on small boards under short limits, in fresh processes, on a
cold and a warm numba cache: wherever ``--method highs`` proves the optimum well within
the limit, auto must answer that optimum, proven, within it.

    python benchmarks/bench_small_limits.py --out limits.jsonl            # the whole sweep
    python benchmarks/bench_small_limits.py --n 13 --limits 5 --weights chess
    python benchmarks/bench_small_limits.py --report limits.jsonl

The board sizes come from auto's policy table (:func:`cells`): every threshold of
:mod:`nqmip.auto.policy` that counts free rows within ``N_RANGE``, one below it, at it and
one and two above it (so a fixed queen crosses it too), with the ends of the range. Each cell
(n, weights chess or random 1..9 with seed n, maximise or minimise, no queen or one fixed
queen) runs ``scripts/solve_weighted.py --json`` once with ``--method highs`` and, for each
limit, auto on an empty numba cache (a fresh ``NUMBA_CACHE_DIR``) and on a warm one (a
folder compiled once by ``--warm-up``). The wall time is the process's, start to exit (the
command's ``--time-limit`` covers it all).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
N_RANGE = (4, 24)
LIMITS = (1.0, 2.0, 5.0)
#: HiGHS proves "well within the limit": its process answered in at most this share of it.
WELL_WITHIN = 0.5
#: auto's process may end this long after its limit (the interpreter's exit).
EXIT_SLACK = 0.3


def boundaries() -> list[int]:
    """The policy's free-row thresholds within ``N_RANGE`` (a plan changes past each)."""
    from nqmip.auto import policy

    low, high = N_RANGE
    found = {value for name, value in vars(policy).items()
             if name.isupper() and isinstance(value, int) and not isinstance(value, bool)
             and low <= value <= high}
    return sorted(found)


def sizes() -> list[int]:
    low, high = N_RANGE
    chosen = {low, high}
    for edge in boundaries():
        chosen.update(n for n in range(edge - 1, edge + 3) if low <= n <= high)
    return sorted(chosen)


def one_fixed(n: int) -> tuple[int, int]:
    """Row n // 2 of the explicit solution: a queen with a completion."""
    from nqmip.construct import explicit_solution

    cols = explicit_solution(n)
    assert cols is not None
    return n // 2, int(cols[n // 2])


def cells(n_values: list[int] | None = None, weights: tuple[str, ...] = ("chess", "random"),
          fixed: tuple[bool, ...] = (False, True)) -> Iterator[dict[str, Any]]:
    for n in n_values or sizes():
        for weight in weights:
            for sense in ("max", "min"):
                for fix in fixed:
                    yield {"n": n, "weights": weight, "sense": sense, "fixed": fix}


def argv(cell: dict[str, Any], method: str, limit: float) -> list[str]:
    args = [sys.executable, str(ROOT / "scripts" / "solve_weighted.py"), "--n", str(cell["n"]),
            "--method", method, "--time-limit", f"{limit:g}", "--json"]
    if cell["weights"] == "random":
        args += ["--random-weights", str(cell["n"])]
    if cell["sense"] == "min":
        args.append("--minimize")
    if cell["fixed"]:
        row, col = one_fixed(cell["n"])
        args += ["--fix", f"{row},{col}"]
    return args


def call(args: list[str], cache: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": cache}
    begin = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
    wall = time.perf_counter() - begin
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"wall": wall, "error": (done.stderr or done.stdout)[-300:]}
    return {"wall": wall, "status": answer["status"], "objective": answer["objective"],
            "plan": answer["provenance"]["plan"]}


def judge(highs: dict[str, Any], auto: dict[str, Any], limit: float) -> str:
    """"ok", "-" (HiGHS did not prove well within the limit), or what auto missed."""
    if highs.get("status") != "optimal" or highs["wall"] > WELL_WITHIN * limit:
        return "-"
    wrong = []
    if auto.get("objective") != highs["objective"]:
        wrong.append(f"objective {auto.get('objective')} (optimum {highs['objective']})")
    if auto.get("status") != "optimal":
        wrong.append(f"status {auto.get('status')}")
    if auto["wall"] > limit + EXIT_SLACK:
        wrong.append(f"wall {auto['wall']:.2f} s")
    return "; ".join(wrong) or "ok"


def warm_cache(folder: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": folder}
    subprocess.run([sys.executable, str(ROOT / "scripts" / "solve_weighted.py"), "--warm-up"],
                   env=env, check=True, capture_output=True)


def sweep(cell: dict[str, Any], limits: tuple[float, ...], warm: str,
          caches: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    highs = call(argv(cell, "highs", max(limits)), warm)
    for limit in limits:
        for cache in caches:
            folder = tempfile.mkdtemp(prefix="nqmip-cold-") if cache == "cold" else warm
            auto = call(argv(cell, "auto", limit), folder)
            yield {**cell, "limit": limit, "cache": cache, "highs": highs, "auto": auto,
                   "verdict": judge(highs, auto, limit)}


def report(rows: list[dict[str, Any]]) -> str:
    lines = ["| n | weights | sense | fixed | limit | cache | HiGHS (s) | auto (s) | auto | "
             "verdict |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        a = r["auto"]
        lines.append(f"| {r['n']} | {r['weights']} | {r['sense']} | "
                     f"{'yes' if r['fixed'] else 'no'} | {r['limit']:g} | {r['cache']} | "
                     f"{r['highs']['wall']:.2f} | {a['wall']:.2f} | "
                     f"{a.get('objective')} {a.get('status', a.get('error'))} | "
                     f"{r['verdict']} |")
    bad = [r for r in rows if r["verdict"] not in ("ok", "-")]
    lines.append(f"\n{len(rows)} auto runs, {sum(r['verdict'] != '-' for r in rows)} judged, "
                 f"{len(bad)} missed.")
    return "\n".join(lines)


def main(args_list: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", nargs="*", type=int)
    parser.add_argument("--weights", nargs="*", default=["chess", "random"])
    parser.add_argument("--fixed", nargs="*", default=["no", "yes"])
    parser.add_argument("--limits", nargs="*", type=float, default=list(LIMITS))
    parser.add_argument("--caches", nargs="*", default=["cold", "warm"])
    parser.add_argument("--warm-cache", default=str(Path(tempfile.gettempdir())
                                                    / "nqmip-warm-sweep"))
    parser.add_argument("--out", type=Path, default=Path("limits.jsonl"))
    parser.add_argument("--report", type=Path)
    args = parser.parse_args(args_list)
    if args.report:
        rows = [json.loads(line) for line in args.report.read_text().splitlines() if line]
        print(report(rows))
        return 0
    if "warm" in args.caches:
        warm_cache(args.warm_cache)
    rows = []
    with args.out.open("w") as out:
        for cell in cells(args.n, tuple(args.weights), tuple(f == "yes" for f in args.fixed)):
            for row in sweep(cell, tuple(args.limits), args.warm_cache, tuple(args.caches)):
                rows.append(row)
                out.write(json.dumps(row) + "\n")
                out.flush()
                if row["verdict"] not in ("ok", "-"):
                    print(json.dumps(row), file=sys.stderr, flush=True)
    print(report(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
