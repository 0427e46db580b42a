"""The package's one way to a Dask cluster (nqmip.cluster.open_cluster): an address nobody
answers at is refused at once, naming it."""

from __future__ import annotations

import socket
import time
from pathlib import Path

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



def test_a_local_cluster_says_nothing_when_another_holds_the_dashboard_port() -> None:
    # Dask starts the scheduler's HTTP server without a dashboard too, on 8787 by default:
    # with another cluster on the machine it warned "Port 8787 is already in use" on stderr
    import warnings

    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("", 8787))
            sock.listen()
        except OSError:
            pass  # held already: by another cluster, the case itself
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with open_cluster(workers=1, processes=False) as cluster:
                assert cluster.slots == 1
    said = [str(w.message) for w in caught if "8787" in str(w.message)]
    assert not said, said


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


#: Run the command with a thread that kills (SIGKILL) the first ``KILLS`` worker
#: processes of the local cluster as they appear (children of this process started by
#: multiprocessing's spawn), then the command itself.
KILLER = """
import os, signal, sys, threading, time, runpy
KILLS = int(sys.argv[1])
def kill_workers():
    killed = set()
    while len(killed) < KILLS:
        for pid in os.listdir('/proc'):
            if not pid.isdigit() or int(pid) in killed:
                continue
            try:
                stat = open(f'/proc/{pid}/stat').read()
                cmdline = open(f'/proc/{pid}/cmdline', 'rb').read()
            except OSError:
                continue
            if int(stat.rsplit(')', 1)[1].split()[1]) == os.getpid() and b'spawn_main' in cmdline:
                os.kill(int(pid), signal.SIGKILL)
                killed.add(int(pid))
        time.sleep(0.005)
threading.Thread(target=kill_workers, daemon=True).start()
sys.argv = ['solve_weighted.py', *sys.argv[2:]]
runpy.run_path('scripts/solve_weighted.py', run_name='__main__')
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("kills", [1, 2], ids=["killed-once", "killed-twice"])
def test_a_worker_killed_as_the_local_cluster_starts(kills: int) -> None:
    """A worker's process killed while the local cluster starts ended the run with
    "solve_weighted: RuntimeError: Nanny failed to start.", exit 1 (``--n 36 --method bnb
    --workers 2``, a worker killed 3.5 s in). Now the cluster is started again (killed
    once: the run is on the cluster); killed in both starts, the branch and bound goes
    on in this process, one line on stderr saying so: the run's answer either way."""
    import json
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", KILLER, str(kills), "--n", "10", "--method", "bnb",
         "--random-weights", "1", "--workers", "1", "--time-limit", "60", "--json"],
        capture_output=True, text=True, timeout=180, cwd=root)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["status"] == "optimal" and len(answer["placement"]) == 10, done.stdout
    said = [line for line in done.stderr.splitlines() if "did not start" in line]
    assert "Traceback" not in done.stderr
    if kills == 1:
        assert not said, done.stderr
    else:
        assert len(said) == 1 and "goes on in this process" in said[0], done.stderr


def test_closing_a_local_cluster_leaves_the_callers_logging_alone() -> None:
    """A handler the caller gave distributed's logger keeps its level and hears the
    caller's records while the cluster closes in the background: the closing set every
    stream handler of that logger to CRITICAL for those seconds (the caller's warning
    dropped), then back to the level it had when the closing began."""
    import logging
    import threading

    logger = logging.getLogger("distributed")
    mine = logging.getLogger("distributed.callers_own")
    seen: list[str] = []

    class Kept(logging.StreamHandler):  # type: ignore[type-arg]
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    handler = Kept()
    handler.setLevel(logging.DEBUG)
    levels: set[int] = set()
    try:
        with open_cluster(None, 1, processes=False):
            logger.addHandler(handler)  # the caller's, while the run goes on
        closing = [t for t in threading.enumerate() if t.name == "nqmip-cluster-close"]
        while True:
            levels.add(handler.level)
            mine.warning("the caller's own line")
            if not any(t.is_alive() for t in closing):
                break
            time.sleep(0.01)
    finally:
        logger.removeHandler(handler)
    assert levels == {logging.DEBUG}
    assert "the caller's own line" in seen
