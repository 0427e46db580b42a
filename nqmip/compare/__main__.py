"""``python -m nqmip.compare``: the command line, and the worker of each isolated run.

A worker (``--worker RESULT``) leaves with ``os._exit`` once its answer is written: the
harness waits for the process to end, and the interpreter's own teardown (numba's and
LLVM's) took 0.7-0.8 s of every heuristic's cell after its result was already there."""

import os
import sys

if __name__ == "__main__" and "--worker" not in sys.argv[1:]:
    from nqmip.cli.signals import listen_early  # a stop heard before numpy loads

    listen_early()

from nqmip.cli.streams import leave, steady_stderr
from nqmip.compare.cli import main

if __name__ == "__main__":
    if "--worker" not in sys.argv[1:]:
        steady_stderr()
    code = main()
    if "--worker" in sys.argv[1:]:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    leave(code)
