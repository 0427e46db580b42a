"""HiGHS runs of different thread counts in one thread (nqmip/highs_threads.py).

HiGHS sizes one scheduler per operating-system thread at the thread's first run; a later
run there asking for another count fails with no solution. Each test runs in a new thread,
whose scheduler nothing else has made.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from nqmip import highs_threads
from nqmip.formulation import colour_bound as B


def in_new_thread(body: Callable[[], Any]) -> Any:
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(body()))
    thread.start()
    thread.join(120)
    assert out, "the thread did not answer"
    return out[0]


def small_mip() -> Any:
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    cols = np.arange(3, dtype=np.int32)
    h.addVars(3, np.zeros(3), np.ones(3))
    h.changeColsIntegrality(3, cols, np.array([highspy.HighsVarType.kInteger] * 3))
    h.changeColsCost(3, cols, np.array([1.0, 2.0, 3.0]))
    h.changeObjectiveSense(highspy.ObjSense.kMaximize)
    h.addRow(-highspy.kHighsInf, 2.0, 3, cols, np.ones(3))
    return h


def test_without_the_reset_a_second_count_fails_in_highs() -> None:
    # what the module is for: HiGHS refuses a run whose thread count differs from the
    # first run's in the same thread (if HiGHS stops doing so, this test says so)
    import highspy

    def body() -> Any:
        first = small_mip()
        first.setOptionValue("threads", 2)
        first.run()
        second = small_mip()
        second.setOptionValue("threads", 1)
        return second.run(), second.getModelStatus()

    status, model_status = in_new_thread(body)
    assert status == highspy.HighsStatus.kError
    assert model_status == highspy.HighsModelStatus.kNotset


def test_runs_of_different_counts_in_one_thread_all_solve() -> None:
    import highspy

    def body(counts: tuple[int, ...]) -> list[float]:
        values = []
        for threads in counts:
            h = small_mip()
            highs_threads.run(h, threads)
            assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal, threads
            values.append(h.getInfo().objective_function_value)
        return values

    for counts in ((2, 1), (1, 2, 1), (0, 1, 2, 0)):
        assert in_new_thread(lambda counts=counts: body(counts)) == [5.0] * len(counts)


def test_the_colour_bound_after_a_two_thread_run_is_the_same_bound() -> None:
    # before: -1 black queens at most on the 9 x 9 board with a queen on (1, 3)
    alone = in_new_thread(lambda: B._diagonal_ip(9, ((1, 3),), maximise=True, time_limit=10))

    def after_two_threads() -> int | None:
        highs_threads.run(small_mip(), 2)
        return B._diagonal_ip(9, ((1, 3),), maximise=True, time_limit=10)

    assert alone is not None and alone >= 1
    assert in_new_thread(after_two_threads) == alone


def test_highs_through_pyomo_with_two_threads_proves_the_optimum() -> None:
    # a fresh process: the colour bound's one-thread model runs first in the solve's thread
    # (before: "feasible 20.0 None", the warm start, HiGHS having refused to run)
    code = ("import nqmip; r = nqmip.solve(14, 'chess', method='highs-pyomo', threads=2, "
            "time_limit=60); print(r.status, r.objective, r.bound)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True).stdout.split()
    assert out == ["optimal", "24.0", "24.0"]
