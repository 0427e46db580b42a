"""Cold compile time of each kernel group (issue 42): every warm-up target of
:func:`nqmip.methods.warm_up_targets` in a fresh interpreter on an *empty* numba cache
(its own, so shared callees count in each group), then again on that cache (a kernel load).
Prints a Markdown table (docs/compile.md shows one) and, with ``--all``, the whole
``--warm-up`` cold on the cores there are.

    python benchmarks/bench_compile.py [--only bnb,lex] [--all]

Kernel counts are numba's own (its compile events), not guessed from time. Run on a quiet
machine: compile time scales with the load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

PROBE = """
import json, sys, time
from nqmip.warmup import run_group
group = run_group(sys.argv[1])
print(json.dumps({"seconds": group.seconds, "compiles": group.compiles, "cpu": group.cpu}))
"""


def run(target: str, cache: str) -> dict[str, float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    p = subprocess.run([sys.executable, "-c", PROBE, target], capture_output=True,
                       text=True, env=env, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated parts of target names")
    parser.add_argument("--all", action="store_true",
                        help="also time `solve-weighted --warm-up` cold, whole command")
    args = parser.parse_args()
    from nqmip.methods import warm_up_targets

    targets = warm_up_targets()
    if args.only:
        targets = [t for t in targets if any(p in t for p in args.only.split(","))]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    print("| kernel group | kernels | compile, CPU s | compile, wall s | kernel load, s |")
    print("|---|--:|--:|--:|--:|")
    total = cpu = 0.0
    for target in targets:
        with tempfile.TemporaryDirectory() as cache:
            cold = run(target, cache)
            warm = run(target, cache)
        total += cold["seconds"]
        cpu += cold["cpu"]
        group = target.partition(":")[0].removeprefix("nqmip.")
        print(f"| `{group}` | {cold['compiles']} | {cold['cpu']:.1f} | {cold['seconds']:.1f} | "
              f"{warm['seconds']:.2f} |", flush=True)
    print(f"| **sum, one after another** | | **{cpu:.1f}** | **{total:.1f}** | |")
    if args.all:
        with tempfile.TemporaryDirectory() as cache:
            begin, before = time.perf_counter(), os.times()
            subprocess.run([sys.executable, "-m", "nqmip", "--warm-up"], check=True,
                           env={**os.environ, "NUMBA_CACHE_DIR": cache})
            after = os.times()
            used = (after.children_user + after.children_system
                    - before.children_user - before.children_system)
            print(f"\n`--warm-up` cold, whole command: {time.perf_counter() - begin:.1f} s "
                  f"wall, {used:.1f} s CPU (its worker processes included)")


if __name__ == "__main__":
    main()
