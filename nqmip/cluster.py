"""The one way the package reaches a Dask cluster: a scheduler's address (or a Client
already made), or a local cluster of ``workers`` one-thread worker processes started for
the run and closed after it. ``nqmip-compare --workers/--scheduler``, the branch and
bound's ``workers``/``scheduler`` (:mod:`nqmip.bnb.distributed`), the count's
``scheduler`` (:mod:`nqmip.enumeration.count`) and the cubes of the lexicographic descent
(:mod:`nqmip.lex.cubes`) all open it here.

:class:`TaskPool` is the one way the package runs tasks on a pool of processes or on Dask
and lives through a dead worker: the count's sub-trees and the descent's cubes go through
it. A task's result counts only once it is back, whole; a local pool one of whose
processes died is ended and started again, and only the tasks it lost are asked again
(Dask reruns a lost task itself); what the caller records is the finished ones.
"""

from __future__ import annotations

import contextlib
import logging
import math
import shutil
import socket
import tempfile
import threading
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nqmip.budget import wait_safely
from nqmip.capacity import FORKED_PROCESS_BYTES, PROCESS_BYTES, check_processes

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

#: How many times a local cluster is started before its start is given up on.
LOCAL_STARTS = 2


class ClusterError(ValueError):
    """Dask is not installed, or the scheduler cannot be reached (a bad address)."""


class ClusterStartError(RuntimeError):
    """A local cluster did not start, :data:`LOCAL_STARTS` times (a worker's process died
    as it started: killed, out of memory)."""


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
        if processes:
            check_processes(workers or 1)  # before any process starts
        local, scratch = _start_local(LocalCluster, workers or 1, processes)
        try:
            client = Client(local)
        except BaseException:
            _close_behind(None, local, scratch)
            raise
    try:
        cluster = Cluster(client, 1)
        cluster.refresh()
        yield cluster
    finally:
        if local is None:
            if client is not scheduler:
                client.close()
        else:
            _close_behind(client, local, scratch)


def _start_local(local_cluster: Any, workers: int, processes: bool) -> tuple[Any, str]:
    """A local cluster of ``workers`` one-thread workers, started again once when its
    start failed: a worker that died as it started ended the start with Dask's
    "RuntimeError: Nanny failed to start." (``solve_weighted.py --n 36 --method bnb
    --workers 2``, a worker killed 3.5 s in: exit 1). :class:`ClusterStartError` when
    no start of :data:`LOCAL_STARTS` succeeded."""
    import dask

    from nqmip.parent_death import start_resource_tracker, stops_blocked

    start_resource_tracker()  # the workers' processes find it running
    why: BaseException | None = None
    for _ in range(LOCAL_STARTS):
        # this cluster's scratch, removed as it closes or by end_children (every run left
        # its folders and lock files in <tmp>/dask-scratch-space)
        scratch = tempfile.mkdtemp(prefix="nqmip-dask-")
        SCRATCH.add(scratch)
        try:
            # no dashboard, and the scheduler's HTTP server (which Dask starts all the same)
            # on a free port of this host: on its default, 8787, Dask warned on stderr
            # whenever another cluster held it ("Port 8787 is already in use"). The
            # scratch: the scheduler's and the workers' folders, and the workers' TMPDIR (a
            # worker killed as the command left kept nqmip-compare's run folders there)
            with stops_blocked(), dask.config.set({"temporary-directory": scratch}):
                local = local_cluster(n_workers=workers, threads_per_worker=1,
                                      processes=processes, dashboard_address=None,
                                      scheduler_kwargs={"dashboard": False,
                                                        "dashboard_address": "127.0.0.1:0"},
                                      silence_logs=QUIET,
                                      **({"env": {"TMPDIR": scratch}} if processes else {}))
            return local, scratch
        except (RuntimeError, OSError, TimeoutError) as exc:
            why = exc
            remove_scratch(scratch)
        except BaseException:
            remove_scratch(scratch)
            raise
    raise ClusterStartError(f"the local Dask cluster of {workers} worker"
                            f"{'s' if workers != 1 else ''} did not start ({LOCAL_STARTS} "
                            f"tries): {type(why).__name__}: {why}")


SCRATCH: set[str] = set()  # the scratch folders of the local clusters open here


def remove_scratch(folder: str) -> None:
    """Remove a local cluster's scratch folder (once its processes are gone)."""
    shutil.rmtree(folder, ignore_errors=True)
    SCRATCH.discard(folder)


