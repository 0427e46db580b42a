"""The documentation site, built as CI builds it: it must work with no network (nothing
loaded from outside the site, formulas already MathML), from disk (links to .html files),
and document every public name."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nqmip

from .conftest import IN_CI

ROOT = Path(__file__).resolve().parent.parent
#: A script or stylesheet the browser would fetch from elsewhere.
EXTERNAL = re.compile(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=\"(?:https?:)?//",
                      re.I)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        import material  # noqa: F401
        import mkdocstrings  # noqa: F401
    except ImportError:
        if IN_CI:
            pytest.fail('CI=true and the docs tools are missing: pip install "nqmip[docs]"')
        pytest.skip('the docs tools are not installed: pip install "nqmip[docs]"')
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--site-dir", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_nothing_is_loaded_from_outside_the_site(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    offenders = {page.name: EXTERNAL.findall(page.read_text()) for page in pages}
    assert not {name: found for name, found in offenders.items() if found}
    for sheet in site.rglob("*.css"):
        assert not re.search(r"@import\s+url\((?:https?:)?//", sheet.read_text()), sheet


def test_the_checker_sees_an_external_script() -> None:
    assert EXTERNAL.search('<script src="https://cdn.example.org/mathjax.js"></script>')
    assert EXTERNAL.search('<link rel="stylesheet" href="//fonts.example.org/a.css">')
    assert not EXTERNAL.search('<script src="assets/javascripts/bundle.js"></script>')
    assert not EXTERNAL.search('<a href="https://example.org/">a link, not a load</a>')


def test_formulas_are_mathml_not_latex(site: Path) -> None:
    page = (site / "formulation.html").read_text()
    assert page.count("<math") > 10
    assert "\\begin{aligned}" not in page and "\\sum" not in page and "\\[" not in page


def test_links_work_from_disk(site: Path) -> None:
    index = (site / "index.html").read_text()
    links = set(re.findall(r'href="([^"#:]+)"', index))
    pages = {link for link in links if not link.startswith(("assets/", "css/"))}
    assert "getting-started.html" in pages and "api.html" in pages
    assert not [link for link in pages if link.endswith("/")]  # a folder lists on disk
    assert all((site / link).exists() for link in pages), pages


def test_every_public_name_is_in_the_api_reference(site: Path) -> None:
    api = (site / "api.html").read_text()
    ids = set(re.findall(r'id="(nqmip\.[\w.]+)"', api))
    documented = {name.rsplit(".", 1)[-1] for name in ids}
    missing = [name for name in nqmip.__all__
               if name not in documented and name != "__version__"]
    assert not missing, f"public names missing from docs/api.md: {missing}"
    assert "__version__" in api


# --- The site as a reader sees it: opened from disk in headless Chromium -------------------

#: Words that belong to the project's work items, not to a reader's page.
WORK_ITEMS = re.compile(
    r"\(issues? #?\d+\)|\bissues? #?\d+\b|\bthe issue(?:'s)?\b|\blimits of the issue\b"
    r"|\bsessions?\b|\bwork items?\b", re.I)


def page_text(html_text: str) -> str:
    """What a reader reads on a page: no scripts, styles or tags."""
    import html

    text = re.sub(r"<(script|style)\b.*?</\1>", " ", html_text, flags=re.S | re.I)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def test_no_page_speaks_of_work_items(site: Path) -> None:
    found = {}
    for page in sorted(site.rglob("*.html")):
        hits = [m.group(0) for m in WORK_ITEMS.finditer(page_text(page.read_text()))]
        if hits:
            found[page.name] = hits
    readme = [m.group(0) for m in WORK_ITEMS.finditer((ROOT / "README.md").read_text())]
    if readme:
        found["README.md"] = readme
    assert not found, f"pages that mention work items: {found}"


def test_the_work_item_checker_sees_them() -> None:
    for text in ("A warm start (issue 4) reaches", "with the limits of the issue (60 s)",
                 "the issue's plain C program", "in three sessions", "see issue #12"):
        assert WORK_ITEMS.search(page_text(f"<p>{text}</p>")), text
    for text in ("google/or-tools#5246", "a known problem", "tissue", "50 issued moves"):
        assert not WORK_ITEMS.search(text), text


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from .chromium import Chromium, find_chromium

    if find_chromium() is None:
        if IN_CI:
            pytest.fail("CI=true and chromium is missing: apt-get install -y chromium")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    with Chromium(width=1280, height=900) as chromium:
        yield chromium


#: Opens the search, types ``query`` and resolves with what the results panel shows.
SEARCH = """
new Promise((resolve) => {
  const form = document.querySelector(".md-search");
  const shown = !!form && getComputedStyle(form).display !== "none";
  const toggle = document.getElementById("__search");
  toggle.checked = true;
  toggle.dispatchEvent(new Event("change"));
  const input = document.querySelector("input[data-md-component=search-query]");
  const started = Date.now();
  const typed = () => {
    input.focus();
    input.value = QUERY;
    for (const kind of ["input", "keyup"]) input.dispatchEvent(new Event(kind, {bubbles: true}));
  };
  const look = () => {
    const items = [...document.querySelectorAll(".md-search-result__item a")];
    const meta = document.querySelector(".md-search-result__meta");
    if (items.length || Date.now() - started > 8000) {
      resolve({shown, meta: meta ? meta.textContent.trim() : null,
               links: items.map((a) => a.getAttribute("href"))});
    } else { typed(); setTimeout(look, 200); }
  };
  setTimeout(look, 200);
})
"""


def test_search_works_from_disk(site: Path, browser: Any) -> None:
    """Material hides its search on file:// unless the offline plugin inlines the index
    and a Web Worker shim is there: opened from disk, the box shows and finds pages."""
    page = browser.open((site / "index.html").as_uri())
    found = page.evaluate(SEARCH.replace("QUERY", '"lex_first"'))
    assert found["shown"], "the search box is hidden on the page opened from disk"
    assert found["links"], f"no search result from disk: {found['meta']!r}"
    api = (site / "api.html").as_uri()
    assert any(link.split("#")[0] == api for link in found["links"]), found


#: Every table of the page: its width and the width its scroll box shows.
TABLES = """
[...document.querySelectorAll(".md-typeset table")].map((table) => {
  let box = table.parentElement;
  while (box && !["auto", "scroll"].includes(getComputedStyle(box).overflowX)) {
    box = box.parentElement;
  }
  const head = [...table.querySelectorAll("th")].map((th) => th.textContent.trim());
  return {width: Math.ceil(table.getBoundingClientRect().width),
          shown: box ? box.clientWidth : document.documentElement.clientWidth,
          head: head.slice(0, 4).join(" | ")};
})
"""


def wide_tables(page: Any) -> list[dict[str, Any]]:
    return [t for t in page.evaluate(TABLES) if t["width"] > t["shown"]]


def test_every_table_fits_its_column(site: Path, browser: Any) -> None:
    """In a 1280-pixel window the text column is 720 pixels: every table of every page
    fits it (no table to scroll sideways)."""
    pages = [p for p in sorted(site.glob("*.html")) if "<table" in p.read_text()]
    assert len(pages) > 15
    overflowing = {}
    for path in pages:
        wide = wide_tables(browser.open(path.as_uri()))
        if wide:
            overflowing[path.name] = wide
    assert not overflowing, f"tables wider than their column: {overflowing}"


def test_the_width_check_sees_a_wide_table(site: Path, browser: Any) -> None:
    page = browser.open((site / "getting-started.html").as_uri())
    assert not wide_tables(page)
    page.evaluate("""(() => {
      const table = document.querySelector(".md-typeset table");
      for (const row of table.rows) {
        for (let k = 0; k < 30; k++) row.insertCell().textContent = "a-long-unbreakable-cell";
      }
    })()""")
    assert wide_tables(page)


def test_the_readme_says_what_is_optimised_before_any_command() -> None:
    """The README's first screen: the weights on the squares and a small board, and what
    a solve does without a time limit, before the first command to type."""
    readme = (ROOT / "README.md").read_text()
    first = readme[: readme.index("```bash")]
    assert "weight" in first and "--time-limit" in first and "Without it" in first
    board = re.search(r"```text\n(.*?)```", first, re.S)
    assert board, "no board on the README's first screen"
    lines = board.group(1).splitlines()
    cells = [re.findall(r"\[?\d+\]?", line[:24]) for line in lines]
    weights = np.array([[int(c.strip("[]")) for c in row] for row in cells])
    placement = tuple(next(j for j, c in enumerate(row) if c.startswith("[")) for row in cells)
    example = np.loadtxt(ROOT / "docs/examples/weights6.csv", delimiter=",")
    assert (weights == example).all(), "the README's board is not docs/examples/weights6.csv"
    assert all(sum(c.startswith("[") for c in row) == 1 for row in cells)
    total = int(re.search(r"= (\d+)", board.group(1)).group(1))
    best = nqmip.solve(6, example, method="highs")
    assert nqmip.is_solution(placement) and total == sum(example[i, j] for i, j in
                                                          enumerate(placement))
    assert best.status == "optimal" and best.objective == total


#: Names of the API before the one contract (Result.timing, .counters, .provenance;
#: nqmip.lex_first): a page that shows them shows code that no longer runs.
OLD_NAMES = re.compile(
    r"\bcompile_time\b|\bwarm_start_accepted\b|\bheuristic_time\b|\bsolve_time\b"
    r"|\bResult\.(?:evaluations|iterations|nodes|improvements)\b|\bincumbent_from\b"
    r'|extra\["proof"\]|solve\(\s*\w+[^)\n]*objective="lex-first"|`objective="lex-first"`'
    r'|`oracle="\w[\w-]*"`'
    r"|compile time is reported apart|counts from the end of the compile")
#: Measured pages that quote their own records' fields (regenerated with their benchmarks).
RECORD_PAGES = {"benchmarks-compare.md", "weighted.md"}


def test_the_pages_use_todays_api() -> None:
    pages = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md",
             ROOT / "docs" / "notebook.ipynb"]
    found = {page.name: OLD_NAMES.findall(page.read_text()) for page in pages
             if page.name not in RECORD_PAGES}
    assert not {name: hits for name, hits in found.items() if hits}


def test_the_old_name_checker_sees_them() -> None:
    for text in ('r = nqmip.solve(30, objective="lex-first", time_limit=60)',
                 "`Result.evaluations` is that count", "records `warm_start_accepted`",
                 "reported as `Result.compile_time`",
                 'The first solution (`objective="lex-first"`, `docs/lex-first.md`)',
                 'prefix oracle (`oracle="sat"` or `"portfolio"`)'):
        assert OLD_NAMES.search(text), text
    assert not OLD_NAMES.search('`solve(..., objective="lex-first")` is refused')
    assert not OLD_NAMES.search("`Result.counters.evaluations`, `provenance.start_objective`")


#: A commit hash: 7 to 40 hex digits as a word, with a letter among them (a seed such as
#: 123456789 or a count such as 666090624 is a decimal number, not a hash).
COMMIT_HASH = re.compile(r"\b(?=[0-9]*[a-f])[0-9a-f]{7,40}\b")
#: A remark on the machine's load while it measured.
LOAD_REMARK = re.compile(
    r"\bload(?:ed)?\s+(?:average|avg)\b|(?<!kernel )\bload\s+(?:about\s+|of\s+|was\s+)?\d"
    r"|\bloaded\s+(?:2-core\s+)?(?:machine|core)", re.I)
#: The folded section a page keeps such notes in: the line, then what is indented under it.
MEASURED = re.compile(r'^\?\?\?\+? note "How this was measured"\n(?:(?: {4}.*)?\n)*', re.M)
#: Pages left out of the check (none: every page's notes on how it was measured are folded).
NOT_CHECKED: set[str] = set()


def page_body(text: str) -> str:
    """A page without its "How this was measured" sections."""
    return MEASURED.sub("", text if text.endswith("\n") else text + "\n")


def test_the_pages_keep_commits_and_load_to_how_this_was_measured() -> None:
    found = {}
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name in NOT_CHECKED:
            continue
        body = page_body(page.read_text())
        hits = COMMIT_HASH.findall(body) + LOAD_REMARK.findall(body)
        if hits:
            found[page.name] = hits
    assert not found, f"commit hashes or load remarks outside 'How this was measured': {found}"


def test_the_measuring_note_checker_sees_them() -> None:
    for text in ("the code at commit 4b8b59a", "before (fb1b61c)", "`c949517`",
                 "1-minute load average 4.35", "(load 4-8 on 2 cores)", "load about 2",
                 "Load average at the end of the run: 5.8", "on a loaded 2-core machine",
                 "at load average 3.5–4.7"):
        assert COMMIT_HASH.search(text) or LOAD_REMARK.search(text), text
    for text in ("seed 123456789", "666090624 solutions", "numba's compile or cache load",
                 "on any machine, loaded or quiet", "json.load(open('a.json'))"):
        assert not (COMMIT_HASH.search(text) or LOAD_REMARK.search(text)), text
    page = ('# P\n\nMeasured 2026-11-22.\n\n??? note "How this was measured"\n\n'
            "    At commit 4b8b59a, load average 4.35.\n\n    | a |\n\nAfter, load average 2.\n")
    assert page_body(page) == "# P\n\nMeasured 2026-11-22.\n\nAfter, load average 2.\n"
