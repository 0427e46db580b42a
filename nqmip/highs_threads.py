"""HiGHS in the calling thread with the number of threads each run asks for.

HiGHS keeps one task scheduler per operating-system thread, sized by the first run in that
thread. A later run in the same thread that asks for another number fails: ``run()``
returns ``HighsStatus.kError`` ("Option 'threads' is set to 2 but global scheduler has
already been initialized to use 1 threads"), the model status stays ``kNotset`` and there
is no solution and no bound. In one call of :func:`nqmip.solve` the colour bound's model
(one thread) runs before the solver; ``method="highs-pyomo", threads=2`` then answered
with its warm start as a feasible placement and no bound, and on a machine of more than
two cores a default run (HiGHS's own choice: half the cores) followed by a one-thread run
lost the second run's bound.

Every HiGHS run in a thread of ours (highspy's own ``run()``, or Pyomo's HiGHS interface)
first calls :func:`prepare` with the number it sets: the thread's scheduler is reset when
that number differs from the one its last run used (``Highs.resetGlobalScheduler``, which
is what highspy's ``solve()`` does after each run in its own thread). The backend that
runs HiGHS through ``startSolve`` needs none: that thread is new for each solve.
"""

from __future__ import annotations

import threading
from typing import Any

_local = threading.local()


def prepare(threads: int) -> None:
    """Make the calling thread's HiGHS scheduler fit a run with ``threads`` threads (0:
    HiGHS's default, which a scheduler of any size accepts, but is remembered as a size of
    its own: HiGHS sizes a new scheduler from it)."""
    if getattr(_local, "threads", None) == threads:
        return
    import highspy

    highspy.Highs.resetGlobalScheduler(False)
    _local.threads = threads


def run(h: Any, threads: int = 1) -> Any:
    """``h.run()`` with ``threads`` set and the calling thread's scheduler fitting it."""
    h.setOptionValue("threads", int(threads))
    prepare(int(threads))
    return h.run()
