"""The published hard completion instances (CSPLib prob079) through auto, CP-SAT and HiGHS.

Gent, Jefferson and Nightingale ("Complexity of n-Queens Completion", JAIR 59, 2017)
published excluded-diagonals instances (1000 generated boards per n = 8 .. 21, every
prefix of each board's list of diagonals an instance) and the result of their fastest
solver (a bit-parallel search, "shiftqueens") on each. Each instance is translated to
n-Queens completion by nqmip's own reduction (:mod:`nqmip.instances.csplib`: a board of
2,000 to 5,500 rows with all but n queens placed), solved, verified, and checked against the
recorded sat/unsat. Per n the sample is the instance slowest for their solver, and sat and
unsat instances drawn (seeded) from the hard band (``M`` from 0.8 n to n diagonals, where
about half are satisfiable); plus the instance the paper names as its hardest (n = 21,
19 diagonals, id 259: about 2600 s for Lingeling, unsat). For n = 22 .. 30, beyond the
archive, instances come from nqmip's generator (:func:`nqmip.instances.csplib.generate_diagonals`)
with ``M = 0.9 n`` and CP-SAT and HiGHS must agree.

The instances are not part of nqmip: they are read at run time from a clone of the
csplib/csplib repository (a work tree or a bare git directory), ``--csplib DIR`` or the
``CSPLIB_DIR`` environment variable; without one the benchmark says so and stops.

    git clone https://github.com/csplib/csplib /tmp/csplib
    python benchmarks/bench_completion.py --csplib /tmp/csplib            # n = 10 .. 21
    python benchmarks/bench_completion.py --csplib /tmp/csplib --generated   # n = 22 .. 30
    python benchmarks/bench_completion.py --sizes      # model size at n ~ 2550, 20 free rows

Rows go to benchmarks/results/completion.jsonl; ``--table`` writes the tables of
docs/completion.md from it.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tarfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nqmip  # noqa: E402
from nqmip.result import Status  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "completion.jsonl"
DOC = ROOT / "docs" / "completion.md"
PROB = "Problems/prob079"
CANDIDATES = ("csplib", "../csplib")
#: The instance the paper names as its hardest: (n, diagonals, id), unsat, ~2600 s.
PAPER_HARDEST = (21, 19, 259)


class Source:
    """Files of Problems/prob079 from a work tree or a bare git directory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.bare = not (path / PROB).is_dir()

    def read(self, name: str) -> bytes:
        if not self.bare:
            return (self.path / PROB / name).read_bytes()
        out = subprocess.run(["git", f"--git-dir={self.path}", "show", f"HEAD:{PROB}/{name}"],
                             capture_output=True, check=False)
        if out.returncode != 0:
            raise FileNotFoundError(f"{PROB}/{name} not in {self.path}")
        return out.stdout


def find_source(given: str | None) -> Source | None:
    for option in ([given] if given else [os.environ.get("CSPLIB_DIR"), *CANDIDATES]):
        if not option or not Path(option).exists():
            continue
        source = Source(Path(option))
        try:
            source.read("data/queens-diag-gen.py")
        except (FileNotFoundError, OSError):
            continue
        return source
    return None


def recorded(source: Source) -> dict[tuple[int, int, int], tuple[bool, float]]:
    """``(n, diagonals, id) -> (satisfiable, seconds)`` of the paper's bit-parallel solver."""
    text = gzip.decompress(source.read("results/run-diags-shiftqueens-processed.txt.gz"))
    out = {}
    pattern = re.compile(rb"^(\d+) (\d+) \d+ (\d+) .*Solutions: (\d+) .*Time: ([\d.eE+-]+)")
    for line in text.splitlines():
        m = pattern.match(line)
        if m:
            out[int(m[1]), int(m[2]), int(m[3])] = (int(m[4]) > 0, float(m[5]))
    return out


def archive(source: Source, n: int) -> dict[int, str]:
    """``id -> .param text`` of ``data/diag-n.tar.gz``."""
    data = source.read(f"data/diag-{n}.tar.gz")
    out = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            m = re.search(r"diag-\d+-\d+-(\d+)\.param$", member.name)
            handle = tar.extractfile(member) if m else None
            if m and handle is not None:
                out[int(m[1])] = handle.read().decode()
    return out


def sample(results: dict, n: int, per_side: int, seed: int) -> list[tuple[int, int, int]]:
    rng = random.Random(seed * 1000 + n)
    mine = {k: v for k, v in results.items() if k[0] == n}
    if not mine:
        return []
    chosen = [max(mine, key=lambda k: mine[k][1])]
    band = [k for k in sorted(mine) if 0.8 * n <= k[1] <= n]
    for sat in (True, False):
        side = [k for k in band if mine[k][0] == sat and k not in chosen]
        chosen += rng.sample(side, min(per_side, len(side)))
    if n == PAPER_HARDEST[0] and PAPER_HARDEST in mine and PAPER_HARDEST not in chosen:
        chosen.append(PAPER_HARDEST)
    return chosen


