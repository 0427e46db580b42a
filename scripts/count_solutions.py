#!/usr/bin/env python
"""Count (or list) every N-Queens solution: ``python scripts/count_solutions.py --n 8``.

A thin wrapper around :func:`nqmip.cli.count.count_main` (installed as ``nqmip-count``);
run with ``--help``.
"""

import sys
from pathlib import Path

if __name__ == "__main__":
    # Run from a checkout without installing: the package sits next to scripts/.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from nqmip.cli.count import entry

    entry()
