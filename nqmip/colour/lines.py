"""Line sets: which anti-diagonals and diagonals a placement uses, and what follows.

A placement of n queens uses n distinct anti-diagonals ``s = i + j`` and n distinct
diagonals ``d = i - j``; a queen is black iff ``s`` (equivalently ``d``) is even. The
*line model* is the small integer program over the indicators ``u_s`` and ``v_d`` of
:mod:`nqmip.formulation.line_model` (the identities ``sum s = n(n-1)``, ``sum d = 0``,
``sum s^2 + sum d^2 = 4 sum_{k<n} k^2`` and the corner caps; proofs in
docs/formulation-strengthening.md), with the number of black queens fixed. Every
placement with that many black queens gives one of its solutions, a *line set* ``(S, D)``.

Given a line set, the placements that use exactly those lines are the exact covers of
rows, columns, ``S`` and ``D`` by the squares lying on a line of ``S`` and one of ``D``
(:func:`realisation_options`): each row, column and used line holds exactly one queen.
Two uses:

- **Search** (:mod:`nqmip.colour.search`): sample a line set at the target
  count, then look for an exact cover. At the colour bound the identities leave few
  choices, which is what a search over permutations does not see.
- **Refutation** (:func:`refute_black_count`): when *all* line sets at a count can be
  enumerated and none has an exact cover (HiGHS, or else CP-SAT, proves each small
  cover model infeasible), no placement has that many black queens: the colour bound
  drops by the next parity step. This closed chess n = 47 (docs/frontier.md).
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from nqmip import highs_threads
from nqmip.budget import MIN_SOLVER_SECONDS, Deadline
from nqmip.formulation.cpsat import cp_solver

#: Seconds CP-SAT gets to sample one line set (it usually takes well under a second).
SAMPLE_TIME_LIMIT = 2.0


@dataclass(frozen=True)
class LineSet:
    """The anti-diagonals ``s = i + j`` and diagonals ``d = i - j`` a placement uses."""

    anti: tuple[int, ...]
    diag: tuple[int, ...]

    @classmethod
    def of(cls, placement: Any) -> LineSet:
        p = np.asarray(placement, dtype=np.int64)
        rows = np.arange(p.size)
        return cls(tuple(sorted((rows + p).tolist())), tuple(sorted((rows - p).tolist())))


def placement_of(n: int, chosen: np.ndarray) -> tuple[int, ...]:
    """The placement (column per row) of the n chosen cells ``(row, column)`` of a cover."""
    placement = np.empty(n, dtype=np.int64)
    placement[chosen[:, 0]] = chosen[:, 1]
    return tuple(int(c) for c in placement)


def line_model(
    n: int, black: int, fixed: tuple[tuple[int, int], ...] = ()
) -> tuple[Any, list[Any], list[Any]]:
    """The CP-SAT line model with ``black`` black queens: ``(model, u, v)`` (see
    :func:`nqmip.formulation.line_model.to_cpsat`; the fixed queens' lines are forced on)."""
    from nqmip.formulation.line_model import line_model as describe
    from nqmip.formulation.line_model import to_cpsat

    return to_cpsat(describe(n, fixed), black)


def _line_set(solver: Any, n: int, u: list[Any], v: list[Any]) -> LineSet:
    return LineSet(tuple(s for s, x in enumerate(u) if solver.BooleanValue(x)),
                   tuple(k - (n - 1) for k, x in enumerate(v) if solver.BooleanValue(x)))


class Sample(enum.Enum):
    NONE_EXIST = "none exist"  # the line model is infeasible: no placement has the count
    TIME_LIMIT = "time limit"


def sample_line_set(
    n: int,
    black: int,
    fixed: tuple[tuple[int, int], ...] = (),
    *,
    seed: int = 0,
    time_limit: float | Deadline = SAMPLE_TIME_LIMIT,
) -> LineSet | Sample:
    """One line set with ``black`` black queens: CP-SAT's first solution from a random hint
    and a randomised search (``seed``). Measured on chess n = 60, 61 against maximising a
    random objective: faster to sample, and as often realisable (5 vs 4 of 10 at n = 60)."""

    model, u, v = line_model(n, black, fixed)
    return _solve_sample(model, n, u, v, seed, time_limit)


def sample_symmetric_line_set(
    n: int, black: int, *, seed: int = 0, time_limit: float | Deadline = SAMPLE_TIME_LIMIT,
    quarter: bool = False,
) -> LineSet | Sample:
    """One line set of a placement symmetric under the half turn, like
    :func:`sample_line_set` (no fixed queens).

    The half turn ``(i, j) -> (n-1-i, n-1-j)`` maps the anti-diagonal ``s`` to
    ``2n-2-s`` (same colour) and the diagonal ``d`` to ``-d``; a symmetric placement uses
    ``s`` iff it uses ``2n-2-s`` and ``d`` iff ``-d``, and the centre lines ``s = n-1``,
    ``d = 0`` only for the centre queen of an odd board (two queens of a pair on them would
    attack each other). ``NONE_EXIST`` says no *symmetric* placement has the count.

    ``quarter``: symmetric under the quarter turn ``(i, j) -> (j, n-1-i)`` (odd ``n``; it
    keeps the colours): it maps the anti-diagonal ``s`` to the diagonal ``s - (n-1)``, so
    a placement uses ``s`` iff it uses that diagonal (see :func:`quarter_realisation_options`).
    """

    model, u, v = line_model(n, black)
    m = 2 * n - 1
    for k in range(n - 1):
        model.Add(u[k] == u[m - 1 - k])
        model.Add(v[k] == v[m - 1 - k])
    model.Add(u[n - 1] == n % 2)
    model.Add(v[n - 1] == n % 2)
    if quarter:
        for k in range(m):  # v[k] is the diagonal d = k - (n-1)
            model.Add(u[k] == v[k])
    return _solve_sample(model, n, u, v, seed, time_limit)


def _solve_sample(model: Any, n: int, u: list[Any], v: list[Any], seed: int,
                  time_limit: float | Deadline) -> LineSet | Sample:
    """Solve a line model from random hints (one seeded CP-SAT worker): its line set,
    ``NONE_EXIST`` when infeasible, ``TIME_LIMIT`` otherwise."""
    from ortools.sat.python import cp_model

    rng = np.random.default_rng(seed)
    for x, bit in zip(u + v, rng.integers(0, 2, size=2 * len(u)), strict=True):
        model.AddHint(x, int(bit))
    solver = cp_solver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = int(seed) % (2**31)
    solver.parameters.randomize_search = True
    status = _solve_within(solver, model, time_limit)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return _line_set(solver, n, u, v)
    if status == cp_model.INFEASIBLE:
        return Sample.NONE_EXIST
    return Sample.TIME_LIMIT


def symmetric_realisation_options(
    n: int, lines: LineSet
) -> tuple[np.ndarray, np.ndarray, int]:
    """``(cells, opt_items, n_items)`` of the exact cover whose solutions are the
    half-turn-symmetric placements on ``lines`` (from :func:`sample_symmetric_line_set`).

    An option is a pair of squares ``(i, j)``, ``(n-1-i, n-1-j)`` with ``i < n // 2``;
    its items are the pairs of rows, of columns, of anti-diagonals ``{s, 2n-2-s}`` and of
    diagonals ``{d, -d}`` it occupies, ``n // 2`` of each (the centre queen of an odd
    board is implied). :func:`symmetric_placement` turns a cover into the placement.
    """
    h = n // 2
    s_rank = np.full(2 * n - 1, -1, dtype=np.int64)
    below = [s for s in lines.anti if s < n - 1]
    s_rank[below] = np.arange(len(below))
    d_rank = np.full(n, -1, dtype=np.int64)  # index: |d|
    negative = [-d for d in lines.diag if d < 0]
    d_rank[negative] = np.arange(len(negative))
    i, j = np.indices((h, n))
    i, j = i.ravel(), j.ravel()
    s = i + j
    d = np.abs(i - j)
    pair_s = np.minimum(s, 2 * n - 2 - s)
    keep = (s != n - 1) & (d != 0) & (s_rank[pair_s] >= 0) & (d_rank[d] >= 0)
    if n % 2:
        keep &= j != h  # the centre column holds the centre queen
    i, j, pair_s, d = i[keep], j[keep], pair_s[keep], d[keep]
    cells = np.stack([i, j], axis=1)
    opt_items = np.stack([i, h + np.minimum(j, n - 1 - j), 2 * h + s_rank[pair_s],
                          3 * h + d_rank[d]], axis=1).astype(np.int32)
    return cells, opt_items, 4 * h


def symmetric_placement(n: int, chosen: np.ndarray) -> tuple[int, ...]:
    """The placement of the chosen pairs of :func:`symmetric_realisation_options`."""
    placement = np.empty(n, dtype=np.int64)
    placement[chosen[:, 0]] = chosen[:, 1]
    placement[n - 1 - chosen[:, 0]] = n - 1 - chosen[:, 1]
    if n % 2:
        placement[n // 2] = n // 2
    return tuple(int(c) for c in placement)


def quarter_realisation_options(
    n: int, lines: LineSet
) -> tuple[np.ndarray, np.ndarray, int]:
    """``(cells, opt_items, n_items)`` of the exact cover whose solutions are the
    quarter-turn-symmetric placements on ``lines`` (odd ``n``, from
    :func:`sample_symmetric_line_set` with ``quarter=True``).

    The centre queen aside, such a placement is ``(n-1)/4`` orbits of four squares
    ``(i, j), (j, n-1-i), (n-1-i, n-1-j), (n-1-j, i)``, one of each in the top-left quadrant
    ``i, j < (n-1)/2`` (with ``i != j``, else two of its queens share a row). An orbit
    occupies the row (and column) pairs ``{i, n-1-i}`` and ``{j, n-1-j}`` and the *line
    orbits* ``n-1-i-j`` and ``|i-j|``, where line orbit ``k`` is the anti-diagonals
    ``n-1 +- k`` with the diagonals ``+-k``: the options are the orbits, the items the
    ``(n-1)/2`` row pairs and the used line orbits. :func:`quarter_placement` turns a cover
    into the placement.
    """
    h = n // 2
    k_rank = np.full(n, -1, dtype=np.int64)  # index: line orbit k = |s - (n-1)|
    used = [s - (n - 1) for s in lines.anti if s > n - 1]
    k_rank[used] = np.arange(len(used))
    i, j = np.indices((h, h))
    i, j = i.ravel(), j.ravel()
    k_anti = n - 1 - i - j
    k_diag = np.abs(i - j)
    keep = (i != j) & (k_rank[k_anti] >= 0) & (k_rank[k_diag] >= 0)
    i, j, k_anti, k_diag = i[keep], j[keep], k_anti[keep], k_diag[keep]
    cells = np.stack([i, j], axis=1)
    opt_items = np.stack([i, j, h + k_rank[k_anti], h + k_rank[k_diag]],
                         axis=1).astype(np.int32)
    return cells, opt_items, 2 * h


def quarter_placement(n: int, chosen: np.ndarray) -> tuple[int, ...]:
    """The placement of the chosen orbits of :func:`quarter_realisation_options`."""
    placement = np.empty(n, dtype=np.int64)
    i, j = chosen[:, 0], chosen[:, 1]
    placement[i] = j
    placement[j] = n - 1 - i
    placement[n - 1 - i] = n - 1 - j
    placement[n - 1 - j] = i
    placement[n // 2] = n // 2
    return tuple(int(c) for c in placement)


def enumerate_line_sets(
    n: int,
    black: int,
    fixed: tuple[tuple[int, int], ...] = (),
    *,
    max_count: int = 64,
    time_limit: float | Deadline = 5.0,
) -> list[LineSet] | None:
    """Every line set with ``black`` black queens, or None if there are more than
    ``max_count`` or CP-SAT did not finish the enumeration within ``time_limit``."""
    from ortools.sat.python import cp_model

    model, u, v = line_model(n, black, fixed)
    found: list[LineSet] = []
    too_many = False

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            nonlocal too_many
            found.append(_line_set(self, n, u, v))
            if len(found) > max_count:
                too_many = True
                self.StopSearch()

    solver = cp_solver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    status = _solve_within(solver, model, time_limit, Collect())
    if too_many:
        return None
    if status == cp_model.INFEASIBLE:
        return []
    if status != cp_model.OPTIMAL:  # stopped by the time limit: the list may be partial
        return None
    return found


def realisation_options(
    n: int, lines: LineSet, fixed: tuple[tuple[int, int], ...] = ()
) -> tuple[np.ndarray, np.ndarray]:
    """``(cells, opt_items)`` of the exact cover whose solutions use exactly ``lines``.

    ``cells[o] = (i, j)``: the squares on a line of ``S`` and a line of ``D`` (and, for a
    fixed queen's row or column, only the fixed square). Items: row ``i`` (0..n-1),
    column ``j`` (n..2n-1), the rank of ``i + j`` in ``S`` (2n..3n-1), the rank of
    ``i - j`` in ``D`` (3n..4n-1).
    """
    m = 2 * n - 1
    s_rank = np.full(m, -1, dtype=np.int64)
    d_rank = np.full(m, -1, dtype=np.int64)
    s_rank[list(lines.anti)] = np.arange(len(lines.anti))
    d_rank[np.asarray(lines.diag, dtype=np.int64) + n - 1] = np.arange(len(lines.diag))
    i, j = np.indices((n, n))
    i, j = i.ravel(), j.ravel()
    keep = (s_rank[i + j] >= 0) & (d_rank[i - j + n - 1] >= 0)
    for r, c in fixed:
        keep &= ~(((i == r) & (j != c)) | ((j == c) & (i != r)))
    i, j = i[keep], j[keep]
    cells = np.stack([i, j], axis=1)
    opt_items = np.stack([i, n + j, 2 * n + s_rank[i + j], 3 * n + d_rank[i - j + n - 1]],
                         axis=1).astype(np.int32)
    return cells, opt_items


class Cover(enum.Enum):
    FOUND = "found"
    INFEASIBLE = "infeasible"
    UNKNOWN = "unknown"


def cover_by_mip(
    n: int, lines: LineSet, fixed: tuple[tuple[int, int], ...] = (), *, time_limit: float = 5.0
) -> tuple[Cover, tuple[int, ...] | None]:
    """Settle one line set with HiGHS: the exact cover as a 0/1 feasibility MIP.

    HiGHS proves the covers of an unrealisable line set infeasible in well under a second
    where the depth-first search would need to exhaust its tree (chess n = 47: 0.4 s).
    """
    return _cover_mip(n, *realisation_options(n, lines, fixed), time_limit=time_limit)


def _solve_within(solver: Any, model: Any, time_limit: float | Deadline,
                  callback: Any = None) -> Any:
    """``solver.Solve(model)`` within ``time_limit`` (seconds, or a Deadline whose cancel
    from another thread stops the search at once)."""
    from nqmip.budget import stop_when_cancelled

    limit = Deadline.of(time_limit)
    solver.parameters.max_time_in_seconds = limit.seconds(floor=MIN_SOLVER_SECONDS) or 1e9
    with stop_when_cancelled(limit, solver.stop_search, repeat=True):
        return solver.Solve(model, callback) if callback is not None else solver.Solve(model)


def _cover_mip(
    n: int, cells: np.ndarray, opt_items: np.ndarray, *, time_limit: float
) -> tuple[Cover, tuple[int, ...] | None]:
    import highspy

    from nqmip.colour.exact_cover import item_index

    num = len(cells)
    item_ptr, item_opts = item_index(opt_items, 4 * n)
    if num == 0 or np.any(np.diff(item_ptr) == 0):
        return Cover.INFEASIBLE, None  # an item no square covers
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(time_limit))
    h.addVars(num, np.zeros(num), np.ones(num))
    h.changeColsIntegrality(num, np.arange(num, dtype=np.int32),
                            np.array([highspy.HighsVarType.kInteger] * num))
    h.addRows(4 * n, np.ones(4 * n), np.ones(4 * n), item_opts.size, item_ptr[:-1].copy(),
              item_opts, np.ones(item_opts.size))
    highs_threads.run(h, 1)
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        return Cover.INFEASIBLE, None
    if status == highspy.HighsModelStatus.kOptimal:
        x = np.asarray(h.getSolution().col_value)
        return Cover.FOUND, placement_of(n, cells[x > 0.5])
    return Cover.UNKNOWN, None


def _cover_cpsat(
    n: int, cells: np.ndarray, opt_items: np.ndarray, *, time_limit: float | Deadline
) -> tuple[Cover, tuple[int, ...] | None]:
    """The exact cover by CP-SAT with its LP at full strength (``linearization_level=2``):
    it proves the covers of chess n = 85's four line sets at B = 67 infeasible in 0.7 s each,
    where HiGHS had not in 30 s."""
    from ortools.sat.python import cp_model

    from nqmip.colour.exact_cover import item_index

    item_ptr, item_opts = item_index(opt_items, 4 * n)
    if len(cells) == 0 or np.any(np.diff(item_ptr) == 0):
        return Cover.INFEASIBLE, None
    model = cp_model.CpModel()
    x = [model.NewBoolVar(f"c{k}") for k in range(len(cells))]
    for t in range(4 * n):
        model.AddExactlyOne([x[int(o)] for o in item_opts[item_ptr[t]:item_ptr[t + 1]]])
    solver = cp_solver()
    solver.parameters.num_workers = 1
    solver.parameters.linearization_level = 2
    status = _solve_within(solver, model, time_limit)
    if status == cp_model.INFEASIBLE:
        return Cover.INFEASIBLE, None
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        chosen = np.array([solver.BooleanValue(v) for v in x], dtype=bool)
        return Cover.FOUND, placement_of(n, cells[chosen])
    return Cover.UNKNOWN, None


@dataclass(frozen=True)
class Refutation:
    """Outcome of :func:`refute_black_count`."""

    refuted: bool  # proven: no placement has that many black queens
    placement: tuple[int, ...] | None = None  # a placement with that count, if one turned up
    line_sets: int | None = None  # how many line sets were settled (None: not enumerable)
    seconds: float = 0.0


#: At most this many line sets are enumerated (within ``ENUMERATE_SECONDS``, at most half
#: of the refutation's time) and settled one by one by a refutation: where the bound is not
#: reached there were few (chess n = 19: 1, n = 47: 4), where it is reached there are
#: hundreds and the search finds one.
REFUTE_MAX_LINE_SETS = 32
ENUMERATE_SECONDS = 3.0
#: Seconds per line set for the cover MIP (at least 0.1), for CP-SAT on the cover, and for
#: each exact-cover search.
COVER_MIP_SECONDS = 2.0
COVER_CPSAT_SECONDS = 5.0
COVER_SEARCH_SECONDS = 0.5


def refute_black_count(
    n: int,
    black: int,
    fixed: tuple[tuple[int, int], ...] = (),
    *,
    time_limit: float | Deadline | None = None,
    max_line_sets: int = REFUTE_MAX_LINE_SETS,
) -> Refutation:
    """Try to prove that no placement keeping ``fixed`` has exactly ``black`` black queens.

    Enumerates every line set at that count (complete, or give up), then settles each by
    a short exact-cover search, :func:`cover_by_mip`, CP-SAT on the cover and a longer
    search. Refuted when the line model has no solution or no line set has an exact cover;
    a cover found on the way is returned as the placement (so with few line sets this is
    also a complete search).
    ``time_limit`` (seconds or a :class:`~nqmip.budget.Deadline`; None: no limit) bounds
    the whole call; each step has its own cap, so it ends without a limit too.
    """
    deadline = Deadline.of(time_limit)
    begin = time.perf_counter()

    def left() -> float:
        return deadline.remaining()

    sets = enumerate_line_sets(n, black, fixed, max_count=max_line_sets,
                               time_limit=max(0.1, min(ENUMERATE_SECONDS, 0.5 * left())))
    if sets is None:
        return Refutation(False, seconds=time.perf_counter() - begin)
    from nqmip.colour.exact_cover import find_exact_cover

    unsettled = 0
    for k, lines in enumerate(sets):
        if deadline.expired():
            return Refutation(False, line_sets=k, seconds=time.perf_counter() - begin)
        cells, opt_items = realisation_options(n, lines, fixed)
        # The depth-first search finds the covers of a realisable line set fast and HiGHS
        # proves the others infeasible fast: a short search first, the MIP, a longer search.
        for step in ("search", "mip", "cpsat", "search"):
            if step in ("mip", "cpsat"):
                if step == "mip":  # HiGHS (a run of at most COVER_MIP_SECONDS)
                    outcome, placement = _cover_mip(
                        n, cells, opt_items, time_limit=max(0.1, min(left(), COVER_MIP_SECONDS)))
                else:  # CP-SAT hears a cancel of the deadline at once
                    outcome, placement = _cover_cpsat(
                        n, cells, opt_items, time_limit=deadline.sub(COVER_CPSAT_SECONDS))
                if outcome is Cover.INFEASIBLE:
                    break
            else:
                found = find_exact_cover(opt_items, 4 * n, seed=k,
                                         time_limit=deadline.sub(COVER_SEARCH_SECONDS))
                if found.exhausted:
                    break
                placement = (None if found.options is None
                             else placement_of(n, cells[found.options]))
            if placement is not None:
                return Refutation(False, placement, k + 1, time.perf_counter() - begin)
        else:
            unsettled += 1
    if unsettled:
        return Refutation(False, line_sets=len(sets), seconds=time.perf_counter() - begin)
    return Refutation(True, line_sets=len(sets), seconds=time.perf_counter() - begin)
