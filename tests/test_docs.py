"""The documentation site, built as CI builds it: it must work with no network (nothing
loaded from outside the site, formulas already MathML), from disk (links to .html files),
and document every public name."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

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
