#!/usr/bin/env python
"""Solve the weighted N-Queens problem (chess weights by default) and print the board.

A thin wrapper around :func:`nqmip.cli.solve.solve_weighted_main`; run with ``--help``.
"""

import sys
from pathlib import Path

if __name__ == "__main__":
    # Run from a checkout without installing: the package sits next to scripts/.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from nqmip.cli.solve import entry

    entry()
