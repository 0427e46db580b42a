"""Benchmark: the colour proof (line sets + exact cover) on chess-weighted boards.

Three tables, each measured side by side in one run (same line sets, same seeds):

1. **Cover order.** Line sets sampled at the black bound B, each given to the exact-cover
   search for ``--cover-limit`` seconds with its options tried least constraining first
   (the default) and in random order: how many line sets are realised, and how fast.
2. **Line sets vs the colour walk.** Time to a placement with B black queens, each search
   alone, ``--walk-limit`` seconds at most.
3. **The colour proof** (``nqmip.colour.proof.colour_proof``, 60 s budget): proven or not,
   black queens found against the bound, refuted counts, seconds (median of the seeds).

numba compiles before any timing (a warm-up solve). Results go to
docs/benchmarks-colour.md.

    python benchmarks/bench_colour.py
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import nqmip
from nqmip.colour.exact_cover import find_exact_cover
from nqmip.colour.lines import LineSet, realisation_options, sample_line_set
from nqmip.colour.proof import colour_proof
from nqmip.colour.search import search_line_sets, search_walk
from nqmip.formulation.colour_bound import black_queen_bound

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks-colour.md"


def ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def median(xs: list[float]) -> str:
    return f"{statistics.median(xs):.2f}" if xs else "-"


def cover_order(ns: list[int], sets: int, limit: float) -> list[str]:
    rows = ["| n | B | line sets | realised (least constraining) | median s | "
            "realised (random order) | median s |", "|---|---|---|---|---|---|---|"]
    for n in ns:
        b = black_queen_bound(n)
        sampled = [sample_line_set(n, b, seed=s) for s in range(sets)]
        line_sets = [x for x in sampled if isinstance(x, LineSet)]
        cells = [f"{n}", f"{b}", f"{len(line_sets)}"]
        for lcv in (True, False):
            times = []
            for k, lines in enumerate(line_sets):
                _, opt_items = realisation_options(n, lines)
                t = time.perf_counter()
                out = find_exact_cover(opt_items, 4 * n, seed=k, time_limit=limit,
                                       least_constraining=lcv)
                if out.options is not None:
                    times.append(time.perf_counter() - t)
            cells += [f"{len(times)}", median(times)]
        rows.append("| " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    return rows


def lines_vs_walk(ns: list[int], seeds: int, limit: float) -> list[str]:
    rows = ["| n | B | line sets: found | median s | colour walk: found | median s |",
            "|---|---|---|---|---|---|"]
    for n in ns:
        b = black_queen_bound(n)
        inst = nqmip.make_instance(n, "chess")
        cells = [f"{n}", f"{b}"]
        for search in (search_line_sets, search_walk):
            times = []
            for seed in range(seeds):
                t = time.perf_counter()
                found = search(inst, b, seed=seed, time_limit=limit)
                if found:
                    assert nqmip.is_solution(found)
                    times.append(time.perf_counter() - t)
            cells += [f"{len(times)}/{seeds}", median(times) if times else f"> {limit:g}"]
        rows.append("| " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    return rows


def proofs(ns: list[int], seeds: int, limit: float) -> list[str]:
    rows = ["| n | B (line model) | proven | black found | black bound | refuted | "
            "median s | max s |", "|---|---|---|---|---|---|---|---|"]
    for n in ns:
        inst = nqmip.make_instance(n, "chess")
        times, found, bounds, proven, refuted = [], [], [], 0, set()
        for seed in range(seeds):
            t = time.perf_counter()
            p = colour_proof(inst, time_limit=limit, seed=seed)
            times.append(time.perf_counter() - t)
            assert p is not None
            if p.placement is not None:
                assert nqmip.is_solution(p.placement)
                found.append(p.black)
            bounds.append(p.black_bound)
            proven += p.proven
            refuted.update(p.refuted)
        rows.append("| " + " | ".join([
            f"{n}", f"{black_queen_bound(n)}", f"{proven}/{seeds}",
            "/".join(str(x) for x in found) or "-", f"{min(bounds)}",
            ", ".join(map(str, sorted(refuted))) or "-", median(times),
            f"{max(times):.2f}"]) + " |")
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cover-n", default="52,60,61,64")
    ap.add_argument("--cover-sets", type=int, default=12)
    ap.add_argument("--cover-limit", type=float, default=4.0)
    ap.add_argument("--walk-n", default="20,28,36,44")
    ap.add_argument("--walk-limit", type=float, default=20.0)
    ap.add_argument("--proof-n", default="19,36,47,56,60,61,62,63,64,66,72,80,90,100")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--proof-limit", type=float, default=60.0)
    ap.add_argument("--no-doc", action="store_true")
    args = ap.parse_args()

    t = time.perf_counter()
    colour_proof(nqmip.make_instance(12, "chess"), time_limit=10, seed=0)  # compile numba
    search_walk(nqmip.make_instance(12, "chess"), 8, seed=0, time_limit=5)
    print(f"warm-up (numba compile or cache load): {time.perf_counter() - t:.1f} s")
    began = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    a = cover_order(ints(args.cover_n), args.cover_sets, args.cover_limit)
    b = lines_vs_walk(ints(args.walk_n), args.seeds, args.walk_limit)
    c = proofs(ints(args.proof_n), args.seeds, args.proof_limit)
    if args.no_doc:
        return
    cmd = "python benchmarks/bench_colour.py"
    DOC.write_text("\n".join([
        "# Benchmark: the colour proof", "",
        f"Generated by `{cmd}` (run of {began}; do not edit by hand). Chess weights (black",
        "2, white 1). One thread; the machine is a shared 2-core box, so read the times as",
        "orders of magnitude. How the proof works: docs/formulation-strengthening.md",
        "(line sets and refutation).", "",
        "## 1. Exact-cover order, the same line sets side by side", "",
        f"Line sets sampled at the bound B (seeds 0..{args.cover_sets - 1}), each searched for",
        f"{args.cover_limit:g} s with its options least constraining first and in random order.",
        "", *a, "",
        "## 2. Line sets against the colour walk (time to B black queens)", "",
        f"Each search alone, {args.walk_limit:g} s at most, seeds 0..{args.seeds - 1}.", "",
        *b, "",
        "## 3. The colour proof", "",
        f"`colour_proof(instance, time_limit={args.proof_limit:g})`, seeds 0..{args.seeds - 1}:",
        "search at B, refute B by the line sets if not found, then lower counts. `black",
        "bound` is the proven bound after refutations; `proven` counts the seeds that",
        "reached it.", "", *c, "",
    ]))
    print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
