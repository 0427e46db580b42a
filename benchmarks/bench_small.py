"""First contact on small boards: every method x n = 1..12 x sense x one fixed queen or none
x weights none/chess/random, each call's wall time and whether its answer is right.

    python benchmarks/bench_small.py --out small.jsonl           # the whole sweep, one process
    python benchmarks/bench_small.py --methods highs sa --n 8    # a part of it
    python benchmarks/bench_small.py --report small.jsonl        # the table of docs/small-boards.md

Every call goes through :func:`nqmip.solve` without a time limit, in one process; the first
call of each method (its numba compile or cache load, a solver's import) is marked
``first``, and it and every call whose kernels took ``COMPILE_APART`` seconds or more to
load are reported apart from the timed calls. Each answer is checked against a brute
force over every placement (plain Python): an exact method must answer the optimum, proven
(or infeasible where no placement exists); a heuristic's status must say optimal only at
the optimum, and optimal wherever it reaches it. A line per
call goes to the JSON Lines file as it comes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

WEIGHTS = (None, "chess", "random")
SENSES = ("max", "min")


@cache
def placements(n: int) -> np.ndarray:
    """Every n-queens placement (rows of columns), by backtracking."""
    found: list[tuple[int, ...]] = []
    cols: list[int] = []

    def place(row: int, used: int, diag: int, anti: int) -> None:
        if row == n:
            found.append(tuple(cols))
            return
        for col in range(n):
            if used >> col & 1 or diag >> (row - col + n) & 1 or anti >> (row + col) & 1:
                continue
            cols.append(col)
            place(row + 1, used | 1 << col, diag | 1 << (row - col + n), anti | 1 << (row + col))
            cols.pop()

    place(0, 0, 0, 0)
    return np.array(found, dtype=np.int64).reshape(len(found), n)


def one_fixed(n: int) -> tuple[int, int]:
    """One fixed queen with a completion where a placement exists: row n // 2 of the first
    placement (n = 2, 3: the corner, which has none)."""
    every = placements(n)
    if not len(every):
        return (0, 0)
    return (n // 2, int(every[0][n // 2]))


def brute_force(n: int, weights: str | None, sense: str, fixed: bool) -> float | None:
    """The optimum by looking at every placement (None: there is none)."""
    import nqmip

    every = placements(n)
    if fixed:
        row, col = one_fixed(n)
        every = every[every[:, row] == col]
    if not len(every):
        return None
    if weights is None:
        return float(n)
    instance = nqmip.make_instance(n, weights, weights_seed=n)
    w = instance.weight_matrix()
    values = w[np.arange(n), every].sum(axis=1)
    return float(values.max() if sense == "max" else values.min())


def grid(methods: list[str], sizes: list[int]) -> Iterator[dict[str, Any]]:
    for method in methods:
        for n in sizes:
            for weights in WEIGHTS:
                for sense in SENSES if weights else ("max",):
                    for fixed in (False, True):
                        yield {"method": method, "n": n, "weights": weights, "sense": sense,
                               "fixed": fixed}


def verdict(cell: dict[str, Any], result: Any, optimum: float | None, kind: str) -> str:
    """"ok", or what is wrong with the answer."""
    status = str(result.status.value)
    if optimum is None:
        return "ok" if (status in ("infeasible", "unknown") and kind != "exact") \
            or status == "infeasible" else f"status {status} where no placement exists"
    objective = result.objective
    at_optimum = objective is not None and abs(objective - optimum) <= 1e-6
    if status == "optimal" and not at_optimum:
        return f"optimal {objective} but the optimum is {optimum}"
    if kind != "heuristic" and status != "optimal":
        return f"{kind} method answered {status} ({objective}, optimum {optimum})"
    if kind == "heuristic" and at_optimum and status != "optimal":
        return f"optimum {optimum} reached, status {status}"
    return "ok"


def run(cell: dict[str, Any]) -> dict[str, Any]:
    import nqmip
    from nqmip.methods import METHODS

    kind = METHODS[cell["method"]].kind
    optimum = brute_force(cell["n"], cell["weights"], cell["sense"], cell["fixed"])
    kwargs: dict[str, Any] = {"method": cell["method"]}
    if cell["weights"]:
        kwargs["sense"] = cell["sense"]
    if cell["weights"] == "random":
        kwargs["weights_seed"] = cell["n"]
    if cell["fixed"]:
        kwargs["fixed"] = [one_fixed(cell["n"])]
    begin = time.perf_counter()
    try:
        result = nqmip.solve(cell["n"], cell["weights"], **kwargs)
    except ValueError as error:  # the method refuses these weights (by name)
        return {**cell, "wall": time.perf_counter() - begin, "refused": str(error)[:120]}
    except Exception as error:
        return {**cell, "wall": time.perf_counter() - begin,
                "exception": f"{type(error).__name__}: {error}"[:300]}
    wall = time.perf_counter() - begin
    return {**cell, "wall": wall, "status": str(result.status.value),
            "termination": str(result.termination.value), "objective": result.objective,
            "compile": result.timing.compile, "optimum": optimum,
            "verdict": verdict(cell, result, optimum, kind),
            "plan": list(result.provenance.plan)}


#: A call whose kernels' compile or cache load took this long is reported apart (its
#: method's first run on this kind of weights, or after its source changed).
COMPILE_APART = 0.2


def loads(row: dict[str, Any]) -> bool:
    return bool(row.get("first")) or (row.get("compile") or 0.0) >= COMPILE_APART


def report(path: Path, top: int = 20) -> str:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    timed = [r for r in rows if "refused" not in r and not loads(r)]
    timed.sort(key=lambda r: -r["wall"])
    lines = ["| method | n | weights | sense | fixed | wall (s) | status | verdict |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in timed[:top]:
        lines.append(f"| {r['method']} | {r['n']} | {r['weights']} | {r['sense']} | "
                     f"{'yes' if r['fixed'] else 'no'} | {r['wall']:.2f} | "
                     f"{r.get('status', 'exception')} | {r.get('verdict', r.get('exception'))} |")
    lines += ["", "| method | calls | slowest (s) | total (s) |", "| --- | --- | --- | --- |"]
    for method in dict.fromkeys(r["method"] for r in rows):
        mine = [r["wall"] for r in timed if r["method"] == method]
        if mine:
            lines.append(f"| {method} | {len(mine)} | {max(mine):.2f} | {sum(mine):.1f} |")
    wrong = [r for r in rows if r.get("verdict", "ok") != "ok" or "exception" in r]
    firsts = [r for r in rows if "refused" not in r and loads(r)]
    lines.append("")
    lines.append(f"{len(rows)} calls ({len(timed)} timed, {len(firsts)} first calls or "
                 f"kernel loads of {COMPILE_APART} s or more apart, "
                 f"{sum('refused' in r for r in rows)} refused by name), total "
                 f"{sum(r['wall'] for r in timed):.1f} s; {len(wrong)} wrong answers or "
                 "exceptions.")
    for r in wrong:
        lines.append(f"- {r['method']} n={r['n']} {r['weights']} {r['sense']} "
                     f"fixed={r['fixed']}: {r.get('verdict', r.get('exception'))}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import nqmip

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="*", default=list(nqmip.all_methods()))
    parser.add_argument("--n", nargs="*", type=int, default=list(range(1, 13)))
    parser.add_argument("--out", type=Path, default=Path("small.jsonl"))
    parser.add_argument("--report", type=Path)
    args = parser.parse_args(argv)
    if args.report:
        print(report(args.report))
        return 0
    seen: set[str] = set()
    with args.out.open("w") as out:
        for cell in grid(args.methods, args.n):
            row = run(cell)
            if cell["method"] not in seen and "refused" not in row:
                seen.add(cell["method"])
                row["first"] = True
            out.write(json.dumps(row) + "\n")
            out.flush()
            if row.get("verdict", "ok") != "ok" or "exception" in row or row["wall"] > 1.0:
                print(json.dumps(row), file=sys.stderr, flush=True)
    print(report(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
