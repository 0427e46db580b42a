"""Weight matrices from files: :func:`read_weights`, the one reader behind ``--weights``
and ``--costs`` and for Python callers (``nqmip.read_weights``).

What is read, and how it is told apart (nothing is guessed where two readings differ):

- ``.npy`` (recognised by NumPy's header, whatever the file is called): a 2-D array of
  bool, integer or float; object, string and complex arrays are refused.
- Text, as a spreadsheet, ``numpy.savetxt`` or ``pandas.DataFrame.to_csv`` writes it:
  UTF-8 (a byte-order mark allowed) or UTF-16 with its byte-order mark (a spreadsheet's
  "Unicode text"); LF, CRLF or CR line ends; cells separated by commas, semicolons or
  tabs (one of them in the whole file) or else by spaces; a separator after the last cell
  of every row is dropped; cells may be quoted; blank lines and lines starting with ``#``
  (``numpy.savetxt``'s header; not a spreadsheet's error value such as ``#N/A``) are
  skipped.
- A header row: the first row when none of its cells is a number (names, empty cells),
  or when its first cell is not a number and the others are the column numbers 0..k-1
  or 1..k (pandas' header above its index column), or when it is the column numbers
  0..n-1 or 1..n above n rows of n numbers (pandas' ``index=False``).
- An index column: under a header row only, the first column when the rows have one
  cell more than there are rows and that column is exactly 0..n-1 or 1..n (pandas'
  index). Without a header, a first column of row numbers is refused, not dropped.
- Every other cell is a number (``1``, ``-2.5``, ``3e4``): an empty cell, NaN, an
  infinity or any other text is refused naming its row and column, counted from 1 as a
  spreadsheet shows the file (the header is row 1).

Every refusal is one :class:`~nqmip.instance.InstanceError` line naming the file and what
is wrong.
"""

from __future__ import annotations

import csv
import io
import os
import re
import stat
import sys
import warnings
from pathlib import Path
from typing import IO, Any

import numpy as np

from nqmip.instance import InstanceError

#: What a weights file holds, said at the end of a refusal that a rewrite fixes.
SHAPE = "write n rows of n numbers (a header row of names, and under it an index column " \
        "0..n-1, are allowed)"
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_NOT_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
#: A comment line (numpy.savetxt's header), not a spreadsheet's error value in a first cell.
_COMMENT = re.compile(r"\s*#(?!N/A|DIV/0!|VALUE!|REF!|NAME\?|NUM!|NULL!)")
#: The separators a row may use (one in a file); none of them: spaces.
_SEPARATORS = {",": "','", ";": "';'", "\t": "a tab"}
_NPY = b"\x93NUMPY"
_ZIP = b"PK\x03\x04"
_OLE = b"\xd0\xcf\x11\xe0"  # an old .xls workbook


def read_weights(source: str | os.PathLike[str] | IO[Any]) -> np.ndarray:
    """The n x n weight matrix (float64) in ``source``: a path (``"-"``: standard input)
    or an open file, text or binary; what the commands' ``--weights FILE`` reads.

    - ``.npy`` (told by NumPy's header): a 2-D bool, integer or float array.
    - Text as a spreadsheet, ``numpy.savetxt`` or ``pandas.DataFrame.to_csv`` writes it:
      UTF-8 (a byte-order mark allowed) or UTF-16 with its mark; any line ends; cells
      separated by commas, semicolons or tabs (one of them in a file) or spaces; a
      separator ending every row, quotes, blank lines and ``#`` lines are ignored.
    - A header row is read only when none of its cells is a number, or when it is
      pandas' column numbers (0..n-1 or 1..n, after an empty or named first cell, or
      alone above n rows of n numbers); an index column only under a header row, and
      only when it is exactly 0..n-1 or 1..n (pandas' index).

    Anything else (an empty cell, NaN, an infinity, text, rows of different lengths, a
    shape other than n x n, an index column without a header) is one
    :class:`~nqmip.instance.InstanceError` line naming the file, and the row and column
    (from 1, as a spreadsheet shows the file) of the cell at fault."""
    data, name, suffix = _read(source)
    if isinstance(data, bytes) and data.startswith(_NPY):
        return _from_npy(data, name)
    if isinstance(data, bytes):
        if suffix == ".npy":
            raise InstanceError(f"{name} is not a .npy file (no NumPy header): save it "
                                "with numpy.save, or name it .csv if it is text")
        if data.startswith(_ZIP):
            what = "an .npz archive: save one array with numpy.save" if suffix == ".npz" \
                else "a zip file (a spreadsheet workbook?): save the sheet as CSV"
            raise InstanceError(f"{name} is {what}")
        if data.startswith(_OLE):
            raise InstanceError(f"{name} is a spreadsheet workbook (.xls?): save the sheet "
                                "as CSV")
        if b"\x00" in data and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise InstanceError(f"{name} is not text (NUL bytes: UTF-16 without its "
                                "byte-order mark, or a binary file?): save it as CSV UTF-8")
        data = decode_text(data, name)
    return parse_weights_text(data.removeprefix("\ufeff"), name)


