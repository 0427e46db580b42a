"""Human-readable output with rich: the board, the queens and the result.

On a terminal the squares are coloured; written to a pipe or a file, rich emits no control
characters and the board stays readable: ``Q`` a queen, ``:`` an empty black square,
``.`` an empty white one.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from nqmip.instance import Instance
from nqmip.result import Result

BOARD_LIMIT = 64  # larger boards are summarised, not drawn


def is_black(row: int, col: int) -> bool:
    return (row + col) % 2 == 0


def square_name(row: int, col: int, n: int) -> str:
    """Chess-like name: file letter for the column, rank ``row + 1`` (so (0, 0) is a1, the
    black corner, as in chess and in the reference notebook's 1-based i + j even rule)."""
    if n <= 26:
        return f"{string.ascii_lowercase[col]}{row + 1}"
    return f"({row},{col})"


def board_text(placement: Sequence[int] | np.ndarray, n: int) -> Text:
    text = Text()
    width = len(str(n))
    for row in range(n):
        text.append(f"{row + 1:>{width}}", style="dim")
        for col in range(n):
            black = is_black(row, col)
            background = "on grey30" if black else "on grey82"
            if placement[row] == col:
                text.append(" Q", style=f"bold red {background}")
            else:
                text.append(" :" if black else " .", style=f"grey50 {background}")
        text.append("\n")
    if n <= 26:
        text.append(" " * width + "".join(f" {string.ascii_lowercase[c]}" for c in range(n)),
                    style="dim")
        text.append("\n")
    return text


def queens_table(result: Result, instance: Instance) -> Table:
    table = Table(title="Queens", show_edge=False)
    for column in ("row", "col", "square", "colour", "weight"):
        table.add_column(column, justify="right" if column != "colour" else "left")
    weights = instance.weight_matrix()
    assert result.placement is not None
    for row, col in enumerate(result.placement):
        table.add_row(
            str(row), str(col), square_name(row, col, instance.n),
            "black" if is_black(row, col) else "white", f"{weights[row, col]:g}",
        )
    return table


def result_table(result: Result) -> Table:
    table = Table(show_header=False, show_edge=False, box=None)
    table.add_column(style="bold")
    table.add_column()
    gap = result.gap
    rows = [
        ("status", f"{result.status} ({result.termination})"),
        ("objective", "-" if result.objective is None else f"{result.objective:g}"),
        ("bound", "-" if result.bound is None else f"{result.bound:g}"),
        ("gap", "-" if gap is None else f"{gap:.2%}"),
        ("method", result.method if result.solver in ("", result.method)
         else f"{result.method} ({result.solver})"),
        ("time", f"{result.wall_time:.3f} s"),
    ]
    how = result.provenance
    if len(how.plan) > 1 or (how.plan and how.plan[0] != result.method):
        rows.append(("plan", " -> ".join(how.plan)))
    if how.proof is not None and result.status == "optimal":
        rows.append(("proof", how.proof.replace("_", " ")))
    if how.bound_source is not None and how.bound_source != "solver":
        rows.append(("bound from", how.bound_source.replace("_", " ")))
    for label in ("evaluations", "iterations", "improvements", "nodes"):
        value = getattr(result, label)
        if value is not None:
            rows.append((label, str(value)))
    if result.compile_time is not None:
        rows.append(("compile time", f"{result.compile_time:.3f} s (not in time)"))
    if result.warm_start_accepted is not None:
        rows.append(("warm start", "accepted" if result.warm_start_accepted else "refused"))
    if result.message:
        rows.append(("message", result.message))
    for label, value in rows:
        table.add_row(label, Text(value))  # Text: no rich markup in solver messages
    return table


def print_result(result: Result, instance: Instance, console: Console | None = None) -> None:
    console = console or Console(highlight=False)
    console.print(f"[bold]{instance.n}-queens[/bold], weights: {instance.name}"
                  + (f", fixed queens: {list(instance.fixed)}" if instance.fixed else ""))
    if result.placement is not None:
        if instance.n <= BOARD_LIMIT:
            console.print(board_text(result.placement, instance.n), end="")
            console.print("Q queen   : black square   . white square")
            console.print(queens_table(result, instance))
        else:
            blacks = sum(is_black(r, c) for r, c in enumerate(result.placement))
            console.print(f"{instance.n} queens ({blacks} on black squares); board too large "
                          f"to draw: use --json for the placement")
    else:
        console.print("No placement: " + (
            "the instance has no solution." if result.status == "infeasible"
            else "none found within the limits."))
    console.print(result_table(result))
