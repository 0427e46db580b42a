"""The LP search's nodes with a part switched on and off (docs/bnb.md): one thread, no
neighbourhood step (whose pace follows the clock), from the explicit start, so the node
counts are the same on any machine and any load.

    python benchmarks/bench_bnb_nodes.py --part fixing --n 28 --seeds 123456789,1,2
    python benchmarks/bench_bnb_nodes.py --part pseudo_costs --n 28,32 --seeds 123456789,1,2
    python benchmarks/bench_bnb_nodes.py --part reliability --n 28,32 --seeds 123456789,1,2
    python benchmarks/bench_bnb_nodes.py --part conflicts --n 28,32 --seeds 123456789,1,2
    python benchmarks/bench_bnb_nodes.py --part hot_start --n 28,32,36 --seeds 123456789,1,2
    python benchmarks/bench_bnb_nodes.py --part binary --given --n 28,32 --seeds 123456789,1,2
    python benchmarks/bench_bnb_nodes.py --rounds 4,8,16 --given --n 36 --seeds 123456789
    python benchmarks/bench_bnb_nodes.py --rounds 4 --incumbents --n 40 --seeds 123456789
    python benchmarks/bench_bnb_nodes.py --part cliques --given --n 28,32,36 --seeds 123456789,1,2
    python benchmarks/bench_bnb_nodes.py --root --n 20,28,32,36,40 --seeds 123456789,1,2
    python benchmarks/bench_bnb_nodes.py --part odd_cycles --given --n 28,32,36 --seeds 1,2
    python benchmarks/bench_bnb_nodes.py --vary clique_depth=2,4,8 --n 28,32,36 --seeds 1,2
    python benchmarks/bench_bnb_nodes.py --rounds 4 --incumbents --vary jump=0,256 --n 40 --seeds 2

Parts: ``fixing`` (reduced-cost fixing at every node, on by default), ``pseudo_costs``
(branching by pseudo-costs, off by default), ``reliability`` (reliability branching,
:mod:`nqmip.bnb.reliability`) and ``conflicts`` (conflict learning,
:mod:`nqmip.bnb.conflicts`; ``conflicts_trials``: also from the trials' children,
``conflicts_shallow``: the queens dropped shallowest first, ``conflicts_exact``: by
solving the LP again without each), ``hot_start`` (a node LP from the basis HiGHS holds
skips setBasis, :data:`nqmip.bnb.lp.HOT_START`), ``binary`` (binary branching on a
fractional square instead of a line's children, :mod:`nqmip.bnb.binary`, off by default),
``cliques`` (the clique rows the root's LP violates kept in every node's LP, and those of
the nodes less than ``CLIQUE_DEPTH`` deep kept for their subtrees, :mod:`nqmip.bnb.cliques`),
``odd_cycles`` (the root's odd cycles kept with its cliques, :data:`nqmip.bnb.lp.ODD_CYCLES`).
Prints one row per board: nodes and CPU seconds with the part on and off, and the ratio
of the nodes; for the hot start also the runs that skipped setBasis and the dual simplex
iterations (node LPs + trials), on / off; for conflict learning also the nogoods learnt,
their mean size, the nodes they pruned before their LP and the squares they ruled out.

``--vary NAME=V1,V2,...`` instead: one constant of the search (``clique_depth``:
``lpsearch.CLIQUE_DEPTH``; ``reliable``: ``reliability.RELIABLE``; ``iterations``:
``reliability.ITERATIONS``; ``child_order``: ``ordering.CHILD_ORDER``; ``dive_key``:
``ordering.DIVE_KEY``; ``jump``: ``parallel.JUMP_NODES``; ``dive_need``:
``dive.DIVE_TO_NEED``, 0 or 1) at each value, the proof given
the optimum (Gurobi's, not counted), the values' order turned from board to board: one row
per board, nodes and CPU seconds per value. With ``--rounds``: the whole run in rounds at
each value instead, a row per value (docs/bnb.md, Part 13).

``--root`` instead: the root LP's bound (in costs) without rows added, with the clique
rows, and with the cliques and odd cycles (:mod:`nqmip.bnb.oddcycles`): the rows added
and the seconds they took.

``--rounds G1,G2,...`` instead: the rounds of a falling target (:mod:`nqmip.bnb.rounds`)
with each ``ROUND_GROWTH`` given, one row per board and growth: nodes, CPU seconds and
every round as target:nodes (``+``: it found a placement at or above its target, ``*``
its incumbent then); ``--plain G``: with ``PLAIN_GROWTH`` G (0: None), ``--stable on|off``
``PLAIN_STABLE``; ``--threads T``: T workers sharing the tree (their node counts depend
on the machine); ``--given`` adds the proof's nodes given the optimum as the incumbent
(no rounds); ``--incumbents`` prints every new incumbent (value, CPU second, the node of
its round, what found it: the dive, an integral LP, the neighbourhood step);
``--neighbourhood`` turns the neighbourhood step on (:mod:`nqmip.bnb.rins`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


import nqmip
from nqmip.bnb import (
    cliques,
    conflicts,
    dive,
    lp,
    lpsearch,
    ordering,
    parallel,
    reliability,
    rounds,
)
from nqmip.bnb.search import warm_up
from nqmip.budget import Deadline
from nqmip.construct import explicit_solution
from nqmip.instances.families import toulbar2_tutorial
from nqmip.sense import to_maximisation

PARTS = {"fixing": "REDUCED_COST_FIXING", "pseudo_costs": "PSEUDO_COSTS",
         "reliability": "RELIABILITY", "conflicts": "CONFLICTS",
         "conflicts_trials": "CONFLICTS", "conflicts_shallow": "CONFLICTS",
         "conflicts_exact": "CONFLICTS", "hot_start": "HOT_START", "binary": "BINARY",
         "cliques": "CLIQUES", "odd_cycles": "ODD_CYCLES"}


def nodes(n: int, seed: int, part: str, on: bool, limit: float,
          given: tuple[int, ...] | None = None) -> tuple[int, float, str, str]:
    """The LP search's nodes and CPU seconds on the toulbar2 board, how it ended, and
    what conflict learning did (empty when off); ``given`` a placement, the proof from it
    (no rounds)."""
    setattr(lp if part in ("hot_start", "odd_cycles") else lpsearch, PARTS[part], on)
    conflicts.TRIALS = part == "conflicts_trials"
    conflicts.SHALLOW_FIRST = part == "conflicts_shallow"
    conflicts.EXACT = part == "conflicts_exact"
    stats: dict[str, list[Any]] = {}
    instance = to_maximisation(toulbar2_tutorial(n, seed))[0]
    start = given if given is not None else explicit_solution(n)
    cpu = time.process_time()
    out = lpsearch.lp_branch_and_bound(
        instance, Deadline(limit), None if start is None else tuple(int(c) for c in start),
        neighbourhood=False, stats=stats, rounds=given is None)
    cpu = time.process_time() - cpu
    learnt = ""
    for store in stats.get("nogoods", []):
        learnt = f"{store.learned:,} nogoods of {store.sizes / max(store.learned, 1):.1f} " \
            f"queens, {store.pruned:,} nodes pruned, {store.ruled:,} squares ruled out"
    if part == "hot_start":
        for worker in stats["lps"]:
            learnt = f"{worker.hot:,} hot, iterations {worker.iterations[0]:,} + " \
                f"{worker.iterations[1]:,}"
    how = out.termination.value if given is None else f"{out.termination.value} {out.objective:g}"
    return out.nodes, cpu, how, learnt


def root_bound(n: int, seed: int) -> str:
    """A table row: the root LP's bound without rows added, with the cliques, and with the
    cliques and odd cycles (costs); the rows added and the CPU seconds of each."""
    instance, offset = to_maximisation(toulbar2_tutorial(n, seed))
    w = np.asarray(instance.weights, dtype=np.float64)
    lower, upper = np.zeros(n * n, np.int8), np.ones(n * n, np.int8)
    cells = []
    held = lp.ODD_CYCLES
    for cycles in (False, True):
        lp.ODD_CYCLES = cycles
        node_lp = lp.NodeLP(w)
        plain = node_lp.solve(lower, upper, None, None)
        assert plain is not None
        cpu = time.process_time()
        cut = lp.root_cliques([node_lp], lower, plain, lambda: None)
        cpu = time.process_time() - cpu
        assert cut is not None
        cells.append(f"{offset - cut.value:.2f} | {node_lp.cuts} + {node_lp.cycles} | "
                     f"{cpu:.2f}")
    lp.ODD_CYCLES = held
    return f"| {n} | {seed} | {offset - plain.value:.2f} | {' | '.join(cells)} |"


def optimum(n: int, seed: int) -> tuple[int, ...]:
    """An optimal placement of the toulbar2 board, by Gurobi."""
    out = nqmip.solve(toulbar2_tutorial(n, seed), method="gurobi")
    if out.placement is None or out.termination is not nqmip.Termination.OPTIMAL:
        raise SystemExit(f"no optimum of N = {n}, seed {seed}: {out.termination.value}")
    return tuple(int(c) for c in out.placement)


def in_rounds(n: int, seed: int, growth: float, limit: float,
              given: tuple[int, ...] | None = None, threads: int = 1,
              neighbourhood: bool = False,
              found: list[str] | None = None) -> tuple[int, float, str, list[str], Any]:
    """The LP search in rounds with ``growth`` (or, ``given`` a placement, the plain
    search from it) on ``threads`` workers, with the neighbourhood step or not: nodes,
    CPU seconds, how it ended, each round as target:nodes, and the best placement;
    ``found`` gets every new incumbent (its value, CPU seconds, the node of its round and
    what found it)."""
    rounds.ROUND_GROWTH = growth
    instance = to_maximisation(toulbar2_tutorial(n, seed))[0]
    start = given if given is not None else explicit_solution(n)
    seen: list[str] = []
    real = lpsearch.in_rounds

    def watched(*args: Any) -> Any:
        engine = args[6]

        def engine_seen(begin: Any, floor: Any, report: Any, ceiling: Any) -> Any:
            out = engine(begin, floor, report, ceiling)
            hit = floor is not None and out.objective is not None and \
                out.objective >= floor - 1e-9
            target = "plain" if floor is None else f"{floor:g}"
            best = "" if out.objective is None else f"*{out.objective:g}"
            seen.append(f"{target}:{out.nodes}{'+' if hit else ''}{best}")
            return out

        return real(*args[:6], engine_seen, *args[7:])

    lpsearch.in_rounds = watched
    cpu = time.process_time()
    finders = {"_dive": "dive", "_rins": "neighbourhood step", "_take_integral": "LP"}
    saved = {name: getattr(lpsearch.Tree, name) for name in ("offer", *finders)}
    if found is not None:
        finder = ["start"]

        def offer(tree: Any, value: float, placement: tuple[int, ...]) -> None:
            if tree.incumbent is None or value > tree.incumbent + 1e-9:
                found.append(f"{value:g} at {time.process_time() - cpu:.1f} s, node "
                             f"{tree.nodes:,} by {finder[0]}")
            saved["offer"](tree, value, placement)

        def by(name: str) -> Any:
            def call(tree: Any, *args: Any) -> Any:
                finder[0] = finders[name]
                try:
                    return saved[name](tree, *args)
                finally:
                    finder[0] = "a worker's share"
            return call

        lpsearch.Tree.offer = offer  # type: ignore[method-assign]
        for name in finders:
            setattr(lpsearch.Tree, name, by(name))
    try:
        out = lpsearch.lp_branch_and_bound(
            instance, Deadline(limit), None if start is None else tuple(int(c) for c in start),
            neighbourhood=neighbourhood, rounds=given is None, threads=threads)
    finally:
        lpsearch.in_rounds = real
        for name, method in saved.items():
            setattr(lpsearch.Tree, name, method)
    cpu = time.process_time() - cpu
    return out.nodes, cpu, out.termination.value, seen, out


def main_rounds(args: argparse.Namespace) -> int:
    """``--rounds``: a row per board and growth (and the proof given the optimum)."""
    if args.plain is not None:
        rounds.PLAIN_GROWTH = args.plain or None
    if args.stable is not None:
        rounds.PLAIN_STABLE = args.stable == "on"
    module, attr, chosen = varied(args.vary) if args.vary else (None, "", [0])
    old = getattr(module, attr, None)
    print("| N | seed | growth | " + (f"{attr} | " if module else "")
          + "nodes | CPU s | wall s | rounds (target:nodes) | optimum |")
    print("| ---: | ---: | ---: | " + ("---: | " if module else "")
          + "---: | ---: | ---: | --- | ---: |")
    turn = 0
    for n in args.n:
        for seed in args.seeds:
            best = None
            order = chosen[turn % len(chosen):] + chosen[:turn % len(chosen)]
            turn += 1
            for growth, value in ((g, v) for g in args.rounds for v in order):
                found: list[str] = []
                if module is not None:
                    setattr(module, attr, value)
                wall = time.perf_counter()
                try:
                    count, cpu, how, seen, out = in_rounds(
                        n, seed, growth, args.time_limit, threads=args.threads,
                        neighbourhood=args.neighbourhood, found=found)
                    wall = time.perf_counter() - wall
                finally:
                    if module is not None:
                        setattr(module, attr, old)
                best = out.placement
                print(f"| {n} | {seed} | {growth:g} | " + (f"{value} | " if module else "")
                      + f"{count:,} | {cpu:.1f} | {wall:.1f} | {' '.join(seen)} | "
                      f"{out.objective:g} ({how}) |", flush=True)
                if args.incumbents:
                    print("  incumbents: " + "; ".join(found), flush=True)
            if args.given and best is not None:
                count, cpu, how, _, out = in_rounds(n, seed, 0.0, args.time_limit, best,
                                                    args.threads)
                print(f"| {n} | {seed} | given | {count:,} | {cpu:.1f} | - | - | "
                      f"{out.objective:g} ({how}) |", flush=True)
    return 0


VARY = {"clique_depth": (lpsearch, "CLIQUE_DEPTH"), "reliable": (reliability, "RELIABLE"),
        "iterations": (reliability, "ITERATIONS"), "child_order": (ordering, "CHILD_ORDER"),
        "dive_key": (ordering, "DIVE_KEY"), "jump": (parallel, "JUMP_NODES"),
        "dive_need": (dive, "DIVE_TO_NEED")}


def varied(text: str | None) -> tuple[Any, str, list[int]]:
    """``NAME=V1,V2``: the module, the constant's name and the values."""
    name, _, values = (text or "").partition("=")
    if name not in VARY or not values:
        raise SystemExit(f"--vary takes NAME=V1,V2 with NAME one of {', '.join(VARY)}")
    module, attr = VARY[name]
    return module, attr, [int(v) for v in values.split(",")]


