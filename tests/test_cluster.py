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



#: A run of the command on a local cluster whose time limit cancels its tasks: every run
#: printed distributed's 'distributed.worker.state_machine - WARNING - Async instruction
#: ... ended with CancelledError' lines under the answer (a heartbeat's 'ConnectionPool
#: closing' traceback in about one in eight).
CANCELLED_AT_THE_LIMIT = ["--n", "30", "--method", "bnb", "--random-weights", "1",
                          "--workers", "2", "--time-limit", "4", "--quiet"]


@pytest.mark.parametrize("run", range(3))
def test_a_run_on_a_local_cluster_prints_nothing_of_dasks_on_stderr(run: int) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, str(root / "scripts" / "solve_weighted.py"),
                           *CANCELLED_AT_THE_LIMIT], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(("feasible", "optimal")), done.stdout
    ours = [line for line in done.stderr.splitlines() if line.startswith("solve_weighted:")]
    assert done.stderr.splitlines() == ours, done.stderr
