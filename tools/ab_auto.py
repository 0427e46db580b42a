"""Side by side: the default command on two source trees, interleaved run by run.

    python tools/ab_auto.py --tree-a /path/to/checkout-a --tree-b . --n-list 82,101

Each run is a fresh ``python -c`` process with ``PYTHONPATH`` set to its tree, solving
``nqmip.solve(n, "chess", method="auto", time_limit=L, seed=S)`` (what
``scripts/solve_weighted.py --n N --time-limit L --seed S`` runs); A and B alternate for
every (n, seed), so both see the same machine load. Prints one row per n: each seed's
seconds (``> L`` when not proven), the medians and the value reached. Make a second
checkout with ``git worktree add --detach /tmp/a <rev>``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

RUN = """
import json, time, nqmip
t = time.perf_counter()
r = nqmip.solve({n}, "chess", method="auto", time_limit={limit}, seed={seed})
print(json.dumps({{"seconds": time.perf_counter() - t, "status": r.status.value,
                  "objective": r.objective, "bound": r.bound}}))
"""


def run(tree: str, n: int, seed: int, limit: float) -> tuple[float, bool, float]:
    """(seconds, proven optimal, objective) of one fresh process on ``tree``."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    out = subprocess.run([sys.executable, "-c", RUN.format(n=n, seed=seed, limit=limit)],
                         env=env, capture_output=True, text=True, check=True,
                         timeout=limit * 3 + 120)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    return float(r["seconds"]), r["status"] == "optimal", float(r["objective"] or 0.0)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree-a", required=True)
    p.add_argument("--tree-b", required=True)
    p.add_argument("--n-list", required=True, help="comma-separated board sizes")
    p.add_argument("--seeds", type=int, default=3, help="seeds 0 .. SEEDS-1")
    p.add_argument("--time-limit", type=float, default=60.0)
    a = p.parse_args(argv)
    limit = a.time_limit
    print("| n | A: seconds per seed | A median | B: seconds per seed | B median | value A / B |")
    print("|---|---|---|---|---|---|")
    for n in (int(x) for x in a.n_list.split(",")):
        secs: dict[str, list[float]] = {"A": [], "B": []}
        best: dict[str, float] = {"A": 0.0, "B": 0.0}
        for seed in range(a.seeds):
            for name, tree in (("A", a.tree_a), ("B", a.tree_b)):
                seconds, proven, objective = run(tree, n, seed, limit)
                secs[name].append(seconds if proven else float("inf"))
                best[name] = max(best[name], objective)

        def cell(xs: list[float]) -> str:
            return " / ".join(f"{x:.1f}" if x != float("inf") else f"> {limit:g}" for x in xs)

        def med(xs: list[float]) -> str:
            m = statistics.median(xs)
            return f"{m:.1f}" if m != float("inf") else f"> {limit:g}"

        print(f"| {n} | {cell(secs['A'])} | {med(secs['A'])} | {cell(secs['B'])} | "
              f"{med(secs['B'])} | {best['A']:g} / {best['B']:g} |", flush=True)


if __name__ == "__main__":
    main()
