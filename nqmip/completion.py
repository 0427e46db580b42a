"""Pre-placed queens from files, and the excluded-diagonals instances of CSPLib prob079.

- :func:`read_fixed` reads the queens of ``--fixed FILE``: one ``row,col`` per line
  (0-based, ``#`` starts a comment), or the Essence' parameter format of CSPLib prob079
  (``letting n = 2550`` and ``letting init = [[r, c], ...]``, 0-based as well: the
  corner square is ``(0, 0)``).
- :func:`read_diagonals` reads an excluded-diagonals instance (``n = ...``,
  ``diags = [[k, kind], ...]``, kind 1 a sum diagonal ``r + c = k``, kind 0 a difference
  diagonal ``r - c = k - (n - 1)``; an instance is the *first* ``m`` pairs of the list).
- :func:`excluded_to_completion` turns one into an n-Queens completion instance, following
  the reduction of Gent, Jefferson and Nightingale ("Complexity of n-Queens Completion",
  JAIR 59, 2017): a board of a few thousand rows on which all but ``n`` queens are placed,
  with the same solutions up to a fixed map. nqmip's models are built on what is free
  (:class:`nqmip.instance.FreeBoard`), so their size is that of the original small board.
- :func:`generate_diagonals` draws new excluded-diagonals instances in the way the paper's
  generator does (diagonals in random order, each excluded unless a row or column would be
  left with ``min_free`` open squares or fewer).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from nqmip.instance import Instance, InstanceError

if TYPE_CHECKING:  # pragma: no cover
    from nqmip.budget import Deadline
    from nqmip.result import Result


class FixedFileError(InstanceError):
    """A file of fixed queens (or of excluded diagonals) that cannot be read: one line."""


# --- files of fixed queens ----------------------------------------------------------------


@dataclass(frozen=True)
class FixedFile:
    """The queens of a file; ``n`` when the file states the board size (CSPLib format)."""

    fixed: tuple[tuple[int, int], ...]
    n: int | None = None
    format: str = "rows"


_LETTING = re.compile(r"letting\s+(\w+)\s*(?::\s*[^=]*)?=\s*", re.IGNORECASE)


def read_fixed(path: str | Path) -> FixedFile:
    """The fixed queens of ``path`` (either format, detected by ``letting``)."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise FixedFileError(f"cannot read fixed queens from {path}: {exc}") from None
    return parse_fixed(text, str(path))


