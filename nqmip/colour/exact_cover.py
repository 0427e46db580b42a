"""Exact cover by randomised depth-first search with restarts (Algorithm X, numba).

Used by :mod:`nqmip.colour.search` to place n queens on prescribed diagonals
(:func:`nqmip.colour.lines.realisation_options`): every row, column, used
anti-diagonal and used diagonal must hold exactly one queen. The search branches on the
item with the fewest live options; each run stops after ``node_limit`` nodes and the next
one starts with another seed (restarts cut the heavy tail of depth-first search). A run
that ends without hitting its node limit has explored the whole tree: no cover exists.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nqmip.budget import Deadline


@dataclass(frozen=True)
class CoverOutcome:
    """What :func:`find_exact_cover` found: the chosen options, or why there are none."""

    options: np.ndarray | None  # indices of the chosen options, None if not found
    exhausted: bool  # True when a complete run proved that no exact cover exists
    runs: int


def item_index(opt_items: np.ndarray, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR arrays ``(item_ptr, item_opts)``: the options covering each item."""
    flat = opt_items.ravel()
    order = np.argsort(flat, kind="stable")
    item_opts = (order // opt_items.shape[1]).astype(np.int32)
    counts = np.bincount(flat, minlength=n_items)
    item_ptr = np.zeros(n_items + 1, dtype=np.int32)
    np.cumsum(counts, out=item_ptr[1:])
    return item_ptr, item_opts


def find_exact_cover(
    opt_items: np.ndarray,
    n_items: int,
    *,
    seed: int | None = 0,
    time_limit: float | Deadline = 5.0,
    node_limit: int = 1500,
    least_constraining: bool = True,
) -> CoverOutcome:
    """Options covering each of ``n_items`` items exactly once, by restarted search.

    ``opt_items`` is an (options x k) integer array: the k items each option covers.
    Restarts with a new seed every ``node_limit`` nodes until ``time_limit`` (seconds, or
    a :class:`~nqmip.budget.Deadline`: a cancel of it stops the search at its next
    restart, after at most ``node_limit`` nodes).
    ``least_constraining=False`` tries each item's options in random order instead (kept
    for benchmarks/bench_colour.py, which measures the two side by side).
    """
    from nqmip.colour.exact_cover_kernels import exact_cover

    opt_items = np.ascontiguousarray(opt_items, dtype=np.int32)
    if opt_items.ndim != 2:
        raise ValueError("opt_items must be a 2-D array (options x items per option)")
    if opt_items.size and (opt_items.min() < 0 or opt_items.max() >= n_items):
        raise ValueError("opt_items refers to an item outside 0..n_items-1")
    item_ptr, item_opts = item_index(opt_items, n_items)
    if np.any(np.diff(item_ptr) == 0):
        return CoverOutcome(None, True, 0)  # an item no option covers
    out = np.empty(n_items + 2, dtype=np.int32)
    rng = np.random.default_rng(seed)
    deadline = Deadline.of(time_limit)
    runs = 0
    while True:
        runs += 1
        code = exact_cover(opt_items, item_ptr, item_opts, node_limit,
                           int(rng.integers(2**31 - 1)), out, least_constraining)
        if code == 1:
            stop = int(np.flatnonzero(out == -1)[0])
            return CoverOutcome(out[:stop].copy(), False, runs)
        if code == 0:
            return CoverOutcome(None, True, runs)
        if deadline.expired():
            return CoverOutcome(None, False, runs)
