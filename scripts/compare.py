#!/usr/bin/env python
"""Compare exact and heuristic N-Queens methods over a grid of sizes (tables, JSON Lines,
plots, resumable sweeps, Dask).

A thin wrapper around :func:`nqmip.compare.main`, also installed as ``nqmip-compare``;
run with ``--help``.
"""

import sys
from pathlib import Path

if __name__ == "__main__":
    # Run from a checkout without installing: the package sits next to scripts/.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from nqmip.cli.streams import leave
    from nqmip.compare import main

    leave(main())