def parse_fixed(text: str, source: str = "<text>") -> FixedFile:
    if re.search(r"^\s*letting\b", text, re.IGNORECASE | re.MULTILINE):
        return _parse_essence(text, source)
    queens: list[tuple[int, int]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = [p for p in re.split(r"[\s,;]+", line) if p]
        if len(parts) != 2 or not all(re.fullmatch(r"[+-]?\d+", p) for p in parts):
            raise FixedFileError(
                f"{source}, line {number}: expected 'row,col' (two integers, 0-based), "
                f"got {raw.strip()!r}")
        queens.append((int(parts[0]), int(parts[1])))
    return FixedFile(tuple(queens), None, "rows")


def _essence_value(text: str, name: str, source: str) -> str | None:
    """The text of ``letting name = ...`` up to the next ``letting`` (or the end)."""
    matches = list(_LETTING.finditer(text))
    for k, m in enumerate(matches):
        if m.group(1).lower() == name:
            end = matches[k + 1].start() if k + 1 < len(matches) else len(text)
            return re.sub(r"\$[^\n]*", "", text[m.end():end]).strip()
    return None


def _parse_essence(text: str, source: str) -> FixedFile:
    n_text = _essence_value(text, "n", source)
    init = _essence_value(text, "init", source)
    if n_text is None or not re.fullmatch(r"\d+", n_text):
        raise FixedFileError(f"{source}: expected 'letting n = <integer>', got "
                             f"{n_text!r}" if n_text is not None else
                             f"{source}: no 'letting n = ...' line")
    if init is None:
        raise FixedFileError(f"{source}: no 'letting init = [[r, c], ...]'")
    body = init.strip()
    if not (body.startswith("[") and body.endswith("]")):
        raise FixedFileError(f"{source}: 'letting init' must be a list [[r, c], ...]")
    inner = body[1:-1].strip()
    queens: list[tuple[int, int]] = []
    if inner:
        pairs = re.findall(r"\[([^\[\]]*)\]", inner)
        leftover = re.sub(r"\[[^\[\]]*\]", "", inner)
        if leftover.replace(",", "").strip():
            raise FixedFileError(f"{source}: 'letting init' must be a list of [r, c] pairs")
        for pair in pairs:
            parts = [p.strip() for p in pair.split(",")]
            if len(parts) != 2 or not all(re.fullmatch(r"[+-]?\d+", p) for p in parts):
                raise FixedFileError(f"{source}: a queen must be [row, col], got [{pair}]")
            queens.append((int(parts[0]), int(parts[1])))
    return FixedFile(tuple(queens), int(n_text), "csplib")


# --- excluded diagonals -----------------------------------------------------------------


@dataclass(frozen=True)
class ExcludedDiagonals:
    """``n`` queens on an n x n board, none on an excluded diagonal.

    ``sums`` holds the excluded ``r + c``, ``differences`` the excluded ``r - c`` (0-based).
    """

    n: int
    sums: tuple[int, ...] = ()
    differences: tuple[int, ...] = ()

    def open_squares(self) -> np.ndarray:
        """The n x n boolean board of squares on no excluded diagonal."""
        r, c = np.indices((self.n, self.n))
        ok = ~np.isin(r + c, self.sums) & ~np.isin(r - c, self.differences)
        return np.asarray(ok)


def read_diagonals(path: str | Path, m: int | None = None) -> ExcludedDiagonals:
    """The first ``m`` excluded diagonals of a prob079 ``.param`` file (all when None)."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise FixedFileError(f"cannot read excluded diagonals from {path}: {exc}") from None
    return parse_diagonals(text, m, str(path))


def parse_diagonals(text: str, m: int | None = None, source: str = "<text>") -> ExcludedDiagonals:
    n_match = re.search(r"\bn\s*=\s*(\d+)", text)
    d_match = re.search(r"\bdiags\s*=\s*\[(.*)\]", text, re.DOTALL)
    if n_match is None or d_match is None:
        raise FixedFileError(f"{source}: expected 'n = ...' and 'diags = [[k, kind], ...]'")
    n = int(n_match.group(1))
    pairs = [(int(a), int(b)) for a, b in
             re.findall(r"\[\s*(\d+)\s*,\s*(\d+)\s*\]", d_match.group(1))]
    if m is not None:
        if not 0 <= m <= len(pairs):
            raise FixedFileError(f"{source}: {m} diagonals asked, the file holds {len(pairs)}")
        pairs = pairs[:m]
    sums, diffs = [], []
    for key, kind in pairs:
        if kind not in (0, 1) or not 0 <= key <= 2 * n - 2:
            raise FixedFileError(f"{source}: bad diagonal [{key}, {kind}] for n = {n}")
        if kind == 1:
            sums.append(key)
        else:
            diffs.append(key - (n - 1))
    return ExcludedDiagonals(n, tuple(sums), tuple(diffs))


def diagonals_text(n: int, pairs: list[tuple[int, int]]) -> str:
    """The prob079 ``.param`` text of an ordered list of ``(key, kind)`` pairs."""
    body = ", ".join(f"[{k}, {kind}]" for k, kind in pairs)
    return f"n =  {n}\nnumdiags =  {len(pairs)}\ndiags =  [{body}]\n"


def generate_diagonals(n: int, min_free: int = 4, seed: int = 0) -> list[tuple[int, int]]:
    """An ordered list of excluded diagonals ``(key, kind)`` in the prob079 encoding (kind 1:
    ``r + c = key``; kind 0: ``r - c = key - (n - 1)``); every prefix is an instance.

    The idea of the paper's generator, in nqmip's own code: both families of diagonals in a
    random order, drawn one at a time from a random family; a diagonal is excluded unless
    a row or column it crosses would keep ``min_free`` open squares or fewer.
    """
    if n < 1:
        raise InstanceError(f"n must be at least 1, got {n}")
    rng = np.random.default_rng(seed)
    open_in_row = np.full(n, n)
    open_in_col = np.full(n, n)
    blocked = np.zeros((n, n), dtype=bool)
    queues = {1: list(rng.permutation(2 * n - 1)), 0: list(rng.permutation(2 * n - 1))}
    out: list[tuple[int, int]] = []
    rows = np.arange(n)
    while queues[0] or queues[1]:
        kind = int(rng.integers(2)) if queues[0] and queues[1] else (1 if queues[1] else 0)
        key = int(queues[kind].pop())
        cols = key - rows if kind == 1 else rows - (key - (n - 1))
        inside = (cols >= 0) & (cols < n)
        r, c = rows[inside], cols[inside]
        fresh = ~blocked[r, c]
        r, c = r[fresh], c[fresh]
        if np.any(open_in_row[r] <= min_free) or np.any(open_in_col[c] <= min_free):
            continue
        blocked[r, c] = True
        np.subtract.at(open_in_row, r, 1)
        np.subtract.at(open_in_col, c, 1)
        out.append((key, kind))
    return out


# --- the reduction to n-Queens completion ------------------------------------------------


def _modular(size: int) -> list[tuple[int, int]]:
    """Queens ``(i, 2i mod size)``: a solution when size is 1 or 5 modulo 6."""
    return [(i, (2 * i) % size) for i in range(size)]


#: A solution of 20 queens (block coordinates), minus the four blocks the reduction uses
#: for the required lines: (0, 8), (19, 8), (17, 0), (17, 19).
_BLOCKS = ((1, 12), (2, 17), (3, 7), (4, 10), (5, 15), (6, 1), (7, 16), (8, 13), (9, 2),
           (10, 6), (11, 18), (12, 3), (13, 5), (14, 11), (15, 9), (16, 14), (18, 4))


def _no_attack(queens: list[tuple[int, int]]) -> bool:
    for key in (lambda q: q[0], lambda q: q[1], lambda q: q[0] + q[1], lambda q: q[0] - q[1]):
        if len({key(q) for q in queens}) != len(queens):
            return False
    return True


def excluded_to_completion(inst: ExcludedDiagonals) -> tuple[int, list[tuple[int, int]]]:
    """``(N, fixed queens)`` of an n-Queens completion instance with the same solutions.

    Two steps, after the proof of Gent, Jefferson and Nightingale (JAIR 59, 2017):

    1. each excluded diagonal becomes one pre-placed queen on a board of 7n - 3, whose
       diagonal covers exactly that diagonal of an n x n region (rows 3n - 2 .. 4n - 3,
       columns 0 .. n - 1) and no other square of it;
       the n queens must still go to n given rows and n given columns;
    2. the "given rows and columns" are forced by blocks of a modular solution on a board of
       19 n' + m (n' = 2 x 7n - 3 +- 1, 1 or 5 mod 6; m the queens still to place after
       step 1): twenty blocks laid out as a 20-queens solution fill every other row and
       column, so only the given ones are left.

    Rows and columns are 0-based, ``(row, col)``; the result is checked non-attacking.
    """
    n = inst.n
    size3 = 7 * n - 3
    placed = [(6 * n - 3 - d, 3 * n - 1 - 2 * d) for d in inst.differences]
    placed += [(2 * n - 2 - s, n + 2 * s) for s in inst.sums]
    to_place = n + len(placed)
    # The open n x n region: rows 3n - 2 .. 4n - 3, columns 0 .. n - 1 (square (r, c) of the
    # excluded-diagonals board is (3n - 2 + r, c)); the rows and columns step 2 must leave.
    need_a = sorted([r + 3 * n - 2 for r in range(n)] + [a for a, _ in placed])
    need_b = sorted(list(range(n)) + [b for _, b in placed])
    if not _no_attack(placed):
        # two excluded diagonals meet in one pre-placed queen: the instance is returned
        # unreduced (every placement attacks, nqmip says so as an input error)
        return size3, placed
    block = 2 * size3 + 1 if size3 % 3 == 2 else 2 * size3 - 1
    modular = _modular(block)
    transposed = [(b, a) for a, b in modular]
    need_a_set, need_b_set = set(need_a), set(need_b)

    def shift(origin: tuple[int, int], queens: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return [(origin[0] * block + a, origin[1] * block + b) for a, b in queens]

    queens = list(placed)
    queens += shift((19, 8), [(i, 2 * need_a[i]) for i in range(to_place)])
    queens += shift((17, 19), [(2 * need_b[i], i) for i in range(to_place)])
    queens += [q for q in shift((0, 8), modular) if q[0] not in need_a_set]
    queens += [q for q in shift((17, 0), transposed) if q[1] not in need_b_set]
    for origin in _BLOCKS:
        queens += shift(origin, modular)
    if not _no_attack(queens):  # pragma: no cover - the construction guarantees it
        raise AssertionError("the completion reduction produced attacking queens")
    return 19 * block + to_place, queens


# --- a complete search on the free board ---------------------------------------------------


@dataclass(frozen=True)
class Search:
    """The outcome of :func:`search_free_board`: ``placement`` (the full board's, fixed
    queens included) when one was found, ``exhausted`` when the whole tree was seen (then
    ``count`` is the number of completions), ``nodes`` visited, seconds taken."""

    placement: tuple[int, ...] | None
    exhausted: bool
    count: int
    nodes: int
    seconds: float


#: Nodes per kernel call between two looks at the deadline.
SEARCH_CHUNK = 200_000


def search_free_board(instance: Instance, deadline: Deadline | None = None, *,
                      first: bool = True) -> Search:
    """A complete search for completions of ``instance``'s fixed queens on its free board
    (:mod:`nqmip.completion_kernels`: first-fail over rows and columns); the first one with
    ``first``, else all of them counted. Stops at ``deadline`` (then neither found nor
    exhausted). Raises InstanceError beyond ``MAX_FREE`` free rows."""
    from nqmip import completion_kernels as k
    from nqmip.instance import free_board

    begin = time.perf_counter()
    board = free_board(instance)
    f = int(board.rows.size)
    if f > k.MAX_FREE:
        raise InstanceError(f"{f} free rows: the completion search takes at most {k.MAX_FREE}")
    if f == 0 or board.blocked() is not None:
        placement = board.placement([]) if f == 0 else None
        return Search(placement, True, int(f == 0), 0, time.perf_counter() - begin)
    r = np.searchsorted(board.rows, board.cell_row).astype(np.int64)
    c = np.searchsorted(board.cols, board.cell_col).astype(np.int64)
    avail = np.zeros((f + 1, f), dtype=np.int64)
    np.bitwise_or.at(avail[0], r, np.left_shift(np.int64(1), c))
    attack = np.zeros((f * f, f), dtype=np.int64)
    diag = board.cell_row - board.cell_col
    anti = board.cell_row + board.cell_col
    same = ((diag[:, None] == diag[None, :]) | (anti[:, None] == anti[None, :])) \
        & (r[:, None] != r[None, :])
    src, dst = np.nonzero(same)
    np.bitwise_or.at(attack, (r[src] * f + c[src], r[dst]), np.left_shift(np.int64(1), c[dst]))
    rows_st = np.zeros(f + 1, np.int64)
    cols_st = np.zeros(f + 1, np.int64)
    cand_r = np.zeros((f + 1, f), np.int64)
    cand_c = np.zeros((f + 1, f), np.int64)
    ncand = np.zeros(f + 1, np.int64)
    idx = np.zeros(f + 1, np.int64)
    meta = np.zeros(4, np.int64)
    k.start(avail, rows_st, cols_st, cand_r, cand_c, ncand, idx, meta)
    while True:
        code = k.run(attack, avail, rows_st, cols_st, cand_r, cand_c, ncand, idx, meta,
                     SEARCH_CHUNK, first)
        if code == 1:
            depth = int(meta[k.DEPTH])
            cells = {}
            for d in range(depth + 1):
                j = int(idx[d]) - 1
                cells[int(board.rows[cand_r[d, j]])] = int(board.cols[cand_c[d, j]])
            cols = dict(board.fixed)
            cols.update(cells)
            placement = tuple(cols[i] for i in range(instance.n))
            return Search(placement, False, int(meta[k.FOUND]), int(meta[k.NODES]),
                          time.perf_counter() - begin)
        if code == 2:
            return Search(None, True, int(meta[k.FOUND]), int(meta[k.NODES]),
                          time.perf_counter() - begin)
        if deadline is not None and deadline.expired():
            return Search(None, False, int(meta[k.FOUND]), int(meta[k.NODES]),
                          time.perf_counter() - begin)


def count_free(n: int | Instance, fixed: object = None) -> tuple[
        int, int, int, bool, tuple[tuple[int, int], ...], float, float, str]:
    """Completions of ``fixed`` counted on the free board, at any n (up to ``MAX_FREE``
    free rows), as the fields of :class:`nqmip.count.Count`: ``count_solutions`` uses it
    beyond the bitboards' n = 32 (a CSPLib prob079 board of 5,000 rows)."""
    from nqmip.instance import make_instance

    instance = make_instance(n, None, fixed)  # type: ignore[arg-type]
    begin = time.perf_counter()
    search_free_board(make_instance(4, None, {0: 1}), first=False)  # compile or cache load
    compile_time = time.perf_counter() - begin
    found = search_free_board(instance, first=False)
    return (instance.n, found.count, found.count, False, instance.fixed, found.seconds,
            compile_time, "free board (numba, first-fail on rows and columns)")