def _close_behind(client: Any, local: Any, scratch: str) -> None:
    """Close a local cluster in a thread of its own, which the interpreter's exit waits
    for (:func:`nqmip.watchdog.join_at_exit`): closing its worker processes takes seconds,
    longer than a stopped run has to answer (the watchdog's grace after a time limit or a
    signal), so a run on ``workers`` stopped early answered with the explicit construction
    instead of its incumbent (bnb on N = 30 with 2 workers and a 15 s limit: 150, not
    the 256 it held). distributed's log lines of the closing are kept quiet
    (:func:`_quiet_from`): those of the threads closing it only."""
    from nqmip.watchdog import join_at_exit

    def close() -> None:
        # the command may end its processes under it (nqmip.cli.streams.hard_exit): no
        # "Exception in thread" traceback under the answer
        with _quiet_from(_closing_threads(local)), contextlib.suppress(Exception):
            try:
                if client is not None:
                    client.close()
            finally:
                local.close()
        remove_scratch(scratch)

    closer = threading.Thread(target=close, name="nqmip-cluster-close", daemon=True)
    closer.start()
    join_at_exit(closer)


def _closing_threads(local: Any) -> set[int | None]:
    """This thread and the local cluster's event loop's (where distributed logs from)."""
    loop = getattr(getattr(local, "_loop_runner", None), "_loop_thread", None)
    loop = getattr(loop, "_thread", loop)  # distributed's wrapper of a Thread
    return {threading.get_ident(), getattr(loop, "ident", None)}


class _Threads(logging.Filter):
    """Drops the records logged by the given threads."""

    def __init__(self, threads: set[int | None]) -> None:
        super().__init__()
        self.threads = threads

    def filter(self, record: logging.LogRecord) -> bool:
        return record.thread not in self.threads


@contextmanager
def _quiet_from(threads: set[int | None]) -> Iterator[None]:
    """Within the block, distributed's handlers drop what ``threads`` log (the closing
    cluster's own: its event loop, the thread closing it), and only that. It set the
    level of every stream handler of the ``distributed`` logger to CRITICAL while the
    cluster closed in the background (distributed's ``silence_logging_cmgr``): for
    seconds after the call had returned, a handler the caller had given that logger
    dropped the caller's own records too, and was set back to the level it had when the
    closing began, undoing a change the caller made meanwhile."""
    quiet = _Threads(threads)
    handlers = [h for name, logger in list(logging.Logger.manager.loggerDict.items())
                if name.split(".")[0] == "distributed" and isinstance(logger, logging.Logger)
                for h in logger.handlers]
    for handler in handlers:
        handler.addFilter(quiet)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(quiet)


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


#: The states of a ``concurrent.futures.Future`` that has ended.
_ENDED = frozenset({"CANCELLED", "CANCELLED_AND_NOTIFIED", "FINISHED"})


def _ended(future: Any) -> bool:
    """``future.done()``, without the lock of a local pool's future: the wait polls it in
    the main thread, where a Ctrl-C raised inside ``Condition.__enter__`` once the lock was
    taken left it held, and the pool's shutdown then hung for ever on the thread that
    cancels its futures (``tests/test_signal_lock.py``'s pool case: 3 runs in 12 hung, on
    main too). Reading the state is one load; a Dask future's ``done`` takes no such lock."""
    if isinstance(future, Future):
        return future._state in _ENDED
    return bool(future.done())


