"""``nqmip-compare``: run a grid of (n, method, repeat) cells and compare the methods.

Every run happens in its own process (``python -m nqmip.compare --worker RESULT``, spec on
standard input) with a *hard* time limit: the solver gets ``--time-limit`` seconds and the
process is killed, with its whole process group, ``--grace`` seconds later (or after
``--hard-limit`` seconds). A solver that hangs, aborts or runs out of memory costs one
cell, recorded with status ``timeout`` or ``crashed``; an exception raised by
:func:`nqmip.solve` (an unavailable backend, a verification failure) is recorded as
``error`` with its message.

Rows are appended to ``--output`` (JSON Lines) and flushed as each run finishes, so an
interrupted sweep loses nothing; ``--resume FILE`` skips the cells already in ``FILE``.
With ``--workers N`` (a local Dask cluster) or ``--scheduler ADDRESS`` the same cells run
on Dask workers, each worker still starting one process per run: the rows have the same
form as a local run.

Pyomo, OR-Tools, numba, matplotlib and Dask are imported only when needed, so ``--help``
and bad input answer at once. Bad input exits with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import math
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NoReturn

PROG = "nqmip-compare"
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
WEIGHT_CHOICES = ("chess", "none", "random")
#: Statuses of rows written by the harness itself, not by a solver.
HARNESS_STATUSES = ("timeout", "crashed", "error")
#: Environment variable for fault injection in the worker (tests): ``abort`` makes the
#: worker process abort (SIGABRT) before solving, ``hang`` makes it sleep forever.
FAULT_ENV = "NQMIP_COMPARE_FAULT"

#: The fields of a row, in order. Solver rows fill what they know; harness rows
#: (timeout, crashed, error) leave the solver's fields as None.
ROW_FIELDS: tuple[str, ...] = (
    "n", "method", "weights", "seed", "repeat", "warm_start", "params", "time_limit",
    "hard_limit",
    "status", "termination", "objective", "bound", "gap", "wall_time", "process_time",
    "evaluations", "iterations", "nodes", "solver", "warm_start_accepted", "start_objective",
    "heuristic_time", "solve_time", "compile_time", "conflicts", "placement", "message",
    "instance", "host", "started_at",
)
#: The fields that identify a cell (what ``--resume`` compares).
KEY_FIELDS: tuple[str, ...] = ("n", "method", "weights", "seed", "warm_start", "time_limit",
                               "params")


class UsageError(Exception):
    """Bad input from the command line: reported in one line with exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


