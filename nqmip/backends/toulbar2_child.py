"""toulbar2's search in a process of its own, run as a script (``python toulbar2_child.py
SPEC_FD RESULT_FD``) by :mod:`nqmip.backends.toulbar2`: it imports pytoulbar2 and the
standard library only (not nqmip, nor numpy), so that it starts in a tenth of a second.

pybind11 keeps the interpreter lock through toulbar2's search: in the caller's process no
thread ran, no signal handler, no watchdog, no cancel, until the search ended. Here the
caller's process only waits. It stops the search with SIGVTALRM (toulbar2's own timer
signal: the search ends at its next node and answers its best) and kills this process
after a short grace. The stop signals are ignored here: a Ctrl-C of the terminal reaches
the whole process group, and it is the caller's to answer. A CPU-time limit (the call's
wall-clock limit, as CPU seconds) stays as a safety; Linux kills this process when its
parent ends (:mod:`nqmip.parent_death`, the package's one mechanism, loaded by its path).

Protocol (``multiprocessing.connection`` over two pipes): the caller sends one dict (the
model); this process sends ``("ready", None)`` as its search starts, then ``("done",
answer)`` or ``("contradiction", None)`` (propagation alone proves no completion).
"""

from __future__ import annotations

import itertools
import signal
import sys
from multiprocessing.connection import Connection
from typing import Any

#: Beyond toulbar2's int timer: the timer armed only to install its handler.
NO_LIMIT = 2**31 - 1

#: The stop signals: the caller's to answer (it stops this process by SIGVTALRM, toulbar2's
#: timer, and ends it by SIGKILL). A Ctrl-C to the terminal's whole process group while
#: the model was built printed this process's KeyboardInterrupt traceback.
STOPS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
              if hasattr(signal, name))


def _die_with_parent() -> None:
    """This process ends with its parent: :func:`nqmip.parent_death.die_with_parent`,
    loaded by its path (that file imports the standard library only; importing the package
    from here would find whichever nqmip is installed)."""
    import importlib.util
    from pathlib import Path

    where = Path(__file__).resolve().parent.parent / "parent_death.py"
    spec = importlib.util.spec_from_file_location("nqmip_parent_death", where)
    if spec is None or spec.loader is None:  # pragma: no cover - the package's own file
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.die_with_parent()


def build(problem: Any, rows: list[int], domains: dict[int, list[int]],
          unary: dict[int, list[int]]) -> None:
    """The variables, their unary costs and the pairs' hard constraints (no shared column
    or diagonal), each distinct table (the two rows' domains, their distance) built once."""
    for r in rows:
        problem.AddVariable(f"q{r}", [f"c{c}" for c in domains[r]])
        problem.AddFunction([f"q{r}"], unary[r])
    kinds: dict[tuple[int, ...], int] = {}
    kind = {r: kinds.setdefault(tuple(domains[r]), len(kinds)) for r in rows}
    tables: dict[tuple[int, int, int], list[float]] = {}
    top = problem.Top
    index = {r: problem.VariableIndices[f"q{r}"] for r in rows}
    post = problem.CFN.wcsp.postBinaryConstraint
    for a, b in itertools.combinations(rows, 2):
        gap = b - a
        key = (kind[a], kind[b], gap)
        if key not in tables:
            tables[key] = [top if x == y or abs(x - y) == gap else 0.0
                           for x in domains[a] for y in domains[b]]
        if top in tables[key]:  # (AddFunction's own min and max of each table: 1.5 times
            post(index[a], index[b], tables[key], False)  # as long at n = 60)


def search(spec: dict[str, Any], results: Connection) -> None:
    import pytoulbar2

    problem = pytoulbar2.CFN(ubinit=spec["start_cost"], resolution=0, vac=0,
                             verbose=spec["verbose"], seed=spec["seed"])
    try:
        build(problem, spec["rows"], spec["domains"], spec["unary"])
        seconds = spec["cpu_seconds"]
        problem.CFN.timer(NO_LIMIT)  # toulbar2's handler of SIGVTALRM (and of SIGINT)
        for signum in STOPS:
            signal.signal(signum, signal.SIG_IGN)  # the caller's to answer
        signal.setitimer(signal.ITIMER_VIRTUAL, NO_LIMIT if seconds is None
                         else max(seconds, 1e-3))
        results.send(("ready", None))
        if spec.get("best_cost") is not None:  # it stops at a placement of this cost (the
            # colour bound's: optimal); Solve's bestSol sets it by a name pytoulbar2 1.4.0.1
            # lacks (setVnsOptimum): an AttributeError
            pytoulbar2.pytb2.option.vnsOptimum = problem.CFN.wcsp.DoubletoCost(
                float(spec["best_cost"]))
        found = problem.Solve(showSolutions=0, timeLimit=0)
    except pytoulbar2.pytb2.Contradiction:
        results.send(("contradiction", None))
        return
    except (MemoryError, RuntimeError) as error:  # std::bad_alloc, toulbar2's own errors:
        # said to the caller in one line (a traceback here reached the user's terminal)
        results.send(("error", f"{type(error).__name__}: {error}"))
        return
    # ended before its timer: ran to its end, unless the caller stopped it (it knows)
    complete = signal.getitimer(signal.ITIMER_VIRTUAL)[0] > 0
    answer = None if not found else ([int(v) for v in found[0]], float(found[1]))
    if answer is not None and spec.get("best_cost") is not None \
            and answer[1] <= spec["best_cost"]:
        complete = False  # stopped at the target: its search proved nothing
    results.send(("done", {"found": answer, "complete": complete,
                           "dual": float(problem.GetDDualBound()),
                           "nodes": int(problem.GetNbNodes())}))


def main() -> None:
    for signum in STOPS:  # from its start (again once toulbar2's timer installs its own)
        signal.signal(signum, signal.SIG_IGN)
    _die_with_parent()
    specs, results = Connection(int(sys.argv[1])), Connection(int(sys.argv[2]))
    spec = specs.recv()
    specs.close()
    search(spec, results)
    results.close()


if __name__ == "__main__":
    main()