def end_pool(pool: Any) -> None:
    """Shut down a ``concurrent.futures.ProcessPoolExecutor`` now, its processes ended
    (SIGKILL) rather than waited for: one of them died (it raised ``BrokenProcessPool``:
    Python 3.11 leaves the others running their task, and the pool's shutdown, or the
    interpreter's exit, waited for them; a count's sub-tree or a cube may run for minutes;
    ``nqmip-count --n 15 --workers 3`` with one process killed hung), or a stop signal
    came (the ``with`` block's exit waited for every running task: ``solve-weighted
    --warm-up`` stopped 0.3 s in answered after the whole warm-up, 6.6 s)."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        if process.is_alive():
            process.kill()  # SIGKILL: a SIGTERM meets a forked one's copy of the command's handler
    pool.shutdown(wait=True, cancel_futures=True)


#: How many times a local pool is started again after one of its processes died (killed,
#: out of memory) before its tasks are given up.
RESTARTS = 3


def _forks(context: Any) -> bool:
    """Whether a pool of this multiprocessing ``context`` forks its processes (they share
    the parent's pages until written)."""
    import multiprocessing

    return bool((context or multiprocessing.get_context()).get_start_method() == "fork")


def _pool_process_start(parent: int, initializer: Callable[..., Any] | None,
                        initargs: tuple[Any, ...]) -> None:
    """A local pool process's start: it leaves the stop signals to the command and ends
    with ``parent`` (:mod:`nqmip.parent_death`), then runs the pool's own initializer."""
    from nqmip.parent_death import leave_stops_to_parent, watch_parent

    leave_stops_to_parent()
    watch_parent(parent)
    if initializer is not None:
        initializer(*initargs)


class TaskPool:
    """Tasks, each under a key, on a pool: a local ``ProcessPoolExecutor`` of ``workers``
    processes (``context``, ``initializer`` and the ``initargs()`` of each new pool),
    started at the first task, or ``executor`` (a Dask client's, which reruns a lost task
    itself). :meth:`finished` gives back the tasks that ended with their results: a result
    counts only once it is back whole. When a process of the local pool died (killed, out
    of memory: ``BrokenProcessPool``), the pool is ended (:func:`end_pool`) and a new one
    started, and the tasks it lost, and only those, are submitted again (:attr:`rerun`
    counts them): a task that had finished is kept, not asked twice. After ``restarts``
    new pools (None: :data:`RESTARTS`) ``BrokenProcessPool`` is raised, naming ``what``."""

    def __init__(self, workers: int, *, executor: Executor | None = None,
                 context: Any = None, initializer: Callable[..., Any] | None = None,
                 initargs: Callable[[], tuple[Any, ...]] | None = None,
                 restarts: int | None = None, what: str = "the pool") -> None:
        if executor is None:  # before any process starts
            check_processes(workers, each=FORKED_PROCESS_BYTES if _forks(context)
                            else PROCESS_BYTES)
        self.workers = workers
        self._executor = executor
        self._local = executor is None
        self._context = context
        self._initializer = initializer
        self._initargs = initargs
        self._restarts = RESTARTS if restarts is None else restarts
        self.what = what
        self.pending: dict[Future[Any], tuple[Hashable, Callable[..., Any], tuple[Any, ...]]] = {}
        self.restarts = 0  # new pools started after a death
        self.rerun = 0  # tasks submitted again after a death
        self.kept = 0  # tasks finished when their pool broke: given back, not asked again
        self.submitted = 0  # tasks submitted (a rerun included)

    @property
    def executor(self) -> Executor:
        """The pool, started at its first use (and after a death)."""
        if self._executor is None:
            import os
            from concurrent.futures import ProcessPoolExecutor

            from nqmip.parent_death import start_resource_tracker

            start_resource_tracker()  # before the initargs' semaphores

            self._executor = ProcessPoolExecutor(  # each process ends with this one
                max_workers=self.workers, mp_context=self._context,
                initializer=_pool_process_start,
                initargs=(os.getpid(), self._initializer,
                          () if self._initargs is None else self._initargs()))
            self.started(self._executor)
        return self._executor

    def started(self, executor: Executor) -> None:
        """Called with each new local pool (a subclass's hook)."""

    def send(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        """``executor.submit(fn, *args)``, with the stop signals blocked in this thread
        meanwhile (:func:`nqmip.parent_death.stops_blocked`): a local pool starts its
        processes in the submitting thread, and they keep the mask until
        :func:`_pool_process_start` ignores the stops. A Ctrl-C to the group in the half
        second a spawned process imports printed its KeyboardInterrupt traceback under the
        command's answer (n = 36, ``--lex-first --workers 2``, 0.2 s after the pool's
        processes appeared)."""
        if not self._local:
            return self.executor.submit(fn, *args)
        from nqmip.parent_death import stops_blocked

        with stops_blocked():
            return self.executor.submit(fn, *args)

    def submit(self, key: Hashable, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        """``fn(*args)`` as the task ``key``; in a new pool when this one is broken."""
        try:
            future = self.send(fn, *args)
        except BrokenProcessPool:
            self.restart()
            future = self.send(fn, *args)
        self.pending[future] = (key, fn, args)
        self.submitted += 1
        self.counted(1)
        return future

    def counted(self, tasks: int) -> None:
        """Called with the number of tasks just submitted (a subclass's hook)."""

    def withdraw(self, futures: list[Future[Any]] | None = None) -> int:
        """Forget ``futures`` (None: every pending task), cancelling those not started;
        how many were cancelled."""
        gone = 0
        for future in list(self.pending) if futures is None else futures:
            if self.pending.pop(future, None) is not None and future.cancel():
                gone += 1
        return gone

    def finished(self, timeout: float | None = None) -> list[tuple[Hashable, Any]]:
        """``(key, result)`` of the pending tasks that ended within ``timeout`` seconds
        (at least one when ``timeout`` is None and one is pending), each given once. A
        task that raised raises here; one lost with a dead process is submitted again
        (:meth:`restart`) and comes later."""
        if not self.pending:
            return []
        # not concurrent.futures.wait: a Ctrl-C inside its Event.wait could raise 'release
        # unlocked lock' in place of the stop (nqmip.budget.wait_safely)
        pending = list(self.pending)
        wait_safely(lambda: any(_ended(future) for future in pending),
                    math.inf if timeout is None else timeout)
        done = [future for future in pending if _ended(future)]
        out: list[tuple[Hashable, Any]] = []
        broken = False
        for future in done:
            if future not in self.pending:  # asked again in a new pool meanwhile
                continue
            if future.cancelled() or isinstance(future.exception(), BrokenProcessPool):
                broken = True
                continue
            key = self.pending.pop(future)[0]
            out.append((key, future.result()))  # a task's own error raises here
        if broken:
            self.restart()
        return out

    def results(self) -> Iterator[tuple[Hashable, Any]]:
        """``(key, result)`` of every pending task, as they finish."""
        while self.pending:
            yield from self.finished()

    def _whole(self, future: Future[Any]) -> bool:
        return future.done() and not future.cancelled() and future.exception() is None

    def restart(self) -> None:
        """After a process of the local pool died: the pool ended, a new one started, and
        the tasks the dead one had not given back submitted to it; the finished ones stay
        for :meth:`finished`. Nothing on Dask (it reruns a lost task)."""
        if not self._local or self._executor is None:
            return
        if not getattr(self._executor, "_broken", True):  # started again already
            return
        self.restarts += 1
        end_pool(self._executor)
        self._executor = None
        if self.restarts > self._restarts:
            raise BrokenProcessPool(
                f"processes of {self.what} died (killed, or out of memory) and it was "
                f"started again {self._restarts} times: it stops")
        lost = [(f, task) for f, task in self.pending.items() if not self._whole(f)]
        self.kept += len(self.pending) - len(lost)
        for future, _ in lost:
            del self.pending[future]
        for _, (key, fn, args) in lost:
            self.pending[self.send(fn, *args)] = (key, fn, args)
        self.rerun += len(lost)
        self.submitted += len(lost)
        self.counted(len(lost))

    def close(self, wait_for: bool = True) -> None:
        """End the pool: a local one's tasks cancelled (``wait_for``: the running ones
        waited for; else its processes killed); on Dask, nothing waited for."""
        executor, self._executor = self._executor, None
        self.pending.clear()
        if executor is None:
            return
        if not self._local:
            executor.shutdown(wait=False)
        elif wait_for:
            executor.shutdown(wait=True, cancel_futures=True)
        else:
            end_pool(executor)


def check_cluster(options: dict[str, Any], auto: bool = False) -> None:
    """``workers`` or ``scheduler`` (one of them; a scheduler is an address or a
    ``distributed.Client``), and neither with ``threads`` (but for ``auto``, whose other
    parts take them) or ``work_limit``: the search's workers are the cluster's, and its
    node counts depend on them."""
    workers, scheduler = options.get("workers"), options.get("scheduler")
    if scheduler is not None and not isinstance(scheduler, str) and \
            type(scheduler).__name__ != "Client":
        raise TypeError("scheduler must be a Dask scheduler's address (such as "
                        "'tcp://127.0.0.1:8786') or a distributed.Client, got "
                        f"{type(scheduler).__name__}")
    if options.get("record") is not None and not isinstance(options["record"], str | Path):
        raise TypeError(f"record must be a file's path, got {type(options['record']).__name__}")
    if workers is None and scheduler is None:
        if options.get("record") is not None:
            raise ValueError("record keeps the state of a run on a cluster: give workers or "
                             "scheduler too")
        return
    if workers is not None and scheduler is not None:
        raise ValueError("workers and scheduler exclude each other: workers starts a local "
                         "cluster, scheduler names one")
    for name in ("work_limit",) if auto else ("threads", "work_limit"):
        if options.get(name) is not None:
            raise ValueError(f"{name} with {'workers' if workers else 'scheduler'}: the "
                             "search on a cluster has the cluster's parallelism and node "
                             "counts; drop one")
    if options.get("record") is not None:  # before any work (it failed at its first
        from nqmip.files import check_record_file  # write: 2.9 s into a run)

        check_record_file(options["record"], "record")
    if workers is not None:  # a local cluster's processes must fit in the memory
        check_processes(int(workers))
