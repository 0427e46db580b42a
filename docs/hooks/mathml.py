"""Math without a network: pymdownx.arithmatex's ``\\( … \\)`` and ``\\[ … \\]`` become
MathML at build time (latex2mathml), which browsers draw natively. No script renders
formulas in the reader's browser, so a page read offline shows formulas, not LaTeX."""

from __future__ import annotations

import html
import re
from typing import Any

from latex2mathml.converter import convert

_BLOCK = re.compile(r'<div class="arithmatex">\s*\\\[(.*?)\\\]\s*</div>', re.S)
_INLINE = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.S)


def _mathml(tex: str, display: str) -> str:
    return convert(html.unescape(tex).strip(), display=display)


def on_page_content(page_html: str, **_: Any) -> str:
    page_html = _BLOCK.sub(lambda m: f'<div class="math">{_mathml(m.group(1), "block")}</div>',
                           page_html)
    return _INLINE.sub(lambda m: _mathml(m.group(1), "inline"), page_html)
