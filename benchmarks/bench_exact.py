"""Exact backends: time to a proven optimum, feasibility at larger n, and model build times.

    nohup python benchmarks/bench_exact.py > bench_exact.log 2>&1 &   # full run, < 40 min
    python benchmarks/bench_exact.py --quick                         # about 2 minutes
    python benchmarks/bench_exact.py --report-only                   # rebuild the doc

Three parts: model build times (one isolated process), feasibility (weights None) and chess
weights, each solve in its own process with a hard timeout (``nqmip.compare.run_cell``; a
hang costs one cell). A backend stops at its first n not proven within the limit. Records
go to a JSON Lines file (``nqmip.compare.RowWriter``) as they come; the tables between the
markers of docs/benchmarks-exact.md are rebuilt from it. What the parts measure and how to
read the tables is written in that page.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from nqmip.backends.gurobi import SIZE_LIMITED_MAX_N as GUROBI_MAX_N
from nqmip.compare import HARNESS_STATUSES, Cell, RowWriter, read_rows, run_cell, run_in_process

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "benchmarks" / "results"
DOC = ROOT / "docs" / "benchmarks-exact.md"
BACKENDS = ("highs", "highs-pyomo", "glpk", "gurobi", "cpsat")
START, END = "<!-- bench_exact:start -->", "<!-- bench_exact:end -->"
BASELINE_REV = "4b8b59a"  # the commit before build_pyomo_model's speed-up


# ----------------------------------------------------------------------------- workers


def _load_module(name: str, source: str) -> Any:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location(name, fh.name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    os.unlink(fh.name)
    return module


def build_worker(spec: dict[str, Any]) -> dict[str, Any]:
    """Median build times (current Pyomo, baseline Pyomo, matrix) for each n."""
    import nqmip
    from nqmip.formulation.matrix import build_linear_model
    from nqmip.formulation.pyomo import build_pyomo_model
    from nqmip.instance import make_instance

    baseline = None
    if spec.get("baseline_rev"):
        source = subprocess.run(
            ["git", "show", f"{spec['baseline_rev']}:nqmip/formulation/pyomo.py"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout
        baseline = _load_module("nqmip_pyomo_baseline", source).build_pyomo_model
    nqmip.build_model(4, "chess", strengthen=False)  # import Pyomo
    rows = []
    for n in spec["sizes"]:
        instance = make_instance(n, "chess")
        row: dict[str, Any] = {"n": n}
        builders = {
            "build_model": lambda n=n: nqmip.build_model(n, "chess", strengthen=False),
            "pyomo_current": lambda inst=instance: build_pyomo_model(inst),
            "matrix": lambda inst=instance: build_linear_model(inst),
        }
        if baseline is not None:
            builders["pyomo_baseline"] = lambda inst=instance: baseline(inst)
        for label, build in builders.items():
            times = []
            for _ in range(spec["runs"]):
                start = time.perf_counter()
                model = build()
                times.append(time.perf_counter() - start)
                del model
            row[label] = statistics.median(times)
            row[label + "_runs"] = times
        model = build_pyomo_model(instance)
        row["variables"] = model.nvariables()
        row["constraints"] = model.nconstraints()
        rows.append(row)
    profile = {}
    largest = make_instance(max(spec["sizes"]), "chess")
    for label, build in (("before", baseline), ("after", build_pyomo_model)):
        if build is not None:
            profile[label] = profile_build(build, largest)
    return {"rows": rows, "baseline_rev": spec.get("baseline_rev"), "profile": profile,
            "profile_n": largest.n}


#: Pyomo functions whose cumulative time splits a build into stages (under cProfile).
PROFILE_STAGES = {
    "weights Param": ("param.py", "construct"),
    "x Var": ("var.py", "construct"),
    "constraint blocks": ("constraint.py", "construct"),
}


def profile_build(build: Any, instance: Any) -> dict[str, float]:
    """Seconds per stage of one build under cProfile (inflated; for the shares)."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    build(instance)
    profiler.disable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = max(v[3] for v in stats.values())
    out = {"total": total}
    for stage, (file_end, func) in PROFILE_STAGES.items():
        out[stage] = sum(v[3] for (f, _, name), v in stats.items()
                         if f.endswith(file_end) and name == func)
    out["objective and the rest"] = total - sum(out[s] for s in PROFILE_STAGES)
    return out


