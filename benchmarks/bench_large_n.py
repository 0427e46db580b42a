"""Benchmark: the large-n solver (method="minconflicts") on 10^4 ... 10^7 (10^8 on request).

Every run is a fresh process (``nqmip.compare.run_in_process``), so its peak resident
memory (``ru_maxrss``) is its own. Per run we report the solver's wall time (numba compile
excluded, reported apart), the O(n) check by ``nqmip.verify.conflicts`` on the returned
int32 array, and — up to ``--e2e-max`` queens — the end-to-end ``nqmip.solve`` call (which
also builds the Result's tuple of n ints and verifies it again). Medians over the runs; the
machine is shared and noisy, so each size is run several times.

    python benchmarks/bench_large_n.py                 # 10^4 .. 10^7, writes the docs table
    python benchmarks/bench_large_n.py --with-1e8      # plus one run of 10^8
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import time
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "heuristics-local.md"
START, END = "<!-- bench_large_n:start -->", "<!-- bench_large_n:end -->"
#: Seconds before a run's process is killed (10^8 queens take minutes).
HARD_LIMIT = 3600.0
PEER = {10**6: "0.17 s", 10**7: "5.3 s", 10**8: "73 s (2.3 GB)"}


def worker(n: int, seed: int, end_to_end: bool) -> dict[str, float | int | str | None]:
    """One run in this process; prints nothing, returns the measurements."""
    import nqmip
    from nqmip.heuristics.common import timed_compile
    from nqmip.heuristics.minconflicts import minconflicts_placement, warm_up
    from nqmip.instance import make_instance

    instance = make_instance(n)
    first_compile = timed_compile(warm_up)  # compile or cache load, before the clocks
    cpu_start = time.process_time()
    perm, stats = minconflicts_placement(instance, seed=seed)
    # CPU seconds of this process (the repeated warm-up is a cache hit of milliseconds):
    # on a shared machine the wall time also counts the time other processes held the
    # cores, the CPU time does not.
    cpu = time.process_time() - cpu_start
    stats["compile_time"] = first_compile
    rss_solver = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    verify_time = None
    pairs = None
    if perm is not None:
        start = time.perf_counter()
        pairs = nqmip.conflicts(perm)
        verify_time = time.perf_counter() - start
    rss_verify = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    e2e = None
    if end_to_end:
        del perm
        start = time.perf_counter()
        result = nqmip.solve(n, method="minconflicts", seed=seed)
        e2e = time.perf_counter() - start - (result.timing.compile or 0.0)
        assert result.conflicts == 0
    return {
        "n": n, "seed": seed, "wall": stats["wall_time"], "cpu": cpu,
        "greedy": stats["greedy_time"],
        "compile": stats["compile_time"], "evaluations": stats["evaluations"],
        "deferred": stats["deferred_rows"], "pairs": pairs, "verify": verify_time,
        "e2e": e2e, "rss_solver_mb": rss_solver, "rss_verify_mb": rss_verify,
        "rss_e2e_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "dtype": stats["counter_dtype"],
    }


def worker_task(spec: dict) -> dict:
    return worker(spec["n"], spec["seed"], spec["e2e"])


def run_one(n: int, seed: int, end_to_end: bool) -> dict:
    """One run in its own process (``nqmip.compare.run_in_process``): its peak RSS is its
    own."""
    from nqmip.compare import run_in_process

    outcome = run_in_process(f"{Path(__file__).resolve()}:worker_task",
                             {"n": n, "seed": seed, "e2e": end_to_end}, hard_limit=HARD_LIMIT)
    if outcome.status != "ok":
        raise RuntimeError(f"n={n} seed={seed}: {outcome.status}: {outcome.message}")
    return dict(outcome.value)


def fmt(x: float | None, unit: str = " s", digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}{unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--with-1e8", action="store_true", help="also one run of 10^8 queens")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--e2e-max", type=int, default=10**7)
    parser.add_argument("--no-doc", action="store_true", help="print only")
    args = parser.parse_args()

    from rich.console import Console
    from rich.table import Table

    sizes = [(10**4, args.runs), (10**5, args.runs), (10**6, args.runs),
             (10**7, max(3, args.runs - 2))]
    if args.with_1e8:
        sizes.append((10**8, 1))
    rows = []
    for n, runs in sizes:
        results = [run_one(n, seed, n <= args.e2e_max) for seed in range(runs)]
        assert all(r["pairs"] == 0 for r in results), "a run did not verify"

        def med(key: str, results: list[dict] = results) -> float | None:
            values = [r[key] for r in results if r[key] is not None]
            return statistics.median(values) if values else None

        rows.append({
            "n": n, "runs": runs, "wall": med("wall"),
            "walls": [r["wall"] for r in results], "greedy": med("greedy"), "cpu": med("cpu"),
            "verify": med("verify"), "e2e": med("e2e"), "compile": max(
                r["compile"] for r in results), "evals_per_queen": med("evaluations") / n,
            "deferred": med("deferred"), "rss_solver": max(r["rss_solver_mb"] for r in results),
            "rss_verify": max(r["rss_verify_mb"] for r in results),
            "rss_e2e": max(r["rss_e2e_mb"] for r in results), "dtype": results[0]["dtype"],
        })
        print(f"n={n}: median {rows[-1]['wall']:.3f} s over {runs}", flush=True)

    header = ["n", "runs", "solver wall (median)", "min–max", "solver CPU", "checks / queen",
              "deferred rows",
              "verify.conflicts", "solve() end-to-end", "peak RSS solver", "peak RSS +verify",
              "C++ QS4 peer"]
    table = Table(title="minconflicts: compile excluded, medians")
    for h in header:
        table.add_column(h, justify="right")
    lines = ["| " + " | ".join(header) + " |", "|" + "---:|" * len(header)]
    for r in rows:
        cells = [f"10^{len(str(r['n'])) - 1}", str(r["runs"]), fmt(r["wall"]),
                 f"{min(r['walls']):.3f}–{max(r['walls']):.3f} s", fmt(r["cpu"]),
                 f"{r['evals_per_queen']:.2f}",
                 f"{r['deferred']:.0f}", fmt(r["verify"]), fmt(r["e2e"]),
                 f"{r['rss_solver']:.0f} MB", f"{r['rss_verify']:.0f} MB",
                 PEER.get(r["n"], "—")]
        table.add_row(*cells)
        lines.append("| " + " | ".join(cells) + " |")
    Console().print(table)
    compile_note = max(r["compile"] for r in rows)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    lines.append("")
    lines.append(f"Compile (or cache load) time, reported apart: at most {compile_note:.2f} s "
                 f"per run. Measured {time.strftime('%Y-%m-%d')} with "
                 f"`python benchmarks/bench_large_n.py{' --with-1e8' if args.with_1e8 else ''}`"
                 " on the shared 2-core machine.")
    lines += ["", '??? note "How this was measured"', "",  # folded: for those who measure
              f"    Load average at the end of the run: {load} (2 cores, shared)."]
    if not args.no_doc:
        write_section(START, END, "\n".join(lines))


def write_section(start: str, end: str, body: str) -> None:
    text = DOC.read_text() if DOC.exists() else ""
    block = f"{start}\n{body}\n{end}"
    if start in text:
        text = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda _: block, text,
                      flags=re.S)
    else:
        text += "\n" + block + "\n"
    DOC.write_text(text)


if __name__ == "__main__":
    main()
