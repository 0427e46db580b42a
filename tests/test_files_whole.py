"""Every file the package writes for a user is written whole or not at all
(:mod:`nqmip.files`): a count's ``--plot`` stopped by SIGTERM while saving left a PNG of
124 bytes (a PDF of 8, a TIFF of 0) in place of the picture that was there."""

from __future__ import annotations

import ast
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from matplotlib.figure import Figure

from nqmip.files import write_whole

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "docs" / "compare" / "chess.jsonl"
OLD = b"the picture that was there"


def _count_plot(target: Path) -> None:
    from nqmip.cli.count import count_main

    if count_main(["--n", "6", "--plot", str(target)]) == 130:  # the command heard a stop
        raise KeyboardInterrupt


def _draw_png(target: Path) -> None:
    from nqmip.drawing import save_picture

    save_picture((1, 3, 5, 0, 2, 4), target)


def _compare_plot(target: Path) -> None:
    from nqmip.compare.plot import plot
    from nqmip.compare.store import read_rows

    plot([r for r in read_rows(RECORDS) if r["n"] == 8], target)


#: The doors that draw a picture into a file of the user's.
PICTURES: dict[str, Callable[[Path], None]] = {
    "count --plot png": _count_plot, "count --plot pdf": _count_plot,
    "draw png": _draw_png, "compare --plot png": _compare_plot,
    "compare --plot svg": _compare_plot}


@pytest.mark.parametrize("door", sorted(PICTURES))
def test_a_stop_while_a_picture_is_saved_leaves_the_old_file(
        door: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / f"picture.{door.split()[-1]}"
    target.write_bytes(OLD)
    real = Figure.savefig

    def stopped_midway(self: Figure, out: Any, *args: Any, **kwargs: Any) -> None:
        buffer = io.BytesIO()
        real(self, buffer, *args, **kwargs)
        data = buffer.getvalue()
        if hasattr(out, "write"):
            out.write(data[: len(data) // 2])
        else:
            Path(out).write_bytes(data[: len(data) // 2])
        raise KeyboardInterrupt  # the signal, half-way through the file

    monkeypatch.setattr(Figure, "savefig", stopped_midway)
    with pytest.raises(KeyboardInterrupt):
        PICTURES[door](target)
    assert target.read_bytes() == OLD
    assert target.read_bytes() == OLD and not any(  # compare's four: none half-written
        p.stat().st_size < 1000 for p in tmp_path.iterdir() if p != target)
    assert not any(".partial" in p.name for p in tmp_path.iterdir())


@pytest.mark.parametrize("door", sorted(PICTURES))
def test_a_picture_is_written_whole(door: str, tmp_path: Path) -> None:
    target = tmp_path / f"picture.{door.split()[-1]}"
    target.write_bytes(OLD)
    PICTURES[door](target)
    data = target.read_bytes()
    magic = {"png": b"\x89PNG", "pdf": b"%PDF", "svg": b"<?xml"}[door.split()[-1]]
    assert data.startswith(magic) and len(data) > 1000
    assert all(p.name.startswith("picture") for p in tmp_path.iterdir())  # no fragment


@pytest.mark.parametrize("data", ["text", b"\x00bytes"])
def test_a_stop_at_the_rename_keeps_the_old_file(
        data: str | bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out"
    target.write_bytes(OLD)

    def stopped(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("nqmip.files.os.replace", stopped)
    with pytest.raises(KeyboardInterrupt):
        write_whole(target, data)
    assert target.read_bytes() == OLD
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


#: Writes that are not a user's file: records appended line by line (their torn last line
#: is dropped on reading, nqmip.jsonlines), a run's private files.
NOT_A_USERS_FILE = {("nqmip/jsonlines.py", "write_text"), ("nqmip/bnb/record.py", "open"),
                    ("nqmip/compare/harness.py", "open"), ("nqmip/compare/store.py", "open"),
                    ("nqmip/compare/harness.py", "write_text"),
                    ("nqmip/cli/streams.py", "open"),  # /dev/null for a closed stderr
                    ("nqmip/numba_cache.py", "open")}  # a lock file


def test_every_file_for_a_user_goes_through_write_whole() -> None:
    """No ``write_text``, ``write_bytes``, ``savefig`` to a path or ``open`` for writing
    outside :mod:`nqmip.files`, but the records and private files listed."""
    found = []
    for path in sorted((ROOT / "nqmip").rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        if where == "nqmip/files.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            writes = name in ("write_text", "write_bytes") or (
                name == "open" and any(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                       and set(a.value) & set("wax") for a in node.args[1:2]))
            if name == "savefig" and node.args and not (
                    (isinstance(node.args[0], ast.Name) and node.args[0].id in ("out", "buffer"))
                    or isinstance(node.args[0], ast.Call)):
                writes = True
            if writes and (where, name) not in NOT_A_USERS_FILE:
                found.append(f"{where}:{node.lineno} {name}")
    assert not found, found
