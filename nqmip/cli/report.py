"""What ``solve-weighted`` prints, in words a student reads.

The board is drawn as a chess diagram: rank 1 at the bottom, files a, b, … from the left.
Row ``r``, column ``c`` (0-based, as ``--fix r,c`` and the JSON placement count) is the
square of file ``c + 1`` and rank ``r + 1``: ``--fix 0,4`` is ``e1``. Past 26 files the
names go on as in a spreadsheet (``aa``, ``ab``, …). On a terminal the squares are
coloured; written to a pipe or a file the board has no control characters and never
wraps: ``Q`` a queen, ``F`` a fixed (pre-placed) queen, ``:`` an empty black square,
``.`` an empty white one. Boards wider than the console, or than :data:`BOARD_LIMIT`, are
summarised instead of drawn.
"""

from __future__ import annotations

import errno
import math
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from nqmip import numba_cache
from nqmip.drawing import file_name
from nqmip.instance import Instance
from nqmip.progress import Progress, ProgressCallback
from nqmip.result import Result, Status, Termination

BOARD_LIMIT = 64  # larger boards are summarised, not drawn

#: Where a bound comes from, in words.
BOUND_WORDS = {
    "solver": "the solver's branch and bound",
    "colour_bound": "the colour bound (a count of the queens black squares can hold)",
    "lp_relaxation": "the LP relaxation",
    "row_column_maxima": "the best square of each row",
    "exhaustive": "every placement, each looked at",
    "reported": "the method's last report before it was stopped",
}
#: What proves optimality, in words.
PROOF_WORDS = {
    "solver": "the solver's branch and bound",
    "colour_bound": "the colour bound: it reaches the most black-square queens possible",
    "bound": "reaching {side} bound",
    "fixed_queens": "the fixed queens: they leave no other way to finish",
    "exhaustive": "looking at every placement",
}
LEGEND = ("objective: the queens' total weight (higher is better)\n"
          "bound: no placement can score more · gap: (bound - objective) / objective")
LEGEND_MIN = ("objective: the queens' total cost (lower is better)\n"
              "bound: no placement can cost less · gap: (objective - bound) / objective")


def is_black(row: int, col: int) -> bool:
    return (row + col) % 2 == 0


def square_name(row: int, col: int) -> str:
    """Chess name of row ``row``, column ``col`` (0-based): (0, 0) is a1, a black corner."""
    return f"{file_name(col)}{row + 1}"


def board_text(placement: Sequence[int] | np.ndarray, n: int,
               fixed: Sequence[tuple[int, int]] = ()) -> Text:
    """The diagram, rank n at the top and rank 1 at the bottom, files labelled below."""
    fixed_squares = set(fixed)
    text = Text()
    width = len(str(n))
    for row in reversed(range(n)):
        text.append(f"{row + 1:>{width}} ", style="dim")
        for col in range(n):
            black = is_black(row, col)
            background = "on grey30" if black else "on grey82"
            if placement[row] == col:
                mark = "F" if (row, col) in fixed_squares else "Q"
                text.append(f" {mark}", style=f"bold red {background}")
            else:
                text.append(" :" if black else " .", style=f"grey50 {background}")
        text.append("\n")
    names = [file_name(c) for c in range(n)]
    for line in range(max(len(name) for name in names)):
        labels = "".join(f" {name[line] if line < len(name) else ' '}" for name in names)
        text.append(" " * (width + 1) + labels + "\n", style="dim")
    return text


def queens_table(result: Result, instance: Instance) -> Table:
    fixed = set(instance.fixed)
    table = Table(title="Queens", show_edge=False)
    columns = ("square", "row", "col", "colour", "weight") + (("",) if fixed else ())
    for column in columns:
        table.add_column(column, justify="left" if column in ("colour", "") else "right")
    assert result.placement is not None
    cols = np.asarray(result.placement, dtype=np.int64)
    weights = instance.weights_at(np.arange(instance.n), cols)
    for row, col in enumerate(result.placement):
        cells = [square_name(row, col), str(row), str(col),
                 "black" if is_black(row, col) else "white", number(float(weights[row]))]
        table.add_row(*cells, *(["fixed" if (row, col) in fixed else ""] if fixed else []))
    return table


def number(value: float | None) -> str:
    """A value as a student writes it: an integer where it is one."""
    if value is None:
        return "-"
    if math.isfinite(value) and float(value).is_integer():
        return str(int(value))
    return f"{value:.6g}"


