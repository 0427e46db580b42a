#!/usr/bin/env python
"""auto's first run (numba's cache empty) against a warm run, over kinds of weights, board
sizes and time limits, for one checkout or two side by side.

Each cell runs ``python -m nqmip ARGS --time-limit T --json`` in a fresh interpreter: cold
on an empty ``NUMBA_CACHE_DIR`` of its own (a fresh machine; deleted after), warm on one
cache filled first by ``--warm-up`` (every kernel group). The checkouts' runs of a cell are
side by side (before cold, after cold, before warm, after warm). Recorded per run: the
objective, the gap, the call's own wall time (``timing.wall``), the process's wall and CPU
seconds, the result's note; *over* marks a call past its limit by more than ``SLACK``
seconds or one answered by the watchdog ("did not stop in time"), *constr* an answer of
the watchdog's stand-in (the explicit construction, climbed or not, or a completion of the
fixed queens). Prints a Markdown table::

    python benchmarks/bench_cold_matrix.py --after .                       # every cell
    python benchmarks/bench_cold_matrix.py --before /old/checkout --after . --only random
    python benchmarks/bench_cold_matrix.py --after . --jsonl runs.jsonl --limits 5 15
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_first_run import timed

#: Seconds past its limit a call may answer (the watchdog's own overrun is 0.4 s).
SLACK = 0.5
#: What a note says when the answer is the watchdog's stand-in (nqmip.construct.STAND_IN).
STAND_INS = ("explicit construction", "completion of the fixed queens")


def cases(files: Path) -> dict[str, list[str]]:
    """The cells' arguments (without the limit), by label; the weight files written to
    ``files``."""
    rng = np.random.default_rng(5)
    for n in (40, 100):
        np.savetxt(files / f"weights{n}.csv", rng.integers(1, 10, (n, n)), fmt="%d",
                   delimiter=",")
    np.savetxt(files / "costs30.csv", rng.integers(1, 10, (30, 30)), fmt="%d", delimiter=",")
    return {
        "chess n=20": ["--n", "20"],
        "chess n=46": ["--n", "46"],
        "chess n=100": ["--n", "100"],
        "chess n=200": ["--n", "200"],
        "random n=20": ["--n", "20", "--random-weights", "3"],
        "random n=30": ["--n", "30", "--random-weights", "3"],
        "random n=36": ["--n", "36", "--random-weights", "3"],
        "random n=46": ["--n", "46", "--random-weights", "3"],
        "random n=60": ["--n", "60", "--random-weights", "3"],
        "random n=100": ["--n", "100", "--random-weights", "3"],
        "random n=200": ["--n", "200", "--random-weights", "3"],
        "weights file n=40": ["--weights", str(files / "weights40.csv")],
        "weights file n=100": ["--weights", str(files / "weights100.csv")],
        "costs file n=30": ["--costs", str(files / "costs30.csv")],
        "black 3 white -1 n=44": ["--n", "44", "--black", "3", "--white", "-1"],
        "chess fix n=30": ["--n", "30", "--fix", "0,0", "--fix", "1,2"],
        "random fix n=36": ["--n", "36", "--random-weights", "3", "--fix", "0,0"],
        "random fix n=48": ["--n", "48", "--random-weights", "3", "--fix", "0,0",
                            "--fix", "1,2"],
    }


def run(checkout: Path, cache: Path, args: list[str], limit: float) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(checkout), "NUMBA_CACHE_DIR": str(cache)}
    p, wall, cpu = timed([sys.executable, "-m", "nqmip", *args, "--time-limit", str(limit),
                          "--json"], env, checkout, 600)
    out = p.stdout
    try:
        found = json.loads(out[out.index("{"):out.rindex("}") + 1])
    except ValueError:
        return {"error": (p.stderr.strip().splitlines() or ["no output"])[-1], "wall": wall}
    message = str(found.get("message") or "")
    call = float(found["timing"]["wall"])
    return {"objective": found["objective"], "gap": found.get("gap"), "call": call,
            "wall": wall, "cpu": cpu, "message": message,
            "plan": found["provenance"]["plan"], "compile": found["timing"]["compile"],
            "over": call > limit + SLACK or "did not stop in time" in message,
            "constr": any(words in message for words in STAND_INS)}


def cell(got: dict[str, object]) -> str:
    if "error" in got:
        return f"error: {got['error']}"
    gap = got["gap"]
    flags = "".join(f" **{flag}**" for flag in ("over", "constr") if got[flag])
    gap_text = "" if gap is None else f" ({100 * float(gap):.1f} %)"  # type: ignore[arg-type]
    return f"{got['objective']:g}{gap_text}, {got['call']:.1f} s{flags}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--limits", type=float, nargs="+", default=[5.0, 15.0, 30.0])
    parser.add_argument("--only", action="append", default=[],
                        help="cells whose label contains this (repeatable)")
    parser.add_argument("--warm-cache", type=Path,
                        help="a cache folder filled by --warm-up (default: a new one)")
    parser.add_argument("--jsonl", type=Path, help="append every run to this file")
    args = parser.parse_args()
    sides = {"after": args.after.resolve()}
    if args.before is not None:
        sides = {"before": args.before.resolve(), **sides}
    files = Path(tempfile.mkdtemp(prefix="cold-matrix-"))
    warm = args.warm_cache or Path(tempfile.mkdtemp(prefix="warm-"))
    if not any(warm.glob("nqmip/*/ready/*")):
        subprocess.run([sys.executable, "-m", "nqmip", "--warm-up"], check=True,
                       env={**os.environ, "PYTHONPATH": str(sides["after"]),
                            "NUMBA_CACHE_DIR": str(warm)}, capture_output=True)
    header = ["cell", "T s"] + [f"{side} {state}" for state in ("cold", "warm")
                                for side in sides]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header), flush=True)
    for label, cell_args in cases(files).items():
        if args.only and not any(word in label for word in args.only):
            continue
        for limit in args.limits:
            row: list[str] = [label, f"{limit:g}"]
            for state in ("cold", "warm"):
                for side, checkout in sides.items():
                    cache = Path(tempfile.mkdtemp(prefix="cold-")) if state == "cold" else warm
                    got = run(checkout, cache, cell_args, limit)
                    if state == "cold":
                        shutil.rmtree(cache, ignore_errors=True)
                    row.append(cell(got))
                    if args.jsonl is not None:
                        with args.jsonl.open("a") as out:
                            out.write(json.dumps({"cell": label, "limit": limit,
                                                  "side": side, "state": state,
                                                  "load": os.getloadavg()[0], **got}) + "\n")
            print("| " + " | ".join(row) + " |", flush=True)
    shutil.rmtree(files, ignore_errors=True)


if __name__ == "__main__":
    main()
