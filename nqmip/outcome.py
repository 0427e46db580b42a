"""Results built in one place: :func:`make_result` turns what a method ended with (a
placement or none, why it stopped, whether it proved, a bound) into a verified
:class:`~nqmip.result.Result`, with the status from the one map
:func:`nqmip.result.status_of` and the objective recomputed from the instance.

The instance's sense decides what the bound means (an upper bound when maximising, a lower
bound for costs) and the verifier checks it so; every method works on the maximisation
(:mod:`nqmip.sense`) and :func:`nqmip.solve` turns its result back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from nqmip.instance import Instance
from nqmip.result import (
    Counters,
    Provenance,
    Result,
    Status,
    Termination,
    Timing,
    as_placement,
    status_of,
)
from nqmip.verify import verified


def make_result(
    instance: Instance,
    method: str,
    placement: Sequence[int] | np.ndarray | None,
    termination: Termination,
    *,
    solver: str = "nqmip",
    proven: bool = False,
    bound: float | None = None,
    timing: Timing | None = None,
    counters: Counters | None = None,
    provenance: Provenance | None = None,
    seed: int | None = None,
    message: str = "",
    extra: dict[str, Any] | None = None,
    objective: float | None = None,
    scored: bool = True,
) -> Result:
    """The verified :class:`Result` of a method's outcome.

    ``proven``: the method proved what it holds (the placement optimal, or with none, that
    there is none). A proven placement's bound is its objective unless one is given.
    ``objective`` is recomputed from the placement (a value given is checked against it).
    The provenance, when not given, says the method found the placement and proved or
    bounded it itself. ``scored=False``: the order is not a number (the first solution in
    lexicographic order): no objective and no bound.
    """
    cols = None if placement is None else as_placement(placement)
    status = status_of(termination, cols is not None, proven)
    value = None if cols is None or not scored else instance.objective(cols)
    if status is Status.OPTIMAL and bound is None and scored:
        bound = value
    if status is not Status.OPTIMAL and termination is Termination.OPTIMAL:
        termination = Termination.ERROR  # "optimal" with nothing to show for it
    if provenance is None:
        provenance = Provenance(
            plan=(method,), proof="solver" if status in (Status.OPTIMAL, Status.INFEASIBLE)
            else None, bound_source="solver" if bound is not None else None,
            incumbent_source=method if cols is not None else None)
    result = Result(
        status=status, termination=termination, n=instance.n, method=method, solver=solver,
        objective=objective if value is None else value, bound=bound, placement=cols,
        timing=timing or Timing(), counters=counters or Counters(), provenance=provenance,
        sense=instance.sense, weights_name=instance.name, fixed=instance.fixed, seed=seed,
        message=message, extra=dict(extra or {}))
    if cols is not None and objective is not None and scored:
        result = result.with_(objective=objective)  # checked against the placement below
    return verified(instance, result)


def search_termination(complete: bool, exhausted: bool,
                       stopped_by: Termination | None) -> Termination:
    """How a complete search ended: ``complete`` (it found what it looks for) is optimal,
    ``exhausted`` (its tree holds nothing) infeasible, else ``stopped_by`` (default the
    time limit). The one map for every complete search (:func:`search_result`, lex-first)."""
    if complete:
        return Termination.OPTIMAL
    if exhausted:
        return Termination.INFEASIBLE
    return stopped_by or Termination.TIME_LIMIT


def stopped_words(termination: Termination) -> str:
    """What a stopped search's message says of its end."""
    return ("interrupted" if termination is Termination.INTERRUPTED
            else "stopped at the time limit")


def search_result(
    instance: Instance,
    method: str,
    placement: Sequence[int] | np.ndarray | None,
    *,
    complete: bool,
    exhausted: bool,
    stopped_by: Termination | None,
    nodes: int,
    seconds: float,
    solver: str,
    found: str,
    seed: int | None = None,
    scored: bool = True,
    extra: dict[str, Any] | None = None,
    note: str = "",
) -> Result:
    """The verified result of a complete search (the completion search, the lexicographic
    search): ``complete`` (it found what it looks for: proven), ``exhausted`` (its tree
    holds nothing: proven infeasible) or stopped (``stopped_by``, default the time limit;
    ``placement`` is then the best it met, or None). ``found`` names what it found, for the
    message; ``note`` is added to the message of a stopped search."""
    termination = search_termination(complete, exhausted, stopped_by)
    if complete:
        message = f"{found}, after {nodes} nodes"
    elif exhausted:
        message = f"no solution: the search tree ({nodes} nodes) is exhausted"
    else:
        message = f"{stopped_words(termination)} after {nodes} nodes{note}"
    proven = complete or exhausted
    return make_result(
        instance, method, placement, termination, solver=solver, proven=proven, seed=seed,
        timing=Timing(wall=seconds), counters=Counters(nodes=nodes), message=message,
        provenance=Provenance(plan=(method,), proof="solver" if proven else None,
                              bound_source="solver" if complete and scored else None,
                              incumbent_source=method if placement is not None else None),
        extra=extra, scored=scored)


def settled_by_fixed(instance: Instance, method: str, solver: str, seed: int | None,
                     begin: float) -> Result | None:
    """The answer when the fixed queens settle the instance before any search or model:
    every row taken (the fixed queens are the placement), one free row left (its one free
    square completes the placement), or a free row or column whose squares are all
    attacked (no completion). ``provenance.proof == "fixed_queens"``. None otherwise. The
    exact pipeline and every heuristic ask it first: a swap search needs two free rows to
    move at all."""
    if not instance.fixed:
        return None
    free = instance.n - len(instance.fixed)
    if free > max(1, 2 * len(instance.fixed)):
        # k fixed queens attack at most 2k squares of a free row (or column) through the
        # diagonals: none is blocked, and two or more rows are free. Not the free board's
        # F^2 squares (n = 10^6 with one fixed queen: 7.3 TiB asked, a traceback)
        return None
    import time

    from nqmip.board import free_board

    board = free_board(instance)
    reason = board.blocked()
    if board.rows.size > 1 and reason is None:
        return None
    # no free row, or one whose one free column leaves it one square (else it is blocked)
    placement = None if reason is not None else board.placement(range(board.num_cells))
    message = reason or ("every row holds a fixed queen" if not board.rows.size else
                         f"one free row, {int(board.rows[0])}: the fixed queens leave it "
                         "one square")
    return make_result(
        instance, method, placement,
        Termination.INFEASIBLE if reason is not None else Termination.OPTIMAL,
        solver=solver, proven=True, seed=seed,
        timing=Timing(wall=time.perf_counter() - begin), message=message,
        provenance=Provenance(plan=(method,), proof="fixed_queens",
                              incumbent_source="fixed" if placement is not None else None))
