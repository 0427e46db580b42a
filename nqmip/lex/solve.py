"""``nqmip.lex_first``: the lexicographically first solution (OEIS A141843), its own door.

A different question from :func:`nqmip.solve` (an order, not weights), with its own
methods (:data:`nqmip.methods.LEX_METHODS`):

- ``"auto"`` or ``"first-fail"``: the lexicographic descent of :mod:`nqmip.lex.descent`,
  its questions answered by a complete first-fail search (the fast one); ``"sat"``: by
  incremental CaDiCaL (python-sat); ``"portfolio"``: both in turns.
- ``"search"``: the row-ordered search of :mod:`nqmip.lex.search`.
- ``"cpsat"``: sequential CP-SAT solves, row by row
  (:func:`~nqmip.formulation.lex.sequential_cpsat`).
- ``"cpsat-fixed"``: one CP-SAT model searched in lexicographic order
  (:func:`~nqmip.formulation.lex.fixed_search_cpsat`).
- ``"highs-pyomo"``: sequential 0-1 models in Pyomo, HiGHS as the solver
  (:func:`~nqmip.formulation.lex.sequential_pyomo`).
"""

from __future__ import annotations

from typing import Any

from nqmip.budget import Deadline
from nqmip.capacity import check_fits, lex_bytes
from nqmip.instance import FixedSpec, Instance, make_instance
from nqmip.methods import (
    LEX_CUBE_ROUTES,
    LEX_DEFAULT,
    LEX_METHODS,
    LEX_ROUTES,
    Method,
    method,
)
from nqmip.result import Result, Termination, interrupted
from nqmip.watchdog import Watched, finish_heard, run_watched

#: The parameters of the exact search (``method="search"``).
SEARCH_PARAMS = ("oracle_from", "oracle_cap")
#: The parameters of the descent's cube-and-conquer (``method`` "auto", "first-fail" or
#: "sat"; :mod:`nqmip.lex.cubes`).
CUBE_PARAMS = ("workers", "scheduler", "record")


def lex_first(n: int | Instance, fixed: FixedSpec = None, method: str = "auto",
              time_limit: float | Deadline | None = None, **params: Any) -> Result:
    """The first solution of the n-queens problem in lexicographic order (row 0 first,
    the smallest column first; OEIS A141843) among those keeping the ``fixed`` queens.

    :param n: the board size, or an :class:`~nqmip.instance.Instance` without weights.
    :param fixed: pre-placed queens, ``{row: col}`` or ``[(row, col), ...]``, 0-based.
    :param method: ``"auto"`` (the descent with its first-fail oracle), ``"first-fail"``,
        ``"sat"``, ``"portfolio"``, ``"search"``, ``"cpsat"``, ``"cpsat-fixed"`` or
        ``"highs-pyomo"`` (:data:`nqmip.methods.LEX_METHODS`).
    :param time_limit: seconds for the whole call (compile included), or a
        :class:`~nqmip.budget.Deadline`; None: no limit.
    :param params: the search's own (``oracle_from``, ``oracle_cap``); for the descent
        with ``"first-fail"`` or ``"sat"``, ``workers`` (1 to 256 processes) or
        ``scheduler`` (a Dask scheduler address or ``distributed.Client``): its hard
        questions answered by cube-and-conquer (:mod:`nqmip.lex.cubes`); ``record`` (a
        file) keeps its answers, and a run given it again (killed, stopped) asks none of
        them again (:mod:`nqmip.lex.record`).
    :returns: a verified :class:`~nqmip.result.Result`: ``optimal`` with the first
        solution; ``infeasible`` when there is none (n = 2, 3, or fixed queens that leave
        none); at a limit ``feasible`` with the smallest solution met and
        ``extra["proven_rows"]`` leading rows proven (they are the first solution's), or
        ``unknown``. ``objective`` is None: the order is not a number.
    """
    deadline = _deadline(time_limit)
    spec = _method(method)
    if isinstance(n, Instance):
        if fixed is not None:
            raise ValueError("fixed: given with an Instance, which already holds it")
        if not n.is_feasibility:
            raise ValueError("lex_first orders placements: it takes an instance without "
                             "weights")
        instance = n
    else:
        instance = make_instance(n, None, fixed)
    if spec.name in ("sat", "portfolio"):
        from nqmip.lex import sat

        if not sat.available():
            raise ValueError(f"lex_first method {spec.name!r} needs python-sat: "
                             'pip install "nqmip[sat]"')
    allowed = SEARCH_PARAMS if spec.name == "search" else (
        CUBE_PARAMS if spec.name in LEX_CUBE_ROUTES else ())
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise TypeError(f"unexpected parameters for lex_first method {spec.name!r}: "
                        f"{', '.join(unknown)}"
                        + (f" (it takes {', '.join(allowed)})" if allowed else ""))
    from nqmip.option_types import check_value

    for name in ("workers", "record"):
        if name in params:
            params[name] = check_value(name, params[name])
    check_fits(instance.n, method=f"lex_first method {spec.name!r}",
               exact_model=spec.name not in ("first-fail", "search"),
               need=lex_bytes(instance.n, spec.name))
    watched = run_watched(lambda: _run(spec, instance, deadline, params), deadline)
    # a Ctrl-C now is heard, not raised: the search has returned, its answer is known
    result, heard = finish_heard(lambda: _answer(watched, instance, spec, deadline))
    return interrupted(result) if heard or watched.interrupted else result


