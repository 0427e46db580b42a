"""Certificates of the colour proof: what a sceptic needs to re-check a chess optimum.

A certificate (a JSON-ready dict) for the largest number of black queens at size ``n``:

- ``placement``: a placement with ``black`` black queens (re-checked from first
  principles by :mod:`nqmip.verify`);
- ``bound``: the line-model bound ``B`` on #black, with the row duals of the line model's
  LP relaxation (corner caps as direct rows): for ANY such multipliers, weak duality gives
  ``rhs·y + caps·w + Σ_j max(0, c_j - a_j·(y, w))`` as an upper bound, which anyone can
  evaluate in exact rational arithmetic; rounded down to the parity of ``n`` (#black is
  ``n mod 2``: docs/formulation-strengthening.md) it is ``lp_bound``. Where the integer
  program is tighter (``lp_bound > B``) the counts ``B + 2 … lp_bound`` are listed as
  ``ip_infeasible``: the line IP has no solution there (HiGHS proved it);
- ``refuted``: per black count the line sets dropped, the list of *every* line set at that
  count (enumerated by CP-SAT) and, per line set, why no placement uses exactly those
  lines (``"cover_mip"``: HiGHS proved the exact cover infeasible; ``"cover_cpsat"``:
  CP-SAT did; ``"cover_search"``: the depth-first search exhausted its tree).

``black == B`` after the refuted counts is the proof. tools/check_frontier.py
re-checks each piece by another route (exact arithmetic, CP-SAT for what HiGHS proved and
HiGHS for what CP-SAT proved) without calling this package's colour code.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nqmip import highs_threads

#: Seconds for each solver call while a certificate is built (they take well under 1 s).
CERTIFICATE_SECONDS = 30.0


def line_rows(n: int) -> tuple[list[tuple[list[int], list[int], int]], list[list[int]],
                               list[int], list[int]]:
    """The line LP as plain lists: ``(equalities, corners, caps, objective)``.

    Variables ``0..2n-2`` are the anti-diagonals ``s``, ``2n-1..4n-3`` the diagonals
    ``d = k - (n - 1)``. ``equalities``: ``(indices, coefficients, rhs)``; ``corners``:
    per corner the line indices from the corner inward (row ``t`` of a corner: its first
    ``t + 1`` lines sum to at most ``caps[t]``, t < n - 1); ``objective``: the black
    anti-diagonals (coefficient 1).
    """
    m = 2 * n - 1
    iu = list(range(m))
    iv = [m + k for k in range(m)]
    s = list(range(m))
    d = [k - (n - 1) for k in range(m)]
    quad = 4 * sum(k * k for k in range(n))
    link = [1 if x % 2 == 0 else 0 for x in s] + [-1 if x % 2 == 0 else 0 for x in d]
    equalities = [
        (iu, [1] * m, n),
        (iv, [1] * m, n),
        (iu, s, n * (n - 1)),
        (iv, d, 0),
        (iu + iv, [x * x for x in s] + [x * x for x in d], quad),
        (iu + iv, link, 0),
    ]
    corners = [iu, iu[::-1], iv, iv[::-1]]
    caps = [1 + (2 * t) // 3 for t in range(n - 1)]
    objective = [k for k in iu if k % 2 == 0]
    return equalities, corners, caps, objective


def lp_duals(n: int) -> tuple[list[float], list[list[float]], float]:
    """Row duals of the line LP (maximise #black): ``(y, w per corner, LP value)``, with
    the signs of a maximisation (``w >= 0``: tiny negative values clipped to 0)."""
    import highspy

    equalities, corners, caps, objective = line_rows(n)
    num = 2 * (2 * n - 1)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.addVars(num, np.zeros(num), np.ones(num))
    cost = np.zeros(num)
    cost[objective] = 1.0
    h.changeColsCost(num, np.arange(num, dtype=np.int32), cost)
    h.changeObjectiveSense(highspy.ObjSense.kMaximize)
    for cols, vals, rhs in equalities:
        h.addRow(rhs, rhs, len(cols), np.asarray(cols, np.int32), np.asarray(vals, float))
    for lines in corners:
        for t in range(n - 1):
            h.addRow(-highspy.kHighsInf, caps[t], t + 1, np.asarray(lines[: t + 1], np.int32),
                     np.ones(t + 1))
    highs_threads.run(h, 1)
    dual = np.asarray(h.getSolution().row_dual, dtype=float)
    value = float(h.getInfo().objective_function_value)
    k = len(equalities)
    # HiGHS reports duals of a maximisation with the sign of the minimisation of -c; pick
    # the sign whose Lagrangian bound is valid (w >= 0) and tight.
    best: tuple[list[float], list[list[float]], float] | None = None
    for sign in (1.0, -1.0):
        y = [sign * float(x) for x in dual[:k]]
        w = np.maximum(sign * dual[k:], 0.0).reshape(4, n - 1) if n > 1 else np.zeros((4, 0))
        cand = (y, [list(map(float, row)) for row in w], value)
        bound = lagrangian_value(n, cand[0], cand[1])
        if best is None or bound < lagrangian_value(n, best[0], best[1]):
            best = cand
    assert best is not None
    return best


def lagrangian_value(n: int, y: list[float], w: list[list[float]]) -> float:
    """The weak-duality bound of the multipliers (floating point; the checker uses
    fractions)."""
    equalities, corners, caps, objective = line_rows(n)
    num = 2 * (2 * n - 1)
    reduced = np.zeros(num)
    reduced[objective] = 1.0
    total = 0.0
    for (cols, vals, rhs), yi in zip(equalities, y, strict=True):
        reduced[cols] -= yi * np.asarray(vals, float)
        total += yi * rhs
    for lines, wc in zip(corners, w, strict=True):
        for t, wt in enumerate(wc):
            reduced[lines[: t + 1]] -= wt
            total += wt * caps[t]
    return total + float(np.maximum(reduced, 0.0).sum())


def parity_floor(value: float, n: int) -> int:
    """The largest count ``<= value`` (with a 1e-9 tolerance) of the parity of ``n``."""
    k = math.floor(value + 1e-9)
    return k - (k - n % 2) % 2


def bound_certificate(n: int) -> dict[str, Any]:
    """The bound part of a certificate (see the module docstring)."""
    from nqmip.formulation.colour_bound import black_queen_bound

    bound = black_queen_bound(n, time_limit=CERTIFICATE_SECONDS)
    y, w, value = lp_duals(n)
    lp_bound = min(parity_floor(lagrangian_value(n, y, w), n), n)
    cert: dict[str, Any] = {"B": bound, "lp_value": value, "lp_bound": lp_bound,
                            "duals_equalities": y, "duals_corner_caps": w}
    if bound is not None and lp_bound > bound:
        cert["ip_infeasible"] = list(range(bound + 2, lp_bound + 1, 2))
        cert["ip_solver"] = "highs"
    return cert


def refutation_certificate(n: int, black: int) -> dict[str, Any] | None:
    """Every line set at ``black`` and why none realises, or None if that cannot be shown
    (too many line sets, or a cover not settled)."""
    from nqmip.colour.exact_cover import find_exact_cover
    from nqmip.colour.lines import (
        Cover,
        _cover_cpsat,
        _cover_mip,
        enumerate_line_sets,
        realisation_options,
    )

    sets = enumerate_line_sets(n, black, max_count=256, time_limit=CERTIFICATE_SECONDS)
    if sets is None:
        return None
    entries = []
    for k, lines in enumerate(sets):
        cells, opt_items = realisation_options(n, lines)
        outcome, _ = _cover_mip(n, cells, opt_items, time_limit=CERTIFICATE_SECONDS)
        if outcome is Cover.INFEASIBLE:
            reason = "cover_mip"
        elif _cover_cpsat(n, cells, opt_items,
                          time_limit=CERTIFICATE_SECONDS)[0] is Cover.INFEASIBLE:
            reason = "cover_cpsat"
        else:
            found = find_exact_cover(opt_items, 4 * n, seed=k, time_limit=CERTIFICATE_SECONDS)
            if not found.exhausted:
                return None
            reason = "cover_search"
        entries.append({"anti": list(lines.anti), "diag": list(lines.diag), "reason": reason})
    return {"black": black, "enumerated_by": "cpsat", "line_sets": entries}


def certificate(n: int, placement: Any, refuted: Any = ()) -> dict[str, Any]:
    """The whole certificate of a chess optimum at ``n`` (see the module docstring)."""
    from nqmip.formulation.colour_bound import black_count

    bound = bound_certificate(n)
    cert: dict[str, Any] = {"n": n, "placement": [int(c) for c in placement],
                            "black": black_count(placement), "bound": bound,
                            "refuted": []}
    # A count the proof refuted above the certificate's B is already excluded by the bound
    # (its IP, given more time here, is tighter: n = 123 refuted 97 where B = 95 here, and
    # the checker re-proves 97 with the IP counts); only the counts from B down are listed.
    top = bound["B"] if bound["B"] is not None else n
    for b in sorted((c for c in refuted or () if c <= top), reverse=True):
        r = refutation_certificate(n, int(b))
        cert["refuted"].append(r if r is not None else {"black": int(b), "line_sets": None})
    return cert