def solve_one(text: str, m: int, method: str, limit: float) -> dict:
    from nqmip.instances.csplib import excluded_to_completion, parse_diagonals

    begin = time.perf_counter()
    inst = parse_diagonals(text, m)
    size, fixed = excluded_to_completion(inst)
    instance = nqmip.make_instance(size, None, fixed)
    built = time.perf_counter() - begin
    options = {"threads": 1} if method != "auto" else {}
    result = nqmip.solve(instance, method=method, time_limit=limit, seed=0, **options)
    return {"board": size, "free_rows": size - len(fixed), "status": str(result.status),
            "sat": {Status.OPTIMAL: True, Status.FEASIBLE: True,
                    Status.INFEASIBLE: False}.get(result.status),
            "solve_time": result.wall_time, "translate_time": built,
            "total_time": time.perf_counter() - begin}


def already(path: Path) -> set[tuple]:
    if not path.exists():
        return set()
    keys = set()
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if row["kind"] != "sizes":
            keys.add((row["kind"], row["n"], row["m"], row["id"], row["method"]))
    return keys


def run_archived(args: argparse.Namespace, source: Source) -> None:
    results = recorded(source)
    done = already(args.out)
    for n in args.n_list:
        files = archive(source, n)
        for key in sample(results, n, args.per_side, args.seed):
            _, m, ident = key
            sat, their = results[key]
            for method in args.methods:
                if ("archive", n, m, ident, method) in done:
                    continue
                row = {"kind": "archive", "n": n, "m": m, "id": ident, "method": method,
                       "recorded_sat": sat, "recorded_time": their,
                       **solve_one(files[ident], m, method, args.time_limit)}
                row["correct"] = row["sat"] == sat
                print(json.dumps(row), flush=True)
                with args.out.open("a") as fh:
                    fh.write(json.dumps(row) + "\n")


def run_generated(args: argparse.Namespace) -> None:
    from nqmip.instances.csplib import diagonals_text, generate_diagonals

    done = already(args.out)
    for n in args.gen_list:
        for seed in range(args.gen_seeds):
            pairs = generate_diagonals(n, 4, seed)
            m = min(len(pairs), round(0.9 * n))
            text = diagonals_text(n, pairs)
            for method in args.methods:
                if ("generated", n, m, seed, method) in done:
                    continue
                row = {"kind": "generated", "n": n, "m": m, "id": seed, "method": method,
                       **solve_one(text, m, method, args.time_limit)}
                print(json.dumps(row), flush=True)
                with args.out.open("a") as fh:
                    fh.write(json.dumps(row) + "\n")


def sizes(args: argparse.Namespace) -> None:
    """Model size and build + solve time: n = 2550, the explicit solution with 20 rows
    freed (seeded), chess weights; the same script runs on an older checkout (PYTHONPATH)
    for the "before" figures."""
    from nqmip.construct import explicit_solution

    n, free = 2550, 20
    placement = explicit_solution(n)
    assert placement is not None
    rng = random.Random(args.seed)
    freed = set(rng.sample(range(n), free))
    fixed = {r: int(placement[r]) for r in range(n) if r not in freed}
    for method in args.size_methods:
        begin = time.perf_counter()
        instance = nqmip.make_instance(n, "chess", fixed)
        kind = {"highs": "matrix", "cpsat": "cpsat", "highs-pyomo": "pyomo"}[method]
        model = nqmip.build_model(instance, backend=kind)
        build = time.perf_counter() - begin
        if kind == "matrix":
            variables, constraints = model.num_cols, model.num_rows
        elif kind == "cpsat":
            variables = len(model.model.proto.variables)
            constraints = len(model.model.proto.constraints)
        else:
            variables = model.nvariables()
            constraints = model.nconstraints()
        del model
        begin = time.perf_counter()
        result = nqmip.solve(n, "chess", fixed, method=method, time_limit=args.time_limit,
                             warm_start=False)
        row = {"kind": "sizes", "n": n, "free_rows": free, "method": method,
               "variables": variables, "constraints": constraints,
               "build_time": round(build, 3), "status": str(result.status),
               "solve_call_time": round(time.perf_counter() - begin, 3),
               "commit": args.label}
        print(json.dumps(row), flush=True)
        if args.label:
            with args.out.open("a") as fh:
                fh.write(json.dumps(row) + "\n")