# ----------------------------------------------------------------------------- driver


def build_child(spec: dict[str, Any]) -> dict[str, Any]:
    """``build_worker`` in its own process; a timeout or crash becomes a record."""
    outcome = run_in_process(f"{Path(__file__).resolve()}:build_worker", spec, hard_limit=600)
    if outcome.status != "ok":
        return {"status": outcome.status, "error": outcome.message,
                "process_time": outcome.process_time}
    return {**outcome.value, "process_time": outcome.process_time}


def machine_info() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "platform": platform.platform()}


class Recorder(RowWriter):
    """The records file: every record stamped with the time and the load average."""

    def write(self, record: dict[str, Any]) -> None:
        super().write({"time": time.strftime("%Y-%m-%d %H:%M:%S"), "load": os.getloadavg(),
                       **record})


def measure_cell(rec: Recorder, part: str, method: str, n: int, weights: str, limit: float,
                 runs: int, single_above: float) -> dict[str, Any]:
    """Up to ``runs`` solves; returns the cell summary (also written to the JSONL)."""
    records = []
    for seed in range(runs):
        record = run_cell(Cell(n=n, method=method, weights=weights, seed=seed, repeat=seed,
                               time_limit=limit, hard_limit=limit + 60,
                               params={"strengthen": False}))  # the textbook model
        if record["status"] in HARNESS_STATUSES:
            record["error"] = record["message"]
        rec.write({"kind": "run", "part": part, **record})
        records.append(record)
        proven = record.get("status") in ("optimal", "infeasible")
        if not proven or (record.get("wall_time") or 0) > single_above:
            break
    proven_times = [r["wall_time"] for r in records if r.get("status") in ("optimal",
                                                                            "infeasible")]
    all_proven = len(proven_times) == len(records)
    cell = {
        "kind": "cell", "part": part, "method": method, "n": n, "weights": weights,
        "limit": limit, "runs": len(records), "proven": all_proven,
        "median": statistics.median(proven_times) if all_proven else None,
        "times": [r.get("wall_time") for r in records],
        "statuses": [r.get("status") for r in records],
        "objective": records[-1].get("objective"), "bound": records[-1].get("bound"),
        "solver": next((r["solver"] for r in records if r.get("solver")), None),
        "error": next((r["error"] for r in records if r.get("error")), None),
    }
    rec.write(cell)
    return cell


def sweep(rec: Recorder, part: str, weights: str, sizes: Iterable[int], methods: list[str],
          limit: float, runs: int, single_above: float, deadline: float) -> None:
    active = list(methods)
    for n in sizes:
        if not active:
            break
        for method in list(active):
            if method == "gurobi" and n > GUROBI_MAX_N:
                active.remove(method)
                rec.write({"kind": "note", "part": part, "method": method, "n": n,
                           "note": f"stopped: pip's gurobipy is limited to n <= {GUROBI_MAX_N}"})
                continue
            if time.monotonic() > deadline:
                rec.write({"kind": "note", "part": part, "method": method, "n": n,
                           "note": "stopped: the run's time budget was spent"})
                print(f"[{part}] time budget spent before {method} n={n}", flush=True)
                return
            cell = measure_cell(rec, part, method, n, weights, limit, runs, single_above)
            shown = f"{cell['median']:.2f} s" if cell["proven"] else "/".join(
                str(s) for s in cell["statuses"])
            print(f"[{part}] {method:12s} n={n:4d} {shown}  runs={cell['runs']} "
                  f"load={os.getloadavg()[0]:.2f}", flush=True)
            if not cell["proven"]:
                active.remove(method)


def available_methods(requested: list[str]) -> list[str]:
    from nqmip.backends.base import get_backend

    return [m for m in requested if get_backend(m).available()]


# ----------------------------------------------------------------------------- report