#: The most bytes an input file is read for (a dense board of 10,000 queens written with
#: 8 characters a weight is 0.8 GB): beyond, it is not an input of this package.
MAX_INPUT_BYTES = 1 << 31


def read_input(path: Path | str) -> bytes:
    """The bytes of the input at ``path`` (``-``: standard input), read to at most
    :data:`MAX_INPUT_BYTES`: a device that is not a terminal (``/dev/zero`` and
    ``/dev/urandom`` never end: read whole, they filled the memory) is refused unread, as
    is more. An OSError for a path that cannot be opened."""
    if str(path) == "-":
        stream: Any = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
        if _endless(stream):  # < /dev/zero: 2 GiB read into memory before the refusal
            raise InstanceError("standard input is a device, not a file: give a file (or "
                                "- with a file or a pipe as standard input)")
        return _bounded(stream, "standard input")
    with Path(path).open("rb") as file:
        mode = os.fstat(file.fileno()).st_mode
        if (stat.S_ISCHR(mode) or stat.S_ISBLK(mode)) and not os.isatty(file.fileno()):
            raise InstanceError(f"{path} is a device, not a file: give a file (or - for "
                                "standard input)")
        return _bounded(file, str(path))


def _endless(stream: Any) -> bool:
    """Whether ``stream`` is a device that is not a terminal (``/dev/zero``)."""
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError, AttributeError):  # io.BytesIO, a closed stream
        return False
    return (stat.S_ISCHR(mode) or stat.S_ISBLK(mode)) and not os.isatty(fd)


#: Bytes read at a time (:func:`_bounded`).
CHUNK_BYTES = 1 << 20


def _bounded(stream: Any, name: str) -> bytes:
    """What ``stream`` holds, read a chunk at a time to at most :data:`MAX_INPUT_BYTES`:
    one ``read(MAX_INPUT_BYTES + 1)`` allocated its 2 GiB buffer first, and under a limit
    on the address space (``ulimit -v``, 2 GB) every input file, however small, ended in
    a MemoryError."""
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_INPUT_BYTES:
        chunk = stream.read(min(CHUNK_BYTES, MAX_INPUT_BYTES + 1 - size))
        if not chunk:
            break
        chunk = chunk.encode() if isinstance(chunk, str) else bytes(chunk)
        chunks.append(chunk)
        size += len(chunk)
    if size > MAX_INPUT_BYTES:
        raise InstanceError(f"{name} holds more than {MAX_INPUT_BYTES >> 30} GiB: not an "
                            "input of this package")
    return b"".join(chunks)


