"""CSPLib prob079: pre-placed queens from files, and the excluded-diagonals instances.

- :func:`read_fixed` reads the queens of ``--fixed FILE``: one queen per line as ``--fix``
  takes it (``row,col`` 0-based, or a square such as ``e1``; ``#`` starts a comment), or
  the Essence' parameter format of CSPLib prob079 (``letting n = 2550``, or ``be``, and
  ``letting init = [[r, c], ...]``, 0-based as well: the corner square is ``(0, 0)``);
  the text as a weights file's (UTF-8, or UTF-16 with its mark).
- :func:`read_diagonals` reads an excluded-diagonals instance (``n = ...``,
  ``diags = [[k, kind], ...]``, kind 1 a sum diagonal ``r + c = k``, kind 0 a difference
  diagonal ``r - c = k - (n - 1)``; an instance is the *first* ``m`` pairs of the list).
- :func:`excluded_to_completion` turns one into an n-Queens completion instance, following
  the reduction of Gent, Jefferson and Nightingale ("Complexity of n-Queens Completion",
  JAIR 59, 2017): a board of a few thousand rows on which all but ``n`` queens are placed,
  with the same solutions up to a fixed map. nqmip's models are built on what is free
  (:class:`nqmip.board.FreeBoard`), so their size is that of the original small board.
- :func:`generate_diagonals` draws new excluded-diagonals instances in the way the paper's
  generator does (diagonals in random order, each excluded unless a row or column would be
  left with ``min_free`` open squares or fewer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nqmip.instance import InstanceError, parse_queen


class FixedFileError(InstanceError):
    """A file of fixed queens (or of excluded diagonals) that cannot be read: one line."""


# --- files of fixed queens ----------------------------------------------------------------


@dataclass(frozen=True)
class FixedFile:
    """The queens of a file; ``n`` when the file states the board size (CSPLib format)."""

    fixed: tuple[tuple[int, int], ...]
    n: int | None = None
    format: str = "rows"


#: ``letting NAME = VALUE`` or Essence's ``letting NAME be VALUE``.
_LETTING = re.compile(r"letting\s+(\w+)\s*(?::\s*[^=]*)?(?:=|\bbe\b)\s*", re.IGNORECASE)


def read_text_input(path: str | Path, what: str) -> str:
    """The text of an input file as spreadsheets and shells give it: ``-`` is standard
    input, a UTF-8 byte-order mark at the start is dropped; a folder, a missing file or
    bytes that are not text are an InstanceError naming ``what`` and the path."""
    from nqmip.instances.weights_file import decode_text, read_input

    if str(path) != "-" and Path(path).is_dir():
        raise FixedFileError(f"{what}: {path} is a folder; give a file (or - for "
                             "standard input)")
    try:
        data = read_input(path)
    except InstanceError as exc:
        raise FixedFileError(f"{what}: {exc}") from None
    except OSError as exc:
        raise FixedFileError(f"{what}: cannot read {path} "
                             f"({exc.strerror or type(exc).__name__})") from None

    try:  # as a weights file: UTF-8 or UTF-16 with its mark, a bad byte named by place
        return decode_text(data, str(path) if str(path) != "-" else "standard input")
    except InstanceError as exc:
        raise FixedFileError(f"{what}: {exc}") from None


def read_fixed(path: str | Path) -> FixedFile:
    """The fixed queens of ``path`` (either format, detected by ``letting``; ``-``:
    standard input)."""
    text = read_text_input(path, "--fixed")
    return parse_fixed(text, "standard input" if str(path) == "-" else str(path))


def parse_fixed(text: str, source: str = "<text>") -> FixedFile:
    if re.search(r"^\s*letting\b", text, re.IGNORECASE | re.MULTILINE):
        return _parse_essence(text, source)
    queens: list[tuple[int, int]] = []
    lines: dict[tuple[int, int], int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if not queens and number == first_line(text) and _header(line):
            continue  # a spreadsheet's header row ("row,col"), as a weights file may have
        try:  # as --fix reads a queen: ROW,COL (ROW COL, ROW;COL) or a square such as e1
            queen = parse_queen(line)
        except InstanceError as exc:
            raise FixedFileError(f"{source}, line {number}: {exc}") from None
        if queen in lines:
            raise FixedFileError(f"{source}, line {number}: queen {queen[0]},{queen[1]} is "
                                 f"given twice (line {lines[queen]} too)")
        lines[queen] = number
        queens.append(queen)
    return FixedFile(tuple(queens), None, "rows")


def first_line(text: str) -> int:
    """The number of the first line holding something besides a comment."""
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.split("#", 1)[0].strip():
            return number
    return 0


def _header(line: str) -> bool:
    """A header row: two cells or more, none with a digit (``row,col``; never a queen)."""
    cells = [c for c in re.split(r"[\s,;]+", line) if c]
    return len(cells) >= 2 and not any(ch.isdigit() for ch in line)


def _essence_value(text: str, name: str, source: str) -> str | None:
    """The text of ``letting name = ...`` up to the next ``letting`` (or the end)."""
    matches = list(_LETTING.finditer(text))
    named = [k for k, m in enumerate(matches) if m.group(1).lower() == name]
    if len(named) > 1:  # the second was ignored: 'letting n = 8' then 'letting n = 9'
        raise FixedFileError(f"{source}: 'letting {name}' is given {len(named)} times")
    if not named:
        return None
    k = named[0]
    end = matches[k + 1].start() if k + 1 < len(matches) else len(text)
    return re.sub(r"\$[^\n]*", "", text[matches[k].end():end]).strip()


def _parse_essence(text: str, source: str) -> FixedFile:
    n_text = _essence_value(text, "n", source)
    init = _essence_value(text, "init", source)
    if n_text is None or not re.fullmatch(r"[0-9]+", n_text):
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
            if len(parts) != 2 or not all(re.fullmatch(r"[+-]?[0-9]+", p) for p in parts):
                raise FixedFileError(f"{source}: a queen must be [row, col], got [{pair}]")
            queen = (int(parts[0]), int(parts[1]))
            if queen in queens:
                raise FixedFileError(f"{source}: 'letting init' gives queen [{queen[0]}, "
                                     f"{queen[1]}] twice")
            queens.append(queen)
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
    text = read_text_input(path, "excluded diagonals")  # as --fixed: UTF-8 or UTF-16
    return parse_diagonals(text, m, str(path))


def parse_diagonals(text: str, m: int | None = None, source: str = "<text>") -> ExcludedDiagonals:
    n_match = re.search(r"\bn\s*=\s*([0-9]+)", text)
    d_match = re.search(r"\bdiags\s*=\s*\[(.*)\]", text, re.DOTALL)
    if n_match is None or d_match is None:
        raise FixedFileError(f"{source}: expected 'n = ...' and 'diags = [[k, kind], ...]'")
    n = int(n_match.group(1))
    if n < 1:  # was an instance of a 0 x 0 board
        raise FixedFileError(f"{source}: n = {n}; a board has at least 1 row")
    pairs = [(int(a), int(b)) for a, b in
             re.findall(r"\[\s*([0-9]+)\s*,\s*([0-9]+)\s*\]", d_match.group(1))]
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
    from nqmip.capacity import CapacityError, check_fits
    from nqmip.instance import make_instance

    n = make_instance(n).n  # a whole number of at least 1, as every n
    try:  # its n x n board of blocked squares (n = 200000 met numpy's MemoryError)
        check_fits(n, dense_weights=True, method="generate_diagonals")
    except CapacityError as exc:
        raise InstanceError(str(exc)) from None
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


#: Bytes a fixed queen of the reduction holds while it is built and checked: its tuple of
#: two ints in the list (about 120) and its keys in the four sets of the check.
BYTES_PER_REDUCED_QUEEN = 200


def _check_reduction_fits(n: int, size: int) -> None:
    """InstanceError before the reduction of an n-board to a ``size``-board is built when
    its fixed queens (about ``size``) would not fit in memory (n = 10^9 from a .param
    file began lists of n, then of 2.7 * 10^11 queens)."""
    from nqmip.capacity import CapacityError, check_fits

    try:
        check_fits(size, need=BYTES_PER_REDUCED_QUEEN * size,
                   method=f"excluded_to_completion of the {n}-board (its fixed queens)")
    except CapacityError as exc:
        raise InstanceError(str(exc)) from None


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
    block = 2 * size3 + 1 if size3 % 3 == 2 else 2 * size3 - 1
    _check_reduction_fits(n, 19 * block + to_place)  # before any list of n
    # The open n x n region: rows 3n - 2 .. 4n - 3, columns 0 .. n - 1 (square (r, c) of the
    # excluded-diagonals board is (3n - 2 + r, c)); the rows and columns step 2 must leave.
    need_a = sorted([r + 3 * n - 2 for r in range(n)] + [a for a, _ in placed])
    need_b = sorted(list(range(n)) + [b for _, b in placed])
    if not _no_attack(placed):
        # two excluded diagonals meet in one pre-placed queen: the instance is returned
        # unreduced (every placement attacks, nqmip says so as an input error)
        return size3, placed
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
