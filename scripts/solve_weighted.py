#!/usr/bin/env python
"""Solve the weighted N-Queens problem (chess weights by default) and print the board.

A thin wrapper around :func:`nqmip.cli.solve.solve_weighted_main`; run with ``--help``.
"""

import os
import sys

if __name__ == "__main__":
    # Run from a checkout without installing: the package sits next to scripts/. The
    # launcher hears a stop signal before anything heavy is imported (nqmip.cli.launch).
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    from nqmip.cli.launch import solve

    solve()
