"""The pictures that compare runs the way the field does: time-to-target plots,
performance profiles, and one board's incumbent, bound and primal integral against time.

- **Time and time to target against n**: the median time to target of each method (a
  cross at the time limit where fewer than half its runs reached it) and the median wall
  time (circled where a run hit a time limit).
- **Time-to-target plots** (R. M. Aiex, M. G. C. Resende and C. C. Ribeiro, "TTT-plots: a
  perl program to create time-to-target plots", Optimization Letters 1, 2007): per n and
  method, the empirical distribution of the time to target: the i-th smallest of R runs at
  probability ``i / R`` (so the curve reaches 1 when every run reached the target; the
  paper's plotting positions ``(i − ½) / R`` would stop at 5/6 with three runs and read
  as "not always"); runs that never reached it are censored (the curve stops below 1).
  Where every run reached it and R ≥ 5, the shifted exponential fitted through the first
  and third quartiles (the paper's quantile-quantile estimate) is drawn dotted, and the
  caption says so only when one is drawn.
- **Performance profiles** (E. D. Dolan and J. J. Moré, "Benchmarking optimization software
  with performance profiles", Mathematical Programming 91, 2002): per method, the share of
  boards on which its median time to target is within a factor τ of the best method's; a
  median that never reached it never counts.
- **One board's curves**: each method's incumbent (in its kind's line style) and bound
  (thin, dotted) against time on the largest board (first seed), the board's reference a
  thin grey line; beside it the primal
  integral ``P(t)`` (T. Berthold, "Measuring the impact of primal heuristics", Operations
  Research Letters 41, 2013) as it grows.

Each function returns a :class:`~nqmip.compare.canvas.Picture`: its panels are drawn side
by side in a file, one by one in the report.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from nqmip.compare.canvas import (
    Panel,
    Picture,
    Styles,
    label_of,
    legend_below,
    no_minor_labels,
)
from nqmip.compare.measures import (
    Reference,
    board_of,
    failed,
    number,
    points,
    primal_steps,
    references,
    time_to_target,
)
from nqmip.compare.summary import summarize

#: Fewest runs for the exponential fit of a time-to-target plot.
FIT_RUNS = 5


def picture_time(rows: Sequence[dict[str, Any]]) -> Picture:
    """Two panels against n, log scale: the median time to target (a cross at the time
    limit where fewer than half the runs reached it) and the median wall time (circled in
    red where a run hit a time limit)."""
    summary = summarize(rows)
    styles = Styles(rows)
    limit = max((float(r["time_limit"]) for r in rows if r.get("time_limit")), default=1.0)
    sizes = sorted({int(r["n"]) for r in rows})

    def axes(ax: Any, title: str) -> None:
        ax.set_yscale("log")
        ax.set_xlabel("n (board size)")
        ax.set_ylabel("seconds (log scale)")
        ax.set_xticks(sizes)
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)

    def to_target(ax: Any) -> None:
        missed = []
        for label in styles.labels:
            entries = [e for e in summary if label_of(e) == label]
            points = [(e["n"], max(e["ttt_median"], 1e-4)) for e in entries
                      if e["ttt_median"] is not None]
            missed += [(e["n"], limit) for e in entries
                       if e["ttt_median"] is None and e["target"] is not None]
            if points:
                ax.plot(*zip(*points, strict=True), **styles.line(label))
        if missed:
            ax.scatter(*zip(*missed, strict=True), marker="x", s=60, color="0.35", zorder=3,
                       label="median run never reached it (at the limit)")
        axes(ax, "time to target (median)")
        legend_below(ax)

    def wall(ax: Any) -> None:
        hit = []
        for label in styles.labels:
            entries = [e for e in summary if label_of(e) == label
                       and e["time_median"] is not None]
            if entries:
                ax.plot([e["n"] for e in entries],
                        [max(e["time_median"], 1e-4) for e in entries], **styles.line(label))
            hit += [(e["n"], max(e["time_median"], 1e-4)) for e in entries
                    if _hit_limit(rows, e)]
        if hit:
            ax.scatter(*zip(*hit, strict=True), s=160, facecolors="none", edgecolors="red",
                       linewidths=1.2, zorder=3, label="a run hit a time limit")
            legend_below(ax, handles=ax.collections[-1:])
        axes(ax, "wall time (median): to proof, target or limit")

    weights = ", ".join(sorted({str(r["weights"]) for r in rows}))
    return Picture(f"weights {weights}; medians over the runs of each n and method",
                   [to_target, wall])


def _hit_limit(rows: Sequence[dict[str, Any]], entry: dict[str, Any]) -> bool:
    return any(r.get("status") == "timeout" or r.get("termination") == "time_limit"
               for r in rows if r["n"] == entry["n"] and label_of(r) == label_of(entry)
               and r["weights"] == entry["weights"])


def ttt_points(times: Sequence[float], runs: int) -> tuple[list[float], list[float]]:
    """The points of a time-to-target plot: sorted times, probabilities ``i / R`` (the
    empirical distribution: 1 when all ``runs`` reached the target)."""
    ordered = sorted(times)
    return ordered, [(i + 1) / runs for i in range(len(ordered))]


def exponential_fit(times: Sequence[float]) -> tuple[float, float] | None:
    """The shift μ and scale λ of ``F(t) = 1 − exp(−(t − μ) / λ)`` through the first and
    third quartiles of the times (None when they coincide)."""
    q1, _, q3 = statistics.quantiles(times, n=4, method="inclusive")
    z1, z3 = -math.log(1 - 0.25), -math.log(1 - 0.75)
    scale = (q3 - q1) / (z3 - z1)
    if scale <= 0:
        return None
    return q1 - scale * z1, scale


def picture_ttt(rows: Sequence[dict[str, Any]]) -> Picture:
    """One time-to-target panel per n (see the module's docstring)."""
    styles = Styles(rows)
    refs = references(rows)

    def panel(n: int) -> Panel:
        def draw(ax: Any) -> None:
            drawn = False
            for label in styles.labels:
                group = [r for r in rows if r["n"] == n and label_of(r) == label]
                times = [t for r in group
                         if (t := time_to_target(r, refs[board_of(r)].value)) is not None]
                if times:
                    _ttt_line(ax, styles.line(label), times, len(group))
                    drawn = True
            ax.set_xscale("log")
            no_minor_labels(ax)
            ax.set_ylim(0, 1.02)
            ax.set_title(f"time to target, n = {n}")
            ax.set_xlabel("seconds (log scale)")
            ax.set_ylabel("share of runs at the target")
            ax.grid(True, which="both", alpha=0.3)
            if drawn:
                legend_below(ax)
            else:
                ax.text(0.5, 0.5, "no run reached the target", ha="center",
                        transform=ax.transAxes)

        return draw

    sizes = sorted({int(r["n"]) for r in rows})
    fitted = any(_fits(rows, refs, n, label) for n in sizes for label in styles.labels)
    fit = ("; dotted: the shifted exponential fitted where every run (5 or more) reached "
           "it" if fitted else "")
    return Picture("per n, the share of runs that had reached the board's target by each "
                   "time (each run a step; 1 when every run reached it); in the legend the "
                   "runs that reached it, of all runs; lines solid for exact methods, dashed "
                   f"for heuristics{fit}", [panel(n) for n in sizes])


def _fits(rows: Sequence[dict[str, Any]], refs: dict[tuple[Any, ...], Reference], n: int,
          label: str) -> bool:
    """Whether the time-to-target plot of ``label`` at ``n`` gets the exponential fit."""
    group = [r for r in rows if r["n"] == n and label_of(r) == label]
    times = [t for r in group if (t := time_to_target(r, refs[board_of(r)].value)) is not None]
    return len(times) == len(group) >= FIT_RUNS and exponential_fit(times) is not None


def _ttt_line(ax: Any, style: dict[str, Any], times: list[float], runs: int) -> None:
    """One method's time-to-target points, and the exponential fit where it applies."""
    xs, ys = ttt_points([max(t, 1e-4) for t in times], runs)
    ax.plot(xs, ys, drawstyle="steps-post", markersize=4,
            **{**style, "label": f"{style['label']} ({len(times)}/{runs})"})
    fit = exponential_fit(times) if len(times) == runs >= FIT_RUNS else None
    if fit is not None:
        shift, scale = fit
        low = max(shift, 1e-4)
        grid = [low * (max(xs) * 2 / low) ** (k / 60) for k in range(61)]
        ax.plot(grid, [max(0.0, 1 - math.exp(-(t - shift) / scale)) for t in grid],
                color=style["color"], linestyle=":", linewidth=1)


def profile(rows: Sequence[dict[str, Any]]) -> tuple[dict[str, list[float]], int]:
    """Each method's performance ratios over the boards (inf: its median run never
    reached the target), and the number of boards on which some method reached it."""
    refs = references(rows)
    medians: dict[tuple[Any, ...], dict[str, float]] = {}
    for board in refs:
        by_label: dict[str, list[float]] = {}
        for r in rows:
            if board_of(r) == board:
                t = time_to_target(r, refs[board].value)
                by_label.setdefault(label_of(r), []).append(math.inf if t is None else t)
        medians[board] = {lab: statistics.median(ts) for lab, ts in by_label.items()}
    labels = list(dict.fromkeys(label_of(r) for r in rows))
    ratios: dict[str, list[float]] = {lab: [] for lab in labels}
    boards = 0
    for times in medians.values():
        best = min(times.values())
        if not math.isfinite(best):
            continue
        boards += 1
        for lab in labels:
            t = times.get(lab, math.inf)
            ratios[lab].append(t / max(best, 1e-6) if math.isfinite(t) else math.inf)
    return ratios, boards


def picture_profile(rows: Sequence[dict[str, Any]]) -> Picture:
    """The performance profile of the median time to target over the boards."""
    styles = Styles(rows)
    ratios, boards = profile(rows)

    def draw(ax: Any) -> None:
        finite = [r for rs in ratios.values() for r in rs if math.isfinite(r)]
        top = max([*finite, 2.0]) * 1.5
        for label, values in ratios.items():
            if not boards:
                break
            xs = [1.0, *sorted(v for v in values if math.isfinite(v)), top]
            ys = [sum(v <= x for v in values) / boards for x in xs]
            ax.plot(xs, ys, drawstyle="steps-post", markevery=list(range(1, len(xs) - 1)),
                    markersize=5, **styles.line(label))
        ax.set_xscale("log", base=2)
        ax.set_xlim(1, top)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("τ: within this factor of the best time to target (log₂)")
        ax.set_ylabel("share of boards")
        ax.set_title(f"performance profile over {boards} boards")
        ax.grid(True, which="both", alpha=0.3)
        if boards:
            legend_below(ax)
        else:
            ax.text(0.5, 0.5, "no method reached a target", ha="center",
                    transform=ax.transAxes)

    return Picture("the share of boards on which a method's median time to target is within "
                   "a factor τ of the best method's", [draw])


def curve_board(rows: Sequence[dict[str, Any]]) -> tuple[Any, ...] | None:
    """The board whose curves are drawn: the largest n's first board (of the rows' order)."""
    done = [r for r in rows if not failed(r)]
    if not done:
        return None
    largest = max(int(r["n"]) for r in done)
    return next(board_of(r) for r in done if r["n"] == largest)


def _first_runs(rows: Sequence[dict[str, Any]], board: tuple[Any, ...]
                ) -> dict[str, dict[str, Any]]:
    """Each method's first run (lowest repeat) on the board."""
    runs: dict[str, dict[str, Any]] = {}
    for r in sorted((r for r in rows if board_of(r) == board),
                    key=lambda r: r.get("repeat") or 0):
        runs.setdefault(label_of(r), r)
    return runs


def picture_curve(rows: Sequence[dict[str, Any]]) -> Picture:
    """Incumbent and bound against time on one board (:func:`curve_board`), and each
    method's primal integral as it grows over the time limit."""
    styles = Styles(rows)
    board = curve_board(rows)
    if board is None:
        def nothing(ax: Any) -> None:
            ax.text(0.5, 0.5, "no run finished", ha="center", transform=ax.transAxes)

        return Picture("no run finished", [nothing])
    ref = references(rows)[board]
    runs = _first_runs(rows, board)
    horizon = max(number(r.get("time_limit")) or 1.0 for r in runs.values())
    n, weights, drawn, _, sense, fixed = board
    seed = "" if drawn is None else f", weights seed {drawn}"
    seed += (", costs minimised" if sense == "min" else "") + \
        (f", {len(fixed)} fixed queens" if fixed else "")

    def axes(ax: Any, title: str, ylabel: str) -> None:
        ax.set_xscale("log")
        no_minor_labels(ax)
        ax.set_xlim(1e-3, horizon * 1.05)
        ax.set_xlabel("seconds since the call began (log scale)")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        legend_below(ax)

    def incumbents(ax: Any) -> None:
        for label, row in runs.items():
            _curve(ax, styles.line(label), row)
        if ref.value is not None:
            ax.axhline(ref.value, color="0.55", linestyle="-", linewidth=0.8,
                       label=f"reference {ref.value:g} ({ref.source})")
        axes(ax, f"incumbent and bound (dotted): n = {n}{seed}", "objective")

    def integrals(ax: Any) -> None:
        for label, row in runs.items():
            _integral(ax, styles.line(label), row, ref, horizon)
        axes(ax, f"primal integral P(t): n = {n}{seed}", "P(t), seconds of full gap")

    return Picture(f"n = {n}, {weights}{seed}: each method's first run, its incumbent solid "
                   "for exact methods and dashed for heuristics, its bound thin and dotted, "
                   "the reference grey; the primal gap is measured against the reference "
                   f"{_g(ref.value)}", [incumbents, integrals])


def _g(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _curve(ax: Any, style: dict[str, Any], row: dict[str, Any]) -> None:
    """A run's incumbent (its kind's line style) and bound (thin, dotted) as steps, held
    to its end."""
    pts = points(row)
    end = max(number(row.get("wall_time")) or 0.0, 1e-3)
    incumbent = [(max(t, 1e-3), v) for t, v, _ in pts if v is not None]
    bound = [(max(t, 1e-3), b) for t, _, b in pts if b is not None]
    for series, dash, name, width in ((incumbent, style["linestyle"], style["label"], 1.4),
                                      (bound, ":", None, 1.0)):
        if series:
            series = [*series, (end, series[-1][1])]
            ax.plot(*zip(*series, strict=True), drawstyle="steps-post", color=style["color"],
                    linestyle=dash, label=name, linewidth=width)


def _integral(ax: Any, style: dict[str, Any], row: dict[str, Any], ref: Reference,
              horizon: float) -> None:
    """A run's primal integral P(t) as it grows, to the horizon."""
    if ref.value is None:
        return
    steps = primal_steps(row, ref.value, horizon)
    xs, ys, area = [], [], 0.0
    for (start, gap), (stop, _) in zip(steps, [*steps[1:], (horizon, 0.0)], strict=True):
        xs.append(max(start, 1e-3))
        ys.append(area)
        area += gap * max(stop - start, 0.0)
    xs.append(horizon)
    ys.append(area)
    ax.plot(xs, ys, color=style["color"], linestyle=style["linestyle"],
            label=f"{style['label']}: {area:.3g} s")
