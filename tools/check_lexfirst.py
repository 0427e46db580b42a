"""Check a claimed first solution of n-queens (OEIS A141843) by a second route.

A placement q is the lexicographically first solution iff it is a solution and, for every
row r and every column c < q[r], the queens q[0..r-1] plus (r, c) cannot be completed. This
checker proves each of those refutations with OR-Tools CP-SAT (the permutation model of
:mod:`nqmip.formulation.lex`; a prefix whose queens attack each other is refuted on sight),
independently of the numba search that found q; with ``--route sat``, by CaDiCaL (python-sat)
on the clauses of :mod:`nqmip.lex.sat`, one incremental solver for all the questions (a
second route for what the numba oracle settled, and far quicker than CP-SAT on the hard
refutations).

    python tools/check_lexfirst.py --n 12 --columns "1 3 5 8 10 12 6 11 2 7 9 4"
    python tools/check_lexfirst.py --n 30 --search          # find q with nqmip, then check it
    python tools/check_lexfirst.py --n 62 --columns "..." --prefix-rows 18   # a proven prefix
    python tools/check_lexfirst.py --n 34 --search --route sat

Exit 0: proven first; 1: refuted (a smaller completion exists, or q is no solution);
3: undecided (a CP-SAT call hit --per-call seconds); 2: bad input.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable


def attacks(prefix: list[int], col: int) -> bool:
    row = len(prefix)
    return any(c == col or abs(c - col) == row - r for r, c in enumerate(prefix))


def sat_route(n: int) -> Callable[[int, dict[int, int], float], bool | None]:
    """A ``prefix_feasible`` by CaDiCaL: one incremental solver, the prefix as assumptions,
    ``per_call`` seconds at most (None past them)."""
    from nqmip.budget import Deadline
    from nqmip.lex.descent import ask
    from nqmip.lex.sat import SatOracle

    oracle = SatOracle(n)

    def feasible(size: int, prefix: dict[int, int], per_call: float) -> bool | None:
        return ask(oracle, sorted(prefix.items()), -1, size, Deadline(per_call))

    return feasible


def check(n: int, columns: list[int], per_call: float, rows: int | None = None,
          route: str = "cpsat") -> tuple[int, str]:
    """Exit code and message; with ``rows``, only the claim that the first ``rows`` rows
    are the first solution's (a proven prefix) is checked."""
    from nqmip.verify import is_solution

    if route == "sat":
        prefix_feasible = sat_route(n)
    else:
        from nqmip.formulation.lex import prefix_feasible
    if len(columns) != n or not is_solution(columns):
        return 1, "the placement is not a solution"
    calls = 0
    skipped = 0
    for r in range(n if rows is None else rows):
        prefix = columns[:r]
        for c in range(columns[r]):
            if attacks(prefix, c):
                skipped += 1
                continue
            calls += 1
            answer = prefix_feasible(n, {**dict(enumerate(prefix)), r: c}, per_call)
            if answer is True:
                return 1, f"row {r}: column {c} < {columns[r]} can be completed"
            if answer is None:
                return 3, f"row {r}, column {c}: undecided within {per_call} s"
    what = "proven first" if rows is None else f"the first {rows} rows proven"
    return 0, (f"{what}: {calls} smaller prefixes refuted by "
               f"{'CaDiCaL' if route == 'sat' else 'CP-SAT'}, {skipped} "
               "refuted on sight (attacked squares)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, required=True)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--columns", help="the claimed solution, 1-based columns")
    source.add_argument("--search", action="store_true",
                        help="take the claim from nqmip.lex.first_solution")
    parser.add_argument("--prefix-rows", type=int, default=None, metavar="K",
                        help="check only that the first K rows are the first solution's "
                        "(a proven prefix; --columns must still be a solution)")
    parser.add_argument("--per-call", type=float, default=60.0,
                        help="seconds per refutation (default 60)")
    parser.add_argument("--route", choices=("cpsat", "sat"), default="cpsat",
                        help="who refutes: CP-SAT (default) or CaDiCaL (python-sat)")
    args = parser.parse_args(argv)
    if args.n < 1:
        print("check_lexfirst: error: --n must be positive", file=sys.stderr)
        return 2
    if args.search:
        from nqmip.instance import make_instance
        from nqmip.lex.descent import FirstFail, descend

        found = descend(make_instance(args.n), FirstFail(args.n))
        if found.placement is None:
            print(f"n = {args.n}: the search finds no solution", file=sys.stderr)
            return 2
        columns = list(found.placement)
    else:
        try:
            columns = [int(x) - 1 for x in args.columns.replace(",", " ").split()]
        except ValueError:
            print("check_lexfirst: error: --columns takes integers", file=sys.stderr)
            return 2
    begin = time.perf_counter()
    code, message = check(args.n, columns, args.per_call, args.prefix_rows, args.route)
    print(f"n = {args.n} {' '.join(str(c + 1) for c in columns)}: {message} "
          f"({time.perf_counter() - begin:.1f} s)")
    return code


if __name__ == "__main__":
    sys.exit(main())