def _read(source: Any) -> tuple[bytes | str, str, str]:
    """``(content, name for messages, lower-case suffix)``."""
    if isinstance(source, str | os.PathLike):
        if "\n" in str(source):  # the text itself, not a path
            raise InstanceError("read_weights takes a path or an open file; for text, pass "
                                "io.StringIO(text)")
        if str(source) == "-":
            return read_input("-"), "standard input", ""
        path = Path(source)
        if path.is_dir():
            raise InstanceError(f"{path} is a folder; give a file (or - for standard input)")
        if not path.exists():
            raise InstanceError(f"file not found: {path}")
        try:
            return read_input(path), str(path), path.suffix.lower()
        except OSError as exc:
            raise InstanceError(f"cannot read {path} ({exc.strerror or type(exc).__name__})"
                                ) from None
    if not hasattr(source, "read"):
        raise InstanceError(f"read_weights takes a path or an open file, got "
                            f"{type(source).__name__}")
    name = str(getattr(source, "name", "") or "the file")
    try:
        return source.read(), name, Path(name).suffix.lower()
    except (OSError, UnicodeError) as exc:
        raise InstanceError(f"cannot read {name} ({exc})") from None


def decode_text(data: bytes, name: str) -> str:
    """UTF-8 (its byte-order mark dropped) or UTF-16 with a byte-order mark: the text of
    every input file (weights, fixed queens); InstanceError naming ``name`` and the first
    byte that is not UTF-8 (its row and character) otherwise."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise InstanceError(f"{name} starts with UTF-16's byte-order mark but is not "
                                "UTF-16 text: save it as CSV UTF-8") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = data[:exc.start]
        row = before.count(b"\n") + 1
        column = len(before) - (before.rfind(b"\n") + 1) + 1
        raise InstanceError(f"{name} is not UTF-8 text (byte 0x{data[exc.start]:02X} at row "
                            f"{row}, character {column}): save it as UTF-8 (a "
                            "spreadsheet's 'CSV UTF-8')") from None


def _check_npy_size(data: bytes, name: str) -> None:
    """Refuse a .npy whose header states more data than the file holds before NumPy's
    reader allocates it (a header of 10^6 x 10^6 float64 over 64 bytes of data met
    numpy's MemoryError for 7.28 TiB: a traceback, exit 1)."""
    import math

    from numpy.lib import format as npy

    stream = io.BytesIO(data)
    try:
        version = npy.read_magic(stream)
        read = {(1, 0): npy.read_array_header_1_0,
                (2, 0): npy.read_array_header_2_0}.get(version)
        if read is None:
            return  # a later version: NumPy's own reader decides
        shape, _, dtype = read(stream)
    except (ValueError, OSError, EOFError):
        return  # NumPy's reader names what is wrong with it
    if dtype.hasobject:
        return
    need = math.prod(int(side) for side in shape) * dtype.itemsize
    have = len(data) - stream.tell()
    if need > have:
        shown = " x ".join(map(str, shape)) or "0-d"
        raise InstanceError(f"{name} is not a readable .npy file (its header says a {shown} "
                            f"array of {dtype}, {need:,} bytes; the file holds {have:,})")


def _from_npy(data: bytes, name: str) -> np.ndarray:
    _check_npy_size(data, name)
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as exc:
        if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
            raise InstanceError(f"{name} holds an array of Python objects; save numbers "
                                "(numpy.save of a bool, integer or float array)") from None
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "unreadable"
        raise InstanceError(f"{name} is not a readable .npy file ({first})") from None
    except (OSError, EOFError) as exc:
        raise InstanceError(f"{name} is not a readable .npy file ({exc})") from None
    if array.dtype.kind not in "biuf":
        raise InstanceError(f"{name} holds an array of dtype {array.dtype}; the weights "
                            "are numbers (save a bool, integer or float array)")
    if array.ndim != 2 or array.shape[0] != array.shape[1] or array.size == 0:
        shape = " x ".join(map(str, array.shape)) or "0-d"
        raise InstanceError(f"{name} holds a {shape} array; the weights of an n-board are "
                            "an n x n array")
    with np.errstate(over="ignore"):  # a long double past float64: named below, not
        matrix = np.asarray(array, dtype=np.float64)  # a RuntimeWarning on stderr
    bad = np.argwhere(~np.isfinite(matrix))
    if bad.size:
        row, column = (int(i) + 1 for i in bad[0])
        given = array[row - 1, column - 1]
        if np.isfinite(given):
            shown = np.format_float_scientific(given, precision=3, trim="-")
            raise InstanceError(f"{name}: row {row}, column {column} is {shown}, beyond a "
                                "float64's range (about 1.8e308); the weights are finite "
                                "float64 numbers")
        raise InstanceError(f"{name}: row {row}, column {column} is {matrix[row - 1, column - 1]}"
                            "; the weights are finite numbers")
    return matrix


# --- text --------------------------------------------------------------------------------


def parse_weights_text(text: str, name: str = "<text>") -> np.ndarray:
    """The matrix of a weights file's text (the module's rules); ``name`` for messages."""
    lines = [(number, line) for number, line in enumerate(text.splitlines(), start=1)
             if (line.strip() or "\t" in line) and not _COMMENT.match(line)]
    if not lines:
        raise InstanceError(f"{name} is empty; {SHAPE}")
    separator = _separator(lines, name)
    rows = [(number, _cells(line, separator)) for number, line in lines]
    rows = _without_trailing(rows)
    width = len(rows[0][1])
    for number, cells in rows:
        if len(cells) != width:
            raise InstanceError(f"{name}: row {number} has {len(cells)} cells, row "
                                f"{rows[0][0]} has {width}; every row needs as many")
    header = _is_header(rows[0][1], len(rows))
    body = rows[1:] if header else rows
    if not body:
        raise InstanceError(f"{name} has a header row and no numbers; {SHAPE}")
    first = _index_column(body, header, name)
    size = width - first
    if len(body) != size:
        raise InstanceError(f"{name} holds {len(body)} rows of {size} numbers"
                            f"{_hint(rows, header)}; the weights of an n-board are n x n")
    return _numbers(body, first, name)


def _without_trailing(rows: list[tuple[int, list[str]]]) -> list[tuple[int, list[str]]]:
    """The rows less the empty cell after a separator ending every row, or every row but
    a first one that is one cell shorter (a header written without it)."""
    ends = [len(cells) > 1 and not cells[-1] for _, cells in rows]
    if all(ends):
        return [(number, cells[:-1]) for number, cells in rows]
    widths = {len(cells) for _, cells in rows[1:]}
    if len(rows) > 1 and all(ends[1:]) and widths == {len(rows[0][1]) + 1}:
        return rows[:1] + [(number, cells[:-1]) for number, cells in rows[1:]]
    return rows


def _separator(lines: list[tuple[int, str]], name: str) -> str | None:
    """The one separator of the file's rows (quoted text apart), None for spaces."""
    found: dict[str, int] = {}
    for number, line in lines:
        bare = re.sub(r'"[^"]*"', "", line)
        for mark in _SEPARATORS:
            if mark in bare:
                found.setdefault(mark, number)
    if len(found) > 1:
        (one, at), (other, where) = sorted(found.items(), key=lambda item: item[1])[:2]
        decimal = " (a decimal comma? write 2.5, not 2,5)" if "," in found else ""
        raise InstanceError(f"{name} mixes {_SEPARATORS[one]} (row {at}) and "
                            f"{_SEPARATORS[other]} (row {where}) between cells{decimal}; "
                            "separate the cells of every row by one of them")
    return next(iter(found), None)


def _cells(line: str, separator: str | None) -> list[str]:
    if separator is None:
        return [cell.strip('"') for cell in line.split()]
    return [cell.strip() for cell in next(csv.reader([line], delimiter=separator))]


def _is_label(cell: str) -> bool:
    return bool(_NUMBER.fullmatch(cell) or _NOT_FINITE.fullmatch(cell))


def _numbered(cells: list[str]) -> bool:
    """Whether the cells are exactly 0..k-1 or 1..k (column or row numbers)."""
    if not cells or not all(_INTEGER.fullmatch(cell) for cell in cells):
        return False
    values = [int(cell) for cell in cells]
    return values in (list(range(len(values))), list(range(1, len(values) + 1)))


def _is_header(cells: list[str], rows: int) -> bool:
    """Names only; a name (or nothing) above an index column, then column numbers; or the
    column numbers above as many rows of numbers (pandas' headers)."""
    if not any(_is_label(cell) for cell in cells):
        return any(cells)
    if not _is_label(cells[0]) and _numbered(cells[1:]) and rows == len(cells):
        return True  # its index column is checked next
    return _numbered(cells) and rows == len(cells) + 1


def _index_column(body: list[tuple[int, list[str]]], header: bool, name: str) -> int:
    """1 when the rows' first column is an index to drop (under a header, one cell more
    than rows, exactly 0..n-1 or 1..n), else 0; a column that looks like one but is not
    marked, or is marked but is not one, is refused."""
    width = len(body[0][1])
    if width != len(body) + 1:
        return 0
    numbered = _numbered([cells[0] for _, cells in body])
    if header and numbered:
        return 1
    if header:
        raise InstanceError(f"{name} has a header row and {len(body)} rows of {width} cells, "
                            f"but the first column is not row numbers 0..{len(body) - 1} or "
                            f"1..{len(body)} (an index column, read only then); {SHAPE}")
    if numbered:
        raise InstanceError(f"{name}: the first column looks like row numbers, but an index "
                            "column is read only under a header row: add a header row of "
                            "names, or drop the column")
    return 0


def _hint(rows: list[tuple[int, list[str]]], header: bool) -> str:
    """Why a near miss is not read: a header row that was not taken for one."""
    cells = rows[0][1]
    if not header and len(rows) == len(cells) + 1:
        return (f" (row {rows[0][0]} is not a header row: one is read only when none of its "
                "cells is a number, or it is pandas' column numbers)")
    return ""


def _numbers(body: list[tuple[int, list[str]]], first: int, name: str) -> np.ndarray:
    """The cells from column ``first`` on as floats: NumPy's reader over the rows (fast,
    and strict: no underscores, no other digits), the cell at fault named otherwise."""
    size = len(body)
    text = io.StringIO("\n".join(",".join(cells[first:]) for _, cells in body))
    try:
        with warnings.catch_warnings():  # one empty cell: "input contained no data"
            warnings.simplefilter("ignore")
            matrix = np.loadtxt(text, delimiter=",", ndmin=2, dtype=np.float64,
                                comments=None, quotechar=None)
    except ValueError:
        matrix = None
    if matrix is None or matrix.shape != (size, size):
        for number, cells in body:
            for column, cell in enumerate(cells[first:], start=first + 1):
                if not _NUMBER.fullmatch(cell):
                    raise InstanceError(_fault(name, number, column, cell,
                                               number == body[0][0]))
        raise InstanceError(f"{name}: cannot read the numbers; {SHAPE}")
    bad = np.argwhere(~np.isfinite(matrix))
    if bad.size:
        row, column = (int(i) for i in bad[0])
        number, cells = body[row]
        raise InstanceError(_fault(name, number, column + first + 1, cells[column + first]))
    return matrix


def _fault(name: str, row: int, column: int, cell: str, top: bool = False) -> str:
    """What is wrong with one cell; ``top``: in the first row read (a header not taken)."""
    where = f"{name}: row {row}, column {column}"
    if not cell:
        return f"{where} is empty; every cell is a number"
    if _NOT_FINITE.fullmatch(cell):
        return f"{where} is {cell}; the weights are finite numbers"
    if _NUMBER.fullmatch(cell):  # a number past a float64 (1e400): read as inf
        return f"{where} is {cell}, beyond a float64's range (about 1.8e308)"
    shown = cell if len(cell) <= 40 else cell[:37] + "..."
    hint = " (write a decimal point: 2.5)" if re.fullmatch(r"[+-]?\d+,\d+", cell) else \
        " (a header row is read only when none of its cells is a number)" if top else ""
    return f"{where}: {shown!r} is not a number{hint}"


__all__ = ["decode_text", "parse_weights_text", "read_weights"]