def main_vary(args: argparse.Namespace) -> int:
    """``--vary NAME=V1,V2``: a row per board, the proof given the optimum at each value."""
    module, attr, chosen = varied(args.vary)
    name = args.vary.partition("=")[0]
    old = getattr(module, attr)
    print("| N | seed | " + " | ".join(f"{name} {v}: nodes | CPU s" for v in chosen) + " |")
    print("| ---: | ---: |" + " ---: | ---: |" * len(chosen))
    turn = 0
    for n in args.n:
        for seed in args.seeds:
            given = optimum(n, seed)
            runs = {}
            order = chosen[turn % len(chosen):] + chosen[:turn % len(chosen)]
            for v in order:
                setattr(module, attr, v)
                try:
                    runs[v] = nodes(n, seed, "cliques", True, args.time_limit, given)
                finally:
                    setattr(module, attr, old)
            turn += 1
            cells = " | ".join(f"{runs[v][0]:,} | {runs[v][1]:.1f}" for v in chosen)
            ends = {runs[v][2] for v in chosen}
            print(f"| {n} | {seed} | {cells} |" + ("" if len(ends) == 1 else f" {ends} |")
                  + f" {runs[chosen[0]][2]}", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=sorted(PARTS))
    parser.add_argument("--root", action="store_true",
                        help="the root LP's bound without and with the clique rows")
    parser.add_argument("--rounds", type=lambda t: [float(x) for x in t.split(",")],
                        help="the rounds with these ROUND_GROWTH values instead of a part")
    parser.add_argument("--plain", type=float, default=None,
                        help="with --rounds: rounds.PLAIN_GROWTH, 0 for None "
                        "(default: the module's)")
    parser.add_argument("--stable", choices=["on", "off"],
                        help="with --rounds: rounds.PLAIN_STABLE (default: the module's)")
    parser.add_argument("--threads", type=int, default=1,
                        help="with --rounds: the LP search's workers (one tree); with more "
                        "than one the node counts depend on the machine")
    parser.add_argument("--incumbents", action="store_true",
                        help="with --rounds: every new incumbent, its CPU second, the node "
                        "of its round and what found it")
    parser.add_argument("--neighbourhood", action="store_true",
                        help="with --rounds: the neighbourhood step on (nqmip.bnb.rins)")
    parser.add_argument("--given", action="store_true",
                        help="with --rounds: also the proof given the optimum; with --part: "
                        "the proof only, given the optimum (found by Gurobi, not counted)")
    parser.add_argument("--vary", help="NAME=V1,V2,...: a constant of the search at each "
                        f"value, the proof given the optimum ({', '.join(VARY)})")
    parser.add_argument("--n", type=lambda t: [int(x) for x in t.split(",")], default=[28])
    parser.add_argument("--seeds", type=lambda t: [int(x) for x in t.split(",")],
                        default=[123456789, 1, 2])
    parser.add_argument("--time-limit", type=float, default=600.0)
    args = parser.parse_args()
    if args.root:
        print("| N | seed | root LP | with cliques | rows | CPU s | and odd cycles | rows "
              "(cliques + cycles) | CPU s |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for n in args.n:
            for seed in args.seeds:
                print(root_bound(n, seed), flush=True)
        return 0
    if sum(x is not None for x in (args.part, args.rounds, args.vary)) != 1 and \
            (args.rounds is None or args.part is not None):
        parser.error("give one of --part, --rounds, --vary and --root")
    if args.threads < 1 or (args.threads != 1 and args.rounds is None):
        parser.error(f"--threads must be at least 1, and goes with --rounds (got {args.threads})")
    warm_up()
    cliques.violated(4, np.zeros(16))  # its kernel compiled (numba) before any timing
    if args.rounds is not None:
        return main_rounds(args)
    if args.vary is not None:
        return main_vary(args)
    print(f"| N | seed | nodes {args.part} on | CPU s | nodes off | CPU s | on / off |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    turn = 0
    for n in args.n:
        for seed in args.seeds:
            runs = {}
            given = optimum(n, seed) if args.given else None
            for on in ((True, False) if turn % 2 == 0 else (False, True)):
                runs[on] = nodes(n, seed, args.part, on, args.time_limit, given)
            turn += 1
            (a, ca, wa, learnt), (b, cb, wb, other) = runs[True], runs[False]
            if args.part == "hot_start":
                learnt = f"{learnt} / {other}"
            note = "" if wa == wb and wa.startswith("optimal") else f" ({wa} / {wb})"
            if given is not None and wa == wb:
                note = f" ({wa})"
            print(f"| {n} | {seed} | {a:,} | {ca:.1f} | {b:,} | {cb:.1f} | "
                  f"{a / max(b, 1):.2f}{note} |" + (f" {learnt} |" if learnt else ""),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