def table(path: Path) -> str:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    by = defaultdict(list)
    for row in rows:
        if row["kind"] == "archive":
            by[row["n"], row["method"]].append(row)
    methods = [m for m in ("auto", "cpsat", "highs") if any(k[1] == m for k in by)]
    methods += sorted({m for _, m in by} - set(methods))
    lines = ["| n | board rows | sample (sat/unsat) | "
             + " | ".join(f"{m}: correct, median / max s" for m in methods)
             + " | paper's solver: median / max s |",
             "|" + " --- |" * (4 + len(methods))]
    for n in sorted({k[0] for k in by}):
        first = by[n, methods[0]]
        boards = [r["board"] for r in first]
        sat = sum(r["recorded_sat"] for r in first)
        cells = []
        for method in methods:
            group = by.get((n, method), [])
            if not group:
                cells.append("-")
                continue
            times = [r["total_time"] for r in group]
            cells.append(f"{sum(r['correct'] for r in group)}/{len(group)}, "
                         f"{statistics.median(times):.2f} / {max(times):.2f}")
        theirs = [r["recorded_time"] for r in first]
        lines.append(f"| {n} | {min(boards)}-{max(boards)} "
                     f"| {len(first)} ({sat}/{len(first) - sat}) | {' | '.join(cells)} "
                     f"| {statistics.median(theirs):.3f} / {max(theirs):.3f} |")
    methods = sorted({m for _, m in by})
    lines.append("")
    for method in methods:
        mine = [r for r in rows if r["kind"] == "archive" and r["method"] == method]
        if not mine:
            continue
        wrong = [r for r in mine if not r["correct"]]
        slow = max(mine, key=lambda r: r["total_time"])
        good_n = [n for n in sorted({r["n"] for r in mine})
                  if all(r["correct"] for r in mine if r["n"] <= n)]
        lines.append(
            f"- {method}: {len(mine) - len(wrong)} of {len(mine)} answered correctly within the "
            f"limit; every sampled instance up to n = {max(good_n) if good_n else '-'}; "
            f"slowest: n = {slow['n']}, {slow['m']} diagonals, id {slow['id']} "
            f"({'sat' if slow['recorded_sat'] else 'unsat'}), {slow['total_time']:.2f} s "
            f"(the paper's solver {slow['recorded_time']:.2f} s)"
            + (f"; not answered: {', '.join(str((r['n'], r['m'], r['id'])) for r in wrong)}"
               if wrong else ""))
    gen = defaultdict(list)
    for row in rows:
        if row["kind"] == "generated":
            gen[row["n"], row["method"]].append(row)
    if gen:
        lines += ["", "| n | board | M | instances | method | sat / unsat / unknown "
                  "| median s | max s |", "|" + " --- |" * 8]
        for (n, method), group in sorted(gen.items()):
            times = [r["total_time"] for r in group]
            counts = (sum(r["sat"] is True for r in group), sum(r["sat"] is False for r in group),
                      sum(r["sat"] is None for r in group))
            lines.append(f"| {n} | {group[0]['board']} | {group[0]['m']} | {len(group)} "
                         f"| {method} | {counts[0]} / {counts[1]} / {counts[2]} "
                         f"| {statistics.median(times):.2f} | {max(times):.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--csplib", help="a clone of csplib/csplib (work tree or bare git dir)")
    parser.add_argument("--n-list", type=lambda s: [int(x) for x in s.split(",")],
                        default=list(range(10, 22)))
    parser.add_argument("--per-side", type=int, default=3,
                        help="sat and unsat instances drawn per n (besides the slowest)")
    parser.add_argument("--methods", type=lambda s: s.split(","),
                        default=["auto", "cpsat", "highs"])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--generated", action="store_true", help="n = 22 .. 30, generated")
    parser.add_argument("--gen-list", type=lambda s: [int(x) for x in s.split(",")],
                        default=list(range(22, 31)))
    parser.add_argument("--gen-seeds", type=int, default=4)
    parser.add_argument("--sizes", action="store_true",
                        help="model size and time at n = 2550 with 20 free rows")
    parser.add_argument("--size-methods", type=lambda s: s.split(","),
                        default=["highs", "cpsat", "highs-pyomo"])
    parser.add_argument("--label", default="", help="with --sizes: record rows under this label")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--table", action="store_true", help="print the tables of the results")
    args = parser.parse_args(argv)
    if args.table:
        print(table(args.out))
        return 0
    if args.sizes:
        sizes(args)
        return 0
    if args.generated:
        run_generated(args)
        return 0
    source = find_source(args.csplib)
    if source is None:
        print("bench_completion: no CSPLib clone found (git clone https://github.com/csplib/"
              "csplib, then --csplib DIR or CSPLIB_DIR): the archived instances are not part "
              "of nqmip; skipped.", file=sys.stderr)
        return 0
    run_archived(args, source)
    return 0


if __name__ == "__main__":
    sys.exit(main())
