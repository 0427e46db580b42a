"""What a call answers when its method's work limit ended it before its first placement.

A search stopped by the clock before its first placement answers a stand-in
(:func:`nqmip.solve.fallback`); one stopped by ``work_limit`` answered nothing at all
(status unknown, no message): ``solve(40, "chess", method="tabu", work_limit=1)``, and
ga, minconflicts, quota and bnb alike, with or without fixed queens. It answers the
same stand-ins now, those that do not depend on the clock, so that the same call still
gives the same answer on any machine: the explicit construction (not climbed: the climb
runs for a time), or with fixed queens the completion of a short search (or its proof
that none exists; beyond its rows min-conflicts' repair, seed 0), with the method's bound,
else the weights' coarse bound.
"""

from __future__ import annotations

from typing import Any

from nqmip.instance import Instance
from nqmip.result import Result, Status, Termination


def out_of_work(instance: Instance, method: str, result: Result) -> Result:
    """``result`` unchanged unless its work limit ended it without a placement; then the
    stand-in of :mod:`nqmip.construct`, said in its message. ``instance`` is the
    maximisation the method solved."""
    if not (result.placement is None and result.status is Status.UNKNOWN
            and result.termination is Termination.ITERATION_LIMIT):
        return result
    from nqmip.construct import STAND_IN
    from nqmip.heuristics.common import weight_bound
    from nqmip.outcome import make_result
    from nqmip.result import Provenance

    placement, source, none, what = _stand_in(instance)
    bound = result.bound if result.bound is not None else weight_bound(instance, coarse=True)
    proven = (placement is not None
              and instance.objective(placement) >= bound - 1e-9 * max(1.0, abs(bound)))
    return make_result(
        instance, method, placement, Termination.ITERATION_LIMIT,
        solver=result.solver if placement is None else STAND_IN[source][0],
        proven=proven or none, bound=None if none else bound,
        timing=result.timing, counters=result.counters, seed=result.seed,
        message=f"out of work: the {method} search stopped at its work limit before it "
                f"held a placement, {what}",
        provenance=Provenance(plan=(*result.provenance.plan, source) if placement is not None
                              else result.provenance.plan,
                              proof="bound" if proven else None,
                              bound_source=result.provenance.bound_source
                              if result.bound is not None else "row_column_maxima",
                              incumbent_source=source if placement is not None else None),
        extra=dict(result.extra))


def out_of_time_before(instance: Instance, method: str, why: str, wall: float) -> Result:
    """What a call answers when its time ended before its method could start (``why``, in
    words): the same stand-in as :func:`out_of_work`, on ``instance`` as the caller gave it
    (costs included: nothing is climbed, which would maximise), no bound."""
    from nqmip.construct import STAND_IN
    from nqmip.outcome import make_result
    from nqmip.result import Provenance, Timing

    placement, source, none, what = _stand_in(instance)
    return make_result(
        instance, method, placement, Termination.TIME_LIMIT,
        solver=STAND_IN[source][0] if placement is not None else "", proven=none,
        timing=Timing(wall=wall), message=f"out of time: {why} before the {method} search "
                                          f"could start, {what}",
        provenance=Provenance(plan=(method, source) if placement is not None else (method,),
                              incumbent_source=source if placement is not None else None))


def _stand_in(instance: Instance) -> tuple[Any, str, bool, str]:
    """The stand-in that does not depend on the clock (not climbed), its source, whether no
    placement exists, and what the message says of it."""
    from nqmip.construct import STAND_IN
    from nqmip.heuristics.swapclimb import stand_in_for

    placement, source, none = stand_in_for(instance, climb=False)
    what = (f"so this is {STAND_IN[source][1]}" if placement is not None
            else f"and no placement {'exists' if none else 'is known'}")
    return placement, source, none, what
