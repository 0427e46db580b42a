"""General weights, side by side: the published families, every exact solver, one thread.

    python benchmarks/bench_weighted.py --family toulbar2 --n 16,20,24,28 \\
        --seeds 123456789,1,2 --methods auto-default,bnb,highs,cpsat,scip,toulbar2 \\
        --time-limit 60
    python benchmarks/bench_weighted.py --family random --n 36,40,48 --methods auto,highs
    python benchmarks/bench_weighted.py --family aaai26 --methods auto-default \\
        --time-limit 120                 # the AAAI-26 setting to N = 40: 190 boards
    python benchmarks/bench_weighted.py --report-only     # docs/weighted.md from the records
    python benchmarks/bench_weighted.py --n 36,40 --seeds 1,2,3 --time-limit 300 \
        --primal neighbourhood        # bnb with and without a part, alternated (docs/bnb.md)

Each run is its own process with a hard limit (nqmip.compare.harness.run_in_process), so a
solver that hangs costs one cell; rows go to benchmarks/results/weighted.jsonl (compare's
record format) and docs/weighted.md gets the table and a Dolan-More performance profile:
for each method, the share of instances it proved within tau times the fastest proof.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nqmip.compare.harness import run_in_process  # noqa: E402
from nqmip.compare.store import RowWriter, read_rows  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "weighted.jsonl"
#: ``--primal``'s records (bnb with a part of the LP search on and off).
PRIMAL_RESULTS = ROOT / "benchmarks" / "results" / "weighted_primal.jsonl"
#: ``--primal PART``: the switch of each part of the LP search the option can turn off.
PARTS = {"neighbourhood": "nqmip.bnb.lpsearch:NEIGHBOURHOOD"}
PAGE = ROOT / "docs" / "weighted.md"
TAUS = (1, 2, 4, 8, 16, 64)
#: auto as ``pip install nqmip`` has it: gurobipy and pyscipopt hidden in the worker (auto
#: picks HiGHS and its own LP search); ``auto-scip``: gurobipy hidden, SCIP installed.
DEFAULT_AUTO = "auto-default"
SCIP_AUTO = "auto-scip"
#: Gurobi on both cores (two threads); ``gurobi`` alone runs one thread like the others.
GUROBI_TWO = "gurobi-2t"


def solve_family(spec: dict[str, Any]) -> dict[str, Any]:
    """In the worker: one family instance solved by one method, one thread."""
    import nqmip
    from nqmip.instances.families import (
        aaai26_board,
        pb06_board,
        random_1_9,
        toulbar2_tutorial,
    )

    family, n, seed = spec["family"], spec["n"], spec["seed"]
    instance = (toulbar2_tutorial(n, seed) if family == "toulbar2" else
                aaai26_board(n, seed) if family == "aaai26" else
                random_1_9(n, seed) if family == "random" else pb06_board(seed, n))
    method = spec["method"]
    if method in (DEFAULT_AUTO, SCIP_AUTO):  # auto as installed by default: no Gurobi
        sys.modules["gurobipy"] = None  # type: ignore[assignment]
        if method == DEFAULT_AUTO:  # nor SCIP (an extra)
            sys.modules["pyscipopt"] = None  # type: ignore[assignment]
        method = "auto"
    threads = None if method in ("toulbar2", "sa", "scip") else 1  # the rest: one thread
    if method == GUROBI_TWO:  # the commercial anchor as the goal measures it
        method, threads = "gurobi", 2
    import time

    if spec.get("part"):  # --primal: the part on or off, in this worker only
        import importlib

        where, name = PARTS[spec["part"]].split(":")
        setattr(importlib.import_module(where), name, spec["on"])
    cpu = time.process_time()  # every thread of this process: read beside a loaded machine
    seen: list[tuple[float, float, float]] = []  # (wall, cpu, incumbent) at each improvement

    def heard(event: Any) -> None:
        if event.incumbent is not None and (not seen or event.incumbent != seen[-1][2]):
            seen.append((event.elapsed, time.process_time() - cpu, float(event.incumbent)))

    result = nqmip.solve(instance, method=method, time_limit=spec["time_limit"],
                         seed=None if method == "bnb" else 0,  # bnb takes none
                         threads=threads, on_progress=heard)
    out = {**result.to_dict(), "cpu_time": time.process_time() - cpu}
    if result.objective is not None:  # when the final placement was first had
        final = abs(float(result.objective))
        first = next((point for point in seen if abs(point[2]) == final), None)
        out["optimum_wall"] = None if first is None else first[0]
        out["optimum_cpu"] = None if first is None else first[1]
    return out


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    target = f"{Path(__file__).resolve()}:solve_family"
    with RowWriter(RESULTS) as out:
        for n in args.n:
            for seed in args.seeds:
                for method in args.methods:
                    spec = {"family": args.family, "n": n, "seed": seed, "method": method,
                            "time_limit": args.time_limit}
                    outcome = run_in_process(target, spec, args.time_limit + 30)
                    row = {**(outcome.value or {}), "n": n, "method": method,
                           "family": args.family, "weights": args.family, "seed": seed,
                           "status": (outcome.value or {}).get("status", outcome.status),
                           "process_time": outcome.process_time,
                           "time_limit": args.time_limit}
                    row.pop("placement", None)
                    out.write(row)
                    rows.append(row)
                    print(f"{args.family} n={n} seed={seed} {method:9s} {row['status']:9s} "
                          f"objective={row.get('objective')} bound={row.get('bound')} "
                          f"time={row.get('wall_time') or outcome.process_time:.2f}s",
                          flush=True)
    return rows


def primal(args: argparse.Namespace) -> list[dict[str, Any]]:
    """``--primal PART``: bnb on every board with PART on and off, one after the other, the
    order alternated from board to board (a shared machine's load shifts by the minute)."""
    rows = []
    target = f"{Path(__file__).resolve()}:solve_family"
    with RowWriter(args.records) as out:
        turn = 0
        for n in args.n:
            for seed in args.seeds:
                for on in ((True, False) if turn % 2 == 0 else (False, True)):
                    spec = {"family": args.family, "n": n, "seed": seed,
                            "method": args.primal_method, "time_limit": args.time_limit,
                            "part": args.primal, "on": on}
                    outcome = run_in_process(target, spec, args.time_limit + 30)
                    row = {**(outcome.value or {}), **spec, "weights": args.family,
                           "status": (outcome.value or {}).get("status", outcome.status)}
                    row.pop("placement", None)
                    row.pop("trajectory", None)
                    out.write(row)
                    rows.append(row)
                    print(_primal_line(row), flush=True)
                turn += 1
    return rows


def _primal_line(r: dict[str, Any]) -> str:
    def sec(v: Any) -> str:
        return "-" if v is None else f"{float(v):.1f}"

    proof = sec(r.get("wall_time")) if r.get("status") == "optimal" else \
        f"> {sec(r.get('time_limit'))} ({_short(r.get('objective'))} / {_short(r.get('bound'))})"
    return (f"| {r['n']} | {r['seed']} | {'on' if r['on'] else 'off'} | "
            f"{_short(r.get('objective'))} | {_nodes(r) or '-'} | "
            f"{sec(r.get('optimum_wall'))} | {proof} | {sec(r.get('optimum_cpu'))} | "
            f"{sec(r.get('cpu_time'))} |")


def _nodes(r: dict[str, Any]) -> int | None:
    return (r.get("counters") or {}).get("nodes")


def primal_table(rows: list[dict[str, Any]], part: str) -> str:
    """The runs of ``--primal`` side by side, and per N the medians and the ratios on / off
    of the time to the optimum and to the proof (an unproven run: its limit)."""
    lines = [f"{part}: on / off", "",
             "| N | seed | part | objective | nodes | optimum at (s) | proof (s) | "
             "optimum at (CPU s) | CPU s |",
             "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    lines += [_primal_line(r) for r in rows]
    lines += ["", "Medians per N (an unproven run counts its limit):", "",
              "| N | boards | on: optimum at / proof (s) | off: optimum at / proof (s) | "
              "on / off: optimum at | proof | CPU | nodes |",
              "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for n in sorted({r["n"] for r in rows}):
        med = {}
        for on in (True, False):
            runs = [r for r in rows if r["n"] == n and r["on"] is on]
            if not runs:
                break
            limit = [float(r["time_limit"]) for r in runs]
            med[on] = [statistics.median(v) for v in (
                [float(r["optimum_wall"]) if r.get("optimum_wall") is not None else t
                 for r, t in zip(runs, limit, strict=True)],
                [float(r["wall_time"]) if r.get("status") == "optimal" else t
                 for r, t in zip(runs, limit, strict=True)],
                [float(r.get("cpu_time") or 0.0) for r in runs],
                [float(_nodes(r) or 0) for r in runs])]
        if len(med) < 2:
            continue
        ratio = [a / b if b else float("nan") for a, b in zip(med[True], med[False], strict=True)]
        boards = len({r["seed"] for r in rows if r["n"] == n})
        lines.append(f"| {n} | {boards} | {med[True][0]:.1f} / {med[True][1]:.1f} | "
                     f"{med[False][0]:.1f} / {med[False][1]:.1f} | " +
                     " | ".join(f"{v:.2f}" for v in ratio) + " |")
    return "\n".join(lines)


def profile(rows: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Dolan-More: per method, the share of instances proved within tau x the best time."""
    proved: dict[tuple[Any, ...], dict[str, float]] = {}
    methods = sorted({r["method"] for r in rows})
    for r in rows:
        key = (r["family"], r["n"], r["seed"])
        proved.setdefault(key, {})
        if r.get("status") in ("optimal", "infeasible"):
            proved[key][r["method"]] = float(r["wall_time"])
    out = {}
    for m in methods:
        shares = []
        for tau in TAUS:
            hits = sum(1 for times in proved.values()
                       if m in times and times[m] <= tau * min(times.values()) + 1e-9)
            shares.append(hits / max(len(proved), 1))
        out[m] = shares
    return out


#: The limit of a family's table; a run given longer goes to "Longer runs" instead.
TABLE_LIMIT = {"toulbar2": 60.0, "random": 60.0, "pb06": 600.0}


def _longer(r: dict[str, Any]) -> bool:
    return float(r.get("time_limit") or 0.0) > TABLE_LIMIT.get(r["family"], 60.0)


#: Where and when the records were measured, and what was said of the machine then.
MACHINE = "a 2-core AMD EPYC"
MEASURED = "24 Nov 2026 to 1 Dec 2026"

#: What changed under the table (its older cells stay as they were measured).
NOTES = (
    "From 30 free rows `bnb` is the search with the LP at every node, in rounds of a "
    "falling target, with a dive for placements at every node (docs/bnb.md), and "
    "`auto-default` runs it on both cores (two workers, one tree) beside a short "
    "annealing, no MIP, up to 48 free rows with a limit of 30 s or more. Two `bnb` cells "
    "at N = 40 (seeds 123456789 and 2) predate the dives (a dive changes the incumbents, "
    "not the tree: N = 36, 12,531 nodes either way). docs/bnb.md tables the last runs of "
    "N = 40 and 44 with 300 s and the AAAI-26 set with their nodes and CPU seconds. "
    "Why SCIP leads from N = 40, what the bound and the search each contribute (nodes, "
    "root bound, time a node) and what was tried: docs/bnb.md.",
)

#: The measuring notes, folded under the notes: the machine's load while it measured.
HOW_MEASURED = (
    "The cells of N = 36-48 measured with the LP search (their records carry `cpu_time`) "
    "ran on a machine shared with other workers' jobs (load average 4-8 on 2 cores): each "
    "process got about half a core whatever its threads, so the times are about twice an "
    "idle machine's, auto's second worker added nothing, and SCIP beside them was slowed "
    "as much; read the ratios of one run of the benchmark. The runs of 26 Nov of N = 40 "
    "and 44 with 300 s (seeds 1 and 2 at N = 44; the three at N = 40) and the AAAI-26 set "
    "ran later on a quiet machine (load 1-2, nothing beside them). The cells "
    "whose records have no `cpu_time` were measured when it was left out.",
    "The runs of N = 40, 44 and 48 (the three seeds) and the AAAI-26 set were measured "
    "again on 1 Dec 2026 on the final code of the general-weights work, on a quiet machine "
    "(load average 1.7-2.1). The two-core runs (auto-default, gurobi-2t) ran alone. SCIP "
    "and HiGHS, one thread each, ran two at a time, one per core, and their CPU seconds "
    "equal their wall seconds. They are the last line of each of their cells under "
    "Longer runs, and the AAAI-26 table is theirs. docs/bnb.md tables them with their "
    "nodes, root bounds and CPU seconds.",
)


def how_measured(paragraphs: tuple[str, ...] | list[str]) -> list[str]:
    """The folded "How this was measured" section (mkdocs-material's ``???``)."""
    lines = ['??? note "How this was measured"', ""]
    for paragraph in paragraphs:
        lines += ["    " + paragraph, ""]
    return lines


def page(rows: list[dict[str, Any]]) -> str:
    aaai = [r for r in rows if r["family"] == "aaai26"]
    rows = [r for r in rows if r["family"] != "aaai26"]
    longer = [r for r in rows if _longer(r)]
    rows = [r for r in rows if not _longer(r)]
    latest: dict[tuple[Any, ...], dict[str, Any]] = {}
    for r in rows:
        latest[(r["family"], r["n"], r["seed"], r["method"])] = r
    rows = list(latest.values())
    methods = sorted({r["method"] for r in rows})
    lines = ["# General weights: the published families, solver against solver", "",
             "Generated by `python benchmarks/bench_weighted.py` (records in "
             "`benchmarks/results/weighted.jsonl`). One thread per solver, each run its own "
             "process; a cell is the time to a proof, or `> limit (objective / bound)`, "
             "with the benchmark's limits (60 s; 600 s for PB06); runs given longer are "
             f"under [Longer runs](#longer-runs). Measured from {MEASURED} on {MACHINE} "
             "that other jobs may share: read ratios, not seconds. `auto` uses Gurobi where "
             "gurobipy is installed and licensed for "
             "the size (pip's licence: n <= 44), as on the machine that made this table; "
             "`auto-default` is auto with gurobipy (and, in the runs of the LP search, "
             "pyscipopt) hidden: the default install, HiGHS and nqmip's `bnb`; `auto-scip` "
             "hides gurobipy only (SCIP installed as the extra `nqmip[scip]`). nqmip's "
             "times count numba's one-off kernel load in a fresh process (0.5-0.8 s, "
             "also recorded apart as `compile_time`), as a time limit does.", "", *NOTES, "",
             *how_measured(HOW_MEASURED),
             "| family | n | seed | " + " | ".join(methods) + " |",
             "| --- | ---: | ---: | " + " | ".join("---:" for _ in methods) + " |"]
    keys = sorted({(r["family"], r["n"], r["seed"]) for r in rows})
    for key in keys:
        cells = []
        for m in methods:
            r = latest.get((*key, m))
            if r is None:
                cells.append("-")
            elif r.get("status") in ("optimal", "infeasible"):
                cells.append(f"{float(r['wall_time']):.2f} s")
            else:
                cells.append(f"> {r.get('time_limit', '?')} s ({_short(r.get('objective'))} / "
                             f"{_short(r.get('bound'))})")
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(cells) + " |")
    lines += ["", "## nqmip against the best peer", "",
              "Per instance: the best time to a proof of HiGHS, SCIP, toulbar2 and CP-SAT "
              "(those that ran), and nqmip's (`auto-default`, `bnb`) as a ratio of it; "
              "below 1 nqmip is faster, `-` where it did not prove.", "",
              "| family | n | seed | best peer | auto-default / peer | bnb / peer |",
              "| --- | ---: | ---: | --- | ---: | ---: |"]
    for key in keys:
        lines.append(_against_peer(key, latest))
    for family in sorted({key[0] for key in keys}):
        lines += _profile_section(family, [k for k in keys if k[0] == family], methods, latest)
    medians = {m: statistics.median([float(r["wall_time"]) for r in rows
                                      if r["method"] == m and r.get("status") == "optimal"]
                                     or [float("nan")]) for m in methods}
    lines += ["", "Median time to a proof over the instances each proved: " + ", ".join(
        f"{m} {v:.2f} s" for m, v in medians.items()) + ".", ""]
    return "\n".join(lines + _longer_section(longer) + _aaai_section(aaai))


#: The paper's largest board: its 140 instances are N = 4, 6, ..., 30.
PAPER_MAX_N = 30


def _aaai_section(rows: list[dict[str, Any]]) -> list[str]:
    """The AAAI-26 setting carried to N = 40 (190 boards), the methods side by side: per
    size, each method's boards proven and its time over the ten, and the sum over the set."""
    if not rows:
        return []
    latest = {(r["n"], r["seed"], r["method"], r.get("time_limit")): r for r in rows}
    columns = sorted({(k[2], k[3]) for k in latest},
                     key=lambda c: (c[0] != "auto-default", c[0], c[1] or 0.0))
    sizes = sorted({k[0] for k in latest})

    def cell(n: int | None, column: tuple[str, Any]) -> tuple[int, int, float]:
        """Boards proven, boards run and their time (an unproven board: its limit); n None:
        every size, n 0: the paper's sizes (N <= 30)."""
        runs = [r for k, r in latest.items() if k[2:] == column
                and (n is None or k[0] == n or (n == 0 and k[0] <= PAPER_MAX_N))]
        times = [float(r["wall_time"]) if r.get("status") == "optimal"
                 else float(column[1] or 0.0) for r in runs]
        return sum(r.get("status") == "optimal" for r in runs), len(runs), sum(times)

    head = " | ".join(f"{m} ({float(limit or 0):.0f} s) | time" for m, limit in columns)
    lines = ["## The AAAI-26 setting carried to N = 40", "",
             "Ten boards per even N (`nqmip.instances.families.aaai26_board`: the tutorial's "
             "generator, costs uniform in [1, N], seeds 1-10), each its own process with "
             "the limit shown; per method the boards proven and the time over the ten, a "
             "board not proven counting its whole limit; 4-30 is the paper's 140.", "",
             f"| N | {head} |", "| ---: |" + " ---: | ---: |" * len(columns)]
    for n in [*sizes, 0, None]:
        parts = []
        for column in columns:
            done, run, seconds = cell(n, column)
            time_text = f"{seconds:.1f} s" if n else f"**{seconds:.1f} s**"
            parts.append(f"{done} / {run} | {time_text}" if run else "- | -")
        label = {0: f"4-{PAPER_MAX_N}", None: "all"}.get(n, str(n))
        lines.append(f"| {label} | " + " | ".join(parts) + " |")
    return [*lines, ""]


def _longer_section(rows: list[dict[str, Any]]) -> list[str]:
    """Runs given more than their family's table limit, one line each."""
    if not rows:
        return []
    lines = ["## Longer runs", "",
             "| family | n | seed | method | limit | result |",
             "| --- | ---: | ---: | --- | ---: | --- |"]
    for r in sorted(rows, key=lambda r: (r["family"], r["n"], r["seed"], r["method"])):
        if r.get("status") in ("optimal", "infeasible"):
            result = f"{r['status']} {_short(r.get('objective'))} in {float(r['wall_time']):.1f} s"
        else:
            result = f"{r.get('status')}: {_short(r.get('objective'))} / {_short(r.get('bound'))}"
        lines.append(f"| {r['family']} | {r['n']} | {r['seed']} | {r['method']} | "
                     f"{float(r['time_limit']):.0f} s | {result} |")
    return [*lines, ""]


PEERS = ("highs", "scip", "toulbar2", "cpsat")


def _profile_section(family: str, keys: list[tuple[Any, ...]], methods: list[str],
                     latest: dict[tuple[Any, ...], dict[str, Any]]) -> list[str]:
    """The Dolan-More table of one family, over the methods run on all its instances."""
    complete = [m for m in methods if all((*key, m) in latest for key in keys)]
    left_out = [m for m in methods if m not in complete
                and any((*key, m) in latest for key in keys)]
    shares = profile([latest[(*key, m)] for key in keys for m in complete])
    lines = ["", f"## Performance profile (Dolan and Moré): {family}", "",
             f"Share of the {len(keys)} instances each method proved within tau times the "
             "fastest proof of that instance, over the methods run on every one of them"
             + (f" ({', '.join(left_out)} ran on only some, and are left out)"
                if left_out else "") + ".", "",
             "| method | " + " | ".join(f"tau = {t}" for t in TAUS) + " |",
             "| --- | " + " | ".join("---:" for _ in TAUS) + " |"]
    return lines + [f"| {m} | " + " | ".join(f"{s:.0%}" for s in shares[m]) + " |"
                    for m in complete]


def _short(value: Any) -> str:
    return "?" if value is None else f"{float(value):.6g}"


def _proof_time(r: dict[str, Any] | None) -> float | None:
    if r is None or r.get("status") not in ("optimal", "infeasible"):
        return None
    return float(r["wall_time"])


def _against_peer(key: tuple[Any, ...], latest: dict[tuple[Any, ...], dict[str, Any]]) -> str:
    peers = {m: _proof_time(latest.get((*key, m))) for m in PEERS}
    proved = {m: t for m, t in peers.items() if t is not None}
    head = f"| {key[0]} | {key[1]} | {key[2]} | "
    if not proved:
        return head + "none proved | " + " | ".join(
            "proved" if _proof_time(latest.get((*key, m))) is not None else "-"
            for m in ("auto-default", "bnb")) + " |"
    peer = min(proved, key=lambda m: proved[m])
    cells = []
    for m in ("auto-default", "bnb"):
        t = _proof_time(latest.get((*key, m)))
        cells.append("-" if t is None else f"{t / proved[peer]:.2f}")
    return head + f"{peer} {proved[peer]:.2f} s | " + " | ".join(cells) + " |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--family", choices=("toulbar2", "random", "pb06", "aaai26"),
                        default="toulbar2")
    parser.add_argument("--n", type=lambda t: [int(x) for x in t.split(",")],
                        default=[16, 20, 24, 28])
    parser.add_argument("--seeds", type=lambda t: [int(x) for x in t.split(",")],
                        default=[123456789])
    parser.add_argument("--methods", type=lambda t: t.split(","),
                        default=["auto", "highs", "cpsat", "scip", "toulbar2"])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--primal", choices=sorted(PARTS),
                        help="bnb alone with this part of its LP search on and off, "
                             "alternated: time to the optimum and to the proof, nodes")
    parser.add_argument("--primal-method", default="bnb", choices=("bnb", DEFAULT_AUTO),
                        help="--primal's method (auto-default: auto as installed by default)")
    parser.add_argument("--records", type=Path, default=PRIMAL_RESULTS,
                        help="--primal's records (one file per sweep running at once)")
    args = parser.parse_args()
    if args.primal:  # with --report-only: the table of the records
        rows = read_rows(args.records, runs=False) if args.report_only else primal(args)
        rows = [r for r in rows if r.get("part") == args.primal and r.get("family") == args.family
                and r.get("method") == args.primal_method
                and r["n"] in args.n and r["seed"] in args.seeds]
        print(primal_table(rows, args.primal))
        return 0
    if args.family == "aaai26" and not args.report_only:
        from nqmip.instances.families import AAAI26_SEEDS, AAAI26_SIZES

        if "--n" not in sys.argv:
            args.n = list(AAAI26_SIZES)
        if "--seeds" not in sys.argv:
            args.seeds = list(AAAI26_SEEDS)
    if not args.report_only:
        run(args)
    rows = read_rows(RESULTS, runs=False)  # its own method names: auto-default, ...
    PAGE.write_text(page(rows))
    print(json.dumps(profile(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