def verdict(result: Result) -> str:
    """One sentence: what the result is and what proves it."""
    how = result.provenance
    if result.method.startswith("lex-first"):
        if result.status == Status.OPTIMAL:
            return ("Proven: the lexicographically first solution (each row's column is the "
                    "smallest that can still be completed).")
        if result.status == Status.INFEASIBLE:
            return "Proven: no solution exists (the search tree is exhausted)."
        if result.placement is None:
            return "No solution found within the limits."
        rows = result.extra.get("proven_rows", 0)
        return (f"Time limit: the first {rows} rows are proven the smallest; the rest is the "
                "smallest solution found so far.")
    if result.status == Status.OPTIMAL:
        proof = PROOF_WORDS.get(how.proof or "", how.proof or "the solver")
        side = "a lower" if result.sense == "min" else "an upper"
        return f"Proven optimal by {proof.format(side=side)}."
    if result.status == Status.INFEASIBLE:
        return "Proven infeasible: no placement of n queens exists here."
    if result.placement is None and result.termination is Termination.ERROR:
        return "The solver failed before it found a placement (the note says why)."
    if result.placement is None:
        return "No placement found within the limits."
    stopped = {Termination.INTERRUPTED: "Interrupted",
               Termination.TIME_LIMIT: "Time limit reached",
               Termination.TARGET: "Target reached"}.get(result.termination)
    head = f"{stopped} after {result.wall_time:.1f} s: best" if stopped else "Best"
    text = f"{head} placement found, objective {number(result.objective)}"
    if result.bound is None or result.gap is None:
        side = "lower" if result.sense == "min" else "upper"
        return text + f"; no {side} bound known, so not proven optimal."
    source = BOUND_WORDS.get(how.bound_source or "", how.bound_source or "a bound")
    side = "lower" if result.sense == "min" else "upper"
    return (text + f"; {side} bound {number(result.bound)} from {source}, "
            f"gap {result.gap:.1%}: not proven optimal.")


def result_table(result: Result) -> Table:
    table = Table(show_header=False, show_edge=False, box=None)
    table.add_column(style="bold")
    table.add_column()
    gap = result.gap
    rows = [] if weighs_nothing(result) else [  # lex-first: an order, no objective
        ("objective", number(result.objective)),
        ("bound", number(result.bound)),
        ("gap", "-" if gap is None else f"{gap:.2%}")]
    rows += [
        ("time", f"{result.wall_time:.2f} s"),
        ("method", how_obtained(result)),
    ]
    proven = result.extra.get("proven_rows")
    if weighs_nothing(result) and proven is not None and result.placement is not None \
            and result.status not in (Status.OPTIMAL, Status.INFEASIBLE):
        rows.append(("proven rows", f"{proven}: "
                     + (",".join(map(str, result.placement[:proven])) or "none")))
    timing = result.timing
    if timing.to_best is not None and result.objective is not None:
        rows.append(("found at", f"{timing.to_best:.2f} s (the best placement)"))
    if result.seed is not None:
        rows.append(("seed", str(result.seed)))
    if result.extra.get("threads") is not None:  # set only when fewer ran than were asked
        rows.append(("threads", f"{result.extra['threads']} ran, fewer than asked (at most the "
                                "cores there are; CP-SAT with a warm start runs one)"))
    if timing.compile and numba_cache.compiles():  # numba compiled kernels in this run
        rows.append(("compile time", f"{timing.compile:.2f} s of it (numba, once per "
                                     "machine: later runs load the kernels from its cache)"))
    elif timing.compile:  # every kernel came from numba's cache: nothing compiled
        rows.append(("kernel load", f"{timing.compile:.2f} s of it (numba's compiled kernels, "
                                    "from its cache)"))
    accepted = result.provenance.start_accepted
    if accepted is not None:
        rows.append(("warm start", "accepted" if accepted else "refused"))
    if result.message:
        rows.append(("note", result.message))
    for label, value in rows:
        table.add_row(label, Text(value))  # Text: no rich markup in solver messages
    return table


def how_obtained(result: Result) -> str:
    """The method and the steps it took, in words."""
    steps = [step for step in result.provenance.plan if step != result.method]
    solver = result.solver if result.solver not in ("", "nqmip", result.method) else ""
    text = result.method + (f" ({solver})" if solver else "")
    if steps:
        text += ", steps: " + ", then ".join(steps)
    return text


