"""Probes of the chess sizes the frontier leaves open: what else might close them.

    python research/open_sizes.py hall --n-list 82,83,84,93,94
    python research/open_sizes.py relaxed --n-list 19,35,47,83,84 --time-limit 120
    python research/open_sizes.py corner --n-list 75,83,84,93,94,102,103
    python research/open_sizes.py corner-search --n-list 83,121 --time-limit 120
    python research/open_sizes.py cover-lp --n-list 83,84,93 --sets 10 --cover-seconds 5
    python research/open_sizes.py realise --n-list 75,82 --sets 40 --cover-seconds 10
    python research/open_sizes.py count --n-list 83,84 --time-limit 90

At each open size n the colour proof ends 2 black queens below the line model's bound B
(docs/frontier.md): either no placement has B black queens and the bound must be
tightened, or one exists and the search misses it. Each probe prints one line per n:

- ``hall``: the line IP (HiGHS, run to optimality) with and without the matching rows of
  the used lines. A queen pairs its anti-diagonal s with a diagonal d of the same parity
  and |d| <= min(s, 2n-2-s), so the used lines must admit a perfect matching; as the
  allowed diagonals are nested, Hall's condition is one row per parity and threshold t:
  #used s of that parity with min(s, 2n-2-s) <= t <= #used d of that parity with |d| <= t.
- ``relaxed``: the line IP joined to the board: a continuous x per square whose row and
  column sums are 1 and whose line sums are the 0/1 line indicators (every identity of
  the line model is then a linear function of x). Its bound on #black.
- ``corner``: whether the line model at B with a queen on the corner (n-1, n-1) has a
  solution (the extension of an (n-1)-placement that avoids its main diagonal).
- ``corner-search``: the plain line-set search at B with that corner queen fixed, for
  ``--time-limit`` seconds (seed 0).
- ``cover-lp``: line sets sampled at B, and whether the LP relaxation of each one's exact
  cover is feasible (an infeasible one would refute the set at once, a Benders-style cut),
  and for those that are, whether the cover MIP (HiGHS) settles them within
  ``--cover-seconds``.
- ``realise``: line sets sampled at B, and how many of them the restarted exact-cover
  search covers within ``--cover-seconds``.
- ``count``: how many line sets at B CP-SAT enumerates within ``--time-limit``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _line_ip(n: int, *, rows: str, time_limit: float) -> tuple[str, float, float, float]:
    """(status, objective, dual bound, seconds) of the line IP maximising #black, with
    ``rows`` = "" (as nqmip.formulation.colour_bound), "hall" or "board" added."""
    import highspy

    from nqmip.formulation.line_model import line_model, to_highs

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", float(time_limit))
    to_highs(line_model(n), h, highspy, maximise=True)
    m = 2 * n - 1

    def add(idx: list[int] | np.ndarray, val: list[float] | np.ndarray, lo: float,
            hi: float) -> None:
        cols = np.asarray(idx, dtype=np.int32)
        h.addRow(lo, hi, len(cols), cols, np.asarray(val, dtype=float))

    s = np.arange(m)
    d = np.arange(-(n - 1), n)
    if rows == "hall":
        reach = np.minimum(s, 2 * n - 2 - s)
        for p in (0, 1):
            for t in range(p, n, 2):
                us = s[(s % 2 == p) & (reach <= t)]
                vs = m + np.flatnonzero((d % 2 == p) & (np.abs(d) <= t))
                add(np.r_[us, vs], np.r_[np.ones(len(us)), -np.ones(len(vs))],
                    -highspy.kHighsInf, 0.0)
    elif rows == "board":
        base = h.getNumCol()
        h.addVars(n * n, np.zeros(n * n), np.ones(n * n))
        i, j = np.divmod(np.arange(n * n), n)
        for r in range(n):
            add(base + np.flatnonzero(i == r), np.ones(n), 1.0, 1.0)
            add(base + np.flatnonzero(j == r), np.ones(n), 1.0, 1.0)
        for k in range(m):
            on_s = base + np.flatnonzero(i + j == k)
            add(np.r_[on_s, k], np.r_[np.ones(len(on_s)), -1.0], 0.0, 0.0)
            on_d = base + np.flatnonzero(i - j == k - (n - 1))
            add(np.r_[on_d, m + k], np.r_[np.ones(len(on_d)), -1.0], 0.0, 0.0)
    begin = time.perf_counter()
    h.run()
    info = h.getInfo()
    return (h.modelStatusToString(h.getModelStatus()), float(info.objective_function_value),
            float(info.mip_dual_bound), time.perf_counter() - begin)


def _bound(n: int) -> int:
    from nqmip.formulation.colour_bound import black_queen_bound

    b = black_queen_bound(n, time_limit=60.0)
    if b is None:
        raise SystemExit(f"n = {n}: the line model has no solution (no placement exists)")
    return b


def probe_hall(n: int, a: argparse.Namespace) -> str:
    plain = _line_ip(n, rows="", time_limit=a.time_limit)
    hall = _line_ip(n, rows="hall", time_limit=a.time_limit)
    return (f"line IP {plain[0]}, bound {plain[2]:.2f} ({plain[3]:.1f} s); with the matching "
            f"rows {hall[0]}, bound {hall[2]:.2f} ({hall[3]:.1f} s)")


def probe_relaxed(n: int, a: argparse.Namespace) -> str:
    status, value, bound, seconds = _line_ip(n, rows="board", time_limit=a.time_limit)
    return (f"B = {_bound(n)}; with the board: {status}, bound {bound:.2f}, best {value:.2f} "
            f"({seconds:.1f} s)")


def probe_corner(n: int, a: argparse.Namespace) -> str:
    from nqmip.colour.lines import Sample, sample_line_set

    b = _bound(n)
    begin = time.perf_counter()
    out = sample_line_set(n, b, ((n - 1, n - 1),), time_limit=a.time_limit)
    verdict = ("no line set (proven)" if out is Sample.NONE_EXIST
               else "not decided" if out is Sample.TIME_LIMIT else "a line set exists")
    return f"B = {b}; corner queen: {verdict} ({time.perf_counter() - begin:.1f} s)"


def probe_corner_search(n: int, a: argparse.Namespace) -> str:
    from nqmip.colour.search import search_line_sets
    from nqmip.formulation.colour_bound import black_count
    from nqmip.instance import make_instance
    from nqmip.verify import is_solution

    b = _bound(n)
    begin = time.perf_counter()
    found = search_line_sets(make_instance(n, "chess", fixed=[(n - 1, n - 1)]), b, seed=0,
                             time_limit=a.time_limit)
    seconds = time.perf_counter() - begin
    if not found:
        return f"B = {b}; with the corner queen: nothing in {seconds:.1f} s"
    if not is_solution(found):
        raise RuntimeError(f"n = {n}: the search returned a placement that attacks")
    return f"B = {b}; with the corner queen: {black_count(found)} black in {seconds:.1f} s"


def _sampled(n: int, a: argparse.Namespace
             ) -> Iterator[tuple[int, tuple[np.ndarray, np.ndarray]]]:
    """Line sets sampled at B (seeds 0 .. --sets - 1): (seed, their cover's cells and
    options)."""
    from nqmip.colour.lines import Sample, realisation_options, sample_line_set

    b = _bound(n)
    for seed in range(a.sets):
        lines = sample_line_set(n, b, seed=seed, time_limit=a.time_limit)
        if not isinstance(lines, Sample):
            yield seed, realisation_options(n, lines)


def probe_cover_lp(n: int, a: argparse.Namespace) -> str:
    import highspy

    from nqmip.colour.exact_cover import item_index
    from nqmip.colour.lines import Cover, _cover_mip

    feasible = sampled = settled = 0
    for _, (cells, opt_items) in _sampled(n, a):
        sampled += 1
        ptr, opts = item_index(opt_items, 4 * n)
        if len(cells) == 0 or np.any(np.diff(ptr) == 0):
            continue
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.addVars(len(cells), np.zeros(len(cells)), np.ones(len(cells)))
        h.addRows(4 * n, np.ones(4 * n), np.ones(4 * n), opts.size, ptr[:-1].copy(), opts,
                  np.ones(opts.size))
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kInfeasible:
            feasible += 1
            outcome, _ = _cover_mip(n, cells, opt_items, time_limit=a.cover_seconds)
            settled += outcome is not Cover.UNKNOWN
    return (f"B = {_bound(n)}; cover LP feasible for {feasible} of {sampled} sampled line "
            f"sets; of these, the cover MIP settled {settled} within {a.cover_seconds:g} s each")


def probe_realise(n: int, a: argparse.Namespace) -> str:
    from nqmip.colour.exact_cover import find_exact_cover
    from nqmip.colour.search import COVER_NODE_LIMIT

    times: list[float] = []
    sampled = 0
    for seed, (_, opt_items) in _sampled(n, a):
        sampled += 1
        begin = time.perf_counter()
        out = find_exact_cover(opt_items, 4 * n, seed=seed, time_limit=a.cover_seconds,
                               node_limit=COVER_NODE_LIMIT)
        if out.options is not None:
            times.append(time.perf_counter() - begin)
    found = ", ".join(f"{t:.2f}" for t in times) or "-"
    return (f"B = {_bound(n)}; covered {len(times)} of {sampled} sampled line sets within "
            f"{a.cover_seconds:g} s (seconds: {found})")


def probe_count(n: int, a: argparse.Namespace) -> str:
    from ortools.sat.python import cp_model

    from nqmip.colour.lines import line_model

    b = _bound(n)
    model, _, _ = line_model(n, b)
    seen = [0]

    class Count(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            seen[0] += 1

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = a.time_limit
    status = solver.Solve(model, Count())
    complete = "all" if status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) else "not finished"
    return f"B = {b}; {seen[0]} line sets in {solver.WallTime():.1f} s ({complete})"


PROBES = {"hall": probe_hall, "relaxed": probe_relaxed, "corner": probe_corner,
          "corner-search": probe_corner_search,
          "cover-lp": probe_cover_lp, "realise": probe_realise, "count": probe_count}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("probe", choices=sorted(PROBES))
    p.add_argument("--n-list", required=True, help="comma-separated board sizes")
    p.add_argument("--time-limit", type=float, default=30.0,
                   help="seconds per solver call (per line set for the samples)")
    p.add_argument("--sets", type=int, default=10, help="line sets sampled (seeds 0..)")
    p.add_argument("--cover-seconds", type=float, default=10.0)
    a = p.parse_args(argv)
    for n in (int(x) for x in a.n_list.split(",")):
        print(f"n = {n}: {PROBES[a.probe](n, a)}", flush=True)


if __name__ == "__main__":
    main()
