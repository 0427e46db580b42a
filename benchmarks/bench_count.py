#!/usr/bin/env python
"""Counting every N-Queens solution: nqmip's numba kernels against two C counters.

Two C counters are written to a temporary directory and compiled with ``gcc -O3
-march=native``: a plain one (Somers-style: column and diagonal bit masks, lowest set bit
first, an explicit stack, the first row's mirror symmetry) and a Takaken-style one (each
class of solutions under the 8 symmetries counted once at its smallest member, weighed by
its size; written here from the published method). All count on one core, side by side
(C, C, numba, ... in turn), each timing only its own search (the C programs read
CLOCK_MONOTONIC; numba's compile is done before). Medians of ``--repeats``.

"nqmip" is what ``nqmip.count_solutions(n)`` runs: border constellations (one queen on
each border line, each symmetry orbit once, weighed by its size); "numba, Takaken" is the
class count nqmip uses for ``unique=True``; "numba, C's algorithm" the plain C counter's
own search in numba, like for like. Also, where they finish within ``--cap``
seconds: CP-SAT's enumeration (``nqmip.enumerate_optimal(n, engine="cpsat")``, one run each) and
NuCS (the numba constraint solver, its own queens model; not a dependency of nqmip:
``pip install --target DIR nucs`` and pass ``--nucs-path DIR``, one run each after a
warm-up). Run:

    python benchmarks/bench_count.py --sizes 14 15 16 17 --repeats 3 --no-cpsat
    python benchmarks/bench_count.py --scaling 17 --workers 2     # processes and Dask
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

C_SOURCE = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Completions of rows row0 .. n-1 below the masks of the rows above. */
static uint64_t subtree(int n, int row0, uint64_t cols, uint64_t ld, uint64_t rd) {
    uint64_t fs[64], cs[64], ls[64], rs[64];
    uint64_t full = (n == 64) ? ~0ULL : ((1ULL << n) - 1);
    uint64_t total = 0;
    int row = row0, last = n - 1;
    if (row0 >= n) return 1;
    uint64_t free_ = full & ~(cols | ld | rd);
    for (;;) {
        if (free_) {
            uint64_t bit = free_ & (0 - free_);
            free_ ^= bit;
            if (row == last) { total++; continue; }
            fs[row] = free_; cs[row] = cols; ls[row] = ld; rs[row] = rd;
            cols |= bit; ld = (ld | bit) << 1; rd = (rd | bit) >> 1;
            row++;
            free_ = full & ~(cols | ld | rd);
        } else {
            if (--row < row0) break;
            free_ = fs[row]; cols = cs[row]; ld = ls[row]; rd = rs[row];
        }
    }
    return total;
}

int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t total = 0;
    for (int c = 0; c < n / 2; c++) {
        uint64_t b = 1ULL << c;
        total += 2 * subtree(n, 1, b, b << 1, b >> 1);
    }
    if (n % 2) {
        uint64_t b = 1ULL << (n / 2);
        total += subtree(n, 1, b, b << 1, b >> 1);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%llu %.6f\n", (unsigned long long)total,
           (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
    return 0;
}
"""

