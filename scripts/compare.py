#!/usr/bin/env python
"""Compare exact and heuristic N-Queens methods over a grid of sizes (tables, JSON Lines,
plots, resumable sweeps, Dask).

A thin wrapper around :func:`nqmip.compare.main`, also installed as ``nqmip-compare``;
run with ``--help``.
"""

import os
import sys

if __name__ == "__main__":
    # Run from a checkout without installing: the package sits next to scripts/. The
    # launcher hears a stop signal before anything heavy is imported (nqmip.cli.launch).
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    from nqmip.cli.launch import compare

    compare()
