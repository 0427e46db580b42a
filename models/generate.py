"""Regenerate the reference weighted 8-queens LP and MPS files from ``nqmip.build_model``.

Usage (from the repository root, with nqmip installed)::

    python models/generate.py            # rewrites models/weighted8.lp, .mps, _glpk.mps
    python models/generate.py --out DIR  # writes them into DIR instead

Pyomo's own writers produce the files; a labeler gives the readable names ``x_i_j``
(variables), ``row_i``, ``col_j``, ``diag_d`` (d = i - j, written ``diag_m3`` for d = -3
because ``-`` is not allowed in LP names) and ``anti_s`` (s = i + j). Pyomo wraps every row
name in its sense tag: ``c_e_row_0_`` (an equality), ``c_u_diag_m3_`` (an upper bound).

``weighted8_glpk.mps`` is the same model without the ``OBJSENSE`` section, which GLPK's MPS
reader rejects ("invalid indicator record"); it must be solved with ``glpsol --max``.
tests/test_models.py checks that the committed files equal what this script writes.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import tempfile
from pathlib import Path
from typing import Any

MODELS_DIR = Path(__file__).resolve().parent

#: Written files: (name, Pyomo format, extra io_options).
FILES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("weighted8.lp", "cpxlp", {}),
    ("weighted8.mps", "mps", {}),
    ("weighted8_glpk.mps", "mps", {"skip_objective_sense": True}),
)

GLPK_NOTE = (
    "* Objective sense: MAXIMIZE. This copy has no OBJSENSE section, which GLPK rejects;\n"
    "* solve it with: glpsol --freemps models/weighted8_glpk.mps --max\n"
)

def label(component: Any) -> str:
    """Readable LP/MPS names (the package's own labeler)."""
    from nqmip.formulation.pyomo import readable_label

    return readable_label(component)


def reference_model() -> Any:
    """The reference instance: chess-weighted n=8, textbook formulation."""
    import nqmip

    kwargs: dict[str, Any] = {}
    if "strengthen" in inspect.signature(nqmip.build_model).parameters:
        kwargs["strengthen"] = False
    return nqmip.build_model(8, "chess", **kwargs)


def write_model(model: Any, path: Path, fmt: str, extra: dict[str, Any] | None = None) -> None:
    """Write ``model`` to ``path`` with Pyomo's writer for ``fmt`` and the readable labels."""
    model.write(str(path), format=fmt, io_options={"labeler": label, **(extra or {})})


def render(name: str) -> str:
    """The text of one of :data:`FILES`, as this script writes it."""
    fmt, extra = next((f, e) for n, f, e in FILES if n == name)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        write_model(reference_model(), path, fmt, extra)
        text = path.read_text()
    if name == "weighted8_glpk.mps":
        head, _, rest = text.partition("NAME ")
        text = f"{head}{GLPK_NOTE}NAME {rest}"
    return text


def write_files(out_dir: Path = MODELS_DIR) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, _, _ in FILES:
        path = out_dir / name
        path.write_text(render(name))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=MODELS_DIR, help="output directory")
    args = parser.parse_args(argv)
    if args.out.exists() and not args.out.is_dir():  # was a FileExistsError traceback
        print(f"generate.py: error: --out {args.out} is a file; give a folder",
              file=sys.stderr)
        return 2
    try:
        written = write_files(args.out)
    except OSError as exc:  # a folder that cannot be made or written: one line
        print(f"generate.py: error: --out {args.out}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