def search_result(instance: Instance, deadline: Deadline | None = None,
                  seed: int | None = None) -> Result:
    """:func:`search_free_board` as a verified :class:`~nqmip.result.Result` (``auto``'s
    answer to a feasibility completion with at most ``MAX_FREE`` free rows): a placement
    (optimal: n queens), infeasible when the tree is exhausted, unknown at the deadline."""
    from nqmip.result import Provenance, Result, Status, Termination
    from nqmip.verify import verified

    found = search_free_board(instance, deadline)
    if found.placement is not None:
        status, termination = Status.OPTIMAL, Termination.OPTIMAL
        message = f"a completion after {found.nodes} nodes"
    elif found.exhausted:
        status, termination = Status.INFEASIBLE, Termination.INFEASIBLE
        message = f"no completion: the search tree ({found.nodes} nodes) is exhausted"
    else:
        status, termination = Status.UNKNOWN, Termination.TIME_LIMIT
        message = f"stopped at the time limit after {found.nodes} nodes"
    proven = status != Status.UNKNOWN
    objective = None if found.placement is None else instance.objective(found.placement)
    return verified(instance, Result(
        status=status, termination=termination, n=instance.n, method="completion search",
        solver="completion search (first-fail on rows and columns)", objective=objective,
        bound=objective, placement=found.placement, wall_time=found.seconds,
        weights_name=instance.name, seed=seed, nodes=found.nodes, message=message,
        provenance=Provenance(plan=("completion search",), proof="solver" if proven else None,
                              bound_source="solver" if objective is not None else None,
                              incumbent_source="completion search"
                              if found.placement is not None else None)))
