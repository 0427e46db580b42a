"""CP-SAT's workers interleaved (nqmip's default: the same seed, the same placement) or in
CP-SAT's parallel portfolio, side by side in one process: seconds to the proof (median of
the runs) and how many distinct optimal placements the runs gave.

    python benchmarks/bench_cpsat_interleave.py --n 12,16,20,24 --seeds 1,2,3 --runs 3

Results: docs/cpsat.md.
"""

from __future__ import annotations

import argparse
import statistics
import time

import nqmip
import nqmip.backends.cpsat as backend


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="12,16,20,24")
    parser.add_argument("--seeds", default="1,2,3", help="weights seeds of random weights")
    parser.add_argument("--threads", default="2,default")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{'n':>3} {'weights':>7} {'threads':>7} | {'parallel s':>10} {'placements':>10} | "
          f"{'interleaved s':>13} {'placements':>10} | ratio")
    for n in (int(x) for x in args.n.split(",")):
        for seed in (int(x) for x in args.seeds.split(",")):
            for threads in args.threads.split(","):
                cells = []
                for interleaved in (False, True):
                    backend.INTERLEAVED = interleaved
                    seconds, answers = [], set()
                    for _ in range(args.runs):
                        begin = time.perf_counter()
                        r = nqmip.solve(n, "random", weights_seed=seed, method="cpsat",
                                        seed=0, time_limit=600,
                                        threads=None if threads == "default" else int(threads))
                        seconds.append(time.perf_counter() - begin)
                        answers.add(r.placement)
                    cells.append((statistics.median(seconds), len(answers)))
                (par, par_k), (inter, inter_k) = cells
                print(f"{n:>3} {seed:>7} {threads:>7} | {par:>10.2f} {par_k:>10} | "
                      f"{inter:>13.2f} {inter_k:>10} | {inter / par:.2f}", flush=True)


if __name__ == "__main__":
    main()
