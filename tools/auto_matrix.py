"""auto's plans x the optional solvers x sense x fixed queens: each cell's outcome, as
tests/test_auto_matrix.py produces it (the cells are generated from the policy table).

    python tools/auto_matrix.py                       # every cell (the long ones too)
    python tools/auto_matrix.py --only mip-free36     # the cells whose id contains it
    python tools/auto_matrix.py --short               # without the long-budget cells

One row per cell: objective / bound / seconds, and ``ok`` or what the test would fail on
(an exception, no placement, a bound on the wrong side, a part that failed, over the
limit + 1 s). To check another source tree, put it first on ``PYTHONPATH`` and this tree
after it (the cells come from this tree's tests/auto_matrix.py).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

# by its file: another tree first on PYTHONPATH has its own tests package
_SPEC = importlib.util.spec_from_file_location(
    "auto_matrix_cells", Path(__file__).resolve().parent.parent / "tests" / "auto_matrix.py")
assert _SPEC is not None and _SPEC.loader is not None
_CELLS = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = _CELLS  # its dataclasses look their module up
_SPEC.loader.exec_module(_CELLS)
MARGIN, cells, check, run = _CELLS.MARGIN, _CELLS.cells, _CELLS.check, _CELLS.run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[],
                        help="keep the cells whose id contains this (repeatable)")
    parser.add_argument("--short", action="store_true",
                        help="leave out the long-budget cells")
    args = parser.parse_args(argv)
    import nqmip

    print(f"nqmip from {Path(nqmip.__file__).parent}")
    print(f"{'cell':<44} {'objective':>9} {'bound':>9} {'seconds':>8}  outcome")
    failures = 0
    for cell in cells():
        if args.only and not any(word in cell.id for word in args.only):
            continue
        if args.short and cell.site.limit > 10:
            continue
        try:
            result, seconds = run(cell)
        except Exception as exc:  # what the test would fail on
            failures += 1
            print(f"{cell.id:<44} {'-':>9} {'-':>9} {'-':>8}  {type(exc).__name__}: "
                  f"{str(exc).splitlines()[0] if str(exc) else ''}", flush=True)
            continue
        outcome = "ok"
        try:
            check(cell, result)
            if seconds > cell.site.limit + MARGIN:
                outcome = f"over the limit + {MARGIN:g} s"
        except AssertionError as exc:
            outcome = f"fails: {exc}"
        if outcome != "ok":
            failures += 1

        def show(value: float | None) -> str:
            return "-" if value is None else f"{value:g}"

        print(f"{cell.id:<44} {show(result.objective):>9} {show(result.bound):>9} "
              f"{seconds:8.2f}  {outcome}", flush=True)
    print(f"{failures} cell(s) failing")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
