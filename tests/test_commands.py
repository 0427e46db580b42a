"""What a user of the commands expects to find: ``python -m nqmip``, ``--version``, a typed
package, the board saved as a picture, and ``nqmip-count`` drawing its boards as the solve
command does, with a total in its progress and a word when there is nothing to list."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import time
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import nqmip
from nqmip.cli import count as count_cli
from nqmip.cli.count import count_main
from nqmip.cli.report import board_text
from nqmip.cli.solve import solve_weighted_main

ROOT = Path(__file__).resolve().parent.parent


def test_python_m_nqmip_is_the_solve_command() -> None:
    done = subprocess.run([sys.executable, "-m", "nqmip", "--n", "8", "--method", "highs",
                           "--quiet"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("optimal objective=12 bound=12")


@pytest.mark.parametrize(("main", "prog"), [(solve_weighted_main, "solve_weighted"),
                                            (count_main, "nqmip-count")])
def test_each_command_says_its_version(main: object, prog: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])  # type: ignore[operator]
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"{prog} {nqmip.__version__}\n"


def test_the_version_is_spelled_once_and_the_wheel_is_typed(tmp_path: Path) -> None:
    """pyproject reads the version from nqmip/_version.py, and the wheel carries py.typed
    (PEP 561), so a user's type checker reads the package's annotations."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"]["attr"] == \
        "nqmip._version.__version__"
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["nqmip"]
    assert (ROOT / "nqmip" / "py.typed").is_file()
    source = tmp_path / "source"  # a copy: building writes build/ and egg-info beside it
    shutil.copytree(ROOT / "nqmip", source / "nqmip",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps",
                            "--no-build-isolation", "-q", "-w", str(tmp_path)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = tmp_path.glob("nqmip-*.whl")
    assert wheel.name.startswith(f"nqmip-{nqmip.__version__}-")
    assert "nqmip/py.typed" in zipfile.ZipFile(wheel).namelist()


def test_the_board_is_saved_as_svg_and_png(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    svg, png = tmp_path / "board.svg", tmp_path / "board.png"
    assert solve_weighted_main(["--n", "8", "--method", "highs", "--fix", "e1", "--quiet",
                                "--svg", str(svg), "--png", str(png)]) == 0
    assert capsys.readouterr().out.startswith("optimal objective=12")
    picture = svg.read_text()
    assert picture.startswith("<svg") and picture.count('fill="#1a1a1a"') == 8
    assert ">a</text>" in picture and ">8</text>" in picture and "optimal" in picture
    from PIL import Image

    with Image.open(png) as image:
        assert image.format == "PNG" and min(image.size) > 300


@pytest.mark.parametrize("target", ["/proc/nqmip-board.png", "{tmp}/no-such-folder/b.png",
                                    "{tmp}", "/proc/self/nqmip.svg"])
def test_a_picture_that_cannot_be_written_is_refused_before_the_work(
        target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = target.format(tmp=tmp_path)
    flag = "--svg" if path.endswith(".svg") else "--png"
    start = time.perf_counter()
    code = solve_weighted_main(["--n", "300", "--time-limit", "30", flag, path])
    assert time.perf_counter() - start < 1.0
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and flag in err and path in err
    assert not Path(path).is_file()


def test_a_picture_that_fails_at_the_end_leaves_the_result_printed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from nqmip import drawing

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(drawing, "save_picture", refuse)
    code = solve_weighted_main(["--n", "8", "--method", "highs", "--quiet",
                                "--png", str(tmp_path / "b.png")])
    out, err = capsys.readouterr()
    assert code == 74 and out.startswith("optimal objective=12")  # EX_IOERR, as stdout's
    assert err.strip() == f"solve_weighted: --png {tmp_path / 'b.png'} not written " \
                          "(Permission denied)"


def test_count_lists_boards_the_way_the_solve_command_draws_them(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert count_main(["--n", "8", "--fix", "e1", "--list", "--limit", "1"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].startswith("# 1: 4,")
    placement = tuple(int(c) for c in listed[0].split(": ")[1].split(","))
    board = board_text(placement, 8, [(0, 4)]).plain.splitlines()
    assert listed[1:1 + len(board)] == board
    assert board[0].startswith("8 ") and board[7].startswith("1 ")  # rank 1 at the bottom
    assert board[8].split() == list("abcdefgh")  # files along the bottom, a at the left
    assert " F " in board[7] + " " and board[7].split()[5] == "F"  # e1 is the fixed queen
    assert solve_weighted_main(["--n", "8", "--method", "highs", "--fix", "e1"]) == 0
    solved = capsys.readouterr().out.splitlines()
    assert solved[1].startswith("8 ") and solved[8].startswith("1 ")
    assert solved[9].split() == list("abcdefgh")


@pytest.mark.parametrize("argv", [["--n", "3", "--list"], ["--n", "2", "--list", "--unique"],
                                  ["--n", "4", "--fix", "0,0", "--list"]])
def test_count_says_when_there_is_nothing_to_list(argv: list[str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert count_main(argv) == 0
    out, err = capsys.readouterr()
    assert "there are none" in out and not err
    assert count_main([*argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "there are none" in err  # JSON lines stay JSON


def test_count_progress_has_a_total(monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The bar hears (done, total) with a known total, not a count it cannot size."""
    heard: list[tuple[int, int]] = []

    @contextlib.contextmanager
    def bar(enabled: bool) -> Iterator[object]:
        yield (lambda done, total: heard.append((done, total))) if enabled else None

    monkeypatch.setattr(count_cli, "_progress_bar", bar)
    assert count_main(["--n", "12"]) == 0
    assert capsys.readouterr().out == "14200\n"
    assert heard and all(total > 1 for _, total in heard)
    assert heard[-1][0] == heard[-1][1]
