"""The LP search's nodes with a part switched on and off (docs/bnb.md): one thread, no
neighbourhood step (whose pace follows the clock), from the explicit start, so the node
counts are the same on any machine and any load.

    python benchmarks/bench_bnb_nodes.py --part fixing --n 28 --seeds 123456789,1,2
    python benchmarks/bench_bnb_nodes.py --part pseudo_costs --n 28,32 --seeds 123456789,1,2
    python benchmarks/bench_bnb_nodes.py --part reliability --n 28,32 --seeds 123456789,1,2
    python benchmarks/bench_bnb_nodes.py --part conflicts --n 28,32 --seeds 123456789,1,2
    python benchmarks/bench_bnb_nodes.py --part hot_start --n 28,32,36 --seeds 123456789,1,2

Parts: ``fixing`` (reduced-cost fixing at every node, on by default), ``pseudo_costs``
(branching by pseudo-costs, off by default), ``reliability`` (reliability branching,
:mod:`nqmip.bnb.reliability`) and ``conflicts`` (conflict learning,
:mod:`nqmip.bnb.conflicts`; ``conflicts_trials``: also from the trials' children,
``conflicts_shallow``: the queens dropped shallowest first, ``conflicts_exact``: by
solving the LP again without each), ``hot_start`` (a node LP from the basis HiGHS holds
skips setBasis, :data:`nqmip.bnb.lp.HOT_START`).
Prints one row per board: nodes and CPU seconds with the part on and off, and the ratio
of the nodes; for the hot start also the runs that skipped setBasis and the dual simplex
iterations (node LPs + trials), on / off; for conflict learning also the nogoods learnt,
their mean size, the nodes they pruned before their LP and the squares they ruled out.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from nqmip.bnb import conflicts, lp, lpsearch
from nqmip.bnb.search import warm_up
from nqmip.budget import Deadline
from nqmip.construct import explicit_solution
from nqmip.instances.families import toulbar2_tutorial
from nqmip.sense import to_maximisation

PARTS = {"fixing": "REDUCED_COST_FIXING", "pseudo_costs": "PSEUDO_COSTS",
         "reliability": "RELIABILITY", "conflicts": "CONFLICTS",
         "conflicts_trials": "CONFLICTS", "conflicts_shallow": "CONFLICTS",
         "conflicts_exact": "CONFLICTS", "hot_start": "HOT_START"}


def nodes(n: int, seed: int, part: str, on: bool,
          limit: float) -> tuple[int, float, str, str]:
    """The LP search's nodes and CPU seconds on the toulbar2 board, how it ended, and
    what conflict learning did (empty when off)."""
    setattr(lp if part == "hot_start" else lpsearch, PARTS[part], on)
    conflicts.TRIALS = part == "conflicts_trials"
    conflicts.SHALLOW_FIRST = part == "conflicts_shallow"
    conflicts.EXACT = part == "conflicts_exact"
    stats: dict[str, list[Any]] = {}
    instance = to_maximisation(toulbar2_tutorial(n, seed))[0]
    start = explicit_solution(n)
    cpu = time.process_time()
    out = lpsearch.lp_branch_and_bound(
        instance, Deadline(limit), None if start is None else tuple(int(c) for c in start),
        neighbourhood=False, stats=stats)
    cpu = time.process_time() - cpu
    learnt = ""
    for store in stats.get("nogoods", []):
        learnt = f"{store.learned:,} nogoods of {store.sizes / max(store.learned, 1):.1f} " \
            f"queens, {store.pruned:,} nodes pruned, {store.ruled:,} squares ruled out"
    if part == "hot_start":
        for worker in stats["lps"]:
            learnt = f"{worker.hot:,} hot, iterations {worker.iterations[0]:,} + " \
                f"{worker.iterations[1]:,}"
    return out.nodes, cpu, out.termination.value, learnt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=sorted(PARTS), required=True)
    parser.add_argument("--n", type=lambda t: [int(x) for x in t.split(",")], default=[28])
    parser.add_argument("--seeds", type=lambda t: [int(x) for x in t.split(",")],
                        default=[123456789, 1, 2])
    parser.add_argument("--time-limit", type=float, default=600.0)
    args = parser.parse_args()
    warm_up()
    print(f"| N | seed | nodes {args.part} on | CPU s | nodes off | CPU s | on / off |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    turn = 0
    for n in args.n:
        for seed in args.seeds:
            runs = {}
            for on in ((True, False) if turn % 2 == 0 else (False, True)):
                runs[on] = nodes(n, seed, args.part, on, args.time_limit)
            turn += 1
            (a, ca, wa, learnt), (b, cb, wb, other) = runs[True], runs[False]
            if args.part == "hot_start":
                learnt = f"{learnt} / {other}"
            note = "" if wa == wb == "optimal" else f" ({wa} / {wb})"
            print(f"| {n} | {seed} | {a:,} | {ca:.1f} | {b:,} | {cb:.1f} | "
                  f"{a / max(b, 1):.2f}{note} |" + (f" {learnt} |" if learnt else ""),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