class _Console(Console):
    """rich's console, but a reader that went away is the command's to answer
    (:func:`nqmip.cli.streams.deliver`), not rich's ``SystemExit(1)``."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError(errno.EPIPE, "the reader of standard output went away")


def board_console(n: int) -> Console:
    """Standard output for boards: coloured on a terminal; on a pipe or a file as wide as
    an n-board needs, so that it never wraps."""
    console = _Console(highlight=False)
    if not console.is_terminal:
        console = _Console(highlight=False, width=max(100, 2 * n + 10))
    return console


def print_result(result: Result, instance: Instance, console: Console | None = None) -> None:
    n = instance.n
    if console is None:
        console = board_console(n)
    console.print(f"[bold]{n}-queens[/bold], weights: {describe_weights(instance)}"
                  + (f", {len(instance.fixed)} fixed queens" if instance.fixed else ""))
    if result.placement is not None:
        if n <= BOARD_LIMIT and 2 * n + 6 <= console.width:
            console.print(board_text(result.placement, n, instance.fixed), end="")
            console.print("Q queen  F fixed queen  : black square  . white square\n"
                          "rows and columns count from 0, as --fix does: row 0 is rank 1, "
                          "column 0 is file a")
            console.print(queens_table(result, instance))
        else:
            blacks = sum(is_black(r, c) for r, c in enumerate(result.placement))
            console.print(f"{n} queens, {blacks} on black squares; the board is too large "
                          f"to draw here: --svg FILE or --png FILE draws it, --output FILE "
                          "writes the placement.")
    console.print(verdict(result))
    console.print(result_table(result))
    if not weighs_nothing(result):  # the legend of weights: lex-first weighs none
        console.print(f"[dim]{LEGEND_MIN if result.sense == 'min' else LEGEND}[/dim]")


def describe_weights(instance: Instance) -> str:
    if instance.is_feasibility:
        return "none (place n queens)"
    if instance.sense == "min":
        return f"{instance.name} as costs (minimise)"
    colours = instance.colours
    if instance.name == "chess" and colours is not None:
        return (f"chess (black squares worth {number(colours.black)}, "
                f"white {number(colours.white)})")
    return instance.name


def weighs_nothing(result: Result) -> bool:
    """A result of ``--lex-first``, which orders placements and weighs none."""
    return result.objective is None and result.method.startswith("lex-first")


def summary_line(result: Result) -> str:
    """One short line: status, objective, bound, gap and time, and for a run that did not
    settle its question why it stopped (``stopped=interrupted``, ``stopped=time_limit``:
    the exit status alone said a stop before). A result without an objective
    (``--lex-first`` orders placements, it weighs none) shows its placement, the column of
    each row from row 0, instead."""
    settled = result.status in (Status.OPTIMAL, Status.INFEASIBLE)
    why = "" if settled else f" stopped={result.termination}"
    if weighs_nothing(result):
        columns = "-" if result.placement is None else ",".join(map(str, result.placement))
        rows = result.extra.get("proven_rows")
        proven = f" proven_rows={rows}" if rows is not None and not settled else ""
        return f"{result.status} placement={columns}{proven} time={result.wall_time:.2f}s{why}"
    gap = "-" if result.gap is None else f"{result.gap:.2%}"
    return (f"{result.status} objective={number(result.objective)} "
            f"bound={number(result.bound)} gap={gap} time={result.wall_time:.2f}s{why}")


class LiveLine:
    """The text of the live line: the method, the best objective and the best bound heard
    so far, in the run's sense (costs: the lowest objective and the highest lower bound),
    the gap between them as :attr:`nqmip.result.Result.gap` counts it, and what the
    method says it is doing."""

    def __init__(self, sense: str = "max") -> None:
        self.minimise = sense == "min"
        self.incumbent: float | None = None
        self.bound: float | None = None
        self.note = ""  # until the method says it is over

    def __call__(self, report: Progress) -> str:
        better, tighter = (min, max) if self.minimise else (max, min)
        if report.note is not None:
            self.note = report.note
        if report.incumbent is not None:
            self.incumbent = report.incumbent if self.incumbent is None \
                else better(self.incumbent, report.incumbent)
        if report.bound is not None:
            self.bound = report.bound if self.bound is None \
                else tighter(self.bound, report.bound)
        parts = [report.method]
        if self.incumbent is not None:
            parts.append(f"best {number(self.incumbent)}")
        if self.bound is not None:
            parts.append(f"bound {number(self.bound)}")
        if self.incumbent is not None and self.bound is not None:
            short = (self.incumbent - self.bound if self.minimise
                     else self.bound - self.incumbent)
            parts.append(f"gap {max(short, 0.0) / max(1.0, abs(self.incumbent)):.1%}")
        if report.conflicts is not None:
            parts.append(f"conflicts left {report.conflicts}")
        if self.note:
            parts.append(self.note)
        return "  ".join(parts)


@contextmanager
def live_progress(enabled: bool, method: str = "", sense: str = "max"
                  ) -> Iterator[ProgressCallback | None]:
    """A live line on stderr while a solve runs (:class:`LiveLine`), the elapsed time
    beside it. Only on a terminal, so pipes and files get no control characters."""
    if not enabled or sys.stderr is None or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import Progress as Bar
    from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
               TextColumn("{task.fields[info]}"))
    line = LiveLine(sense)
    with Bar(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(f"{method} (Ctrl-C: stop, print the best)", info="")

        def on_progress(report: Progress) -> None:
            bar.update(task, info=line(report))

        yield on_progress
