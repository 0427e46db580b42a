"""Time to a proven optimum with and without a heuristic warm start, per backend.

For chess and random weights and n = 16, 20, 24, …: each exact backend solves the same
instance cold and warm-started from simulated annealing (its time included), medians of
``--repeats`` runs, each in its own process with a hard limit (``--limit`` + 60 seconds,
``nqmip.compare.run_cell``); a
backend's series stops at the first n where a run fails to prove within the limit.
Rows are appended to a JSON Lines file as they finish; the table is written to
docs/benchmarks-warmstart.md.

    python benchmarks/bench_warmstart.py                      # the full sweep (long)
    python benchmarks/bench_warmstart.py --quick              # n = 16, 20; one repeat
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from nqmip.backends.gurobi import SIZE_LIMITED_MAX_N as GUROBI_SIZE_LIMITED_MAX_N
from nqmip.compare import Cell, RowWriter, read_rows, run_cell

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "warmstart.jsonl"
DOC = ROOT / "docs" / "benchmarks-warmstart.md"
PLOT = ROOT / "docs" / "compare" / "warmstart.png"

def _warm(row: dict) -> bool:
    """Warm-started? (``warm`` in the rows of this script before it used the harness.)"""
    return bool(row["warm"]) if "warm" in row else row.get("warm_start") is not None


def _accepted(row: dict) -> bool:
    return bool(row.get("warm_start_accepted", row.get("accepted")))


def sweep(args: argparse.Namespace) -> list[dict]:
    rows = read_rows(RESULTS) if args.resume else []
    done = {(r["weights"], r["method"], r["n"], _warm(r), r["repeat"]) for r in rows}
    with RowWriter(RESULTS, fresh=not args.resume) as out:
        for weights in args.weights:
            for method in args.methods:
                for n in args.n:
                    if method == "gurobi" and n > GUROBI_SIZE_LIMITED_MAX_N:
                        break  # pip's size-limited licence
                    failed = False
                    for repeat in range(args.repeats):
                        for warm in (False, True):
                            if (weights, method, n, warm, repeat) in done:
                                continue
                            params = {"weights_seed": 1000 + n, "threads": args.threads,
                                      "strengthen": args.strengthen}
                            row = run_cell(Cell(
                                n=n, method=method, weights=weights, seed=repeat,
                                repeat=repeat, time_limit=args.limit,
                                hard_limit=args.limit + 60, warm_start="sa" if warm else None,
                                params=params))
                            rows.append(row)
                            out.write(row)
                            print(f"{weights} {method} n={n} warm={warm} repeat={repeat}: "
                                  f"{row['status']} {row['objective']} "
                                  f"{row['wall_time']:.2f} s", flush=True)
                            failed |= row["status"] != "optimal"
                    if failed:
                        break  # this backend's series ends at its first n without a proof
    return rows


def summarise(rows: list[dict]) -> list[dict]:
    groups: dict[tuple, dict[bool, list[dict]]] = {}
    for row in rows:
        groups.setdefault((row["weights"], row["method"], row["n"]), {}).setdefault(
            _warm(row), []).append(row)
    table = []
    for (weights, method, n), by_warm in sorted(groups.items()):
        entry = {"weights": weights, "method": method, "n": n}
        for warm, label in ((False, "cold"), (True, "warm")):
            runs = by_warm.get(warm, [])
            proven = [r["wall_time"] for r in runs if r["status"] == "optimal"]
            entry[f"{label}_proven"] = f"{len(proven)}/{len(runs)}"
            entry[label] = statistics.median(proven) if len(proven) == len(runs) and runs \
                else None
        warm_runs = by_warm.get(True, [])
        entry["accepted"] = sum(_accepted(r) for r in warm_runs)
        entry["heuristic"] = statistics.median(
            [r["heuristic_time"] for r in warm_runs if r.get("heuristic_time") is not None]
            or [float("nan")])
        entry["ratio"] = entry["warm"] / entry["cold"] if entry["cold"] and entry["warm"] \
            else None
        table.append(entry)
    return table


def command_args() -> str:
    """The sweep's arguments as given (``--report-only`` only redraws the page)."""
    return " ".join(a for a in sys.argv[1:] if a != "--report-only")


