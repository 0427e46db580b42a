"""A solved model's placement, read back: one reading for the backends (through Pyomo)
and for :func:`~nqmip.formulation.roundtrip.result_from_model`, and its error."""

from __future__ import annotations

from collections.abc import Sequence


class ModelError(ValueError):
    """A model that gives no result: not one of :func:`~nqmip.formulation.build_model`,
    not solved, or holding no placement (a fractional solution, a row of two queens)."""


def placement_of(chosen: Sequence[tuple[int, int]], fixed: dict[int, int],
                 n: int) -> tuple[int, ...]:
    """The placement (column per row) of the chosen cells and the fixed queens;
    ModelError unless every row holds exactly one queen."""
    cols: dict[int, int] = dict(fixed)
    for i, j in chosen:
        if i in cols:
            raise ModelError(f"row {i} holds two queens in the solution")
        cols[i] = j
    missing = [i for i in range(n) if i not in cols]
    if missing:
        raise ModelError(f"row {missing[0]} holds no queen in the solution")
    return tuple(cols[i] for i in range(n))
