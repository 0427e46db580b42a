"""The commands' doors: each one's first act is :func:`nqmip.cli.signals.listen_early`,
before numpy, numba or a solver is imported, then the command itself (a stop heard in
between is answered as one before the solve started: :mod:`nqmip.cli.signals`).

``scripts/solve_weighted.py``, ``python -m nqmip``, ``scripts/compare.py``,
``scripts/count_solutions.py`` and the console commands of ``pyproject.toml``
(``solve-weighted``, ``nqmip-solve``, ``nqmip-compare``, ``nqmip-count``) all start here.
This module and what it imports first are light (``python -X importtime``: a few
milliseconds; ``import nqmip`` loads its API lazily), and the API never imports it: a
plain ``import nqmip`` installs no handler.
"""

from __future__ import annotations

import sys

from nqmip.cli.signals import listen_early


def steady_stderr() -> None:
    """:func:`nqmip.cli.streams.steady_stderr`, imported once the stop signals are
    listened to (its import was in the window before them)."""
    from nqmip.cli.streams import steady_stderr as steady

    steady()


def solve() -> None:
    """``solve-weighted`` (and ``nqmip-solve``, ``python -m nqmip``)."""
    listen_early()
    steady_stderr()
    from nqmip.cli.solve import entry

    entry()


def compare() -> None:
    """``nqmip-compare``; its isolated runs (``--worker``) keep the default handlers."""
    if "--worker" not in sys.argv[1:]:
        listen_early()
    steady_stderr()
    from nqmip.compare import entry

    entry()


def count() -> None:
    """``nqmip-count``."""
    listen_early()
    steady_stderr()
    from nqmip.cli.count import entry

    entry()