def fmt(value: float | None, spec: str = ".2f") -> str:
    return "—" if value is None else format(value, spec)


def write_plot(table: list[dict]) -> None:
    """Time to proof against n, log scale: one panel per weights, solid cold, dashed warm."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    weights = sorted({e["weights"] for e in table})
    fig, axes = plt.subplots(1, len(weights), figsize=(6 * len(weights), 4), squeeze=False)
    for ax, w in zip(axes[0], weights, strict=True):
        for method in sorted({e["method"] for e in table if e["weights"] == w}):
            rows = [e for e in table if e["weights"] == w and e["method"] == method]
            for key, style in (("cold", "-"), ("warm", "--")):
                pts = [(e["n"], e[key]) for e in rows if e[key] is not None]
                if pts:
                    ax.plot(*zip(*pts, strict=True), style, marker="o",
                            label=f"{method} {key}")
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel("time to proven optimum (s)")
        ax.set_title(f"{w} weights (textbook model)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(PLOT, dpi=110)


def write_doc(table: list[dict], args: argparse.Namespace) -> None:
    lines = [
        "# Warm starts: measured",
        "",
        "Time to a proven optimum, cold and warm-started from simulated annealing (`sa`, "
        "its time included), per backend; medians of the runs that proved (a dash: not all "
        f"proved within {args.limit:g} s). Ratio = warm / cold (below 1: the start helps).",
        "",
        f"Model: {'strengthened' if args.strengthen else 'textbook (strengthen=False)'}. "
        f"Command: `python benchmarks/bench_warmstart.py {command_args()}`. Each run "
        "in its own process; 2-core machine shared with other jobs while measured, so "
        "single timings are noisy: read the ratios, measured side by side.",
        "",
        "| weights | backend | n | cold (s) | warm (s) | ratio | start accepted | SA time (s) |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for e in table:
        lines.append(
            f"| {e['weights']} | {e['method']} | {e['n']} | {fmt(e['cold'])} "
            f"({e['cold_proven']}) | {fmt(e['warm'])} ({e['warm_proven']}) | "
            f"{fmt(e['ratio'])} | {e['accepted']} | {fmt(e['heuristic'], '.3f')} |")
    lines += ["", "![time to proof, cold (solid) and warm (dashed)](compare/warmstart.png)"]
    DOC.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=lambda s: [int(x) for x in s.split(",")],
                        default=list(range(16, 65, 4)))
    parser.add_argument("--methods", type=lambda s: s.split(","),
                        default=["highs", "gurobi", "cpsat"])
    parser.add_argument("--weights", type=lambda s: s.split(","), default=["chess", "random"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=float, default=120.0)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--resume", action="store_true", help="skip runs already in the file")
    parser.add_argument("--strengthen", action="store_true",
                        help="the strengthened model (default: the textbook model, so that "
                             "the start's effect on the solver is measured alone; with "
                             "strengthening, chess is mostly proven by the colour bound)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--report-only", action="store_true",
                        help="rewrite the doc from the JSON Lines file, running nothing")
    args = parser.parse_args()
    if args.quick:
        args.n, args.repeats, args.limit = [16, 20], 1, 60.0
    begin = time.perf_counter()
    rows = read_rows(RESULTS) if args.report_only else sweep(args)
    table = summarise(rows)
    write_doc(table, args)
    write_plot(table)
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"warm vs cold ({time.perf_counter() - begin:.0f} s)")
    for col in ("weights", "backend", "n", "cold", "warm", "ratio", "accepted"):
        t.add_column(col)
    for e in table:
        t.add_row(e["weights"], e["method"], str(e["n"]), fmt(e["cold"]), fmt(e["warm"]),
                  fmt(e["ratio"]), str(e["accepted"]))
    Console().print(t)


if __name__ == "__main__":
    main()
