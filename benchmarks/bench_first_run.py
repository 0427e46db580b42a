#!/usr/bin/env python
"""A first run (numba's cache empty) against a warm one, for two checkouts side by side.

Each command runs ``--repeats`` times, the checkouts and the cold and warm caches
alternated, each run in a fresh interpreter: cold on an empty ``NUMBA_CACHE_DIR`` of its
own (a fresh machine), warm on one cache per checkout, filled first by
``--n 100 --time-limit 60`` and ``--n 40``. Wall seconds, CPU seconds (user + system, the
child processes included) and the objective answered; the medians as a Markdown table
(docs/compile.md holds it)::

    python benchmarks/bench_first_run.py --before /path/to/old/checkout --after .
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = {
    "--n 40": ["scripts/solve_weighted.py", "--n", "40"],
    "--n 100 --time-limit 5": ["-m", "nqmip", "--n", "100", "--time-limit", "5"],
    "--n 8": ["-m", "nqmip", "--n", "8"],
    "--method sa --n 14 --random-weights 2 --minimize --time-limit 10":
        ["-m", "nqmip", "--method", "sa", "--n", "14", "--random-weights", "2", "--minimize",
         "--time-limit", "10"],
    "--method lns --n 14 --random-weights 2 --minimize --time-limit 10":
        ["-m", "nqmip", "--method", "lns", "--n", "14", "--random-weights", "2", "--minimize",
         "--time-limit", "10"],
}


def timed(argv: list[str], env: dict[str, str], cwd: Path, timeout: float
          ) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """``argv`` run to its end (output captured as text), with its wall seconds and CPU
    seconds: user + system of the child processes waited for meanwhile (``RUSAGE_CHILDREN``,
    so the command's own children count too). bench_readme_first_run.py times with it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    begin = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd,
                       timeout=timeout)
    wall = time.perf_counter() - begin
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p, wall, cpu


def run(checkout: Path, cache: Path, args: list[str]) -> dict[str, float]:
    """One run of ``args`` (with ``--json``) from ``checkout`` on ``cache``."""
    env = {**os.environ, "PYTHONPATH": str(checkout), "NUMBA_CACHE_DIR": str(cache)}
    p, wall, cpu = timed([sys.executable, *args, "--json"], env, checkout, 600)
    out = p.stdout
    found = json.loads(out[out.index("{"):out.rindex("}") + 1])
    return {"wall": wall, "cpu": cpu, "objective": float(found["objective"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--commands", default=None,
                        help="the commands to run, by their name's first word after --: "
                             "'n' (the first three) or 'method' (the named heuristics)")
    args = parser.parse_args()
    chosen = {name: command for name, command in COMMANDS.items()
              if args.commands is None or name.split()[0] == f"--{args.commands}"}
    sides = {"before": args.before.resolve(), "after": args.after.resolve()}
    warm = {side: Path(tempfile.mkdtemp(prefix=f"warm-{side}-")) for side in sides}
    for side, checkout in sides.items():
        run(checkout, warm[side], ["-m", "nqmip", "--n", "100", "--time-limit", "60"])
        run(checkout, warm[side], COMMANDS["--n 40"])
        subprocess.run([sys.executable, "-m", "nqmip", "--warm-up"], capture_output=True,
                       env={**os.environ, "PYTHONPATH": str(checkout),
                            "NUMBA_CACHE_DIR": str(warm[side])}, cwd=checkout, check=True)
    rows: dict[tuple[str, str, str], list[dict[str, float]]] = {}
    for repeat in range(args.repeats):
        for name, command in chosen.items():
            for side, checkout in sides.items():
                for state in ("cold", "warm"):
                    cache = (Path(tempfile.mkdtemp(prefix="cold-")) if state == "cold"
                             else warm[side])
                    got = run(checkout, cache, command)
                    if state == "cold":
                        shutil.rmtree(cache, ignore_errors=True)
                    rows.setdefault((name, state, side), []).append(got)
                    print(f"{repeat} {name} {state} {side}: {got} "
                          f"(load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
    for cache in warm.values():
        shutil.rmtree(cache, ignore_errors=True)
    print("| command | cache | before: wall s | CPU s | objective "
          "| after: wall s | CPU s | objective |")
    print("|---|---|--:|--:|--:|--:|--:|--:|")
    for name in chosen:
        for state in ("cold", "warm"):
            cells = []
            for side in sides:
                runs = rows[(name, state, side)]
                cells += [f"{statistics.median(r['wall'] for r in runs):.1f}",
                          f"{statistics.median(r['cpu'] for r in runs):.1f}",
                          "/".join(f"{r['objective']:g}" for r in runs)]
            print(f"| `{name}` | {state} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
