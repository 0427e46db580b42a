#!/usr/bin/env python
"""Every command of the README, cold (numba's cache empty) and warm, with its answer.

Each command runs in a fresh interpreter, in a temporary folder of its own (its files,
``board.svg``, ``runs.jsonl``, ``n18.jsonl``, are written there, never into the checkout):
*cold* on an empty ``NUMBA_CACHE_DIR`` (a fresh machine), then *warm* on that same cache
once one earlier run of the command has filled it (the cold run; a run under a time limit
may end before every kernel it uses is compiled, so a warm run that still added files to
the cache is run again, at most three more times, and the last one counts). The answer is
what the command
decides: status and objective of the solve command (read from the JSON that ``--output``
writes beside the run; ``--output`` changes nothing else), the count of ``nqmip-count``,
each board's best objective, the runs that reached it and those that proved it for
``nqmip-compare``. The answers agree when they
are equal, or, for a command under a time limit whose warm run proves nothing, when the cold
objective is within 2 % of the warm one. Wall seconds, CPU seconds (user + system, child
processes included); the load average (1 min) before each run on stderr; a Markdown table
(the one in docs/compile.md)::

    python benchmarks/bench_readme_first_run.py                   # every command
    python benchmarks/bench_readme_first_run.py --only "--n 40"   # the commands naming it
    python benchmarks/bench_readme_first_run.py --skip-long       # not compare, not n = 18
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench_first_run import timed

ROOT = Path(__file__).resolve().parents[1]
SOLVE = str(ROOT / "scripts" / "solve_weighted.py")
COUNT = str(ROOT / "scripts" / "count_solutions.py")
COMPARE = str(ROOT / "scripts" / "compare.py")
WEIGHTS6 = str(ROOT / "docs" / "examples" / "weights6.csv")
#: The tolerance of a command under a time limit whose warm run proves nothing.
TOLERANCE = 0.02


@dataclass
class Command:
    """One README command: as the README writes it, and as it is run here."""

    shown: str
    argv: list[str]
    kind: str  # "solve", "warm-up", "count", "list", "compare"
    limited: bool = False  # under a time limit: 2 % where the warm run proves nothing
    long: bool = False  # minutes: left out by --skip-long
    note: str = ""
    extra: list[str] = field(default_factory=list)  # appended, not shown


def solve(shown: str, *args: str, limited: bool = False, module: bool = False) -> Command:
    head = ["-m", "nqmip"] if module else [SOLVE]
    return Command(shown, head + list(args), "solve", limited=limited,
                   extra=["--output", "answer.json"])


COMMANDS = [
    solve("python scripts/solve_weighted.py --n 8", "--n", "8"),
    solve("python scripts/solve_weighted.py --n 40", "--n", "40"),
    solve("python scripts/solve_weighted.py --n 12 --method cpsat --json",
          "--n", "12", "--method", "cpsat", "--json"),
    solve("python scripts/solve_weighted.py --n 30 --method gurobi --warm-start sa "
          "--random-weights 7", "--n", "30", "--method", "gurobi", "--warm-start", "sa",
          "--random-weights", "7"),
    solve("python scripts/solve_weighted.py --n 8 --fix 0,0 --fix e2",
          "--n", "8", "--fix", "0,0", "--fix", "e2"),
    solve("python scripts/solve_weighted.py --weights docs/examples/weights6.csv",
          "--weights", WEIGHTS6),
    solve("python scripts/solve_weighted.py --n 1000000 --feasibility --method minconflicts "
          "--quiet", "--n", "1000000", "--feasibility", "--method", "minconflicts", "--quiet"),
    solve("python scripts/solve_weighted.py --n 200 --time-limit 30",
          "--n", "200", "--time-limit", "30", limited=True),
    Command("python scripts/solve_weighted.py --warm-up", [SOLVE, "--warm-up"], "warm-up"),
    solve("python -m nqmip --n 100 --time-limit 5 --svg board.svg",
          "--n", "100", "--time-limit", "5", "--svg", "board.svg", limited=True, module=True),
    Command("python scripts/compare.py --n 8:20:4 --methods highs,cpsat,sa,tabu,ga "
            "--repeats 3 --time-limit 10 --output runs.jsonl --plot time.svg "
            "--report report.html",
            [COMPARE, "--n", "8:20:4", "--methods", "highs,cpsat,sa,tabu,ga", "--repeats",
             "3", "--time-limit", "10", "--output", "runs.jsonl", "--plot", "time.svg",
             "--report", "report.html"], "compare", long=True),
    Command("nqmip-count --n 8", [COUNT, "--n", "8"], "count"),
    Command("nqmip-count --n 8 --unique", [COUNT, "--n", "8", "--unique"], "count"),
    Command("nqmip-count --n 8 --unique --list", [COUNT, "--n", "8", "--unique", "--list"],
            "list"),
    Command("nqmip-count --n 10 --fix 0,0 --fix 1,2",
            [COUNT, "--n", "10", "--fix", "0,0", "--fix", "1,2"], "count"),
    Command("nqmip-count --n 18 --workers 2 --record n18.jsonl",
            [COUNT, "--n", "18", "--workers", "2", "--record", "n18.jsonl"], "count",
            long=True),
]


@dataclass
class Run:
    wall: float
    cpu: float
    load: float
    answer: str
    proved: bool
    objective: float | None
    compiled: bool  # numba wrote new kernels into the cache in this run


def solve_answer(folder: Path, out: str) -> tuple[str, bool, float | None]:
    got = json.loads((folder / "answer.json").read_text())
    objective = got.get("objective")
    proved = got["status"] == "optimal"
    text = f"{got['status']} {objective:g}" if objective is not None else got["status"]
    return text, proved, objective


def compare_answer(folder: Path) -> str:
    """Per board: the best objective of its runs, how many runs reached it, and how many
    proved it (the first line is the grid, not a run)."""
    runs: dict[int, list[dict[str, object]]] = {}
    for line in (folder / "runs.jsonl").read_text().splitlines():
        row = json.loads(line)
        if "n" in row:
            runs.setdefault(int(row["n"]), []).append(row)
    cells = []
    for n, rows in sorted(runs.items()):
        found = [float(r["objective"]) for r in rows if r.get("objective") is not None]
        best = max(found, default=float("nan"))
        cells.append(f"n={n}: {best:g}, {sum(f == best for f in found)}/{len(rows)} at it, "
                     f"{sum(r.get('status') == 'optimal' for r in rows)} proved")
    return "; ".join(cells)


ANSWERS: dict[str, Callable[[Path, str], tuple[str, bool, float | None]]] = {
    "solve": solve_answer,
    "warm-up": lambda folder, out: (
        "nothing to compile" if "nothing to compile" in out else
        out.strip().splitlines()[-1].split("(")[0].strip(), True, None),
    "count": lambda folder, out: (out.strip().splitlines()[-1], True, None),
    "list": lambda folder, out: (
        f"{sum(1 for line in out.splitlines() if line.startswith('# '))} boards", True, None),
    "compare": lambda folder, out: (compare_answer(folder), True, None),
}


def cached(cache: Path) -> int:
    """The files in numba's cache (a run that adds some compiled kernels)."""
    return sum(1 for path in cache.rglob("*") if path.is_file())


