"""The one way the package reaches a Dask cluster: a scheduler's address (or a Client
already made), or a local cluster of ``workers`` one-thread worker processes started for
the run and closed after it. ``nqmip-compare --workers/--scheduler``, the branch and
bound's ``workers``/``scheduler`` (:mod:`nqmip.bnb.distributed`), the count's
``scheduler`` (:mod:`nqmip.enumeration.count`) and the cubes of the lexicographic descent
(:mod:`nqmip.lex.cubes`) all open it here.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

#: The level of distributed's own log lines on a local cluster's workers and, while it
#: closes, in this process: none. The end of a run cancels its tasks, and the workers said
#: so ('distributed.worker.state_machine - WARNING - Async instruction ... ended with
#: CancelledError' in most runs; a heartbeat's 'ConnectionPool closing' traceback at
#: ERROR in about one in eight), to a student who asked for a placement. Our own errors
#: are not log lines: a task's exception reaches the client, which raises it.
QUIET = logging.CRITICAL

#: How long a connection to a scheduler's address may take before it is refused (seconds).
CONNECT_SECONDS = 10
CONNECT_TIMEOUT = f"{CONNECT_SECONDS}s"


class ClusterError(ValueError):
    """Dask is not installed, or the scheduler cannot be reached (a bad address)."""


@dataclass
class Cluster:
    """An open cluster: the client, and how many tasks run at once (the workers' threads)."""

    client: Any
    slots: int

    def refresh(self) -> int:
        """The workers' threads now (workers join and leave)."""
        info = self.client.scheduler_info().get("workers", {})
        self.slots = max(sum(w.get("nthreads", 1) for w in info.values()), 1)
        return self.slots


@contextmanager
def open_cluster(scheduler: Any = None, workers: int | None = None,
                 processes: bool = True) -> Iterator[Cluster]:
    """A :class:`Cluster` on ``scheduler`` (an address such as ``tcp://host:8786``, or a
    ``distributed.Client``, which is left open), else a local cluster of ``workers``
    one-thread workers (``processes``: each its own process) closed on leaving."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError('Dask is not installed: pip install "nqmip[dask]"') from None
    local = None
    if scheduler is not None and isinstance(scheduler, Client):
        client = scheduler
    elif scheduler is not None:
        try:
            _listening(scheduler)
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler {scheduler}: "
                               f"{exc}") from None
    else:
        # no dashboard; the scheduler's own HTTP routes on a free port of this host (by
        # default 8787: "Port 8787 is already in use" when another cluster runs here)
        local = LocalCluster(n_workers=workers or 1, threads_per_worker=1,
                             processes=processes, dashboard_address=None,
                             scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                             silence_logs=QUIET)
        client = Client(local)
    try:
        cluster = Cluster(client, 1)
        cluster.refresh()
        yield cluster
    finally:
        from distributed.utils import silence_logging_cmgr

        with silence_logging_cmgr(QUIET) if local is not None else nullcontext():
            if client is not scheduler:
                client.close()
            if local is not None:
                local.close()


def _listening(address: Any) -> None:
    """Raise OSError at once when nobody listens at a ``tcp://`` or ``tls://`` address's
    port (Dask retries a refused connection until its timeout); other addresses (and one
    without a port) are left to Dask."""
    from urllib.parse import urlsplit

    if not isinstance(address, str):
        return
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme not in ("tcp", "tls") or not parts.hostname or parts.port is None:
        return
    with socket.create_connection((parts.hostname, parts.port), timeout=CONNECT_SECONDS):
        pass
