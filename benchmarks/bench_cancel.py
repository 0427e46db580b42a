"""How soon a cancelled deadline stops each search: seconds from ``Deadline.cancel()`` (from
another thread) to the return of ``nqmip.solve``, median of ``--repeats`` runs per case.

    python benchmarks/bench_cancel.py                  # every case, 5 runs each
    python benchmarks/bench_cancel.py --methods quota minconflicts --repeats 3

Each case is still searching when the cancel comes (a weighted run below its bound, or
minconflicts in its greedy phase); numba's cache is loaded before the timings. The last row
is auto on chess n = 40: seconds from the progress report that shows the optimum proven
(the colour proof) to the return, while the annealing ran beside it in a thread.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from typing import Any

import numpy as np

import nqmip
from nqmip.backends.base import Progress
from nqmip.budget import Deadline


def band(n: int) -> np.ndarray:
    """Weights 2 beside the main diagonal, 1 elsewhere: topsquares never solves the top
    level (see tests/test_cancel.py), so it searches until the cancel."""
    rows = np.arange(n)
    return np.where(np.abs(rows[:, None] - rows[None, :]) <= 1, 2.0, 1.0)


#: (method, n, weights, parameters, seconds before the cancel).
CASES: list[tuple[str, int, Any, dict[str, Any], float]] = [
    ("ga", 60, "random", {}, 0.5), ("ga", 2_000, "chess", {}, 1.0),
    ("tabu", 60, "random", {}, 0.5), ("tabu", 10_000, "chess", {}, 1.0),
    ("sa", 200, "chess", {}, 0.5), ("sa", 10_000, "chess", {}, 1.0),
    ("lns", 200, "chess", {}, 0.5),
    ("quota", 2_000, "chess", {}, 0.5), ("quota", 100_000, "chess", {}, 2.0),
    ("topsquares", 400, "band", {"stage_moves": 10**12}, 0.5),
    ("topsquares", 2_000, "band", {"stage_moves": 10**12}, 1.0),
    ("minconflicts", 1_000_000, None, {}, 0.05), ("minconflicts", 2_000_000, None, {}, 0.05),
    ("minconflicts", 10_000_000, None, {}, 0.3),
    ("auto", 300, "chess", {}, 1.0),
]
WARM = {"topsquares": "random", "minconflicts": None}


def cancel_latency(method: str, n: int, weights: Any, params: dict[str, Any],
                   after: float) -> float | None:
    """Seconds from the cancel to the return (None: it had ended before the cancel)."""
    deadline = Deadline(60)
    done: list[Any] = []
    worker = threading.Thread(target=lambda: done.append(nqmip.solve(
        n, weights, method=method, time_limit=deadline, seed=1, **params)), daemon=True)
    worker.start()
    time.sleep(after)
    if not worker.is_alive():
        return None
    sent = time.perf_counter()
    deadline.cancel()
    worker.join(60)
    return time.perf_counter() - sent


def proof_to_return(n: int) -> float:
    proven_at: list[float] = []

    def on_progress(p: Progress) -> None:
        if p.incumbent is not None and p.bound is not None and p.incumbent >= p.bound - 1e-9:
            proven_at.append(time.perf_counter())

    nqmip.solve(n, "chess", time_limit=60, on_progress=on_progress)
    return time.perf_counter() - proven_at[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--methods", nargs="+", default=None)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print("| method | n | weights | cancel after s | latency s (median) | runs (s) |")
    print("|---|---:|---|---:|---:|---|")
    for method, n, weights, params, after in CASES:
        if args.methods and method not in args.methods:
            continue
        nqmip.solve(12, WARM.get(method, "chess"), method=method, time_limit=0.3)
        w = band(n) if weights == "band" else weights
        runs = [cancel_latency(method, n, w, params, after) for _ in range(args.repeats)]
        measured = [r for r in runs if r is not None]
        median = f"{statistics.median(measured):.3f}" if measured else "ended first"
        shown = ", ".join("ended" if r is None else f"{r:.3f}" for r in runs)
        print(f"| {method} | {n} | {weights} | {after:g} | {median} | {shown} |", flush=True)
    if not args.methods or "auto" in args.methods:
        runs = [proof_to_return(40) for _ in range(args.repeats)]
        shown = ", ".join(f"{r:.3f}" for r in runs)
        print(f"| auto: proof to return | 40 | chess | - | {statistics.median(runs):.3f} "
              f"| {shown} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
