"""Write nqmip/formulation/colour_bound_table.py: the colour bound of every empty board
n <= LINE_IP_MAX_N, both sides, from the line model solved by HiGHS with a long time limit.

The bound of a board without fixed queens depends on n alone, so the package reads it
from this table instead of solving the line model on every call (0.1-12 s a side; under a
short cap, or on a loaded machine, the cap's dual bound is weaker or missing). Each entry
is the line model's dual bound rounded to n's parity (valid whether or not HiGHS proved
its optimum within the limit); tests/test_colour_bound_table.py solves the small ones
again.

    python tools/colour_bound_table.py --write            # about 30 minutes on one core
    python tools/colour_bound_table.py --n 8:24           # print, write nothing
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nqmip.formulation.colour_bound import LINE_IP_MAX_N, line_ip_bound  # noqa: E402

TABLE = ROOT / "nqmip" / "formulation" / "colour_bound_table.py"
SECONDS = 120.0

HEADER = '''"""The colour bound of every board without fixed queens, n = 0 .. {top}: how many black
queens a placement can hold at most (``MOST``) and at least (``LEAST``), from the line
model of :mod:`nqmip.formulation.line_model` (HiGHS, {seconds:g} s a side, the dual bound
rounded to n's parity; None where the model is infeasible: n = 2, 3). Written by
``python tools/colour_bound_table.py --write``; do not edit by hand.
{unproven}"""

'''


def _tuple(values: list[int | None]) -> str:
    """The values as a tuple literal, wrapped within 100 columns."""
    words = [repr(v) for v in values]
    lines, line = [], "   "
    for word in words:
        if len(line) + len(word) + 2 > 99:
            lines.append(line)
            line = "   "
        line += f" {word},"
    lines.append(line)
    return "(\n" + "\n".join(lines) + "\n)"


def render(most: list[int | None], least: list[int | None], seconds: float,
           unproven: str) -> str:
    """The text of the table's module."""
    text = HEADER.format(top=len(most) - 1, seconds=seconds, unproven=unproven)
    text += f"MOST: tuple[int | None, ...] = {_tuple(most)}\n"
    text += f"LEAST: tuple[int | None, ...] = {_tuple(least)}\n"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", default=f"1:{LINE_IP_MAX_N}", help="FIRST:LAST")
    parser.add_argument("--seconds", type=float, default=SECONDS)
    parser.add_argument("--write", action="store_true", help=f"write {TABLE.name}")
    args = parser.parse_args(argv)
    first, last = (int(x) for x in args.n.split(":"))
    most: list[int | None] = [0] * (last + 1)
    least: list[int | None] = [0] * (last + 1)
    open_ = []
    for n in range(first, last + 1):
        begin = time.perf_counter()
        hi, hi_proven = line_ip_bound(n, (), maximise=True, time_limit=args.seconds)
        lo, lo_proven = line_ip_bound(n, (), maximise=False, time_limit=args.seconds)
        most[n], least[n] = hi, lo
        if not (hi_proven and lo_proven):
            open_.append(n)
        print(f"n={n:3d} most={hi!s:>4} least={lo!s:>4} {time.perf_counter() - begin:6.1f} s"
              f"{'' if hi_proven and lo_proven else '  (a side not proven optimal)'}",
              flush=True)
    if args.write:
        if first != 1 or last != LINE_IP_MAX_N:
            parser.error("--write takes the whole range (leave --n out)")
        unproven = ("HiGHS proved every entry optimal for the line model." if not open_ else
                    "Entries whose line model HiGHS did not close in that time (still "
                    f"valid bounds): n = {', '.join(map(str, open_))}.")
        TABLE.write_text(render(most, least, args.seconds, unproven))
        print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