TAKAKEN_SOURCE = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Takaken's method: corner searches (row 0's queen in column 0, each solution a class of
   8) and side searches (row 0's queen in column b1 < n-1-b1) whose complete boards are
   compared with their quarter, half and three-quarter turns. board[y] is row y's bit. */
static int n, last;
static uint64_t full, topbit, endbit, sidemask, lastmask, board[64];
static int bound1, bound2;
static uint64_t c8, c4, c2;

static void check(void) {
    int own, you;
    uint64_t bit, ptn;
    if (board[bound2] == 1) {
        for (own = 1, ptn = 2; own <= last; own++, ptn <<= 1) {
            for (bit = 1, you = last; board[you] != ptn && board[own] >= bit; you--) bit <<= 1;
            if (board[own] > bit) return;
            if (board[own] < bit) break;
        }
        if (own > last) { c2++; return; }
    }
    if (board[last] == endbit) {
        for (own = 1, you = last - 1; own <= last; own++, you--) {
            for (bit = 1, ptn = topbit; ptn != board[you] && board[own] >= bit; ptn >>= 1)
                bit <<= 1;
            if (board[own] > bit) return;
            if (board[own] < bit) break;
        }
        if (own > last) { c4++; return; }
    }
    if (board[bound1] == topbit) {
        for (own = 1, ptn = topbit >> 1; own <= last; own++, ptn >>= 1) {
            for (bit = 1, you = 0; board[you] != ptn && board[own] >= bit; you++) bit <<= 1;
            if (board[own] > bit) return;
            if (board[own] < bit) break;
        }
    }
    c8++;
}

static void corner(int y, uint64_t left, uint64_t down, uint64_t right) {
    uint64_t bitmap = full & ~(left | down | right), bit;
    if (y == last) { if (bitmap) c8++; return; }
    if (y < bound1) bitmap &= ~2ULL;
    while (bitmap) {
        bit = bitmap & (0 - bitmap);
        bitmap ^= bit;
        corner(y + 1, (left | bit) << 1, down | bit, (right | bit) >> 1);
    }
}

static void side(int y, uint64_t left, uint64_t down, uint64_t right) {
    uint64_t bitmap = full & ~(left | down | right), bit;
    if (y == last) {
        if (bitmap && !(bitmap & lastmask)) { board[y] = bitmap; check(); }
        return;
    }
    if (y < bound1) bitmap &= ~sidemask;
    else if (y == bound2) {
        if (!(down & sidemask)) return;
        if ((down & sidemask) != sidemask) bitmap &= sidemask;
    }
    while (bitmap) {
        bit = bitmap & (0 - bitmap);
        bitmap ^= bit;
        board[y] = bit;
        side(y + 1, (left | bit) << 1, down | bit, (right | bit) >> 1);
    }
}

int main(int argc, char **argv) {
    struct timespec t0, t1;
    n = atoi(argv[1]);
    last = n - 1;
    full = (1ULL << n) - 1;
    topbit = 1ULL << last;
    sidemask = topbit | 1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    board[0] = 1;
    for (bound1 = 2; bound1 < last; bound1++) {
        uint64_t bit = 1ULL << bound1;
        board[1] = bit;
        corner(2, (2 | bit) << 1, 1 | bit, bit >> 1);
    }
    lastmask = sidemask;
    endbit = topbit >> 1;
    for (bound1 = 1, bound2 = last - 1; bound1 < bound2; bound1++, bound2--) {
        uint64_t bit = 1ULL << bound1;
        board[0] = bit;
        side(1, bit << 1, bit, bit >> 1);
        lastmask |= (lastmask >> 1) | (lastmask << 1);
        lastmask &= full;
        endbit >>= 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%llu %.6f\n", (unsigned long long)(8 * c8 + 4 * c4 + 2 * c2),
           (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
    return 0;
}
"""

NUCS_SCRIPT = r"""
import sys, time
from nucs.examples.queens.queens_problem import QueensProblem
from nucs.solvers.backtrack_solver import BacktrackSolver

def count(n):
    found = [0]
    def one(_):
        found[0] += 1
    BacktrackSolver(QueensProblem(n), log_level="ERROR").solve_all(one)
    return found[0]

count(6)  # compile (or load numba's cache)
n = int(sys.argv[1])
start = time.perf_counter()
value = count(n)
print(value, time.perf_counter() - start)
"""


def build_c(workdir: Path, name: str = "queens", text: str = C_SOURCE) -> Path:
    if shutil.which("gcc") is None:
        raise SystemExit("bench_count: gcc is needed for the C counters (apt-get install gcc)")
    source = workdir / f"{name}.c"
    source.write_text(text)
    binary = workdir / name
    subprocess.run(["gcc", "-O3", "-march=native", "-o", str(binary), str(source)],
                   check=True)
    return binary


def run_c(binary: Path, n: int) -> tuple[int, float]:
    out = subprocess.run([str(binary), str(n)], check=True, capture_output=True, text=True)
    count, seconds = out.stdout.split()
    return int(count), float(seconds)


def run_numba(n: int) -> tuple[int, float]:
    """What ``nqmip.count_solutions(n)`` runs: border constellations."""
    from nqmip.enumeration.constellations import count_all

    start = time.perf_counter()
    value = int(count_all(n))
    return value, time.perf_counter() - start


def run_numba_takaken(n: int) -> tuple[int, float]:
    """Classes under the 8 symmetries (Takaken), as ``unique=True`` runs."""
    from nqmip.enumeration.takaken_kernels import takaken_all

    start = time.perf_counter()
    c8, c4, c2 = takaken_all(n)
    return int(8 * c8 + 4 * c4 + 2 * c2), time.perf_counter() - start


def run_numba_half(n: int) -> tuple[int, float]:
    """The C counter's own algorithm in numba (the first row's mirror symmetry only)."""
    from nqmip.enumeration.count_kernels import count_all

    start = time.perf_counter()
    value = int(count_all(n))
    return value, time.perf_counter() - start


def run_cpsat(n: int, cap: float) -> tuple[int, float] | None:
    from nqmip.enumeration.optimal import EnumerationError, enumerate_optimal

    start = time.perf_counter()
    try:
        _, found = enumerate_optimal(n, engine="cpsat", time_limit=cap)
    except EnumerationError:
        return None
    return len(found), time.perf_counter() - start


def run_nucs(n: int, cap: float, path: str, cache: str) -> tuple[int, float] | str:
    env = {"PYTHONPATH": path, "NUMBA_CACHE_DIR": cache, "PATH": "/usr/bin:/bin"}
    try:
        out = subprocess.run([sys.executable, "-c", NUCS_SCRIPT, str(n)], capture_output=True,
                             text=True, timeout=cap + 60, env=env)
    except subprocess.TimeoutExpired:
        return "timeout"
    if out.returncode != 0:
        lines = out.stderr.strip().splitlines()
        return "failed: " + (lines[-1] if lines else f"exit {out.returncode}")
    count, seconds = out.stdout.split()
    return int(count), float(seconds)


def scaling(n: int, workers: int) -> None:
    """One process, ``workers`` processes, and a local Dask cluster of ``workers`` worker
    processes (one thread each) count ``n``, in turn; efficiency = one process's time /
    (workers x the split count's time)."""
    from nqmip.enumeration.count import A000170, run_count

    rows = [("1 process (one kernel call)", run_count(n))]
    rows.append((f"{workers} processes", run_count(n, workers=workers)))
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        print('Dask: not run (pip install "nqmip[dask]")')
    else:
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            client.run(warm_up_worker)  # each worker loads the kernels before the clock
            rows.append((f"Dask, {workers} worker processes", run_count(n, scheduler=client)))
    single = rows[0][1].wall_time
    print(f"| n = {n} | tasks | wall (s) | rate (solutions/s) | efficiency |")
    print("|---|---|---|---|---|")
    for name, result in rows:
        assert result.count == A000170[n - 1], (name, result.count)
        used = 1 if result.tasks == 1 else workers
        efficiency = single / (used * result.wall_time)
        print(f"| {name} | {result.tasks} | {result.wall_time:.2f} | "
              f"{result.count / result.wall_time:,.0f} | {efficiency:.2f} |", flush=True)


def warm_up_worker() -> float:
    from nqmip.enumeration.count import warm_up

    return warm_up("border")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[12, 13, 14, 15, 16])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cap", type=float, default=60.0,
                        help="seconds: CP-SAT and NuCS are not run past a size that took longer")
    parser.add_argument("--no-cpsat", action="store_true")
    parser.add_argument("--nucs-path", default=None,
                        help="a directory holding the nucs package (pip install --target DIR)")
    parser.add_argument("--json", default=None, help="append one JSON line per size here")
    parser.add_argument("--scaling", type=int, default=None, metavar="N",
                        help="instead: count N in one process, over --workers processes and "
                        "on a local Dask cluster of as many workers")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.scaling is not None:
        scaling(args.scaling, args.workers)
        return 0

    from nqmip.enumeration.count import A000170, warm_up

    compile_time = warm_up()
    print(f"numba compile (or cache load): {compile_time:.2f} s, not in the times below")
    with tempfile.TemporaryDirectory() as tmp:
        binary = build_c(Path(tmp))
        takaken = build_c(Path(tmp), "takaken", TAKAKEN_SOURCE)
        cpsat_on = not args.no_cpsat
        nucs_on = args.nucs_path is not None
        if not nucs_on:
            print("NuCS: not run (pass --nucs-path DIR after pip install --target DIR nucs)")
        header = ("| n | solutions | C plain (s) | Takaken C (s) | nqmip (s) | nqmip / "
                  "Takaken C | numba, Takaken (s) | numba, C's algorithm (s) | CP-SAT enum (s)"
                  " | NuCS (s) |")
        print(header)
        print("|" + "---|" * 10)
        for n in args.sizes:
            c_times: list[float] = []
            tk_times: list[float] = []
            nb_times: list[float] = []
            nbtk_times: list[float] = []
            half_times: list[float] = []
            for _ in range(args.repeats):
                for runner, times in ((lambda m: run_c(binary, m), c_times),
                                      (lambda m: run_c(takaken, m), tk_times),
                                      (run_numba, nb_times), (run_numba_takaken, nbtk_times),
                                      (run_numba_half, half_times)):
                    value, seconds = runner(n)
                    assert value == A000170[n - 1], (n, value)
                    times.append(seconds)
            c_med, nb_med = statistics.median(c_times), statistics.median(nb_times)
            tk_med, nbtk_med = statistics.median(tk_times), statistics.median(nbtk_times)
            half_med = statistics.median(half_times)
            row: dict[str, object] = {"n": n, "solutions": A000170[n - 1], "c": c_times,
                                      "takaken_c": tk_times, "nqmip": nb_times,
                                      "numba_takaken": nbtk_times, "numba_half": half_times,
                                      "ratio_takaken_c": nb_med / tk_med}
            cpsat = "-"
            if cpsat_on:
                got = run_cpsat(n, args.cap)
                if got is None:
                    cpsat, cpsat_on = f"> {args.cap:.0f}", False
                else:
                    assert got[0] == A000170[n - 1]
                    cpsat = f"{got[1]:.2f}"
                    cpsat_on = got[1] < args.cap / 4
                row["cpsat"] = cpsat
            nucs = "-"
            if nucs_on:
                cache = str(Path(tmp) / "nucs-cache")
                result = run_nucs(n, args.cap, args.nucs_path, cache)
                if isinstance(result, str):
                    nucs, nucs_on = result, False
                else:
                    assert result[0] == A000170[n - 1]
                    nucs = f"{result[1]:.2f}"
                    nucs_on = result[1] < args.cap / 4
                row["nucs"] = nucs
            print(f"| {n} | {A000170[n - 1]:,} | {c_med:.3f} | {tk_med:.3f} | {nb_med:.3f} | "
                  f"{nb_med / tk_med:.2f} | {nbtk_med:.3f} | {half_med:.3f} | {cpsat} "
                  f"| {nucs} |", flush=True)
            if args.json:
                with open(args.json, "a") as sink:
                    sink.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