def _answer(watched: Watched[Result], instance: Instance, spec: Method,
            deadline: Deadline) -> Result:
    """The call's answer from what its search returned (None: it had not returned)."""
    if watched.value is None:
        from nqmip.outcome import make_result

        return make_result(instance, f"lex-first {spec.name}", None,
                           Termination.INTERRUPTED if watched.interrupted
                           else Termination.TIME_LIMIT, solver="", scored=False,
                           message="the search had not returned when it was stopped"
                           if watched.interrupted else "the search had not returned when its "
                           "time was up (a kernel may have been compiling)",
                           extra={"proven_rows": 0})  # every limited answer says it
    return watched.value.with_(timing=watched.value.timing.with_(wall=deadline.elapsed()))


def _deadline(time_limit: Any) -> Deadline:
    """The call's deadline, its time limit checked as :func:`nqmip.solve` checks it."""
    from nqmip.option_types import call_deadline

    deadline: Deadline = call_deadline(time_limit, stacklevel=4)
    return deadline


def _method(name: Any) -> Method:
    return LEX_METHODS[LEX_DEFAULT] if name == "auto" else method(name, LEX_METHODS,
                                                                  also=("auto",))


def _run(spec: Method, instance: Instance, deadline: Deadline,
         params: dict[str, Any]) -> Result:
    if spec.name in LEX_ROUTES:
        result: Result = spec.load()(instance, deadline, None, oracle=spec.name, **params)
        return result
    return _model_result(instance, spec, deadline)


def _model_result(instance: Instance, spec: Method, deadline: Deadline) -> Result:
    from nqmip.chunks import why_stopped
    from nqmip.outcome import make_result
    from nqmip.result import Counters, Provenance, Timing

    run = spec.load()(instance, deadline)
    termination = (Termination.OPTIMAL if run.complete else
                   Termination.INFEASIBLE if run.infeasible else why_stopped(deadline))
    proven = run.complete or run.infeasible
    return make_result(
        instance, f"lex-first {spec.name}", run.placement, termination, proven=proven,
        scored=False, solver={"cpsat": "CP-SAT (sequential)",
                              "cpsat-fixed": "CP-SAT (fixed search)",
                              "highs-pyomo": "HiGHS via Pyomo (sequential)"}[spec.name],
        timing=Timing(wall=run.seconds), counters=Counters(iterations=run.steps),
        message=f"{run.steps} solver calls; {run.proven_rows} rows proven",
        provenance=Provenance(plan=(f"lex-first {spec.name}",),
                              proof="solver" if proven else None,
                              incumbent_source="solver" if run.placement else None),
        extra={"proven_rows": run.proven_rows})
