"""One run in its own process, with a hard time limit and its timings.

:func:`run_in_process` runs any function ``target(payload)`` in a fresh interpreter
(``python -m nqmip.compare --worker RESULT``, the task on standard input) in its own session:
the process, and everything it started, is killed ``hard_limit`` seconds after its start.
A kill, a crash (a signal, an exit without a result, an address-space limit) or an
exception in the target comes back as an :class:`Outcome`, never as an exception here.
:func:`run_cell` runs a grid :class:`~nqmip.compare.grid.Cell` through
:func:`solve_cell` and returns its row: the cell's fields, then ``Result.to_dict()``, then
the harness's own fields (``process_time``, ``host``, ``started_at``).

Benchmarks use the same two functions (``benchmarks/``), so every isolated run of the
project is timed and killed the same way.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from nqmip.compare.grid import CELL_FIELDS, WEIGHTS_FILE, Cell
from nqmip.result import Result

#: Statuses of rows written by the harness itself, not by a solver.
HARNESS_STATUSES = ("timeout", "crashed", "error")
#: Environment variable for fault injection in the worker (tests): ``abort`` makes the
#: worker process abort (SIGABRT) before running its task, ``hang`` makes it sleep forever.
FAULT_ENV = "NQMIP_COMPARE_FAULT"
#: ``Result.to_dict()``'s fields: the declared fields and the derived ``gap``.
RESULT_FIELDS: tuple[str, ...] = (*(f.name for f in fields(Result)), "gap", "wall_time",
                                   "time_to_best")
#: Fields the harness adds to every row.
#: ``load_time``: the method's import and kernel load before its clock started
#: (:func:`load_method`).
HARNESS_FIELDS: tuple[str, ...] = ("process_time", "load_time", "host", "started_at")
#: The fields of a row, in order: the cell's, the Result's (the cell's n, method and seed
#: are the Result's too), the harness's. A harness row (timeout, crashed, error) leaves
#: the Result's fields None but ``status`` and ``message``.
ROW_FIELDS: tuple[str, ...] = tuple(dict.fromkeys((*CELL_FIELDS, *RESULT_FIELDS,
                                                   *HARNESS_FIELDS)))
#: The task :func:`run_cell` runs in the worker.
SOLVE_TARGET = "nqmip.compare.harness:solve_cell"

_ACTIVE: set[subprocess.Popen[bytes]] = set()
_ACTIVE_LOCK = threading.Lock()


@dataclass(frozen=True)
class Outcome:
    """What came back from one isolated run.

    ``status``: ``"ok"`` (``value`` is the target's return value), ``"timeout"`` (killed at
    the hard limit), ``"crashed"`` (died without a result) or ``"error"`` (the target
    raised; ``message`` is ``"Type: text"``). ``process_time`` is the wall time of the whole
    process, interpreter start included.
    """

    status: str
    value: Any
    message: str
    process_time: float


def _package_root() -> str:
    return str(Path(__file__).resolve().parents[2])


def _memory_limiter(limit_mb: int | None) -> Callable[[], None] | None:
    if limit_mb is None:
        return None

    def apply() -> None:
        import resource

        limit = int(limit_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(code).name
    except ValueError:
        return f"signal {code}"


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill a worker and everything it started (its own session / process group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            proc.kill()


def kill_active() -> None:
    """Kill every worker still running (on Ctrl-C or SIGTERM of the sweep)."""
    with _ACTIVE_LOCK:
        procs = list(_ACTIVE)
    for proc in procs:
        _kill(proc)


def run_in_process(target: str, payload: Any, hard_limit: float,
                   memory_limit_mb: int | None = None,
                   env: Mapping[str, str] | None = None) -> Outcome:
    """Run ``target(payload)`` in a fresh process, killed after ``hard_limit`` seconds.

    ``target`` is ``"module:function"`` or ``"path/to/file.py:function"``; ``payload`` and
    the return value go through JSON. ``env`` adds to (or overrides) the environment. A
    run that failed under ``memory_limit_mb`` says so: below some 500 MB of address space
    the worker cannot load llvmlite (its own words: 'Could not find/load shared object
    file'), start a thread, or it hangs until the hard limit.
    """
    outcome = _run_in_process(target, payload, hard_limit, memory_limit_mb, env)
    if memory_limit_mb is None or outcome.status == "ok":
        return outcome
    return replace(outcome, message=f"under --memory-limit {memory_limit_mb} MB (the run's "
                                    f"process may need more address space): {outcome.message}")


def _run_in_process(target: str, payload: Any, hard_limit: float,
                    memory_limit_mb: int | None, env: Mapping[str, str] | None) -> Outcome:
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (_package_root(), full_env.get("PYTHONPATH", "")) if p)
    full_env.setdefault("PYTHONUNBUFFERED", "1")
    task = json.dumps({"target": target, "payload": payload}).encode()
    with tempfile.TemporaryDirectory(prefix="nqmip-compare-") as tmp:
        result_path = Path(tmp) / "result.json"
        stderr_path = Path(tmp) / "stderr.txt"
        start = time.perf_counter()
        with open(stderr_path, "wb") as stderr:
            proc = subprocess.Popen(
                [sys.executable, "-m", "nqmip.compare", "--worker", str(result_path)],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=stderr,
                env=full_env, start_new_session=True,
                preexec_fn=_memory_limiter(memory_limit_mb),
            )
            with _ACTIVE_LOCK:
                _ACTIVE.add(proc)
            try:
                assert proc.stdin is not None
                try:
                    proc.stdin.write(task)
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
                try:
                    code = proc.wait(timeout=hard_limit)
                    timed_out = False
                except subprocess.TimeoutExpired:
                    _kill(proc)
                    code = proc.wait()
                    timed_out = True
            finally:
                with _ACTIVE_LOCK:
                    _ACTIVE.discard(proc)
        elapsed = time.perf_counter() - start
        if timed_out:
            return Outcome("timeout", None, f"killed after the hard limit of {hard_limit:g} s",
                           elapsed)
        answer = None
        if result_path.exists():
            try:
                answer = json.loads(result_path.read_text())
            except json.JSONDecodeError:
                answer = None
        if answer is None:
            tail = [line for line in stderr_path.read_text(errors="replace").splitlines()
                    if line.strip()]
            how = f"killed by {_signal_name(-code)}" if code < 0 else f"exit code {code}"
            last = f": {tail[-1].strip()}" if tail else ""
            return Outcome("crashed", None, f"worker process died ({how}){last}"[:500], elapsed)
        if not answer.get("ok"):
            return Outcome("error", None, str(answer.get("error", ""))[:500], elapsed)
        return Outcome("ok", answer["value"], "", elapsed)


def _resolve(target: str) -> Callable[[Any], Any]:
    where, _, name = target.rpartition(":")
    if where.endswith(".py"):
        path = Path(where).resolve()
        sys.path.insert(0, str(path.parent))  # a benchmark's own sibling imports
        spec = importlib.util.spec_from_file_location(f"_nqmip_task_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    function: Callable[[Any], Any] = getattr(module, name)
    return function


def worker_main(result_path: str) -> int:
    """The worker process: read a task on stdin, run it, write the answer as JSON."""
    task = json.loads(sys.stdin.read())
    fault = os.environ.get(FAULT_ENV, "")
    if fault == "abort":
        os.abort()
    elif fault == "hang":
        while True:
            time.sleep(60)
    answer: dict[str, Any]
    try:
        value = _resolve(task["target"])(task["payload"])
        answer = {"ok": True, "value": value}
    except Exception as exc:  # an error row, not a crash: the message is kept
        answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    tmp = Path(result_path + ".tmp")
    tmp.write_text(json.dumps(answer))
    tmp.replace(result_path)
    return 0


def load_method(method: str) -> float:
    """In the worker, before the clock of :func:`nqmip.solve` starts: import the method's
    entry and load its numba kernels (from the cache the sweep warmed), as a long-running
    program would have them; the seconds it took. Every method's clock then measures its
    search, not the interpreter's start: without it a heuristic's time to target at n = 8
    was 1.4-2.5 s in a fresh process, of which 0.8-1.7 s numba's cache load."""
    from nqmip.methods import METHODS
    from nqmip.warmup import warm_up_all

    begin = time.perf_counter()
    spec = METHODS[method]
    spec.load()
    if spec.kind == "auto":  # auto runs the heuristics and nqmip's own engines
        warm_up_all([m.name for m in METHODS.values() if m.warm_up is not None])
    elif spec.warm_up is not None:
        warm_up_all([method])
    return time.perf_counter() - begin


def cell_instance(spec: dict[str, Any]) -> Any:
    """The :class:`~nqmip.instance.Instance` a cell's run solves, built once from the
    cell's fields (n, the kind of weights, the matrix of a weights file, the seed that
    draws random weights, ``black``/``white`` of its params, the sense and the fixed
    queens): every method of the cell's board is handed the same instance."""
    from nqmip.instance import make_instance

    params = spec.get("params") or {}
    weights: Any = spec["weights"]
    sense = spec.get("sense") or "max"
    fixed = [tuple(q) for q in spec.get("fixed") or ()]
    colours = {k: params[k] for k in ("black", "white") if k in params}
    seed = params.get("weights_seed", spec["seed"]) if weights == "random" else None
    if weights == "toulbar2":  # an instance of costs, minimised
        from nqmip.instances.families import TOULBAR2_SEED, toulbar2_costs

        instance = make_instance(spec["n"], toulbar2_costs(spec["n"]), fixed, sense="min")
        return replace(instance, name=f"toulbar2(seed={TOULBAR2_SEED})")
    if weights == WEIGHTS_FILE:
        import numpy as np

        weights = np.asarray(spec["matrix"], dtype=float)
    elif weights == "none":
        weights = None
    return make_instance(spec["n"], weights, fixed, weights_seed=seed, sense=sense,
                         **colours)


def solve_cell(spec: dict[str, Any]) -> dict[str, Any]:
    """In the worker: :func:`nqmip.solve` on the cell's instance (:func:`cell_instance`)
    with its method and options (its target, if it was given one); ``Result.to_dict()``
    and ``load_time`` (:func:`load_method`)."""
    from nqmip.compare.grid import BOARD_PARAMS
    from nqmip.solve import solve

    kwargs: dict[str, Any] = {k: v for k, v in (spec.get("params") or {}).items()
                              if k not in BOARD_PARAMS}
    if spec.get("warm_start"):
        kwargs["warm_start"] = spec["warm_start"]
    instance = cell_instance(spec)
    if spec.get("target") is not None:  # a given one was checked before the sweep
        kwargs["target"] = spec["target"]
    from nqmip.methods import METHODS

    if METHODS[spec["method"]].honour("seed"):  # a deterministic method refuses a seed
        kwargs["seed"] = spec["seed"]
    load_time = load_method(spec["method"])
    result = solve(instance, method=spec["method"], time_limit=spec["time_limit"], **kwargs)
    return {**result.to_dict(), "target": spec.get("target"), "load_time": load_time}


def run_cell(cell: Cell | dict[str, Any]) -> dict[str, Any]:
    """Run one cell in a fresh process with a hard limit and return its row.

    Never raises for a solver's failure: a kill, a crash or an exception becomes a row.
    Used as is by the local runner, on Dask workers and by the benchmarks.
    """
    if isinstance(cell, dict):
        cell = Cell(**cell)
    row: dict[str, Any] = dict.fromkeys(ROW_FIELDS)
    spec = asdict(cell)
    row.update({name: spec[name] for name in CELL_FIELDS})
    row.update(host=platform.node(), message="",
               started_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    outcome = run_in_process(SOLVE_TARGET, spec, cell.hard_limit, cell.memory_limit_mb)
    row["process_time"] = outcome.process_time
    if outcome.status != "ok":
        row.update(status=outcome.status, wall_time=outcome.process_time,
                   timing={"wall": outcome.process_time}, message=outcome.message,
                   target=cell.target)
        return row
    for name, value in outcome.value.items():
        if name not in CELL_FIELDS:  # the cell's n, method, seed identify the row
            row[name] = value
    return row