def _fmt_cell(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return "-"
    if cell["proven"]:
        runs = cell["runs"]
        mark = "" if runs >= 3 else f" ({runs} run{'s' if runs > 1 else ''})"
        return f"{cell['median']:.2f}{mark}"
    status = cell["statuses"][-1]
    proven = [t for t, s in zip(cell["times"], cell["statuses"], strict=True)
              if s in ("optimal", "infeasible")]
    if proven and status in ("feasible", "unknown"):
        shown = ", ".join(f"{t:.1f}" for t in proven)
        return f"{len(proven)} of {cell['runs']} runs proven ({shown}), then > {cell['limit']:.0f}"
    if status in ("feasible", "unknown"):
        gap = ""
        if cell.get("objective") is not None and cell.get("bound") is not None:
            gap = f" {cell['objective']:g}/{cell['bound']:g}"
        elif cell.get("objective") is not None:
            gap = f" {cell['objective']:g}/?"
        return f"> {cell['limit']:.0f}{gap}"
    return f"{status}"


def cell_table(cells: list[dict[str, Any]], part: str, methods: list[str]
               ) -> tuple[list[str], list[list[str]]]:
    by_key = {(c["method"], c["n"]): c for c in cells if c["part"] == part}
    sizes = sorted({n for _, n in by_key})
    optimum = {n: c["objective"] for (_, n), c in by_key.items() if c["proven"]}
    header = ["n", "optimum", *methods]
    rows = [[str(n), f"{optimum[n]:g}" if n in optimum else "?",
             *(_fmt_cell(by_key.get((m, n))) for m in methods)] for n in sizes]
    return header, rows


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" for _ in header) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out)


def winners(cells: list[dict[str, Any]], part: str) -> list[str]:
    by_n: dict[int, list[dict[str, Any]]] = {}
    for c in cells:
        if c["part"] == part and c["proven"]:
            by_n.setdefault(c["n"], []).append(c)
    lines = []
    for n in sorted(by_n):
        ranked = sorted(by_n[n], key=lambda c: c["median"])
        best = ranked[0]
        second = f", then {ranked[1]['method']} {ranked[1]['median']:.2f} s" if len(
            ranked) > 1 else ""
        lines.append(f"n={n}: {best['method']} {best['median']:.2f} s{second}")
    return lines


def largest_proven(cells: list[dict[str, Any]], part: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in cells:
        if c["part"] == part and c["proven"]:
            out[c["method"]] = max(out.get(c["method"], 0), c["n"])
    return out


def highs_paths(cells: list[dict[str, Any]]) -> list[list[str]]:
    by_key = {(c["part"], c["method"], c["n"]): c for c in cells}
    rows = []
    for part in ("chess", "feasibility"):
        sizes = sorted({c["n"] for c in cells if c["part"] == part})
        for n in sizes:
            a, b = by_key.get((part, "highs", n)), by_key.get((part, "highs-pyomo", n))
            if a and b and a["proven"] and b["proven"]:
                rows.append([part, str(n), f"{a['median']:.3f}", f"{b['median']:.3f}",
                             f"{b['median'] / a['median']:.2f}"])
    return rows


def report(path: Path, doc: Path | None, command: str) -> str:
    """The measured part of the page: provenance, conditions, the tables. It replaces what
    lies between the markers of ``doc``; the page's own prose stays as written."""
    records = read_rows(path, runs=False)  # runs mixed with meta, build and note lines
    cells = [r for r in records if r.get("kind") == "cell"]
    meta = next((r for r in records if r.get("kind") == "meta"), {})
    end = next((r for r in records if r.get("kind") == "end"), None)  # the main run's end
    appended = [r for r in records if r.get("kind") == "meta-append"]
    build = next((r for r in reversed(records) if r.get("kind") == "build"), None)
    notes = [r for r in records if r.get("kind") == "note"]
    methods = [m for m in BACKENDS if any(c["method"] == m for c in cells)]
    loads = [r["load"][0] for r in records if "load" in r]
    solvers = {c["method"]: c["solver"] for c in cells if c.get("solver")}
    machine = meta.get("machine", {})

    parts = [
        f"Measured by `{command}`, {meta.get('time', '?')} to "
        f"{end['time'] if end else '(unfinished)'}; raw runs in `benchmarks/results/"
        f"{path.name}`." + "".join(
            f" Added later by `python benchmarks/bench_exact.py {' '.join(r['argv'])}` "
            f"at {r['time']}." for r in appended),
        "",
        f"**Machine and conditions.** {machine.get('cpu', '?')}, {machine.get('cores', '?')} "
        f"cores, Python {machine.get('python', '?')}, shared with other jobs. Medians of "
        f"{meta.get('runs', 3)} runs; a cell whose first run took more than "
        f"{meta.get('single_above', '?')} s ran once.",
        "",
        *how_measured("The 1-minute load average during the run "
                      + (f"was {min(loads):.2f} to {max(loads):.2f} (median "
                         f"{statistics.median(loads):.2f})" if loads else "was not recorded")
                      + "."),
        "Solvers: " + "; ".join(f"{m}: {s}" for m, s in solvers.items()) + ".",
        "",
    ]
    if any(c["part"] == "chess" for c in cells):
        header, rows = cell_table(cells, "chess", methods)
        parts += [
            f"## Chess weights: time to a proven optimum (limit {meta.get('limit', 120):.0f} s)",
            "",
            markdown_table(header, rows),
            "",
            "Fastest proof per n: " + "; ".join(winners(cells, "chess")) + ".",
            "",
            "Largest n proven: " + ", ".join(
                f"{m} {n}" for m, n in largest_proven(cells, "chess").items()) + ".",
            "",
        ]
    if any(c["part"] == "feasibility" for c in cells):
        header, rows = cell_table(cells, "feasibility", methods)
        parts += [
            f"## Feasibility (no weights): time to a proven optimum n "
            f"(limit {meta.get('feas_limit', 60):.0f} s)",
            "",
            markdown_table(header, rows),
            "",
            "Fastest per n: " + "; ".join(winners(cells, "feasibility")) + ".",
            "",
        ]
    hp = highs_paths(cells)
    if hp:
        parts += [
            "## HiGHS directly (highspy) or through Pyomo (appsi_highs)",
            "",
            markdown_table(["weights", "n", "highspy (s)", "via Pyomo (s)", "ratio"], hp),
            "",
        ]
    if build:
        rows = []
        for r in build["rows"]:
            base = r.get("pyomo_baseline")
            rows.append([
                str(r["n"]), f"{r['variables']:,}", f"{r['constraints']:,}",
                f"{base:.3f}" if base is not None else "-",
                f"{r['pyomo_current']:.3f}",
                f"{base / r['pyomo_current']:.2f}" if base else "-",
                f"{r['build_model']:.3f}",
                f"{r['matrix'] * 1000:.1f}",
            ])
        parts += [
            "## Model build times (chess weights, medians of 3)",
            "",
            "`before`: `build_pyomo_model` before its speed-up, `after` the current one. "
            f"Measured at {build['time']}.",
            "",
            *how_measured(f"`before` is `build_pyomo_model` as of commit "
                          f"{build.get('baseline_rev')}. The 1-minute load average was "
                          f"{build['load'][0]:.2f} on 2 cores."),
            markdown_table(["n", "variables", "constraints", "Pyomo before (s)",
                            "Pyomo after (s)", "speed-up", "build_model (s)", "matrix (ms)"],
                           rows),
            "",
        ]
        profile = build.get("profile") or {}
        if profile:
            stages = list(next(iter(profile.values())))
            prow = [[stage, *(f"{profile[k][stage]:.2f}" for k in profile)] for stage in stages]
            parts += [
                f"Where a build's time goes at n = {build['profile_n']} (one build under "
                "cProfile, cumulative seconds):",
                "",
                markdown_table(["stage", *profile], prow),
                "",
            ]
    if notes:
        parts += ["## Notes from the run", ""]
        parts += [f"- {r['part']}, {r['method']}, n={r['n']}: {r['note']}" for r in notes]
        parts += [""]
    errors = [c for c in cells if c.get("error")]
    if errors:
        parts += ["Cells with an error or a kill: " + "; ".join(
            f"{c['part']} {c['method']} n={c['n']}: {c['error']}" for c in errors), ""]
    text = "\n".join(parts).rstrip("\n")
    if doc is not None:
        write_section(doc, text)
    return text


def how_measured(*paragraphs: str) -> list[str]:
    """The folded "How this was measured" section (mkdocs-material's ``???``): the load
    and the commits, kept for those who measure, out of the reader's way."""
    lines = ['??? note "How this was measured"', ""]
    for paragraph in paragraphs:
        lines += ["    " + paragraph, ""]
    return lines


def write_section(doc: Path, body: str) -> None:
    """Replace what lies between the markers of ``doc`` (appended when it has none)."""
    page = doc.read_text() if doc.exists() else ""
    block = f"{START}\n{body}\n{END}"
    if START in page:
        page = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: block, page,
                      flags=re.S)
    else:
        page += ("\n" if page else "") + block + "\n"
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(page)


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="short run: chess n=8,12; feasibility n=16,32; 1 run; 20 s limit")
    parser.add_argument("--methods", default=",".join(BACKENDS))
    parser.add_argument("--limit", type=float, default=120.0,
                        help="chess: seconds before a backend stops (default 120)")
    parser.add_argument("--feas-limit", type=float, default=60.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--single-above", type=float, default=15.0,
                        help="run a cell once when its first run takes longer (s)")
    parser.add_argument("--max-n", type=int, default=64, help="largest chess n tried")
    parser.add_argument("--feas-sizes", default="16,32,64,128,256")
    parser.add_argument("--build-sizes", default="50,100,200,400")
    parser.add_argument("--baseline-rev", default=BASELINE_REV)
    parser.add_argument("--budget", type=float, default=38 * 60.0,
                        help="stop starting new cells after this many seconds")
    parser.add_argument("--parts", default="build,feasibility,chess")
    parser.add_argument("--results", type=Path, default=None)
    parser.add_argument("--doc", type=Path, default=None,
                        help="markdown report (default docs/benchmarks-exact.md; none: --quick)")
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--append", action="store_true",
                        help="add to the results file (e.g. --parts build to re-measure "
                             "builds); the report uses the latest build record")
    args = parser.parse_args(argv)

    results = args.results or RESULTS_DIR / (
        "bench_exact_quick.jsonl" if args.quick else "bench_exact.jsonl")
    doc = args.doc if args.doc is not None else (None if args.quick else DOC)
    command = "python benchmarks/bench_exact.py" + (" --quick" if args.quick else "")
    if args.report_only:
        print(report(results, doc, command))
        return 0

    if args.quick:
        args.limit, args.feas_limit, args.runs, args.max_n = 20.0, 20.0, 1, 12
        args.feas_sizes, args.build_sizes = "16,32", "50,100"
    methods = available_methods([m.strip() for m in args.methods.split(",") if m.strip()])
    rec = Recorder(results, fresh=not args.append)
    kind = "meta-append" if args.append else "meta"
    rec.write({"kind": kind, "machine": machine_info(), "methods": methods,
               "runs": args.runs, "limit": args.limit, "feas_limit": args.feas_limit,
               "single_above": args.single_above, "argv": sys.argv[1:]})
    deadline = time.monotonic() + args.budget
    parts = args.parts.split(",")
    if "build" in parts:
        sizes = [int(s) for s in args.build_sizes.split(",")]
        spec = {"sizes": sizes, "runs": 3, "baseline_rev": args.baseline_rev}
        record = build_child(spec)
        rec.write({"kind": "build", **record})
        print(f"[build] {json.dumps(record)[:400]}", flush=True)
    if "feasibility" in parts:
        sweep(rec, "feasibility", "none", [int(s) for s in args.feas_sizes.split(",")],
              methods, args.feas_limit, args.runs, args.single_above, deadline)
    if "chess" in parts:
        sweep(rec, "chess", "chess", range(8, args.max_n + 1, 4), methods, args.limit,
              args.runs, args.single_above, deadline)
    rec.write({"kind": "end"})
    rec.close()
    print(report(results, doc, command))
    if doc is not None:
        print(f"wrote {doc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
