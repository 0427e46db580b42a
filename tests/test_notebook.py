"""docs/notebook.ipynb runs from top to bottom (nbclient), so it cannot rot."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from .conftest import IN_CI

NOTEBOOK = Path(__file__).resolve().parent.parent / "docs" / "notebook.ipynb"


def test_notebook_runs_top_to_bottom() -> None:
    try:
        import nbformat
        from nbclient import NotebookClient
    except ImportError:
        if IN_CI:
            pytest.fail('CI=true and nbclient is missing: pip install "nqmip[test]"')
        pytest.skip('nbclient is not installed: pip install "nqmip[test]"')
    if shutil.which("glpsol") is None:
        if IN_CI:
            pytest.fail("CI=true and glpsol is missing: apt-get install glpk-utils")
        pytest.skip("the notebook solves with GLPK: apt-get install glpk-utils")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    elapsed = time.perf_counter() - start
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "appsi_highs  objective" in text and "glpk         objective" in text
    assert "accepted True" in text
    images = [o for o in outputs if o.output_type == "display_data" and "image/png" in o.data]
    assert len(images) == 2  # the two boards (nqmip.draw), the 12 fundamental solutions
    html = [o.data["text/html"] for o in outputs
            if o.output_type == "execute_result" and "text/html" in o.data]
    assert len(html) == 2 and "<svg" in html[0] and "optimal" in html[0]  # a Result's board
    # a board of 100 queens: each a dot, ranks and files along the edges
    assert html[1].count('fill="#1a1a1a"') == 100 and ">100</text>" in html[1]
    assert "each dot one of the 100 queens" in html[1]
    assert "solutions: 92  classes: 12" in text
    assert elapsed < 90
