"""A child process of the package that ends with its parent: the one mechanism, used by
toulbar2's search process (:mod:`nqmip.backends.toulbar2_child`) and the warm-up's
compiling child (:mod:`nqmip.warmup`). Standard library only, and nothing of the package
imported: toulbar2's child loads this file by its path, to start in a tenth of a second.

Linux's ``PR_SET_PDEATHSIG`` (:func:`die_with_parent`, in the child): the kernel sends
SIGKILL the moment the thread that started the process ends. It needs no thread of the
child's own, which a watcher would: pybind11 keeps the interpreter lock through toulbar2's
search, and a watcher thread (the warm-up's, which looked at ``os.getppid`` every 0.2 s)
never ran there. The parent starts such a child by :func:`start`, from a thread that lasts
as long as its process: the child ends with the process (killed, or left by
``os._exit``), not with the thread that asked for it (the colour proof's thread starts
the warm-up's compile, which the annealing's thread waits for after the proof's end). A
parent that ended before the request took hold is caught by comparing ``os.getppid`` with
the pid the parent gave. Elsewhere (no ``prctl``) the child is left to its own end
(toulbar2's CPU-time limit, the warm-up's last group): nothing is killed that should not
be.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
from typing import Any

#: prctl's option number (linux/prctl.h).
PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None) -> bool:
    """SIGKILL this process when the thread that started it ends (Linux); at once when
    ``parent`` (the pid the parent gave) is no longer the parent. True when the kernel
    took the request, False where there is no ``prctl`` (not Linux)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        taken = libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux: no prctl
        taken = False
    if parent is not None and os.getppid() != parent:  # ended before the request
        os._exit(0)
    return taken


#: The parent's starter: requests (argv, keywords, the reply queue) for its thread.
_REQUESTS: queue.Queue[tuple[list[str], dict[str, Any], queue.Queue[Any]]] = queue.Queue()
_STARTER: list[threading.Thread] = []
_LOCK = threading.Lock()


def _starter() -> None:
    while True:
        argv, kwargs, reply = _REQUESTS.get()
        try:
            reply.put(subprocess.Popen(argv, **kwargs))
        except BaseException as exc:  # given to the caller to raise
            reply.put(exc)


def start(argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(argv, **kwargs)`` from a thread of this process that lasts until
    it ends, so that a child calling :func:`die_with_parent` ends with the process rather
    than with the caller's thread; what Popen raises is raised here."""
    with _LOCK:
        if not _STARTER or not _STARTER[0].is_alive():
            thread = threading.Thread(target=_starter, name="nqmip-starter", daemon=True)
            thread.start()
            _STARTER[:] = [thread]
    reply: queue.Queue[Any] = queue.Queue()
    _REQUESTS.put((list(argv), kwargs, reply))
    got = reply.get()
    if isinstance(got, BaseException):
        raise got
    return got