# ---------------------------------------------------------------------------------------
# The grid
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One run: what the worker process is asked to solve."""

    n: int
    method: str
    weights: str
    seed: int
    repeat: int
    time_limit: float
    hard_limit: float
    warm_start: str | None = None
    memory_limit_mb: int | None = None
    params: dict[str, Any] | None = None

    def key(self) -> tuple[Any, ...]:
        return (self.n, self.method, self.weights, self.seed, self.warm_start,
                float(self.time_limit), _params_key(self.params))


def _params_key(params: dict[str, Any] | None) -> str:
    return json.dumps(params or {}, sort_keys=True)


def row_key(row: dict[str, Any]) -> tuple[Any, ...]:
    tl = row.get("time_limit")
    return (row.get("n"), row.get("method"), row.get("weights"), row.get("seed"),
            row.get("warm_start"), None if tl is None else float(tl),
            _params_key(row.get("params")))


def parse_sizes(text: str) -> list[int]:
    """``"8,16,32"``, ``"8:64:8"`` (inclusive, step 8), ``"8:12"`` (step 1) or a mix."""
    sizes: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise UsageError(f"--n: empty item in {text!r}")
        try:
            if ":" in part:
                pieces = [int(p) for p in part.split(":")]
                if len(pieces) == 2:
                    start, stop, step = pieces[0], pieces[1], 1
                elif len(pieces) == 3:
                    start, stop, step = pieces
                else:
                    raise ValueError
                if step < 1:
                    raise UsageError(f"--n: the step of {part!r} must be at least 1")
                if stop < start:
                    raise UsageError(f"--n: the range {part!r} is empty (stop < start)")
                sizes.extend(range(start, stop + 1, step))
            else:
                sizes.append(int(part))
        except ValueError:
            raise UsageError(
                f"--n takes sizes like 8,16,32 or ranges START:STOP[:STEP], got {part!r}"
            ) from None
    for n in sizes:
        if n < 1:
            raise UsageError(f"--n: board sizes must be at least 1, got {n}")
    return list(dict.fromkeys(sizes))


def known_methods() -> tuple[str, ...]:
    from nqmip.solve import all_methods

    return tuple(all_methods())


def exact_methods() -> tuple[str, ...]:
    from nqmip.backends.base import EXACT_METHODS

    return EXACT_METHODS


def solve_accepts_warm_start() -> bool:
    import inspect

    from nqmip.solve import solve

    return "warm_start" in inspect.signature(solve).parameters


def parse_methods(text: str) -> list[str]:
    methods = [m.strip() for m in text.split(",") if m.strip()]
    if not methods:
        raise UsageError("--methods: give at least one method")
    known = known_methods()
    for method in methods:
        if method not in known:
            hint = " (issue 4's hybrid solve is not in this nqmip yet)" if method == "auto" else ""
            raise UsageError(f"--methods: unknown method {method!r}{hint}: "
                             f"choose from {', '.join(known)}")
    return list(dict.fromkeys(methods))


def parse_seeds(text: str) -> list[int]:
    try:
        seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise UsageError(f"--seeds takes integers like 0,1,2, got {text!r}") from None
    if not seeds:
        raise UsageError("--seeds: give at least one seed")
    if len(set(seeds)) != len(seeds):
        raise UsageError(f"--seeds: repeated seed in {text!r}")
    return seeds


def build_grid(
    sizes: Sequence[int], methods: Sequence[str], weights: str, seeds: Sequence[int],
    time_limit: float, hard_limit: float, warm_start: str | None = None,
    memory_limit_mb: int | None = None,
    params: Sequence[tuple[str | None, str, Any]] = (),
) -> list[Cell]:
    """The cells in run order: by n, then repeat, then method (so a sweep stopped early
    has every method at the small sizes)."""
    exact = set(exact_methods())
    cells = []
    for n in sizes:
        for repeat, seed in enumerate(seeds):
            for method in methods:
                start = warm_start if method in exact else None
                own = {name: value for target, name, value in params
                       if target is None or target == method}
                cells.append(Cell(n=n, method=method, weights=weights, seed=seed,
                                  repeat=repeat, time_limit=time_limit, hard_limit=hard_limit,
                                  warm_start=start, memory_limit_mb=memory_limit_mb,
                                  params=own or None))
    return cells


# ---------------------------------------------------------------------------------------
# One run in its own process
# ---------------------------------------------------------------------------------------

_ACTIVE: set[subprocess.Popen[bytes]] = set()
_ACTIVE_LOCK = threading.Lock()


def _package_root() -> str:
    return str(Path(__file__).resolve().parent.parent)


def _memory_limiter(limit_mb: int | None) -> Callable[[], None] | None:
    if limit_mb is None:
        return None

    def apply() -> None:
        import resource

        limit = int(limit_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def _base_row(cell: Cell) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(ROW_FIELDS)
    row.update(n=cell.n, method=cell.method, weights=cell.weights, seed=cell.seed,
               repeat=cell.repeat, warm_start=cell.warm_start, params=cell.params,
               time_limit=cell.time_limit,
               hard_limit=cell.hard_limit, host=platform.node(), message="")
    return row


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(code).name
    except ValueError:
        return f"signal {code}"


def run_cell(cell: Cell | dict[str, Any]) -> dict[str, Any]:
    """Run one cell in a fresh process with a hard limit and return its row.

    Never raises for a solver's failure: a kill, a crash or an exception becomes a row.
    Used as is by the local runner and on Dask workers.
    """
    if isinstance(cell, dict):
        cell = Cell(**cell)
    row = _base_row(cell)
    row["started_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (_package_root(), env.get("PYTHONPATH", "")) if p)
    env.setdefault("PYTHONUNBUFFERED", "1")
    with tempfile.TemporaryDirectory(prefix="nqmip-compare-") as tmp:
        result_path = Path(tmp) / "result.json"
        stderr_path = Path(tmp) / "stderr.txt"
        start = time.perf_counter()
        with open(stderr_path, "wb") as stderr:
            proc = subprocess.Popen(
                [sys.executable, "-m", "nqmip.compare", "--worker", str(result_path)],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=stderr,
                env=env, start_new_session=True,
                preexec_fn=_memory_limiter(cell.memory_limit_mb),
            )
            with _ACTIVE_LOCK:
                _ACTIVE.add(proc)
            try:
                assert proc.stdin is not None
                try:
                    proc.stdin.write(json.dumps(asdict(cell)).encode())
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
                try:
                    code = proc.wait(timeout=cell.hard_limit)
                    timed_out = False
                except subprocess.TimeoutExpired:
                    _kill(proc)
                    code = proc.wait()
                    timed_out = True
            finally:
                with _ACTIVE_LOCK:
                    _ACTIVE.discard(proc)
        elapsed = time.perf_counter() - start
        row["process_time"] = elapsed
        if timed_out:
            row.update(status="timeout", wall_time=elapsed,
                       message=f"killed after the hard limit of {cell.hard_limit:g} s")
            return row
        payload = None
        if result_path.exists():
            try:
                payload = json.loads(result_path.read_text())
            except json.JSONDecodeError:
                payload = None
        if payload is None:
            tail = [line for line in stderr_path.read_text(errors="replace").splitlines()
                    if line.strip()]
            how = (f"killed by {_signal_name(-code)}" if code < 0 else f"exit code {code}")
            last = f": {tail[-1].strip()}" if tail else ""
            row.update(status="crashed", wall_time=elapsed,
                       message=f"worker process died ({how}){last}"[:500])
            return row
        if not payload.get("ok"):
            row.update(status="error", wall_time=elapsed, message=payload.get("error", "")[:500])
            return row
        result = payload["result"]
        for name in ROW_FIELDS:
            if name in result and name not in ("n", "method", "seed", "weights", "time_limit",
                                               "params"):
                row[name] = result[name]
        row["status"] = result["status"]
        # "weights" in records written before the field was renamed weights_name
        row["instance"] = result.get("weights_name", result.get("weights"))
        return row


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill a worker and everything it started (its own session / process group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            proc.kill()


def kill_active() -> None:
    with _ACTIVE_LOCK:
        procs = list(_ACTIVE)
    for proc in procs:
        _kill(proc)


def worker_main(result_path: str) -> int:
    """The worker process: read a cell on stdin, solve it, write the result as JSON."""
    spec = json.loads(sys.stdin.read())
    fault = os.environ.get(FAULT_ENV, "")
    if fault == "abort":
        os.abort()
    elif fault == "hang":
        while True:
            time.sleep(60)
    payload: dict[str, Any]
    try:
        from nqmip.solve import solve

        kwargs: dict[str, Any] = dict(spec.get("params") or {})
        if spec.get("warm_start"):
            kwargs["warm_start"] = spec["warm_start"]
        weights = spec["weights"]
        if weights == "random":
            kwargs["weights_seed"] = spec["seed"]
        result = solve(
            spec["n"], weights=None if weights == "none" else weights,
            method=spec["method"], time_limit=spec["time_limit"], seed=spec["seed"], **kwargs,
        )
        payload = {"ok": True, "result": result.to_dict()}
    except Exception as exc:  # an error row, not a crash: the message is kept
        payload = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    tmp = Path(result_path + ".tmp")
    tmp.write_text(json.dumps(payload))
    tmp.replace(result_path)
    return 0


# ---------------------------------------------------------------------------------------
# Results files
# ---------------------------------------------------------------------------------------


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of a JSON Lines file; a truncated last line (a killed sweep) is ignored."""
    rows: list[dict[str, Any]] = []
    if not path.exists():
        return rows
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return rows


