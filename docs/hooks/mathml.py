"""Sphinx roles in docstrings shown as code, and math without a network:
pymdownx.arithmatex's ``\\( … \\)`` and ``\\[ … \\]`` become MathML at build
time (latex2mathml), which browsers draw natively. No script renders formulas in the
reader's browser, so a page read offline shows formulas, not LaTeX.

latex2mathml has no ``aligned`` environment: its rows (``\\\\``) and cells (``&``) become
a MathML table here, the columns aligned right, left, right, left, … as in LaTeX."""

from __future__ import annotations

import html
import re
from typing import Any

from latex2mathml.converter import convert

_BLOCK = re.compile(r'<div class="arithmatex">\s*\\\[(.*?)\\\]\s*</div>', re.S)
_INLINE = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.S)
_ALIGNED = re.compile(r"\\begin\{aligned\}(.*?)\\end\{aligned\}", re.S)
_MATH = re.compile(r"^<math[^>]*>(.*)</math>$", re.S)


def _inner(tex: str) -> str:
    """The MathML of ``tex`` without its ``<math>`` element."""
    if not tex.strip():
        return "<mrow/>"
    found = _MATH.match(convert(tex.strip()))
    return found.group(1) if found else convert(tex.strip())


def _aligned(body: str) -> str:
    rows = [row for row in re.split(r"\\\\", body) if row.strip()]
    width = max(row.count("&") + 1 for row in rows)
    align = " ".join("right" if k % 2 == 0 else "left" for k in range(width))
    cells = []
    for row in rows:
        parts = row.split("&")
        parts += [""] * (width - len(parts))
        cells.append("<mtr>" + "".join(f"<mtd>{_inner(p)}</mtd>" for p in parts) + "</mtr>")
    return (f'<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">'
            f'<mtable columnalign="{align}" columnspacing="0.2em 1.5em">{"".join(cells)}'
            "</mtable></math>")


def _mathml(tex: str, display: str) -> str:
    tex = html.unescape(tex).strip()
    aligned = _ALIGNED.fullmatch(tex)
    if aligned:
        return _aligned(aligned.group(1))
    return convert(tex, display=display)


_ROLE = re.compile(r":(?:class|func|mod|meth|attr|data|exc):<code>(~?)([^<]+)</code>")


def _role(found: re.Match[str]) -> str:
    """A Sphinx role left in a docstring (``:class:`~a.b.C```) as plain code (``C``)."""
    name = found.group(2)
    return f"<code>{name.rsplit('.', 1)[-1] if found.group(1) else name}</code>"


def on_page_content(page_html: str, **_: Any) -> str:
    page_html = _ROLE.sub(_role, page_html)
    page_html = _BLOCK.sub(lambda m: f'<div class="math">{_mathml(m.group(1), "block")}</div>',
                           page_html)
    return _INLINE.sub(lambda m: _mathml(m.group(1), "inline"), page_html)
