"""The conclusions a reader would draw from the summary, written out: on each board the
fastest exact method and the fastest heuristic and the factor between them, and which
methods proved optimality where (and why a heuristic can: its placement meets the bound
it carries, the colour bound for the chess weights)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nqmip.compare.summary import board_group
from nqmip.compare.tables import cell_label, factor, seconds


def _label(e: dict[str, Any]) -> str:
    return cell_label(e["method"], e["warm_start"], e["params"], e.get("target_mode"))


def _fastest(entries: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    timed = [e for e in entries if e["ttt_median"] is not None]
    return min(timed, key=lambda e: e["ttt_median"]) if timed else None


def _where(sizes: Sequence[int]) -> str:
    return "n = " + ", ".join(str(n) for n in sizes)


def board_sentence(entries: Sequence[dict[str, Any]]) -> str:
    """The fastest exact method (or auto) and the fastest heuristic on one board."""
    head = f"n = {entries[0]['n']}"
    exact = _fastest([e for e in entries if e["kind"] != "heuristic"])
    heuristic = _fastest([e for e in entries if e["kind"] == "heuristic"])
    if exact is None and heuristic is None:
        proofs = [e for e in entries if e["status"].get("infeasible")]
        if proofs:
            return (f"{head}: no placement exists, proven by "
                    f"{', '.join(_label(e) for e in proofs)}.")
        return f"{head}: no method reached the target in more than half its runs."
    if exact is None or heuristic is None:
        only = exact or heuristic
        assert only is not None
        kind = "heuristic" if only is heuristic else "exact method"
        other = "exact method" if only is heuristic else "heuristic"
        others = [e for e in entries if e["kind"] == only["kind"] and e is not only
                  and e["ttt_factor"] is not None]
        runner = min(others, key=lambda e: e["ttt_factor"], default=None)
        tail = "" if runner is None else \
            f"; next {_label(runner)}, {factor(runner['ttt_factor'])}× slower"
        absent = f"no {other} reached it in more than half its runs" if any(
            e["kind"] != only["kind"] for e in entries) else f"no {other} ran"
        return (f"{head}: the fastest {kind} is {_label(only)} "
                f"({seconds(only['ttt_median'])} s to the target){tail}; {absent}.")
    first, second = sorted((exact, heuristic), key=lambda e: e["ttt_median"])
    ratio = second["ttt_median"] / max(first["ttt_median"], 1e-6)
    what = {id(exact): "the fastest exact method", id(heuristic): "the fastest heuristic"}
    return (f"{head}: {_label(first)}, {what[id(first)]}, reached the target in "
            f"{seconds(first['ttt_median'])} s (median), {factor(ratio)}× faster than "
            f"{_label(second)}, {what[id(second)]} ({seconds(second['ttt_median'])} s).")


#: Why a heuristic's run counts as proven, by the bound it carried (``bound_source``, or
#: the ``proof`` of a board it settled without one).
PROOF_CAUSES = {
    "colour_bound": "the colour bound (a proven bound on the queens on black squares, "
                    "computed beside the search)",
    "exhaustive": "every placement of a small board listed",
    "row_column_maxima": "the row and column maxima (no placement beats every row's best "
                         "square)",
    "lp_relaxation": "the LP relaxation's value",
}


def _heuristic_proofs(heuristic: Sequence[dict[str, Any]]) -> str:
    """Why the heuristics' proven runs count as proven, each cause with its boards."""
    where: dict[str, set[int]] = {}
    for e in heuristic:
        for cause in e["proven_bounds"] if e["proven"] else ():
            where.setdefault(cause, set()).add(e["n"])
    proved = sorted({e["n"] for e in heuristic if e["proven"]})
    causes = "; ".join(f"{PROOF_CAUSES.get(cause, cause)} at {_where(sorted(ns))}"
                       for cause, ns in sorted(where.items()))
    return (f"A heuristic's search proves nothing: its answers at {_where(proved)} count as "
            f"proven by what the run carries beside it, a bound its placement meets or a "
            f"listing: {causes}.")


def proof_sentences(summary: Sequence[dict[str, Any]]) -> list[str]:
    """Which methods proved optimality on which boards, and why a heuristic could."""
    by_label: dict[str, list[dict[str, Any]]] = {}
    for e in summary:
        by_label.setdefault(_label(e), []).append(e)
    parts = []
    every = {e["n"] for e in summary}  # a method skipped at some n did not run at every n
    for label, entries in by_label.items():
        counts: dict[str, list[int]] = {}
        for e in entries:
            counts.setdefault(f"{e['proven']}/{e['runs']}", []).append(e["n"])
        if len(counts) == 1 and {e["n"] for e in entries} == every:
            parts.append(f"{label} {next(iter(counts))} at every n")
        else:
            parts.append(f"{label} " + ", ".join(f"{c} at {_where(ns)}"
                                                 for c, ns in counts.items()))
    none = any(e["status"].get("infeasible") for e in summary)
    what = "optimality (or that no placement exists)" if none else "optimality"
    out = [f"Runs that proved {what}: " + "; ".join(parts) + "."]
    heuristic = [e for e in summary if e["kind"] == "heuristic"]
    proved = sorted({e["n"] for e in heuristic if e["proven"]})
    unproved = [e for e in heuristic if e["reached"] > e["proven"]
                and e["target_source"] == "proven"]
    above = sorted({e["n"] for e in unproved if "colour_bound" in e["unproven_bounds"]})
    early = sorted({e["n"] for e in unproved
                    if "row_column_maxima" in e["unproven_bounds"]})
    if proved:
        out.append(_heuristic_proofs(heuristic))
    if above:
        out.append(f"At {_where(above)} the colour bound lies above the optimum: a "
                   "heuristic that reaches the optimum there cannot know it; only an exact "
                   "method's proof closes the gap.")
    if early:
        out.append(f"At {_where(early)} heuristic runs that reached the proven optimum "
                   "ended before the colour bound was computed beside them (they carried "
                   "only the row and column maxima), so their placements stay unproven "
                   "there.")
    return out


def conclusions(summary: Sequence[dict[str, Any]]) -> list[str]:
    """The sentences of the report's and the table's conclusions."""
    if not summary:
        return []
    boards: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for e in summary:
        boards.setdefault(board_group(e), []).append(e)
    return [*(board_sentence(entries) for entries in boards.values()),
            *proof_sentences(summary)]
