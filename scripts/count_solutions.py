#!/usr/bin/env python
"""Count (or list) every N-Queens solution: ``python scripts/count_solutions.py --n 8``.

A thin wrapper around :func:`nqmip.cli.count.count_main` (installed as ``nqmip-count``);
run with ``--help``.
"""

import os
import sys

if __name__ == "__main__":
    # Run from a checkout without installing: the package sits next to scripts/. The
    # launcher hears a stop signal before anything heavy is imported (nqmip.cli.launch).
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    from nqmip.cli.launch import count

    count()
