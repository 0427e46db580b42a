"""Weight files as spreadsheets, numpy.savetxt and pandas.to_csv write them, read back by
``nqmip.read_weights`` and by ``--weights`` (the same reader): a matrix written through
each writer (the csv module with each separator, numpy.savetxt, pandas when installed;
with or without header row, index column, CRLF, byte-order mark, trailing separator,
quotes) reads back equal; a file with a fault is refused in one line naming the file and
the row and column at fault."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import nqmip
from nqmip.instance import InstanceError

ROOT = Path(__file__).resolve().parents[1]
SEPARATORS = [",", ";", "\t", " "]

values = st.one_of(st.integers(-10**6, 10**6),
                   st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False))


@st.composite
def matrices(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(1, 6))
    return np.array(draw(st.lists(values, min_size=n * n, max_size=n * n)),
                    dtype=np.float64).reshape(n, n)


def text(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


@st.composite
def layouts(draw: st.DrawFn) -> dict[str, Any]:
    header = draw(st.sampled_from([None, "names", "numbers0", "numbers1"]))
    return {
        "separator": draw(st.sampled_from(SEPARATORS)),
        "header": header,
        # an index column only under a header row (without one it is refused)
        "index": draw(st.sampled_from([None, 0, 1])) if header else None,
        "index_name": draw(st.sampled_from(["", "row"])),
        "crlf": draw(st.booleans()),
        "bom": draw(st.sampled_from([None, "utf-8-sig", "utf-16"])),
        "trailing": draw(st.booleans()),
        "quote": draw(st.booleans()),
    }


def header_cells(layout: dict[str, Any], n: int) -> list[str]:
    kind = layout["header"]
    cells = [f"w{j + 1}" for j in range(n)] if kind == "names" else \
        [str(j + (kind == "numbers1")) for j in range(n)]
    if kind and kind != "names" and layout["index"] is None and n > 0:
        return cells  # pandas' index=False: the column numbers alone
    return ([layout["index_name"]] if layout["index"] is not None else []) + cells


def rows_of(matrix: np.ndarray, layout: dict[str, Any]) -> list[list[str]]:
    n = matrix.shape[0]
    rows = [header_cells(layout, n)] if layout["header"] else []
    for i, row in enumerate(matrix):
        start = [] if layout["index"] is None else [str(i + layout["index"])]
        rows.append(start + [text(v) for v in row])
    return rows


def write(rows: list[list[str]], layout: dict[str, Any]) -> bytes:
    """The rows through the csv module (or joined by spaces), as a spreadsheet saves."""
    separator, end = layout["separator"], "\r\n" if layout["crlf"] else "\n"
    buffer = io.StringIO(newline="")
    if separator == " ":
        for cells in rows:
            shown = [f'"{c}"' if layout["quote"] and c else c for c in cells]
            buffer.write(" ".join(shown) + (" " if layout["trailing"] else "") + end)
    else:
        writer = csv.writer(buffer, delimiter=separator, lineterminator=end,
                            quoting=csv.QUOTE_ALL if layout["quote"] else csv.QUOTE_MINIMAL)
        for cells in rows:
            writer.writerow(cells + ([""] if layout["trailing"] else []))
    return buffer.getvalue().encode(layout["bom"] or "utf-8")


def read(data: bytes, name: str = "w.csv") -> np.ndarray:
    stream = io.BytesIO(data)
    stream.name = name  # type: ignore[attr-defined]
    return nqmip.read_weights(stream)


@settings(max_examples=200, deadline=None)
@given(matrices(), layouts())
def test_a_matrix_written_by_the_csv_module_reads_back_equal(matrix: np.ndarray,
                                                            layout: dict[str, Any]) -> None:
    if layout["separator"] == " " and layout["index"] is not None:
        layout["index_name"] = "row"  # an empty cell has no place between spaces
    data = write(rows_of(matrix, layout), layout)
    np.testing.assert_array_equal(read(data), matrix)


@settings(max_examples=100, deadline=None)
@given(matrices(), st.sampled_from([",", "\t", " ", ";"]), st.booleans(),
       st.sampled_from(["%.17g", "%.18e", "%d"]))
def test_a_matrix_written_by_numpy_savetxt_reads_back_equal(
        matrix: np.ndarray, separator: str, names: bool, fmt: str) -> None:
    if fmt == "%d":
        matrix = np.round(matrix)
    buffer = io.StringIO()
    # a header of names as a row (comments=""), else numpy's "# ..." comment line
    np.savetxt(buffer, matrix, delimiter=separator, fmt=fmt,
               header=separator.join(f"c{j}" for j in range(len(matrix))),
               comments="" if names else "# ")
    np.testing.assert_array_equal(read(buffer.getvalue().encode()), matrix)


@settings(max_examples=60, deadline=None)
@given(matrices(), st.booleans(), st.sampled_from([",", ";", "\t"]),
       st.sampled_from([None, "names", "index name"]), st.booleans())
def test_a_matrix_written_by_pandas_to_csv_reads_back_equal(
        matrix: np.ndarray, index: bool, separator: str, labels: str | None,
        crlf: bool) -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(matrix)
    if labels is not None:
        frame.columns = [f"c{j}" for j in range(len(matrix))]
    if labels == "index name":
        frame.index.name = "row"
    written = frame.to_csv(index=index, sep=separator,
                           lineterminator="\r\n" if crlf else "\n")
    np.testing.assert_array_equal(read(written.encode()), matrix)


# --- refused, in one line naming the file and the fault ------------------------------------


def refusal(data: bytes, name: str = "w.csv") -> str:
    with pytest.raises(InstanceError) as caught:
        read(data, name)
    message = str(caught.value)
    assert "\n" not in message and name in message, message
    return message


@settings(max_examples=100, deadline=None)
@given(matrices(), layouts(), st.data(),
       st.sampled_from(["", "nan", "NaN", "inf", "-inf", "abc", "#N/A", "1_0", "2,5"]))
def test_a_bad_cell_is_refused_naming_its_row_and_column(
        matrix: np.ndarray, layout: dict[str, Any], data: st.DataObject, bad: str) -> None:
    if layout["separator"] == " ":
        layout["separator"] = ","  # an empty cell has no place between spaces
    if bad == "2,5":
        layout["separator"], layout["quote"] = ";", True  # "2,5" quoted: one cell
    rows = rows_of(matrix, layout)
    top = 1 if layout["header"] else 0
    first = 0 if layout["index"] is None else 1
    i = data.draw(st.integers(top, len(rows) - 1))
    j = data.draw(st.integers(first, len(rows[i]) - 1))
    rows[i][j] = bad
    # without a header, text in the first cell is the name above an index column when the
    # rest of the first row and column are 0..n-1 (pandas' layout); a 1 x 1 file's one
    # cell as text is a header row without numbers
    assume(layout["header"] or (i, j) != (0, 0) or bad in ("nan", "NaN", "inf", "-inf"))
    message = refusal(write(rows, layout))
    assert f"row {i + 1}, column {j + 1}" in message, message


@pytest.mark.parametrize(("data", "fault"), [
    (b"1,2\n3,4,5\n", "row 2 has 3 cells, row 1 has 2"),
    (b"1,2\n3;4\n", "mixes ',' (row 1) and ';' (row 2)"),
    (b"1,5;2\n3;4\n", "a decimal comma"),
    (b"0,1,2\n1,3,4\n", "an index column is read only under a header row"),
    (b"a,b,c\n5,1,2\n6,3,4\n", "the first column is not row numbers 0..1 or 1..2"),
    (b"1,2,3\n4,5,6\n", "holds 2 rows of 3 numbers"),
    (b"a,b\n", "has a header row and no numbers"),
    (b"1,a\n2,3\n", "'a' is not a number (a header row is read only when none"),
    (b"a,1\n2,3\n4,5\n", "3 rows of 2 numbers (row 1 is not a header row"),
    (b"a,b\n1,2\n3,4\n5,6\n", "holds 3 rows of 2 numbers"),
    (b"\n  \n# only a comment\n", "is empty"),
    (b"1,2\n3,\xe94\n", "is not UTF-8 text (byte 0xE9 at row 2"),
    (b"PK\x03\x04rest", "save the sheet as CSV"),
    (b"1,2\n#DIV/0!,3\n", "row 2, column 1: '#DIV/0!' is not a number"),  # not a comment
    ("1\t2\n3\t4\n".encode("utf-16-le"), "UTF-16 without its byte-order mark"),
    # a number past a float64 was 'not a number'; other scripts' digits (NumPy's reader
    # refuses them) were 'cannot read the numbers', no cell named
    (b"1,2\n3,1e400\n", "row 2, column 2 is 1e400, beyond a float64's range"),
    ("1,2\n3,\u0663\n".encode(), "row 2, column 2: '\u0663' is not a number"),
])
def test_a_file_with_a_fault_is_refused_in_one_line(data: bytes, fault: str) -> None:
    assert fault in refusal(data)


def test_text_given_for_a_path_is_refused_in_one_line() -> None:
    with pytest.raises(InstanceError, match=r"for text, pass io\.StringIO\(text\)$"):
        nqmip.read_weights("1,2\n3,4\n")


@pytest.mark.parametrize("array", [np.arange(9).reshape(3, 3), np.eye(3, dtype=bool),
                                   np.arange(9, dtype=np.float32).reshape(3, 3) / 4,
                                   np.arange(4, dtype=np.uint8).reshape(2, 2)])
def test_npy_of_ints_bools_and_floats_reads_back_equal(array: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.save(buffer, array)
    matrix = read(buffer.getvalue(), "w.npy")
    assert matrix.dtype == np.float64
    np.testing.assert_array_equal(matrix, array.astype(np.float64))


@pytest.mark.parametrize(("array", "fault"), [
    (np.array([[1, "a"], [2, 3]], dtype=object), "an array of Python objects"),
    (np.eye(2) * 1j, "dtype complex128"),
    (np.array([["1", "2"], ["3", "4"]]), "dtype <U1"),
    (np.zeros((2, 2, 2)), "a 2 x 2 x 2 array"),
    (np.zeros((2, 3)), "a 2 x 3 array"),
    (np.array([[1.0, 2.0], [np.nan, 3.0]]), "row 2, column 1 is nan"),
])
def test_npy_that_is_not_a_matrix_of_numbers_is_refused(array: np.ndarray, fault: str) -> None:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    assert fault in refusal(buffer.getvalue(), "w.npy")


@pytest.mark.parametrize("shape", [(10**6, 10**6), (3, 3), (2**40, 2**40)])
def test_npy_whose_header_states_more_than_the_file_holds_is_refused_before_reading(
        shape: tuple[int, int]) -> None:
    """A header of 10^6 x 10^6 over 64 bytes met numpy's MemoryError (7.28 TiB): a
    traceback, exit 1, from the commands."""
    from numpy.lib import format as npy

    buffer = io.BytesIO()
    npy.write_array_header_1_0(buffer, {"descr": "<f8", "fortran_order": False,
                                        "shape": shape})
    buffer.write(bytes(64))
    fault = refusal(buffer.getvalue(), "w.npy")
    assert f"its header says a {shape[0]} x {shape[1]} array of float64" in fault, fault
    assert "the file holds 64)" in fault, fault


def test_npy_of_long_doubles_past_a_float64_is_refused_without_a_warning() -> None:
    """A long double of 1e400 was 'is inf', after numpy's RuntimeWarning on stderr (the
    solve command's refusal took three lines)."""
    import warnings

    buffer = io.BytesIO()
    np.save(buffer, np.full((2, 2), np.longdouble(10) ** 400))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fault = refusal(buffer.getvalue(), "w.npy")
    assert "row 1, column 1 is 1e+400, beyond a float64's range" in fault, fault