def run(command: Command, cache: Path, folder: Path) -> Run:
    """``command`` once, in ``folder`` on ``cache``, in a fresh interpreter."""
    for name in ("answer.json", "runs.jsonl", "n18.jsonl"):
        (folder / name).unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(cache)}
    load = os.getloadavg()[0]
    files = cached(cache)
    p, wall, cpu = timed([sys.executable, *command.argv, *command.extra], env, folder, 3600)
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or ["?"])[-1]
        return Run(wall, cpu, load, f"exit {p.returncode}: {tail}", False, None, False)
    answer, proved, objective = ANSWERS[command.kind](folder, p.stdout + p.stderr)
    return Run(wall, cpu, load, answer, proved, objective, cached(cache) > files)


def reached(answer: str) -> int:
    """The runs of a compare answer that reached their board's best."""
    return sum(int(cell.split(", ")[1].split("/")[0]) for cell in answer.split("; "))


def agree(cold: Run, warm: Run, command: Command) -> str:
    if command.kind == "warm-up":  # its answer is what it compiled: all of it, then nothing
        ok = cold.answer.startswith("ready") and warm.answer == "nothing to compile"
        return "yes (compiles every kernel, then none)" if ok else "NO"
    limited = command.limited
    if cold.answer == warm.answer:
        return "yes"
    if command.kind == "compare":  # the boards' best agree; a heuristic's run may miss it
        best = [[cell.split(",")[0] for cell in run.answer.split("; ")] for run in (cold, warm)]
        return ("same best on every board; runs at it: "
                f"{reached(cold.answer)} cold, {reached(warm.answer)} warm"
                if best[0] == best[1] else "NO")
    if limited and not warm.proved and cold.objective and warm.objective:
        off = abs(warm.objective - cold.objective) / abs(warm.objective)
        return f"{'yes' if off <= TOLERANCE else 'NO'} ({100 * off:.1f} %)"
    return "NO"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[],
                        help="run only the commands containing this text (repeatable)")
    parser.add_argument("--skip-long", action="store_true",
                        help="leave out the commands that take minutes (compare, n = 18)")
    args = parser.parse_args()
    commands = [c for c in COMMANDS
                if (not args.only or any(text in c.shown for text in args.only))
                and not (args.skip_long and c.long)]
    print("| command | cold: wall s | CPU s | answer | warm: wall s | CPU s | answer "
          "| same answer? |")
    print("|---|--:|--:|---|--:|--:|---|---|")
    for command in commands:
        cache = Path(tempfile.mkdtemp(prefix="cache-"))
        folder = Path(tempfile.mkdtemp(prefix="run-"))
        try:
            cold = run(command, cache, folder)
            warm = run(command, cache, folder)
            for _ in range(3):  # a limited cold run may have left kernels uncompiled
                if not warm.compiled:
                    break
                warm = run(command, cache, folder)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(folder, ignore_errors=True)
        print(f"  loads {cold.load:.1f} / {warm.load:.1f}; cold compiled {cold.compiled}, "
              f"warm compiled {warm.compiled}", file=sys.stderr, flush=True)
        print(f"| `{command.shown}` | {cold.wall:.1f} | {cold.cpu:.1f} | {cold.answer} "
              f"| {warm.wall:.1f} | {warm.cpu:.1f} | {warm.answer} "
              f"| {agree(cold, warm, command)} |", flush=True)


if __name__ == "__main__":
    main()
