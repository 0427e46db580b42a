"""The whole-call time limit through the API, cold and warm: how long ``nqmip.solve(...,
time_limit=S)`` takes past S, for each method, with numba's cache empty (a first run) and
full (later runs).

    python benchmarks/bench_time_limit.py --limits 1,3 --runs 3
    python benchmarks/bench_time_limit.py --methods highs,cpsat,scip,bnb --n 2000 --limits 5

``--n`` puts every case on an n-board (the large boards, where building a model is
seconds of the limit).

Each run is a fresh process; the instance is built before the clock (the call is what is
timed, from its first line to its return). Cold: ``NUMBA_CACHE_DIR`` is a new empty folder
(every kernel compiles inside the budget); warm: the same folder again after a first run.
Prints one row per (method, board, limit): the overshoot (seconds past S) cold and warm, the
median and the largest over the runs, and whether a placement came back.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CASES = [("auto", 300, "chess"), ("auto", 40, "random"), ("sa", 300, "chess"),
         ("tabu", 300, "chess"), ("ga", 300, "chess"), ("quota", 2000, "chess"),
         ("minconflicts", 10**6, None), ("lns", 300, "random"), ("highs", 40, "random"),
         ("cpsat", 40, "random"), ("scip", 40, "random"), ("bnb", 40, "random")]

CODE = """
import json, sys, time
import nqmip
method, n, weights, limit = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
instance = nqmip.make_instance(n, None if weights == "none" else weights, weights_seed=0)
begin = time.perf_counter()
r = nqmip.solve(instance, method=method, time_limit=limit)
took = time.perf_counter() - begin
print(json.dumps({"took": took, "found": r.placement is not None,
                  "compile": r.timing.compile, "status": str(r.status)}))
"""


def one(method: str, n: int, weights: str | None, limit: float, cache: str) -> dict:
    env = {"NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    import os

    env = {**os.environ, **env}
    out = subprocess.run([sys.executable, "-c", CODE, method, str(n), weights or "none",
                          str(limit)], capture_output=True, text=True, env=env, timeout=300)
    if out.returncode != 0:
        return {"took": float("nan"), "found": False, "error": out.stderr.strip()[-200:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limits", default="1,3")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--methods", default=None, help="comma-separated (default: all)")
    parser.add_argument("--n", type=int, default=None, help="every case on this board size")
    args = parser.parse_args()
    limits = [float(x) for x in args.limits.split(",")]
    wanted = None if args.methods is None else set(args.methods.split(","))
    print("| method | board | S | cold: over S, median / max | warm: over S, median / max "
          "| placement |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for method, n, weights in CASES:
        n = n if args.n is None else args.n
        if wanted is not None and method not in wanted:
            continue
        for limit in limits:
            cold, warm, found = [], [], True
            for _ in range(args.runs):
                with tempfile.TemporaryDirectory() as cache:
                    first = one(method, n, weights, limit, cache)
                    again = one(method, n, weights, limit, cache)
                cold.append(first["took"] - limit)
                warm.append(again["took"] - limit)
                found = found and first["found"] and again["found"]
            print(f"| {method} | {n} {weights or 'none'} | {limit:g} | "
                  f"{statistics.median(cold):+.2f} / {max(cold):+.2f} | "
                  f"{statistics.median(warm):+.2f} / {max(warm):+.2f} | "
                  f"{'yes' if found else 'not always'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
