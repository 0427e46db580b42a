"""Regenerate docs/frontier.md and docs/data/frontier.json: chess-weighted optima, n = 1..128.

For each n and each backend (HiGHS, CP-SAT, Gurobi up to the n of pip's size-limited
licence, ``nqmip.backends.gurobi.SIZE_LIMITED_MAX_N``) three configurations are timed in the
same run, one solver at a time:

- ``plain``: ``nqmip.solve(..., strengthen=False)``, the textbook model;
- ``model``: the strengthened model alone (the colour-bound row), with the proof-by-bound
  search switched off, so the solver must find and prove the optimum itself;
- ``default``: ``nqmip.solve(..., bound_proof=True)``, as ``method="auto"`` runs it: the
  colour search first (a placement that reaches the bound is a proof, the solver is not
  run), else the strengthened model.

Each run has a 60 s limit and the given thread count. A configuration is repeated 3 times
(median reported) when its first run took under ``--repeat-below`` seconds; slower ones run
once. After ``--give-up`` consecutive sizes without a proof a configuration is skipped for
the larger n of that sweep (marked "skip"). Results are written after every n, and a rerun
resumes after the last finished n (``--restart`` starts over). Every stored placement is
re-checked with the independent checker before it is written, and every proven size gets
a certificate (nqmip/colour/certificate.py) re-checked at once by the independent routes of
tools/check_frontier.py.

Beyond n = 64 only the default command is timed (``--auto``: ``method="auto"``, as
``scripts/solve_weighted.py --n N`` runs it), three seeds (``--all-seeds``: also where
the first does not prove):

    nohup python tools/frontier.py > frontier.log 2>&1 &
    python tools/frontier.py --certificates          # certificates only, no solves
    python tools/frontier.py --auto --backends "" --give-up 1000 \
        --all-seeds --n-list 65,68,71                  # the default command, n > 64
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import nqmip  # noqa: E402
from nqmip.backends.gurobi import SIZE_LIMITED_MAX_N as GUROBI_MAX_N  # noqa: E402
from nqmip.colour import search as colour_search  # noqa: E402
from nqmip.formulation import colour_bound as strengthen  # noqa: E402
from nqmip.formulation.colour_bound import black_count  # noqa: E402

DATA = ROOT / "docs" / "data" / "frontier.json"
DOC = ROOT / "docs" / "frontier.md"
CONFIGS = ("plain", "model", "default")


def run_once(n: int, backend: str, config: str, limit: float, threads: int,
             seed: int) -> dict[str, Any]:
    strengthen.black_queen_bound.cache_clear()  # each run pays for its own bound
    strengthen.black_queen_range.cache_clear()
    colour_search.clear_caches()
    t = time.perf_counter()
    if backend == "auto":  # what `python scripts/solve_weighted.py --n N` runs
        r = nqmip.solve(n, "chess", method="auto", time_limit=limit, threads=threads,
                        seed=seed)
    else:
        r = nqmip.solve(n, "chess", method=backend, time_limit=limit, threads=threads,
                        seed=seed, strengthen=config != "plain",
                        bound_proof=config == "default")
    wall = time.perf_counter() - t
    return {
        "status": str(r.status),
        "objective": r.objective,
        "bound": r.bound,
        "time": round(wall, 3),
        "placement": list(r.placement) if r.placement is not None else None,
        "proof": r.provenance.proof or ("solver" if str(r.status) == "optimal" else None),
        "refuted": list(r.provenance.refuted_black_counts) or None,
    }


def measure(n: int, backend: str, config: str, args: argparse.Namespace) -> dict[str, Any]:
    runs = [run_once(n, backend, config, args.limit, args.threads, 0)]
    if args.all_seeds or (runs[0]["status"] in ("optimal", "infeasible")
                          and runs[0]["time"] < args.repeat_below):
        runs += [run_once(n, backend, config, args.limit, args.threads, s) for s in (1, 2)]
    proven = [r for r in runs if r["status"] in ("optimal", "infeasible")]
    best = max((r for r in runs if r["objective"] is not None), key=lambda r: r["objective"],
               default=None)
    return {
        "runs": len(runs),
        "proven": len(proven) == len(runs),
        "proven_runs": len(proven),
        "median_time": round(statistics.median(r["time"] for r in runs), 3),
        "times": [r["time"] for r in runs],
        "objective": best["objective"] if best else None,
        "bound": min((r["bound"] for r in runs if r["bound"] is not None), default=None),
        "placement": best["placement"] if best else None,
        "proof": proven[0]["proof"] if proven else None,
        "refuted": proven[0].get("refuted") if proven else None,
        "status": runs[0]["status"],
    }


def summarise(n: int, cells: dict[str, dict[str, Any]]) -> dict[str, Any]:
    proven = [c for c in cells.values() if c and (c.get("proven") or c.get("proven_runs"))]
    found = [c for c in cells.values() if c and c.get("placement") is not None]
    best = max(found, key=lambda c: c["objective"], default=None)
    entry: dict[str, Any] = {"n": n, "cells": cells,
                             "black_bound": strengthen.black_queen_bound(n)}
    if best is None:
        entry.update(status="infeasible" if n in (2, 3) else "open", value=None)
        return entry
    placement = best["placement"]
    inst = nqmip.make_instance(n, "chess")
    if not nqmip.is_solution(placement) or inst.objective(placement) != best["objective"]:
        raise RuntimeError(f"n={n}: a stored placement does not check out")
    refuted = sorted({b for c in cells.values() if c and c.get("refuted")
                      for b in c["refuted"]})
    entry["refuted"] = refuted
    value = best["objective"]
    status = "optimal" if proven and max(c["objective"] for c in proven) == value else "open"
    bounds = [c["bound"] for c in cells.values() if c and c.get("bound") is not None]
    entry.update(status=status, value=value, black=black_count(placement),
                 white=n - black_count(placement), placement=placement,
                 best_bound=min(bounds) if bounds else None)
    return entry


def add_certificate(entry: dict[str, Any]) -> None:
    """Build the certificate of a proven entry (nqmip/colour/certificate.py) and re-check
    it at once by the independent routes of tools/check_frontier.py."""
    from check_frontier import CheckFailed, check_entry

    from nqmip.colour.certificate import certificate

    if entry.get("status") != "optimal" or entry.get("placement") is None:
        entry.pop("certificate", None)
        entry["check"] = None
        return
    cert = certificate(entry["n"], entry["placement"], entry.get("refuted"))
    entry["certificate"] = json.loads(json.dumps(cert))
    try:
        line = check_entry(entry["n"], entry["value"], entry["certificate"])
        entry["check"] = "proven" + (" (CP-SAT only for some covers)" if "CP-SAT only" in line
                                     else "")
    except CheckFailed as exc:
        entry["check"] = f"FAILED: {exc}"
    print(entry["n"], "certificate:", entry["check"], flush=True)


def median_proven(cell: dict[str, Any]) -> bool:
    """Whether most of the cell's seeds proved the optimum (its median time is a proof's)."""
    return bool(cell["proven"]) or 2 * int(cell.get("proven_runs") or 0) > int(cell["runs"])


def fmt(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return "skip"
    if cell["proven"] and cell["status"] == "infeasible":
        return f"{cell['median_time']:.2f} (inf.)"
    if median_proven(cell) and not cell["proven"]:
        # most seeds proved: the median is a proof's time (the others ran to the limit)
        return (f"{cell['median_time']:.2f}ᵇ (proven by {cell['proven_runs']} of "
                f"{cell['runs']} seeds)")
    if not cell["proven"]:
        obj = "-" if cell["objective"] is None else f"{cell['objective']:g}"
        bound = "-" if cell["bound"] is None else f"{cell['bound']:.0f}"
        some = (f", proven by {cell['proven_runs']} of {cell['runs']} seeds"
                if cell.get("proven_runs") else "")
        return f"> 60 ({obj}/{bound}{some})"
    mark = "" if cell["runs"] == 3 else "¹"
    proof = "ᵇ" if cell["proof"] == "colour_bound" else ""
    proof += "ʳ" if cell.get("refuted") else ""
    return f"{cell['median_time']:.2f}{mark}{proof}"


def bound_cell(e: dict[str, Any]) -> str:
    """The line-model bound B on black queens, with the counts the line sets refuted."""
    b = e.get("black_bound")
    if b is None:
        return "-"
    refuted = e.get("refuted") or []
    return f"{b}" + "".join(" (refuted)" if r == b else f", {r} refuted" for r in refuted)


def ratio(plain: dict[str, Any] | None, cell: dict[str, Any] | None, limit: float) -> str:
    if plain is None or cell is None or not cell["proven"]:
        return "-"
    t = max(cell["median_time"], 0.01)
    if plain["proven"]:
        return f"{t / max(plain['median_time'], 0.01):.2f}"
    return f"< {t / limit:.2f}"


#: Sizes of the first table (every backend and configuration); beyond, only the default
#: command (``method="auto"``) is timed.
SMALL_MAX_N = 64


def large_table(data: dict[str, Any]) -> list[str]:
    """The table of n > SMALL_MAX_N: the default command only, and the summary line."""
    keys = [k for k in sorted(data["results"], key=int) if int(k) > SMALL_MAX_N]
    out = ["", f"## n = {SMALL_MAX_N + 1} … 128: the default command", "",
           "`python scripts/solve_weighted.py --n N --time-limit 60 --seed S` (that is",
           "`nqmip.solve(n, 'chess', method='auto', time_limit=60, seed=S)`), S = 0, 1, 2",
           "(seed 0 only where marked ¹). Time: median seconds of",
           "the seeds (each in brackets); `> 60 (value/bound)`: not proven in 60 s, with the",
           "best value found and the bound. `black bound`: B and the refuted counts;",
           "`certificate`: the verdict of tools/check_frontier.py. Measured on a shared",
           "2-core machine (one solve at a time) with",
           "`python tools/frontier.py --auto --backends \"\" --give-up 1000 "
           "--all-seeds --n-list …`.",
           "",
           "What closes these sizes: the colour proof searches *half-turn-symmetric*",
           "placements first (line sets with s and 2n-2-s, d and -d used together, and an",
           "exact cover of square pairs, half the size: `nqmip.colour.search.search_symmetric`);",
           "for odd n these alternate with the *corner construction*: a symmetric placement of",
           "n - 1 queens never uses its main diagonal, so a queen on the corner (n-1, n-1)",
           "completes it with one black queen more (`nqmip.colour.search.corner_possible`:",
           "not tried where the line model with that queen fixed is infeasible); for n and",
           "the count both 1 mod 4 the quarter-turn-symmetric placements join them (orbits of",
           "four queens of one colour around the centre queen). Then come the plain line",
           "sets; where the bound is not reached and its line sets can be",
           "enumerated, each cover is refuted by HiGHS or, failing that, CP-SAT with its LP",
           "at full strength (n = 85: four line sets at B = 67, 0.7 s each). With a limit",
           "of 10 s or more the other core first runs the same search from another seed",
           "(half its time to the symmetric line sets, half to the plain ones), for 85 % of",
           "the budget, at the bound the proof has reached",
           "(`nqmip.colour.proof.search_at_bound`), then the annealing.", "",
           "| n | value | black | black bound | status | auto time (s) | seeds | certificate |",
           "|---|---|---|---|---|---|---|---|"]
    for key in keys:
        e = data["results"][key]
        cell = e["cells"].get("auto/default")
        seeds = "-" if cell is None else " / ".join(f"{t:.1f}" for t in cell["times"])
        out.append("| " + " | ".join([
            key, "-" if e.get("value") is None else f"{e['value']:g}",
            str(e.get("black", "-")), bound_cell(e), e["status"], fmt(cell), seeds,
            e.get("check") or "-"]) + " |")
    misses = [data["results"][k] for k in keys if data["results"][k]["status"] != "optimal"]
    if misses:
        out += ["", "**Not proven within 60 s** (best value found / proven bound; the placement",
                "is in docs/data/frontier.json). Tried in each: the symmetric line sets (none",
                "exists at B where the symmetric line model is infeasible), the plain line",
                "sets and the colour walk at B, the refutation of B (its line sets could not",
                "all be enumerated within 3 s), then the lower counts, then B again from a",
                "third seed; on the other core the same search at B from another seed (half",
                "of it on the plain line sets) for 85 % of the time, then the annealing.",
                "What else was tried, on the bound's side and the search's: [the sizes still",
                "open](benchmarks-bound-search.md#the-sizes-still-open-what-else-was-tried).", ""]
        for e in misses:
            cell = e["cells"].get("auto/default") or {}
            value = "-" if e.get("value") is None else f"{e['value']:g}"
            bound = "-" if cell.get("bound") is None else f"{cell['bound']:g}"
            out.append(f"- n = {e['n']}: {value} (black {e.get('black', '-')}) / {bound} "
                       f"(B = {e.get('black_bound')})")
    few = [(k, data["results"][k]["cells"]["auto/default"]) for k in keys
           if data["results"][k]["status"] == "optimal"
           and "auto/default" in data["results"][k]["cells"]
           and not median_proven(data["results"][k]["cells"]["auto/default"])]
    if few:
        limit = float(data.get("limit") or 60)
        out += ["", "**Optimum known, but proven within 60 s by fewer than half of the seeds**",
                "(so not within 60 s as a median):", ""]
        out += [f"- n = {k}: proven by {c['proven_runs']} of {c['runs']} seeds ("
                + " / ".join(f"{t:.1f}" if t < limit else f"> {limit:g}" for t in c["times"])
                + " s)"
                for k, c in few]
    times = []
    for key in sorted(data["results"], key=int):
        e = data["results"][key]
        cell = (e["cells"].get("auto/default") or e["cells"].get("highs/default")
                if e["status"] == "optimal" else None)
        if cell and median_proven(cell):
            times.append((cell["median_time"], int(key)))
    if times:
        slow = max(times)
        out += ["", f"Default command over the {len(times)} sizes proven by most seeds "
                "(median time of the seeds within the limit): median "
                f"{statistics.median(t for t, _ in times):.2f} s, slowest n = {slow[1]} "
                f"({slow[0]:.2f} s) (n <= {SMALL_MAX_N}: the HiGHS `default` cell, the same "
                "colour proof)."]
    return out


def write_doc(data: dict[str, Any]) -> None:
    command = data.get("command", "python tools/frontier.py")
    provenance = data.get("provenance", f"`{command}` (one run).")
    backends = data["backends"]
    head = ["n", "optimum", "black", "white", "black bound", "status", "certificate"]
    for b in backends:
        head += [f"{b} {c}" for c in CONFIGS]
    lines = [
        "# The exact frontier: chess-weighted optima for n = 1 … 128",
        "",
        "Generated by `python tools/frontier.py` (do not edit by hand). Chess weights:",
        "black squares ((i + j) even, 0-based) worth 2, white worth 1; the optimum is",
        "n + (number of black queens). Placements (0-based column per row) are in",
        "`docs/data/frontier.json`; re-check them with `nqmip.is_solution` (script below).",
        "Other values per colour (white worth more, zero, negative) are measured in",
        "[the colour proof for other weightings](colour-weights.md).",
        "",
        f"Machine: {data['machine']}; solvers: {data['solvers']}; threads per run: "
        f"{data['threads']}; limit {data['limit']:g} s per run.",
        "**Timings were taken on a shared 2-core machine while other jobs ran: they are",
        "noisy (2x swings seen), so read them as orders of magnitude, not ratios to 10 %.**",
        "",
        "Columns per backend: `plain` = textbook model (`strengthen=False`); `model` = the",
        "strengthened model solved by the backend alone; `default` = as `method=\"auto\"`",
        "runs it (`bound_proof=True`): the colour proof of `nqmip.colour.proof` first (a",
        "placement with as many black queens as the black bound is optimal; a bound the",
        "line sets refute drops by 2), then the strengthened model with the time left.",
        "`black bound` = the line-model bound B on the black count",
        "(`nqmip.formulation.colour_bound.black_queen_bound`), and the counts refuted on the",
        "way. Times are",
        "seconds, median of 3 runs; ¹ = one run (the first took longer than the repeat",
        "threshold); ᵇ = proven by the colour bound (no solver run); ʳ = after refuting B;",
        "`> 60 (value/bound)` = not proven in 60 s; `skip` = not run (that configuration",
        f"had failed on {data['give_up']} consecutive smaller n, or Gurobi's size-limited",
        f"licence, n > {GUROBI_MAX_N}). Status `optimal` = some run proved the value (any "
        "backend).",
        f"How this table was produced: {provenance}",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for key in sorted(data["results"], key=int):
        e = data["results"][key]
        row = [str(e["n"]),
               "-" if e.get("value") is None else f"{e['value']:g}",
               str(e.get("black", "-")), str(e.get("white", "-")), bound_cell(e), e["status"],
               e.get("check") or "-"]
        if int(key) > SMALL_MAX_N:
            continue
        for b in backends:
            row += [fmt(e["cells"].get(f"{b}/{c}")) for c in CONFIGS]
        lines.append("| " + " | ".join(row) + " |")
    lines += large_table(data)
    lines += ["", "## Ratios to the plain model (time to proof, medians)", "",
              "Per backend, `model/plain` and `default/plain` where the plain model proved the",
              "size; `< x` where only the strengthened run proved it (plain hit 60 s), so the",
              "true ratio is below x.", "",
              "| n | " + " | ".join(f"{b} model/plain | {b} default/plain" for b in backends)
              + " |", "|---|" + "---|---|" * len(backends)]
    for key in sorted(data["results"], key=int):
        e = data["results"][key]
        if int(key) > SMALL_MAX_N:
            continue
        row = [key]
        for b in backends:
            plain = e["cells"].get(f"{b}/plain")
            for c in ("model", "default"):
                cell = e["cells"].get(f"{b}/{c}")
                row.append(ratio(plain, cell, data["limit"]))
        lines.append("| " + " | ".join(row) + " |")
    proven = sorted(int(k) for k, e in data["results"].items() if e["status"] == "optimal")
    open_ = sorted(int(k) for k, e in data["results"].items() if e["status"] == "open")
    lines += [
        "",
        f"Proven: {len(proven)} sizes; open: {open_ or 'none'}.",
        "",
        "## Certificates",
        "",
        "Every proven size has a certificate in `docs/data/frontier.json` (key",
        "`certificate`, built by `nqmip.colour.certificate`): the placement; the bound B with",
        "the multipliers of the line model's LP relaxation (weak duality: any multipliers give",
        "a bound, rounded down to the parity of n) and, where the line IP is tighter than its",
        "LP (n = 8, 9, 18, 28, 33, 66, 104), the counts between that the IP excludes; and per",
        "refuted count every line set at that count with the reason none realises",
        "(`cover_mip`: HiGHS, `cover_cpsat`: CP-SAT, `cover_search`: exhausted search).",
        "`python tools/check_frontier.py` re-checks each by another route, one line per",
        "n: the multipliers in exact fractions (no solver), CP-SAT for the IP-only counts and",
        "the covers HiGHS refuted, HiGHS for the completeness of CP-SAT's list of line sets",
        "(a no-good cut per listed set leaves the line model infeasible) and for the covers",
        "CP-SAT refuted, and `nqmip.verify` for the placement. The `certificate` column is its",
        "verdict; CI runs it for n <= 48.",
        "",
        "Re-verify every stored placement:",
        "",
        "```python",
        "import json, nqmip",
        "data = json.load(open('docs/data/frontier.json'))",
        "for e in data['results'].values():",
        "    if e.get('placement'):",
        "        inst = nqmip.make_instance(e['n'], 'chess')",
        "        assert nqmip.is_solution(e['placement'])",
        "        assert inst.objective(e['placement']) == e['value']",
        "```",
        "",
        "Re-measure a slice and compare its statuses and values with this table (times are",
        "printed beside the stored ones, not compared):",
        "`python tools/frontier.py --check --n-min 1 --n-max 16`.",
        "",
    ]
    DOC.write_text("\n".join(lines))


def check(data: dict[str, Any], backends: list[str], args: argparse.Namespace) -> int:
    """Re-measure the stored cells of n = n_min..n_max that proved (one run each) and compare
    what does not depend on the machine: each cell's status and value (a difference fails);
    the kind of proof and the times are printed side by side."""
    args.repeat_below = 0.0  # one run per cell
    differences = relabelled = 0
    for n in range(args.n_min, args.n_max + 1):
        stored = data["results"][str(n)]
        for b in backends:
            for c in args.configs.split(","):
                old = stored["cells"].get(f"{b}/{c}")
                if old is None or not old["proven"]:
                    continue  # not run, or a time-limited cell: nothing stable to compare
                new = measure(n, b, c, args)
                same = all(new[k] == old[k] for k in ("proven", "status", "objective"))
                differences += not same
                relabelled += same and new["proof"] != old["proof"]
                print(f"n={n:3d} {b}/{c:7s} {new['status']} {new['objective']} (stored "
                      f"{old['status']} {old['objective']}) proof {new['proof']} (stored "
                      f"{old['proof']}) time {new['median_time']:.2f} s (stored "
                      f"{old['median_time']:.2f} s)" + ("" if same else "  DIFFERENT"),
                      flush=True)
    print(f"{differences} cell(s) differ from docs/data/frontier.json in status or value; "
          f"{relabelled} other(s) name their proof differently")
    return 1 if differences else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n-max", type=int, default=64)
    ap.add_argument("--n-min", type=int, default=1)
    ap.add_argument("--limit", type=float, default=60.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat-below", type=float, default=20.0)
    ap.add_argument("--all-seeds", action="store_true",
                    help="run seeds 1 and 2 whatever seed 0 did (a size seed 0 misses may "
                         "still be proven by the others)")
    ap.add_argument("--give-up", type=int, default=3)
    ap.add_argument("--backends", default="highs,cpsat,gurobi")
    ap.add_argument("--configs", default=",".join(CONFIGS),
                    help="which of plain, model, default to run (others are left unmeasured)")
    ap.add_argument("--restart", action="store_true")
    ap.add_argument("--auto", action="store_true",
                    help="also time method='auto' (the default of scripts/solve_weighted.py)")
    ap.add_argument("--merge", action="store_true",
                    help="revisit finished n and measure only the cells not measured yet")
    ap.add_argument("--doc-only", action="store_true", help="rewrite the doc from the JSON")
    ap.add_argument("--check", action="store_true",
                    help="re-measure --n-min..--n-max and compare statuses and values with "
                         "the stored table, writing nothing (exit 1 on a difference)")
    ap.add_argument("--n-list", default=None,
                    help="comma-separated sizes to measure instead of n-min..n-max")
    ap.add_argument("--certificates", action="store_true",
                    help="build and check the certificates of the proven sizes only (no solves)")
    args = ap.parse_args()
    if args.doc_only:
        write_doc(json.loads(DATA.read_text()))
        return
    if args.certificates:
        data = json.loads(DATA.read_text())
        for key in sorted(data["results"], key=int):
            if args.n_min <= int(key) <= args.n_max:
                add_certificate(data["results"][key])
                DATA.write_text(json.dumps(data, indent=1))
        write_doc(data)
        return
    backends = [b for b in args.backends.split(",")
                if b and nqmip.backends.base.get_backend(b).available()]
    if args.check:
        sys.exit(check(json.loads(DATA.read_text()), backends, args))
    data: dict[str, Any] = {}
    if DATA.exists() and not args.restart:
        data = json.loads(DATA.read_text())
    if not data:
        from nqmip.backends.base import get_backend

        data = {
            "machine": f"{platform.machine()}, {platform.python_version()}",
            "solvers": ", ".join(get_backend(b).solver_label() for b in backends),
            "threads": args.threads, "limit": args.limit, "give_up": args.give_up,
            "backends": backends, "results": {}, "failures": {},
            "command": "python tools/frontier.py " + " ".join(sys.argv[1:]),
        }
    DATA.parent.mkdir(parents=True, exist_ok=True)
    failures: dict[str, int] = data.setdefault("failures", {})
    sizes = ([int(x) for x in args.n_list.split(",")] if args.n_list
             else range(args.n_min, args.n_max + 1))
    for n in sizes:
        if str(n) in data["results"] and not args.merge:
            continue
        cells: dict[str, Any] = dict(data["results"].get(str(n), {}).get("cells", {}))
        for b in backends + (["auto"] if args.auto else []):
            for c in (["default"] if b == "auto" else args.configs.split(",")):
                key = f"{b}/{c}"
                if cells.get(key) is not None:
                    continue  # measured in an earlier (resumed) sweep
                if (b == "gurobi" and n > GUROBI_MAX_N) or failures.get(key, 0) >= args.give_up:
                    cells[key] = None
                    continue
                cell = measure(n, b, c, args)
                cells[key] = cell
                failures[key] = 0 if cell["proven"] else failures.get(key, 0) + 1
                print(n, key, fmt(cell), cell["objective"], flush=True)
        data["results"][str(n)] = entry = summarise(n, cells)
        add_certificate(entry)
        DATA.write_text(json.dumps(data, indent=1))
        write_doc(data)


if __name__ == "__main__":
    main()
