"""One auto call as its plans see it (:mod:`nqmip.auto.plans` makes it, each plan's runner
takes it): the portfolio, the deadline and the means to run an exact backend."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from nqmip.auto.kernels import Beside
from nqmip.auto.portfolio import Portfolio
from nqmip.budget import Deadline
from nqmip.result import Result


@dataclass
class Call:
    """One auto call: its portfolio, deadline and the means to run an exact backend."""

    run: Portfolio
    deadline: Deadline
    exact: Callable[..., Result | None]
    threads: int | None
    size: int
    #: The kernels of the part beside the first, loaded while it runs (``LAZY``).
    beside: Beside | None = None