class RowWriter:
    """Append rows to a JSON Lines file, flushed and fsynced one by one."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.handle: io.TextIOWrapper | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            needs_newline = path.exists() and path.stat().st_size > 0 and \
                not path.read_bytes().endswith(b"\n")
            self.handle = open(path, "a", encoding="utf-8")  # noqa: SIM115
            if needs_newline:
                self.handle.write("\n")

    def write(self, row: dict[str, Any]) -> None:
        if self.handle is None:
            return
        self.handle.write(json.dumps(row, default=str) + "\n")
        self.handle.flush()
        os.fsync(self.handle.fileno())

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()


# ---------------------------------------------------------------------------------------
# Running the grid: locally (threads, each starting a process) or on Dask
# ---------------------------------------------------------------------------------------


class Progress:
    """Cells done, running and left, with rich; plain (no control characters) off a tty."""

    def __init__(self, total: int, enabled: bool = True) -> None:
        from rich.console import Console

        self.total = total
        self.done = 0
        self.running = 0
        self.counts: Counter[str] = Counter()
        self.console = Console(stderr=True, highlight=False)
        self.enabled = enabled
        self.live = enabled and self.console.is_terminal
        self._progress: Any = None
        self._task: Any = None

    def _text(self) -> str:
        left = self.total - self.done - self.running
        statuses = " ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        return (f"cells: {self.done} done, {self.running} running, {left} left"
                + (f"  [{statuses}]" if statuses else ""))

    def __enter__(self) -> Progress:
        if self.live:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                TextColumn("{task.description}"), BarColumn(),
                TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                console=self.console, transient=False,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task(self._text(), total=self.total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def update(self, running: int, row: dict[str, Any] | None = None) -> None:
        self.running = running
        if row is not None:
            self.done += 1
            self.counts[str(row.get("status"))] += 1
        if self._progress is not None:
            self._progress.update(self._task, completed=self.done, description=self._text())
        elif self.enabled and row is not None:
            wall = row.get("wall_time")
            wall_text = "-" if wall is None else f"{wall:.3f}s"
            self.console.print(
                f"[{self.done}/{self.total}] n={row['n']} {row['method']} seed={row['seed']}: "
                f"{row['status']} objective={row.get('objective')} time={wall_text}"
                f" ({self.running} running, {self.total - self.done - self.running} left)",
                markup=False, soft_wrap=True,
            )


def run_local(cells: Sequence[Cell], jobs: int,
              on_row: Callable[[dict[str, Any], int], None]) -> None:
    running = 0
    lock = threading.Lock()

    def task(cell: Cell) -> dict[str, Any]:
        nonlocal running
        with lock:
            running += 1
        try:
            return run_cell(cell)
        finally:
            with lock:
                running -= 1

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        pending: set[Future[dict[str, Any]]] = {pool.submit(task, c) for c in cells}
        try:
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for future in done:
                    with lock:
                        now = running
                    on_row(future.result(), now)
        except BaseException:
            for future in pending:
                future.cancel()
            kill_active()
            raise


def run_dask(cells: Sequence[Cell], scheduler: str | None, workers: int | None,
             on_row: Callable[[dict[str, Any], int], None]) -> None:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise UsageError('Dask is not installed: pip install "nqmip[dask]"') from None
    cluster = None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as exc:
            raise UsageError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        slots = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
        tag = uuid.uuid4().hex[:12]
        futures = [client.submit(run_cell, asdict(c), pure=False, key=f"nqmip-{tag}-{i}")
                   for i, c in enumerate(cells)]
        left = len(futures)
        for future in as_completed(futures):
            row = future.result()
            left -= 1
            on_row(row, min(max(slots, 1), left))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# ---------------------------------------------------------------------------------------
# Summary, table, CSV/JSON and plot
# ---------------------------------------------------------------------------------------


def _numbers(rows: Iterable[dict[str, Any]], name: str) -> list[float]:
    values = []
    for row in rows:
        value = row.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool) \
                and math.isfinite(value):
            values.append(float(value))
    return values


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def summarize(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per (n, method, weights, warm start): status counts and medians."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        key = (row["n"], row["method"], row["weights"], row.get("warm_start"),
               _params_key(row.get("params")))
        groups.setdefault(key, []).append(row)
    order = {m: i for i, m in enumerate(dict.fromkeys(r["method"] for r in rows))}
    summary = []
    for (n, method, weights, warm, params), group in sorted(
            groups.items(), key=lambda kv: (kv[0][0], order[kv[0][1]], str(kv[0][3]),
                                            kv[0][4])):
        times = _numbers(group, "wall_time")
        summary.append({
            "n": n, "method": method, "weights": weights, "warm_start": warm,
            "params": json.loads(params) or None,
            "kind": method_kind(method), "runs": len(group),
            "status": dict(sorted(Counter(str(r["status"]) for r in group).items())),
            "time_median": _median(times),
            "time_min": min(times) if times else None,
            "time_max": max(times) if times else None,
            "objective_median": _median(_numbers(group, "objective")),
            "objective_min": min(_numbers(group, "objective"), default=None),
            "objective_max": max(_numbers(group, "objective"), default=None),
            "bound_median": _median(_numbers(group, "bound")),
            "bound_runs": len(_numbers(group, "bound")),
            "gap_median": _median(_numbers(group, "gap")),
            "gap_runs": len(_numbers(group, "gap")),
            "evaluations_median": _median(_numbers(group, "evaluations")),
        })
    # Quality beside time: each median against the best objective any method of the same
    # (n, weights) reached (a heuristic that stops early with a poor answer is not "fast").
    best: dict[tuple[Any, Any], float] = {}
    for row in rows:
        values = _numbers([row], "objective")
        if values:
            board = (row["n"], row["weights"])
            best[board] = max(best.get(board, -math.inf), values[0])
    for entry in summary:
        known = best.get((entry["n"], entry["weights"]))
        value = entry["objective_median"]
        entry["best_known"] = known
        entry["to_best_median"] = (
            None if known is None or value is None
            else (known - value) / max(abs(known), 1e-9))
        entry["to_best_runs"] = entry["runs"] if entry["to_best_median"] is not None else 0
    return summary


def method_kind(method: str) -> str:
    if method in exact_methods():
        return "exact"
    if method == "auto":
        return "hybrid"
    return "heuristic"


def cell_label(method: str, warm_start: str | None, params: dict[str, Any] | None) -> str:
    """``highs``, ``highs +sa`` (warm start), ``highs [strengthen=false]``."""
    label = method + (f" +{warm_start}" if warm_start else "")
    if params:
        label += " [" + ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(params.items())) + "]"
    return label


def _of(entry: dict[str, Any], name: str) -> str:
    """The median of ``name`` with "(k of runs)" when only k runs had one."""
    value = entry[f"{name}_median"]
    if value is None:
        return "-"
    text = f"{value:.1%}" if name in ("gap", "to_best") else f"{value:g}"
    count = entry[f"{name}_runs"]
    return text if count == entry["runs"] else f"{text} ({count} of {entry['runs']})"


def _to_best(entry: dict[str, Any]) -> str:
    """How far the median objective is below the best any method reached on the cell's
    board ("best" for the best itself)."""
    value = entry.get("to_best_median")
    if value is None:
        return "-"
    return "best" if value <= 1e-12 else f"{value:.1%}"


def _fmt(value: Any, spec: str = "g") -> str:
    if value is None:
        return "-"
    return format(value, spec)


def _time(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if value < 100 else f"{value:.1f}"


def summary_table(summary: Sequence[dict[str, Any]]) -> Any:
    from rich.table import Table

    table = Table(title="nqmip-compare: medians over the runs of each cell "
                        "(evals: a heuristic's evaluations)")
    for name, justify in (("n", "right"), ("method", "left"), ("runs", "right"),
                          ("status", "left"), ("time s", "right"), ("min–max s", "right"),
                          ("objective", "right"), ("to best", "right"), ("bound", "right"),
                          ("gap", "right"), ("evals", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    last_n = None
    for entry in summary:
        if last_n is not None and entry["n"] != last_n:
            table.add_section()
        last_n = entry["n"]
        objective = _fmt(entry["objective_median"])
        if entry["objective_min"] is not None and entry["objective_min"] != entry["objective_max"]:
            objective += f" ({entry['objective_min']:g}–{entry['objective_max']:g})"
        method = cell_label(entry["method"], entry["warm_start"], entry["params"])
        table.add_row(
            str(entry["n"]), method, str(entry["runs"]),
            ", ".join(f"{k} {v}" for k, v in entry["status"].items()),
            _time(entry["time_median"]),
            f"{_time(entry['time_min'])}–{_time(entry['time_max'])}",
            objective, _to_best(entry), _of(entry, "bound"), _of(entry, "gap"),
            _fmt(entry["evaluations_median"], ".0f"),
        )
    return table


SUMMARY_CSV_FIELDS = ("n", "method", "weights", "warm_start", "params", "kind", "runs",
                      "status",
                      "time_median", "time_min", "time_max", "objective_median",
                      "objective_min", "objective_max", "bound_median", "bound_runs",
                      "gap_median", "gap_runs", "best_known", "to_best_median", "to_best_runs",
                      "evaluations_median")


def summary_csv(summary: Sequence[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=SUMMARY_CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for entry in summary:
        flat = dict(entry)
        flat["status"] = ";".join(f"{k}={v}" for k, v in entry["status"].items())
        flat["params"] = json.dumps(entry["params"], sort_keys=True) if entry["params"] else ""
        writer.writerow(flat)
    return out.getvalue()


def summary_markdown(summary: Sequence[dict[str, Any]]) -> str:
    """The summary as a Markdown table (for the docs' benchmark page)."""
    head = ("| n | method | runs | status | time s median (min–max) | objective | to best "
            "| bound | gap | evaluations |\n| ---: | --- | ---: | --- | ---: | ---: | ---: "
            "| ---: | ---: | ---: |\n")
    lines = []
    for e in summary:
        objective = _fmt(e["objective_median"])
        if e["objective_min"] is not None and e["objective_min"] != e["objective_max"]:
            objective += f" ({e['objective_min']:g}–{e['objective_max']:g})"
        lines.append(
            f"| {e['n']} | {cell_label(e['method'], e['warm_start'], e['params'])} "
            f"| {e['runs']} | {', '.join(f'{k} {v}' for k, v in e['status'].items())} "
            f"| {_time(e['time_median'])} ({_time(e['time_min'])}–{_time(e['time_max'])}) "
            f"| {objective} | {_to_best(e)} | {_of(e, 'bound')} | {_of(e, 'gap')} "
            f"| {_fmt(e['evaluations_median'], '.0f')} |")
    return head + "\n".join(lines) + "\n"


def plot(rows: Sequence[dict[str, Any]], path: Path, title: str | None = None) -> None:
    """Median wall time against n, log scale, one line per method: exact solid,
    heuristics dashed, the hybrid dash-dotted; cells with a timeout or a solver's own time
    limit are circled in red."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = summarize(rows)
    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=120)
    styles = {"exact": "-", "heuristic": "--", "hybrid": "-."}
    markers = "osD^v<>Ph*X"
    methods = list(dict.fromkeys(
        (e["method"], e["warm_start"], _params_key(e["params"])) for e in summary))
    limited_points: list[tuple[int, float]] = []
    for index, (method, warm, params) in enumerate(methods):
        entries = [e for e in summary if e["method"] == method and e["warm_start"] == warm
                   and _params_key(e["params"]) == params and e["time_median"] is not None]
        if not entries:
            continue
        xs = [e["n"] for e in entries]
        ys = [max(e["time_median"], 1e-4) for e in entries]
        kind = method_kind(method)
        label = f"{cell_label(method, warm, json.loads(params))} ({kind})"
        ax.plot(xs, ys, linestyle=styles[kind], marker=markers[index % len(markers)],
                label=label)
        limited = [(e["n"], max(e["time_median"], 1e-4)) for e in entries if _hit_limit(
            [r for r in rows if r["n"] == e["n"] and r["method"] == method
             and r.get("warm_start") == warm and _params_key(r.get("params")) == params])]
        limited_points.extend(limited)
    if limited_points:
        ax.scatter([x for x, _ in limited_points], [y for _, y in limited_points], s=160,
                   facecolors="none", edgecolors="red", linewidths=1.2,
                   label="a run hit a time limit", zorder=3)
    ax.set_yscale("log")
    ax.set_xlabel("n (board size)")
    ax.set_ylabel("wall time, s (median of runs; log scale)")
    weights = sorted({str(r["weights"]) for r in rows})
    ax.set_title(title or f"nqmip-compare: weights {', '.join(weights)}")
    ax.set_xticks(sorted({e["n"] for e in summary}))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def _hit_limit(rows: Sequence[dict[str, Any]]) -> bool:
    return any(r.get("status") == "timeout" or r.get("termination") == "time_limit"
               for r in rows)


# ---------------------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------------------


def _param(text: str) -> tuple[str | None, str, Any]:
    key, sep, raw = text.partition("=")
    target, colon, name = key.rpartition(":")
    if not sep or not name or not name.replace("_", "").replace("-", "").isalnum():
        raise argparse.ArgumentTypeError(f"--param takes [METHOD:]NAME=VALUE, got {text!r}")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return (target if colon else None), name.replace("-", "_"), value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description=(
            "Compare exact and heuristic N-Queens methods over a grid of board sizes, each "
            "run in its own process with a hard time limit."
        ),
        epilog=("Example: nqmip-compare --n 8:20:4 --methods highs,cpsat,ga,tabu "
                "--weights chess --repeats 3 --time-limit 30 --output runs.jsonl "
                "--plot time.png"),
    )
    parser.add_argument("--n", default="8", metavar="SIZES",
                        help="board sizes: 8,16,32 or START:STOP[:STEP] ranges (inclusive)")
    parser.add_argument("--methods", default="highs,cpsat,ga,tabu,sa,minconflicts",
                        help="comma-separated methods (exact backends, heuristics, auto)")
    parser.add_argument("--weights", default="chess", choices=WEIGHT_CHOICES,
                        help="chess (black 2, white 1), none (feasibility) or random "
                             "(integers 1..9 drawn with each run's seed)")
    parser.add_argument("--repeats", type=int, metavar="R",
                        help="runs per (n, method), seeds 0..R-1 (default 1)")
    parser.add_argument("--seeds", metavar="S,S,...", help="explicit seeds, one run each")
    parser.add_argument("--time-limit", type=float, default=60.0, metavar="S",
                        help="the solver's own time limit per run (default 60)")
    parser.add_argument("--grace", type=float, default=30.0, metavar="S",
                        help="the process is killed this long after the time limit "
                             "(default 30: process start, imports, numba cache)")
    parser.add_argument("--hard-limit", type=float, metavar="S",
                        help="kill each run after S seconds (default time limit + grace)")
    parser.add_argument("--memory-limit", type=int, metavar="MB",
                        help="address-space limit of each run's process (RLIMIT_AS)")
    parser.add_argument("--warm-start", metavar="HEURISTIC",
                        help="exact methods start from this heuristic's placement "
                             "(nqmip.solve(..., warm_start=HEURISTIC))")
    parser.add_argument("--param", action="append", type=_param, default=[],
                        metavar="[METHOD:]NAME=VALUE",
                        help="a keyword for nqmip.solve (VALUE as JSON), for every method or "
                             "only METHOD, e.g. --param strengthen=false "
                             "--param tabu:tenure=15 (repeatable)")
    parser.add_argument("--output", type=Path, metavar="FILE",
                        help="append one JSON line per run, flushed as each run finishes")
    parser.add_argument("--resume", type=Path, metavar="FILE",
                        help="skip the cells already in FILE (and append to it unless "
                             "--output is given)")
    parser.add_argument("--retry-failed", action="store_true",
                        help="with --resume: run again the cells that ended in timeout, "
                             "crashed or error")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true",
                        help="print the summary as JSON (nothing else on stdout)")
    output.add_argument("--csv", action="store_true",
                        help="print the summary as CSV (nothing else on stdout)")
    output.add_argument("--markdown", action="store_true",
                        help="print the summary as a Markdown table")
    parser.add_argument("--plot", type=Path, metavar="FILE",
                        help="write time against n (.png, .svg or .pdf)")
    parser.add_argument("--jobs", type=int, default=1, metavar="J",
                        help="local runs at once (default 1: timings on a quiet machine)")
    dask = parser.add_mutually_exclusive_group()
    dask.add_argument("--scheduler", metavar="ADDRESS",
                      help="run on this Dask scheduler, e.g. tcp://host:8786")
    dask.add_argument("--workers", type=int, metavar="N",
                      help="run on a local Dask cluster of N worker processes")
    parser.add_argument("--no-progress", action="store_true", help="no progress output")
    parser.add_argument("--worker", metavar="RESULT", help=argparse.SUPPRESS)
    return parser


@dataclass
class Plan:
    cells: list[Cell]
    todo: list[Cell]
    previous: list[dict[str, Any]]
    output: Path | None


def make_plan(args: argparse.Namespace) -> Plan:
    sizes = parse_sizes(args.n)
    methods = parse_methods(args.methods)
    if args.seeds is not None:
        seeds = parse_seeds(args.seeds)
        if args.repeats is not None and args.repeats != len(seeds):
            raise UsageError(f"--repeats {args.repeats} disagrees with {len(seeds)} --seeds")
    else:
        repeats = 1 if args.repeats is None else args.repeats
        if repeats < 1:
            raise UsageError(f"--repeats must be at least 1, got {repeats}")
        seeds = list(range(repeats))
    if not (args.time_limit > 0 and math.isfinite(args.time_limit)):
        raise UsageError(f"--time-limit must be positive seconds, got {args.time_limit:g}")
    if not (args.grace >= 0 and math.isfinite(args.grace)):
        raise UsageError(f"--grace must be non-negative seconds, got {args.grace:g}")
    hard = args.time_limit + args.grace if args.hard_limit is None else args.hard_limit
    if not (hard > 0 and math.isfinite(hard)):
        raise UsageError(f"--hard-limit must be positive seconds, got {hard:g}")
    if args.memory_limit is not None and args.memory_limit < 16:
        raise UsageError(f"--memory-limit is in MB and must be at least 16, "
                         f"got {args.memory_limit}")
    if args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {args.jobs}")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    if args.warm_start is not None:
        from nqmip.heuristics import HEURISTIC_METHODS

        if args.warm_start not in HEURISTIC_METHODS:
            raise UsageError(f"--warm-start takes a heuristic's name: "
                             f"{', '.join(HEURISTIC_METHODS)}; got {args.warm_start!r}")
        if not solve_accepts_warm_start():
            raise UsageError("--warm-start needs nqmip.solve(..., warm_start=...), "
                             "which this nqmip does not have yet (issue 4)")
        if not set(methods) & set(exact_methods()):
            raise UsageError("--warm-start applies to exact methods; none is in --methods")
    if args.plot is not None and args.plot.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise UsageError(f"--plot writes .png, .svg or .pdf, got {args.plot.name!r}")
    if args.retry_failed and args.resume is None:
        raise UsageError("--retry-failed needs --resume FILE")
    if args.resume is not None and not args.resume.is_file():
        raise UsageError(f"--resume: no such file: {args.resume}")
    for target, name, _ in args.param:
        if target is not None and target not in methods:
            raise UsageError(f"--param {target}:{name}: {target!r} is not in --methods")
        if name in ("n", "weights", "method", "time_limit", "seed", "warm_start",
                    "weights_seed", "fixed"):
            raise UsageError(f"--param {name}: set it with the grid's own options")
    cells = build_grid(sizes, methods, args.weights, seeds, args.time_limit, hard,
                       args.warm_start, args.memory_limit, args.param)
    previous: list[dict[str, Any]] = []
    if args.resume is not None:
        previous = read_rows(args.resume)
        if args.retry_failed:
            previous = [r for r in previous if r.get("status") not in HARNESS_STATUSES]
    done = {row_key(r) for r in previous}
    todo = [c for c in cells if c.key() not in done]
    output = args.output if args.output is not None else args.resume
    return Plan(cells=cells, todo=todo, previous=previous, output=output)


def rows_for_grid(cells: Sequence[Cell], rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The latest row of each cell of the grid, in grid order."""
    latest: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:
        latest[row_key(row)] = row
    return [latest[c.key()] for c in cells if c.key() in latest]


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.worker is not None:
            return worker_main(args.worker)
        plan = make_plan(args)
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT

    new_rows: list[dict[str, Any]] = []
    writer = RowWriter(plan.output)
    progress = Progress(len(plan.todo), enabled=not args.no_progress)
    skipped = len(plan.cells) - len(plan.todo)
    if skipped and not args.no_progress:
        progress.console.print(f"resume: {skipped} of {len(plan.cells)} cells already done "
                               f"in {args.resume}", markup=False, soft_wrap=True)

    def on_term(signum: int, frame: Any) -> None:  # kill(1) stops the sweep like Ctrl-C
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_term)

    def on_row(row: dict[str, Any], running: int) -> None:
        writer.write(row)
        new_rows.append(row)
        progress.update(running, row)

    try:
        with progress:
            if plan.todo:
                if args.scheduler is not None or args.workers is not None:
                    run_dask(plan.todo, args.scheduler, args.workers, on_row)
                else:
                    run_local(plan.todo, args.jobs, on_row)
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        kill_active()
        where = f"; resume with --resume {plan.output}" if plan.output else ""
        print(f"{PROG}: interrupted after {len(new_rows)} runs{where}", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        writer.close()

    rows = rows_for_grid(plan.cells, plan.previous + new_rows)
    summary = summarize(rows)
    if args.json:
        print(json.dumps({"summary": summary, "runs": len(rows)}, indent=1))
    elif args.csv:
        sys.stdout.write(summary_csv(summary))
    elif args.markdown:
        sys.stdout.write(summary_markdown(summary))
    else:
        from rich.console import Console

        console = Console(highlight=False)
        if not console.is_terminal:  # a pipe or a file: wide enough, never wrapped
            console = Console(highlight=False, width=160)
        console.print(summary_table(summary))
    if args.plot is not None:
        plot(rows, args.plot)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
