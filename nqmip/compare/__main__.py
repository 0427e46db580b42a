"""``python -m nqmip.compare``: the command line, and the worker of each isolated run."""

import sys

from nqmip.compare.cli import main

sys.exit(main())
