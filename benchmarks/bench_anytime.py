"""Anytime quality: the best objective each method reaches within a budget, and its gap.

Every cell (method, weights, n, budget, seed) runs in its own process through compare's
harness (``nqmip.compare.harness.run_in_process``: a peak RSS is the run's own, and a crash
or a hang costs one cell), through ``nqmip.solve`` with that ``time_limit``. The numba
cache is warmed once before the grid, so compile time stays out.
Rows go to a JSONL file as they finish (``--resume`` skips the cells already there); the
summary prints, per (weights, n, budget), each method's median objective over the seeds,
the best bound any method proved, the gap of each median to that bound, and whether
``auto`` is at or above every single method. ``--plot`` draws objective against budget.

    python benchmarks/bench_anytime.py --output benchmarks/results/anytime.jsonl \\
        --markdown docs/data/anytime.md --plot docs/anytime.png

Random weights are ``numpy.random.default_rng(0).integers(1, 10, (n, n))`` (weights_seed 0);
chess weights are black (i + j even) 2, white 1.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # runs from a clone without installing, as the cells do

# Gurobi's pip licence: at most 2000 variables and constraints (n <= 44), spelled once.
from nqmip.backends.gurobi import SIZE_LIMITED_MAX_N as GUROBI_MAX_N  # noqa: E402
from nqmip.compare.harness import run_in_process  # noqa: E402

#: The grid of the issue: n, the budgets, the methods; exact backends only where they load.
SIZES = (40, 64, 100, 200, 1000, 10_000)
BUDGETS = (5.0, 20.0)
HEURISTICS = ("sa", "tabu", "ga", "quota", "topsquares", "lns")
#: The specialists run only on the weights they are made for.
ONLY_FOR = {"quota": "chess", "topsquares": "random"}
EXACT = ("highs", "cpsat", "gurobi")
EXACT_MAX_N = 200
SEEDS = (0, 1, 2)
#: Seconds a cell may run past its budget before it is killed (and recorded as a timeout).
GRACE = 30.0



def solve_anytime(cell: dict[str, Any]) -> dict[str, Any]:
    """In the worker process: one cell through :func:`nqmip.solve`, with its peak RSS."""
    import resource

    import nqmip

    begin = time.perf_counter()
    r = nqmip.solve(cell["n"], cell["weights"], method=cell["method"],
                    time_limit=cell["budget"], seed=cell["seed"], weights_seed=0)
    return {"status": str(r.status), "objective": r.objective, "bound": r.bound,
            "wall": time.perf_counter() - begin, "wall_time": r.wall_time,
            "compile_time": r.timing.compile, "solver": r.solver,
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


#: The issue's targets for the weighted search: (weights, n, budget s, objective to reach).
TARGETS = (
    ("random", 50, 20.0, 441.0), ("random", 100, 20.0, 891.0),
    ("random", 1000, 60.0, 8910.0), ("random", 20_000, 120.0, 0.99 * 9 * 20_000),
    ("chess", 64, 5.0, 110.0), ("chess", 200, 20.0, 349.0),
    ("chess", 10_000, 60.0, 1.75 * 10_000), ("chess", 100_000, 60.0, 1.7 * 100_000),
    ("chess", 1_000_000, 60.0, None),
)


def run_targets(methods: list[str], seeds: list[int], output: Path,
                sizes: list[int] | None = None) -> None:
    """Each target cell (of ``sizes``, default all) for each method and seed: reached or
    not, and the peak RSS."""
    rows = []
    targets = [t for t in TARGETS if sizes is None or t[1] in sizes]
    with output.open("a") as out:
        for weights, n, budget, target in targets:
            for method in methods:
                for seed in seeds:
                    row = run_cell({"method": method, "weights": weights, "n": n,
                                    "budget": budget, "seed": seed})
                    row["target"] = target
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                    rows.append(row)
                    print(f"{method:>5} {weights:>6} n={n:<8} {budget:g} s seed {seed}: "
                          f"{row.get('objective')} (target {target}, bound {row.get('bound')}, "
                          f"wall {row.get('wall', 0):.1f} s, {row.get('peak_rss_mb')} MB)",
                          flush=True)
    print("| weights | n | budget s | target | method | objective (median) | reached "
          "| peak RSS MB |")
    print("|---|---:|---:|---:|---|---:|---|---:|")
    for weights, n, budget, target in targets:
        for method in methods:
            cell = [r for r in rows if r["weights"] == weights and r["n"] == n
                    and r["method"] == method]
            values = [r["objective"] for r in cell if isinstance(r.get("objective"), float)]
            value = statistics.median(values) if values else None
            rss = max((r.get("peak_rss_mb") or 0) for r in cell) if cell else None
            reached = ("-" if target is None or value is None
                       else ("yes" if value >= target - 1e-9 else "no"))
            print(f"| {weights} | {n} | {budget:g} | {'' if target is None else f'{target:g}'} "
                  f"| {method} | {value} | {reached} | {rss} |")


def warm(_: object) -> None:
    """In a worker process: compile (or load) every numba kernel once."""
    import nqmip

    for m in ("sa", "tabu", "ga", "minconflicts", "lns"):
        nqmip.solve(20, "chess", method=m, time_limit=1, seed=0)
        nqmip.solve(20, "random", method=m, time_limit=1, seed=0, weights_seed=0)
    nqmip.solve(70, "chess", method="auto", time_limit=2, seed=0)


def warm_cache() -> None:
    """Compile (or load) every numba kernel once, outside the timed cells."""
    outcome = run_in_process(f"{Path(__file__).resolve()}:warm", None, 600)
    if outcome.status != "ok":
        raise RuntimeError(f"warming the numba cache: {outcome.status}: {outcome.message}")


def methods_for(n: int) -> list[str]:
    names = ["auto", *HEURISTICS]
    if n <= EXACT_MAX_N:
        names += [m for m in EXACT if m != "gurobi" or n <= GUROBI_MAX_N]
    return names


def run_cell(cell: dict[str, Any]) -> dict[str, Any]:
    """One cell in its own process (compare's harness: killed ``GRACE`` s after its
    budget, a crash or an error is a row)."""
    outcome = run_in_process(f"{Path(__file__).resolve()}:solve_anytime", cell,
                             cell["budget"] + GRACE)
    if outcome.status == "ok":
        return {**cell, **outcome.value}
    return {**cell, "status": outcome.status, "wall": outcome.process_time,
            "error": outcome.message[:300]}


def key(row: dict[str, Any]) -> tuple[Any, ...]:
    return row["method"], row["weights"], row["n"], row["budget"], row["seed"]


def grid(args: argparse.Namespace) -> list[dict[str, Any]]:
    cells = []
    for weights in args.weights:
        for n in args.sizes:
            for budget in args.budgets:
                for method in methods_for(n):
                    if args.methods and method not in args.methods:
                        continue
                    if ONLY_FOR.get(method, weights) != weights:
                        continue
                    # Every method runs every seed: under a time limit the solvers'
                    # answers depend on their random seed too (HiGHS, CP-SAT, Gurobi).
                    for seed in args.seeds:
                        cells.append({"method": method, "weights": weights, "n": n,
                                      "budget": budget, "seed": seed})
    return cells


def summarise(rows: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    groups: dict[tuple[Any, ...], dict[str, list[dict[str, Any]]]] = {}
    for row in rows:
        g = groups.setdefault((row["weights"], row["n"], row["budget"]), {})
        g.setdefault(row["method"], []).append(row)
    lines = ["| weights | n | budget s | best bound | " + " | ".join(
        ["auto", *HEURISTICS, *EXACT]) + " | auto vs best single |",
             "|---|---:|---:|---:|" + "---:|" * (len(HEURISTICS) + len(EXACT) + 1) + "---|"]
    table = []
    for (weights, n, budget), by_method in sorted(groups.items()):
        bounds = [r["bound"] for rs in by_method.values() for r in rs
                  if isinstance(r.get("bound"), int | float)]
        bound = min(bounds) if bounds else None
        medians: dict[str, float | None] = {}
        for method, rs in by_method.items():
            values = [r["objective"] for r in rs if isinstance(r.get("objective"), int | float)]
            medians[method] = statistics.median(values) if len(values) == len(rs) else None
        cells = []
        for method in ["auto", *HEURISTICS, *EXACT]:
            if method not in by_method:
                cells.append("")
                continue
            value = medians.get(method)
            if value is None:
                cells.append("none")
                continue
            gap = ("" if bound is None
                   else f" ({100 * (bound - value) / max(1.0, abs(value)):.1f} %)")
            cells.append(f"{value:g}{gap}")
        singles = [v for m, v in medians.items() if m != "auto" and v is not None]
        auto = medians.get("auto")
        verdict = ""
        if auto is not None and singles:
            best = max(singles)
            verdict = "at or above" if auto >= best - 1e-9 else f"below by {best - auto:g}"
        elif auto is None:
            verdict = "auto found none"
        lines.append(f"| {weights} | {n} | {budget:g} | "
                     f"{'' if bound is None else f'{bound:g}'} | " + " | ".join(cells)
                     + f" | {verdict} |")
        table.append({"weights": weights, "n": n, "budget": budget, "bound": bound,
                      "medians": medians, "verdict": verdict})
    return lines, table


def plot(table: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = sorted({(t["weights"], t["n"]) for t in table})
    every = sorted({m for t in table for m in t["medians"]})
    colour = {m: f"C{k % 10}" for k, m in enumerate(every)}  # one colour per method
    cols = 3
    rows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    for ax, (weights, n) in zip(axes.ravel(), panels, strict=False):
        cells = sorted((t for t in table if t["weights"] == weights and t["n"] == n),
                       key=lambda t: t["budget"])
        methods = sorted({m for t in cells for m in t["medians"]})
        for method in methods:
            xs = [t["budget"] for t in cells if t["medians"].get(method) is not None]
            ys = [t["medians"][method] for t in cells if t["medians"].get(method) is not None]
            if xs:
                ax.plot(xs, ys, marker="o", lw=2.5 if method == "auto" else 1.2, label=method,
                        color=colour[method])
        bounds = [t["bound"] for t in cells if t["bound"] is not None]
        if bounds:
            ax.axhline(min(bounds), color="grey", ls="--", lw=1, label="best bound")
        ax.set_xscale("log")
        ax.set_title(f"{weights}, n = {n}")
        ax.set_xlabel("budget (s)")
        ax.set_ylabel("objective (median)")
    for ax in axes.ravel()[len(panels):]:
        ax.axis("off")
    handles = [plt.Line2D([], [], color=colour[m], marker="o", label=m) for m in every]
    fig.legend(handles=handles, loc="upper center", ncol=len(every), fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--budgets", type=float, nargs="+", default=list(BUDGETS))
    parser.add_argument("--weights", nargs="+", default=["random", "chess"],
                        choices=["random", "chess"])
    parser.add_argument("--methods", nargs="+", default=None)
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS))
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks/results/anytime.jsonl")
    parser.add_argument("--resume", action="store_true", help="skip cells already in --output")
    parser.add_argument("--markdown", type=Path, help="write the summary table here")
    parser.add_argument("--plot", type=Path, help="draw objective against budget here (PNG)")
    parser.add_argument("--targets", action="store_true",
                        help="run the issue's target cells (see TARGETS) instead of the grid")
    parser.add_argument("--target-sizes", type=int, nargs="+", default=None,
                        help="with --targets: only the target cells of these n")
    parser.add_argument("--summary-only", action="store_true",
                        help="print the summary of --output without running anything")
    args = parser.parse_args(argv)

    if args.targets:
        warm_cache()
        run_targets(args.methods or ["auto", "ga"], args.seeds, args.output,
                    args.target_sizes)
        return 0
    done: dict[tuple[Any, ...], dict[str, Any]] = {}
    if args.output.exists() and (args.resume or args.summary_only):
        for line in args.output.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                done[key(row)] = row
    if not args.summary_only:
        warm_cache()
        args.output.parent.mkdir(parents=True, exist_ok=True)
        with args.output.open("a" if args.resume else "w") as out:
            for cell in grid(args):
                k = key(cell)
                if k in done:
                    continue
                row = run_cell(cell)
                done[k] = row
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(f"{cell['method']:>7} {cell['weights']:>6} n={cell['n']:<6} "
                      f"budget={cell['budget']:<5g} seed={cell['seed']} -> "
                      f"{row.get('status')} {row.get('objective')} (bound {row.get('bound')}, "
                      f"wall {row.get('wall', 0):.1f} s, {row.get('peak_rss_mb')} MB)",
                      flush=True)
    rows = [r for r in done.values() if r.get("n") in args.sizes
            and r.get("budget") in args.budgets and r.get("weights") in args.weights]
    lines, table = summarise(rows)
    print("\n".join(lines))
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text("\n".join(lines) + "\n")
    if args.plot:
        plot(table, args.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
