"""Re-check every certificate of docs/data/frontier.json by a second, independent route.

One line per n. Each piece of a certificate (nqmip/colour/certificate.py) is re-checked
without the package's colour code, by another route than the one that produced it:

- the placement: the independent checker ``nqmip.verify`` (no attacking pair), and the
  black count and objective recounted here;
- the bound B: the line model is written again here (same identities, corner caps as
  direct rows) and the certificate's LP multipliers are evaluated in exact rational
  arithmetic (weak duality: no solver at all), rounded down to the parity of n; where the
  line IP was tighter than its LP (HiGHS proved it), CP-SAT proves that the line model has
  no solution at each count between B and the LP's bound;
- a refuted count (line sets enumerated by CP-SAT, covers proven infeasible by HiGHS or the
  exhausted depth-first search): HiGHS proves the list complete (the line model at that
  count with a no-good cut per listed line set is infeasible) and CP-SAT proves each line
  set's exact cover infeasible (HiGHS where CP-SAT had proved it; where HiGHS times out,
  CP-SAT on this file's own model, and the line says so).

Verdict ``proven`` when every piece checks and the placement's black count equals B
lowered by 2 per refuted count. Exit status 1 if any certificate fails.

    python tools/check_frontier.py                # every n with a certificate
    python tools/check_frontier.py --n-max 48     # what CI runs
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATA = ROOT / "docs" / "data" / "frontier.json"
SOLVER_SECONDS = 60.0
#: HiGHS's time on a cover CP-SAT proved infeasible before CP-SAT re-checks it.
HIGHS_COVER_SECONDS = 10.0


class CheckFailed(Exception):
    """A certificate does not check out."""


def model_rows(n: int) -> tuple[list[tuple[list[int], list[int], int]], list[list[int]]]:
    """The line model written from scratch: ``(equalities, cap_rows)``.

    Variables: ``u_s`` = index s (0..2n-2), ``v_d`` = index 2n-1 + d + n-1. ``cap_rows``:
    ``(indices, cap)`` pairs, the first t + 1 lines from each corner (t < n - 1) hold at
    most 1 + floor(2t/3) queens.
    """
    m = 2 * n - 1
    u = list(range(m))
    v = [m + k for k in range(m)]
    anti = list(range(m))
    diag = list(range(-(n - 1), n))
    eq = [(u, [1] * m, n), (v, [1] * m, n), (u, anti, n * (n - 1)), (v, diag, 0),
          (u + v, [a * a for a in anti] + [d * d for d in diag],
           4 * (n - 1) * n * (2 * n - 1) // 6),
          (u + v, [int(a % 2 == 0) for a in anti] + [-int(d % 2 == 0) for d in diag], 0)]
    caps: list[Any] = []
    for lines in (u, u[::-1], v, v[::-1]):
        caps.append([(lines[: t + 1], 1 + (2 * t) // 3) for t in range(n - 1)])
    return eq, caps


def black_vars(n: int) -> list[int]:
    return [s for s in range(2 * n - 1) if s % 2 == 0]


def exact_lp_bound(n: int, y: list[float], w: list[list[float]]) -> int:
    """Weak duality in fractions: for free ``y`` on the equalities and ``w >= 0`` on the
    caps, ``b·y + h·w + Σ_j max(0, c_j - (A^T y + C^T w)_j)`` bounds max #black over the
    LP relaxation (0 <= x <= 1); rounded down to the parity of n."""
    eq, caps = model_rows(n)
    if (len(y) != len(eq) or len(w) != 4
            or any(len(c) != len(r) for c, r in zip(w, caps, strict=True))):
        raise CheckFailed("the multipliers do not fit the line model")
    num = 2 * (2 * n - 1)
    reduced = [Fraction(0)] * num
    for k in black_vars(n):
        reduced[k] += 1
    total = Fraction(0)
    for (cols, vals, rhs), yi in zip(eq, y, strict=True):
        fy = Fraction(yi)
        total += fy * rhs
        for c, a in zip(cols, vals, strict=True):
            reduced[c] -= fy * a
    for corner, wc in zip(caps, w, strict=True):
        for (cols, cap), wt in zip(corner, wc, strict=True):
            fw = Fraction(wt)
            if fw < 0:
                raise CheckFailed("a corner-cap multiplier is negative")
            total += fw * cap
            for c in cols:
                reduced[c] -= fw
    total += sum((r for r in reduced if r > 0), Fraction(0))
    k = math.floor(total)
    return k - (k - n % 2) % 2


def cpsat_line_model_infeasible(n: int, black: int) -> bool:
    """CP-SAT: no 0/1 point of the line model has ``black`` black lines of each kind."""
    from ortools.sat.python import cp_model

    eq, caps = model_rows(n)
    m = 2 * n - 1
    model = cp_model.CpModel()
    x = [model.NewBoolVar(f"x{k}") for k in range(2 * m)]
    for cols, vals, rhs in eq:
        model.Add(sum(a * x[c] for c, a in zip(cols, vals, strict=True)) == rhs)
    model.Add(sum(x[k] for k in black_vars(n)) == black)
    for corner in caps:
        for cols, cap in corner:
            model.Add(sum(x[c] for c in cols) <= cap)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = SOLVER_SECONDS
    return solver.Solve(model) == cp_model.INFEASIBLE


def highs_line_sets_complete(n: int, black: int, sets: list[dict[str, Any]]) -> bool:
    """HiGHS: the line model at ``black`` with a no-good cut per listed line set is
    infeasible, so the list holds every line set at that count."""
    import highspy
    import numpy as np

    eq, caps = model_rows(n)
    m = 2 * n - 1
    num = 2 * m
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", SOLVER_SECONDS)
    h.addVars(num, np.zeros(num), np.ones(num))
    h.changeColsIntegrality(num, np.arange(num, dtype=np.int32),
                            np.array([highspy.HighsVarType.kInteger] * num))

    def row(cols: list[int], vals: list[float], lo: float, hi: float) -> None:
        h.addRow(lo, hi, len(cols), np.asarray(cols, np.int32), np.asarray(vals, float))

    for cols, vals, rhs in eq:
        row(cols, [float(a) for a in vals], rhs, rhs)
    row(black_vars(n), [1.0] * len(black_vars(n)), black, black)
    for corner in caps:
        for cols, cap in corner:
            row(cols, [1.0] * len(cols), -highspy.kHighsInf, cap)
    for entry in sets:
        on = set(entry["anti"]) | {m + d + n - 1 for d in entry["diag"]}
        # sum_{j in L} (1 - x_j) + sum_{j not in L} x_j >= 1
        vals = [-1.0 if k in on else 1.0 for k in range(num)]
        row(list(range(num)), vals, 1.0 - len(on), highspy.kHighsInf)
    h.run()
    return h.getModelStatus() == highspy.HighsModelStatus.kInfeasible


def cpsat_cover_infeasible(n: int, anti: list[int], diag: list[int]) -> bool:
    """CP-SAT: no placement uses exactly these anti-diagonals and diagonals."""
    from ortools.sat.python import cp_model

    if len(anti) != n or len(diag) != n:
        raise CheckFailed("a line set without n lines of each kind")
    sa, sd = set(anti), set(diag)
    model = cp_model.CpModel()
    cell = {(i, j): model.NewBoolVar(f"q{i}_{j}") for i in range(n) for j in range(n)
            if i + j in sa and i - j in sd}
    groups: dict[tuple[str, int], list[Any]] = {}
    for (i, j), var in cell.items():
        for key in (("r", i), ("c", j), ("s", i + j), ("d", i - j)):
            groups.setdefault(key, []).append(var)
    needed = ([("r", i) for i in range(n)] + [("c", j) for j in range(n)]
              + [("s", s) for s in anti] + [("d", d) for d in diag])
    if any(key not in groups for key in needed):
        return True  # a row, column or listed line with no square at all
    for key in needed:
        model.AddExactlyOne(groups[key])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.linearization_level = 2  # its LP proves these in well under 1 s
    solver.parameters.max_time_in_seconds = SOLVER_SECONDS
    return solver.Solve(model) == cp_model.INFEASIBLE


def highs_cover_infeasible(n: int, anti: list[int], diag: list[int]) -> bool:
    """HiGHS: the same exact cover as :func:`cpsat_cover_infeasible`, as a 0/1 MIP."""
    import highspy
    import numpy as np

    sa, sd = set(anti), set(diag)
    cells = [(i, j) for i in range(n) for j in range(n) if i + j in sa and i - j in sd]
    keys = ([("r", i) for i in range(n)] + [("c", j) for j in range(n)]
            + [("s", s) for s in anti] + [("d", d) for d in diag])
    rows: dict[tuple[str, int], list[int]] = {key: [] for key in keys}
    for k, (i, j) in enumerate(cells):
        for key in (("r", i), ("c", j), ("s", i + j), ("d", i - j)):
            rows[key].append(k)
    if any(not rows[key] for key in keys):
        return True
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", HIGHS_COVER_SECONDS)
    num = len(cells)
    h.addVars(num, np.zeros(num), np.ones(num))
    h.changeColsIntegrality(num, np.arange(num, dtype=np.int32),
                            np.array([highspy.HighsVarType.kInteger] * num))
    for key in keys:
        h.addRow(1.0, 1.0, len(rows[key]), np.asarray(rows[key], np.int32),
                 np.ones(len(rows[key])))
    h.run()
    return h.getModelStatus() == highspy.HighsModelStatus.kInfeasible


def check_entry(n: int, value: float, cert: dict[str, Any]) -> str:
    """Re-check one certificate; a one-line summary, or CheckFailed."""
    import nqmip.verify as verify

    placement = cert["placement"]
    if len(placement) != n or not verify.is_solution(placement):
        raise CheckFailed("the placement is not a solution")
    black = sum(1 for i, c in enumerate(placement) if (i + c) % 2 == 0)
    if n + black != value:
        raise CheckFailed(f"value {value:g} but the placement has {black} black queens")
    b = cert["bound"]
    lp = exact_lp_bound(n, b["duals_equalities"], b["duals_corner_caps"])
    bound = b["B"]
    if lp < bound:
        raise CheckFailed(f"LP multipliers give {lp} < B = {bound}")
    ip = [k for k in range(bound + 2, lp + 1, 2)]
    for k in ip:
        if not cpsat_line_model_infeasible(n, k):
            raise CheckFailed(f"CP-SAT did not prove the line model infeasible at {k}")
    top = bound
    notes = []
    same_solver = 0
    for r in cert.get("refuted", []):
        if r["black"] != top or r.get("line_sets") is None:
            raise CheckFailed(f"refuted count {r['black']} is not certified in order")
        sets = r["line_sets"]
        if not highs_line_sets_complete(n, top, sets):
            raise CheckFailed(f"HiGHS did not prove the {len(sets)} line sets at {top} complete")
        for entry in sets:
            if entry["reason"] == "cover_cpsat":  # CP-SAT proved it: HiGHS re-checks
                if highs_cover_infeasible(n, entry["anti"], entry["diag"]):
                    continue
                # HiGHS does not settle these (n = 85: not in 150 s): CP-SAT on this
                # file's own model is the second look, by the same solver (said so)
                same_solver += 1
                if not cpsat_cover_infeasible(n, entry["anti"], entry["diag"]):
                    raise CheckFailed(f"no solver proved a line set at {top} unrealisable")
            elif not cpsat_cover_infeasible(n, entry["anti"], entry["diag"]):
                raise CheckFailed(f"CP-SAT did not prove a line set at {top} unrealisable")
        notes.append(f"{top}: {len(sets)} line sets")
        top -= 2
    if black != top:
        raise CheckFailed(f"{black} black queens, proven bound {top}")
    how = f"LP dual (exact) {lp}" + (f", IP by CP-SAT {ip}" if ip else "")
    ref = f"; refuted {', '.join(notes)}" if notes else ""
    if same_solver:
        ref += f"; {same_solver} covers re-checked by CP-SAT only (HiGHS timed out)"
    return f"black {black} = B {bound}{' - ' + str(2 * len(notes)) if notes else ''} ({how}{ref})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--n-min", type=int, default=1)
    ap.add_argument("--n-max", type=int, default=10**9)
    args = ap.parse_args()
    data = json.loads(args.data.read_text())
    failed = 0
    for key in sorted(data["results"], key=int):
        e = data["results"][key]
        n = int(key)
        if not args.n_min <= n <= args.n_max:
            continue
        cert = e.get("certificate")
        if cert is None:
            print(f"n={n}: no certificate ({e.get('status')})")
            continue
        t = time.perf_counter()
        try:
            line = "proven: " + check_entry(n, e["value"], cert)
        except CheckFailed as exc:
            failed += 1
            line = f"FAILED: {exc}"
        print(f"n={n}: value {e['value']:g} {line} [{time.perf_counter() - t:.2f} s]",
              flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