# --- through the command ---------------------------------------------------------------


def command(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nqmip", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120, check=False)


def test_the_command_reads_what_a_spreadsheet_and_pandas_write(tmp_path: Path) -> None:
    matrix = np.arange(1, 37, dtype=np.float64).reshape(6, 6) % 7
    expected = nqmip.solve(6, matrix, method="highs").objective
    semicolons = tmp_path / "sheet.csv"  # a European spreadsheet: BOM, ';', CRLF, header
    semicolons.write_bytes(("\ufeffa;b;c;d;e;f\r\n" + "".join(
        ";".join(text(v) for v in row) + ";\r\n" for row in matrix)).encode("utf-8"))
    framed = tmp_path / "frame.csv"  # pandas.DataFrame(matrix).to_csv(): index and header
    framed.write_text(",0,1,2,3,4,5\n" + "".join(
        f"{i}," + ",".join(text(v) for v in row) + "\n" for i, row in enumerate(matrix)))
    for path in (semicolons, framed):
        done = command("--weights", str(path), "--method", "highs", "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["objective"] == pytest.approx(expected)


@pytest.mark.parametrize(("content", "fault"), [
    (b"1,2\n3,nan\n", "row 2, column 2 is nan"),
    (b"1,2\n3,\xe94\n", "is not UTF-8 text"),
])
def test_the_command_refuses_a_bad_file_in_one_line(tmp_path: Path, content: bytes,
                                                    fault: str) -> None:
    path = tmp_path / "w.csv"
    path.write_bytes(content)
    done = command("--weights", str(path))
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and done.stdout == "" and len(lines) == 1, done.stderr
    assert fault in lines[0] and str(path) in lines[0] and lines[0].count("--weights") == 1


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrices(), layouts())
def test_the_command_and_the_function_read_the_same(matrix: np.ndarray,
                                                    layout: dict[str, Any]) -> None:
    """In process, through the command's own reader (``--weights``, ``--costs``)."""
    from nqmip.cli.solve import load_weights

    if layout["separator"] == " " and layout["index"] is not None:
        layout["index_name"] = "row"
    data = write(rows_of(matrix, layout), layout)
    path = Path(f"/tmp/test-weights-{abs(hash(data))}.csv")
    try:
        path.write_bytes(data)
        np.testing.assert_array_equal(load_weights(path, "--costs"), matrix)
    finally:
        path.unlink(missing_ok=True)
