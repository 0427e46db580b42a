"""The package's one way to a Dask cluster (nqmip.cluster.open_cluster): an address nobody
answers at is refused at once, naming it."""

from __future__ import annotations

import socket
import time

import pytest

from nqmip.cluster import ClusterError, open_cluster

pytest.importorskip("distributed")


def test_an_address_nobody_listens_at_is_refused_at_once() -> None:
    # before, Dask retried the refused connection for the whole connect timeout (10 s)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{sock.getsockname()[1]}"
    begin = time.perf_counter()
    with pytest.raises(ClusterError, match=f"cannot reach the Dask scheduler {address}"), \
            open_cluster(address):
        pass
    assert time.perf_counter() - begin < 5.0

