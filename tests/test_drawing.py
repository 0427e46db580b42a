"""The boards a Result draws (a notebook's SVG, ``nqmip.draw``): the command's way up, with
coordinates, and every queen visible whatever n, checked on the picture Chromium shows."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nqmip
from nqmip import drawing
from nqmip.construct import explicit_solution

from .conftest import IN_CI


def texts(svg: str) -> list[tuple[float, float, str]]:
    return [(float(x), float(y), t) for x, y, t in
            re.findall(r'<text x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)</text>', svg)]


def queens(svg: str) -> list[tuple[float, float, float]]:
    return [(float(x), float(y), float(r)) for x, y, r in re.findall(
        rf'<circle cx="([\d.]+)" cy="([\d.]+)" r="([\d.]+)" fill="{drawing.QUEEN}"', svg)]


def test_file_names_go_on_as_in_a_spreadsheet() -> None:
    assert [drawing.file_name(c) for c in (0, 7, 25, 26, 27, 51, 52, 701, 702)] == \
        ["a", "h", "z", "aa", "ab", "az", "ba", "zz", "aaa"]


def test_a_small_board_names_every_rank_and_file_rank_one_at_the_bottom() -> None:
    placement = (0, 4, 7, 5, 2, 6, 1, 3)
    svg = drawing.board_svg(placement)
    labels = {t: (x, y) for x, y, t in texts(svg)}
    assert set("abcdefgh") <= set(labels) and {str(r) for r in range(1, 9)} <= set(labels)
    assert labels["1"][1] > labels["8"][1]  # rank 1 below rank 8
    assert labels["a"][0] < labels["h"][0]  # file a left of file h
    dots = queens(svg)
    assert len(dots) == 8
    bottom = max(dots, key=lambda d: d[1])  # the lowest queen is row 0's, in file a
    left = min(dots, key=lambda d: d[0])
    assert bottom == left == dots[0]


@pytest.mark.parametrize("n", [65, 100, 1000, drawing.DOTS_LIMIT])
def test_a_large_board_draws_every_queen_as_a_visible_dot(n: int) -> None:
    placement = explicit_solution(n)
    svg = drawing.board_svg(placement, size=480)
    dots = queens(svg)
    assert len(dots) == n
    assert min(r for _, _, r in dots) >= drawing.MIN_DOT / 2
    names = {t for _, _, t in texts(svg)}
    assert {"1", str(n), "a", drawing.file_name(n - 1)} <= names
    assert len(svg) < 120 * n + 20_000  # a pattern for the squares, not n² rectangles


def test_beyond_the_dots_a_density_where_no_queen_vanishes() -> None:
    n = 3 * drawing.DOTS_LIMIT
    placement = explicit_solution(n)
    counts = drawing.density(np.asarray(placement), drawing.DENSITY_CELLS)
    assert counts.sum() == n
    level = drawing.shade(counts)
    assert (level[counts > 0] >= drawing.MIN_SHADE).all() and (level[counts == 0] == 0).all()
    svg = drawing.board_svg(placement)
    assert not queens(svg)
    greys = [int(g) for g in re.findall(r'fill="rgb\((\d+),', svg)]
    assert len(greys) == int((counts > 0).sum())
    assert max(greys) <= round(255 * (1 - drawing.MIN_SHADE))


def test_a_result_shows_its_board_caption_and_what_the_picture_shows() -> None:
    small = nqmip.solve(8, "chess", method="highs")
    assert "optimal" in small._repr_html_() and "each dot" not in small._repr_html_()
    big = nqmip.solve(100, "chess", method="minconflicts", seed=0)
    page = big._repr_html_()
    assert len(queens(page)) == 100 and "each dot one of the 100 queens" in page


def test_draw_names_ranks_and_files_along_the_edges() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for n in (8, 100):
        ax = nqmip.draw(explicit_solution(n))
        files = [t.get_text() for t in ax.get_xticklabels()]
        ranks = [t.get_text() for t in ax.get_yticklabels()]
        assert files[-1] == drawing.file_name(n - 1) and ranks[-1] == str(n)
        assert ax.get_ylim()[0] < ax.get_ylim()[1]  # rank 1 at the bottom
        plt.close(ax.figure)


# --- What a reader sees: the picture rendered by Chromium --------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from .chromium import Chromium, find_chromium

    if find_chromium() is None:
        if IN_CI:
            pytest.fail("CI=true and chromium is missing: apt-get install -y chromium")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    with Chromium(width=700, height=700) as chromium:
        yield chromium


@pytest.mark.parametrize("n", [8, 65, 300, 1000])
def test_every_queen_is_dark_on_the_rendered_picture(n: int, browser: Any,
                                                     tmp_path: Path) -> None:
    """Each queen's centre, on the screenshot of the notebook's picture, is dark: no
    queen vanishes into its square or into a shade, at any n."""
    from PIL import Image

    result = nqmip.solve(n, "chess", method="minconflicts", seed=1)
    page = tmp_path / "board.html"
    page.write_text('<html><head><meta charset="utf-8"><style>body{margin:0}figure{margin:0}'
                    f"</style></head><body>{result._repr_html_()}</body></html>")
    tab = browser.open(page.as_uri())
    left, top = tab.evaluate("(() => { const r = document.querySelector('svg')"
                             ".getBoundingClientRect(); return [r.left, r.top]; })()")
    image = Image.open(io.BytesIO(tab.screenshot(tmp_path / "board.png").read_bytes()))
    pixels = image.convert("RGB")
    dots = queens(result._repr_html_())
    assert len(dots) == n
    light = [(x, y) for x, y, _ in dots
             if sum(pixels.getpixel((round(left + x), round(top + y)))) > 3 * 90]
    assert not light, f"{len(light)} of {n} queens are not dark on the picture"


@pytest.mark.parametrize("n", [8, 100, 12000])
def test_the_svg_caption_fits_the_rendered_picture(n: int, browser: Any,
                                                   tmp_path: Path) -> None:
    """``--svg``'s caption (size, status, bound, what the picture shows: up to 150
    characters) is wrapped into lines that each end inside the picture as Chromium draws
    it, and the lines hold the whole caption (issue 42: one line clipped at 633 px)."""
    result = nqmip.solve(n, "chess", method="minconflicts", seed=1)
    path = drawing.save_picture(result, tmp_path / "board.svg")
    tab = browser.open(path.as_uri())
    width, rights, texts = tab.evaluate(
        "(() => { const svg = document.querySelector('svg');"
        " const lines = [...svg.querySelectorAll('text')].filter(t => t.getAttribute("
        "'font-size') === '12');"
        " return [svg.getBoundingClientRect().width,"
        " lines.map(t => t.getBoundingClientRect().right), lines.map(t => t.textContent)];"
        " })()")
    expected = drawing.caption(result, n) + (f" · {drawing.note(n)}" if drawing.note(n)
                                              else "")
    assert " ".join(texts) == expected
    assert max(rights) <= width, f"a caption line ends at {max(rights):.0f} of {width:.0f} px"


@pytest.mark.parametrize("placement", [(1, 3, 9), (0, -1, 2), "abc", [[1, 2]], (1.0, 2.0),
                                       (True, 3, 5, 0, 2, 4)],
                         ids=["off-the-board", "negative", "text", "2-d", "floats", "bool"])
def test_what_is_not_a_placement_is_refused_in_a_line(placement: object) -> None:
    """A column off the board was drawn outside it; text failed in int()'s words."""
    with pytest.raises((TypeError, ValueError)) as refused:
        nqmip.draw(placement)
    said = str(refused.value)
    assert "\n" not in said and ("placement" in said or "column" in said), said
