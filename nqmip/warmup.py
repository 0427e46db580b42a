"""Every kernel compiled at once, on the cores there are: the command's ``--warm-up``.

numba's compile holds the GIL, so threads would take turns: each group of kernels (a
method's warm-up, :func:`nqmip.methods.warm_up_targets`) is compiled in its own worker
*process*, as many at a time as there are cores, the slowest groups first; each writes
numba's cache (:mod:`nqmip.numba_cache`), which every later run then loads. With one core
(or one group) the groups run in this process, one after another.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from nqmip.capacity import cores

if TYPE_CHECKING:
    import subprocess

    from nqmip.budget import Deadline
    from nqmip.instance import Instance

#: The slowest groups to compile cold, first (seconds measured by
#: benchmarks/bench_compile.py); the others follow in the table's order.
SLOWEST_FIRST = (
    "nqmip.heuristics.ga.run:warm_up",
    "nqmip.heuristics.lns:warm_up",
    "nqmip.bnb.search:warm_up",
    "nqmip.lex.search:warm_up",
    "nqmip.enumeration.count:warm_up",
)


@dataclass(frozen=True)
class Group:
    """One warm-up: its target, the seconds it took (wall clock, and this process's CPU:
    the compile's cost whatever else the machine runs), and how many kernels numba compiled
    for it (0: all loaded from the cache)."""

    target: str
    seconds: float
    compiles: int
    cpu: float = 0.0


def run_group(target: str) -> Group:
    """Run one warm-up target (in a worker process, or here); what it took. Marks it ready
    for every kind of instance (:func:`is_ready`)."""
    return run_ready(target)


def warm_up_all(names: Iterable[str] | None = None) -> float:
    """Compile (or load from numba's cache) the kernels of the named methods (default:
    every method of both tables, the counting and the colour proof's kernels), in this
    process, one group after another, each marked ready (:func:`is_ready`) as it ends; the
    seconds it took. What nqmip-compare and the benchmarks run before their timed work: a
    run then loads the kernels, and is not taken for a first run
    (:func:`nqmip.auto.first.first_run`, which would compile them in a child)."""
    from nqmip.methods import warm_up_targets

    begin = time.perf_counter()
    for target in warm_up_targets(names):
        run_ready(target)
    return time.perf_counter() - begin


def warm_up_every(processes: int | None = None,
                  on_group: Callable[[Group], None] | None = None) -> list[Group]:
    """Compile (or load) every kernel group, ``processes`` at a time (default: the cores),
    telling ``on_group`` as each ends; the groups in the order they ended."""
    from nqmip.methods import warm_up_targets

    targets = warm_up_targets()
    rank = {target: i for i, target in enumerate(SLOWEST_FIRST)}
    targets.sort(key=lambda t: rank.get(t, len(rank)))
    workers = min(cores() if processes is None else processes, len(targets))
    done: list[Group] = []
    if workers <= 1:
        for target in targets:
            done.append(run_group(target))
            if on_group is not None:
                on_group(done[-1])
        return done
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: no forked locks
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        try:
            futures = [pool.submit(run_group, target) for target in targets]
            for future in as_completed(futures):
                done.append(future.result())
                if on_group is not None:
                    on_group(done[-1])
        except BaseException:  # Ctrl-C: the processes end now, not after their groups
            from nqmip.cluster import end_pool

            end_pool(pool)
            raise
    return done


# --- kernels compiled by another process while this one searches ----------------------------
#
# numba's compile holds the GIL for most of its time (type inference and lowering are
# Python; only LLVM's passes release it): a thread compiling the annealing's kernels beside
# a pure-Python loop ran it at 44 % of its speed alone, and itself took 27 s of wall for
# 5.4 s of CPU. So a part's kernels that are not in numba's cache yet are compiled by a
# *process* (:class:`Background`) into the shared cache (:mod:`nqmip.numba_cache`), while
# this one searches with what is ready; the part loads them from the cache once it ends.

@cache
def _kernels_key(root: Path | None = None) -> str:
    """A hash of numba's cache keys of every kernel module of the package at ``root``
    (default: this one): :func:`nqmip.numba_cache.source_key`, which also covers the nqmip
    modules a kernel imports, so an edit to any of them makes every mark stale. Before, only
    the kernel modules' own text counted: a checkout whose ``nqmip/instance.py`` differed
    found the marks of another's cache ready, and compiled in the command's process."""
    import hashlib

    from nqmip.numba_cache import source_key

    root = root or Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        if b"njit" in path.read_bytes():
            parts = path.relative_to(root).with_suffix("").parts
            module = ".".join(("nqmip", *(parts[:-1] if parts[-1] == "__init__" else parts)))
            digest.update(module.encode() + b"\0" + source_key(module, root, path).encode())
    return digest.hexdigest()[:16]


def ready_mark(target: str, kind: str) -> Path:
    """The file that says a warm-up ran to its end on this cache for these sources."""
    from nqmip.numba_cache import cache_root

    name = target.replace(":", ".")
    return cache_root() / "ready" / f"{name}@{kind}-{_kernels_key()}"


def mark_ready(target: str, kind: str) -> None:
    """Note that ``target``'s kernels for ``kind`` are in the cache (best effort)."""
    mark = ready_mark(target, kind)
    try:
        mark.parent.mkdir(parents=True, exist_ok=True)
        mark.touch()
    except OSError:
        pass


def is_ready(target: str, kind: str) -> bool:
    """Whether ``target``'s kernels for ``kind`` (or for every kind) are in the cache: a
    warm-up of them ran to its end (a run loads them then, it does not compile)."""
    return any(ready_mark(target, k).exists() for k in {kind, "any"})


def run_ready(target: str, kind: str = "any", like: Instance | None = None) -> Group:
    """:func:`run_group` with ``like`` (an instance of ``kind``, None: every kind); marks
    the group ready for ``kind``."""
    from functools import partial

    from nqmip import numba_cache
    from nqmip.methods import resolve

    function = resolve(target) if like is None else partial(resolve(target), like)
    before = numba_cache.compiles()
    begin, cpu = time.perf_counter(), time.process_time()
    function()
    mark_ready(target, kind)
    return Group(target, time.perf_counter() - begin, numba_cache.compiles() - before,
                 time.process_time() - cpu)


class Background:
    """Warm-ups (``(target, kind)``, in order) run by a child process into numba's cache:
    :meth:`done` tells which have ended (each is marked ready as it ends)."""

    def __init__(self, groups: Sequence[tuple[str, str]], child: str) -> None:
        self.groups = tuple(groups)
        self.child = child  # the module run as the child: it calls child_main
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Background:
        import subprocess
        import sys

        from nqmip import parent_death

        env = dict(os.environ)  # NUMBA_CACHE_DIR (nqmip.numba_cache.ensure's) included
        here = str(Path(__file__).resolve().parent.parent)  # this very package first
        env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
        specs = [f"{target}@{kind}" for target, kind in self.groups]
        self.process = parent_death.start(  # it ends with this process
            [sys.executable, "-m", self.child, f"--parent={os.getpid()}", *specs], env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return self

    def ended(self) -> bool:
        """Whether the child has exited (its groups done, or it failed)."""
        return self.process is None or self.process.poll() is not None

    def wait_for(self, target: str, kind: str, deadline: Deadline) -> bool:
        """Wait until ``target`` is ready (True), the child ended without it or
        ``deadline`` expired (False)."""
        while not deadline.expired():
            if is_ready(target, kind):
                return True
            if self.ended():
                return is_ready(target, kind)
            time.sleep(POLL_SECONDS)
        return False

    def stop(self) -> None:
        """End the child if it still runs (what it finished stays in the cache: numba
        writes each file whole, under a temporary name first)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


#: How often a part waiting for a background compile looks whether it has ended.
POLL_SECONDS = 0.02


def child_main(specs: Sequence[str], like_of: Callable[[str], Instance | None]) -> None:
    """The child of :class:`Background`: each ``target@kind`` warmed up, in order, with
    ``like=like_of(kind)``; it ends as soon as its parent has (``--parent=PID``: a command
    that ended by ``os._exit``, or was killed, does not stop it otherwise;
    :func:`nqmip.parent_death.die_with_parent`)."""
    from nqmip.parent_death import die_with_parent

    parents = [int(spec.split("=", 1)[1]) for spec in specs if spec.startswith("--parent=")]
    if parents:
        die_with_parent(parents[0])
    for spec in specs:
        if not spec.startswith("--"):
            target, _, kind = spec.rpartition("@")
            run_ready(target, kind, like_of(kind))
