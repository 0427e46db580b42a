"""An exact solver's run ended once its incumbent reaches the colour bound (weights constant
per colour, two values): a placement at the bound is optimal, whatever the solver's own
bound says.

The heuristics stop there already (:class:`nqmip.heuristics.common.KnownBound`); an exact
solver whose own bound lags the colour bound ran on to its limit with the optimum in hand
and answered "feasible": chess n = 20, 60 s: bnb (bound 35) and toulbar2 (bound 40) with
34, the colour bound; chess n = 22 with two fixed queens, costs: CP-SAT with 28 (bound 24).
:func:`colour_stop` watches the reports the solver makes (HiGHS, Gurobi, CP-SAT, SCIP,
bnb report their incumbents) and cancels the solver's deadline at the bound;
:meth:`ColourStop.settle` then says the answer is optimal, proven by the colour bound (for
a solver that reports nothing while it runs, at its end).
"""

from __future__ import annotations

from nqmip.budget import Deadline
from nqmip.instance import Instance
from nqmip.progress import Progress, ProgressCallback
from nqmip.result import Result, Status, Termination
from nqmip.verify import verified

#: The reason of the cancel (in the words of :class:`nqmip.result.Termination`).
REACHED = "optimal"
#: The note of a run this stop ended: none, as the verdict names the colour bound; the
#: solver's own word for the stop ("Interrupted by user", "USER_OBJ_LIMIT", "primallimit")
#: would tell a reader that somebody stopped it.
SETTLED = ""
#: Without the strengthened model (which computes the colour bound anyway, cached), the
#: bound is computed only with at least this many seconds left (its line IP takes up to
#: 0.5 s with fixed queens).
OWN_BOUND_MIN_SECONDS = 2.0


class ColourStop:
    """The colour ``bound`` (maximisation's terms) and the sub-deadline it cancels."""

    def __init__(self, bound: float, deadline: Deadline) -> None:
        self.bound = bound
        self.deadline = deadline.sub()  # the caller's deadline is left as it was
        self._tol = 1e-6 * max(1.0, abs(bound))

    def meets(self, objective: float | None) -> bool:
        return objective is not None and objective >= self.bound - self._tol

    def listen(self, forward: ProgressCallback | None) -> ProgressCallback:
        """The ``on_progress`` the solver gets: the report passed on, then the deadline
        cancelled once the incumbent reaches the bound."""

        def on_progress(report: Progress) -> None:
            if forward is not None:
                forward(report)
            if self.meets(report.incumbent):
                self.deadline.cancel(REACHED)

        return on_progress

    def settle(self, instance: Instance, result: Result) -> Result:
        """The result with the colour bound applied: optimal where its placement meets it."""
        if result.status == Status.INFEASIBLE or result.placement is None:
            return result
        if result.bound is not None and result.bound <= self.bound and \
                result.status == Status.OPTIMAL:
            return result
        proven = self.meets(result.objective)
        tighter = result.bound is None or self.bound < result.bound
        if not (proven or tighter):
            return result
        provenance = result.provenance
        if tighter:
            provenance = provenance.with_(bound_source="colour_bound")
        message = result.message
        if proven and result.status != Status.OPTIMAL:
            provenance = provenance.with_(proof="colour_bound")
            message = SETTLED
        return verified(instance, result.with_(
            message=message,
            bound=self.bound if tighter else result.bound,
            status=Status.OPTIMAL if proven else result.status,
            termination=Termination.OPTIMAL if proven else result.termination,
            provenance=provenance))


def colour_stop(instance: Instance, deadline: Deadline, *, strengthened: bool,
                bound: float | None = None) -> ColourStop | None:
    """The stop for ``instance`` (None where the colour bound does not apply): at ``bound``
    (the colour proof's, lowered by its refutations) or at the colour bound of
    :func:`nqmip.formulation.strengthen.plan` (computed only where the model computes it
    too, or with ``OWN_BOUND_MIN_SECONDS`` left)."""
    colours = None if instance.is_feasibility else instance.colours
    if colours is None or colours.black == colours.white or instance.n < 2:
        return None
    if bound is None:
        if not strengthened and deadline.limited \
                and deadline.remaining() < OWN_BOUND_MIN_SECONDS:
            return None
        from nqmip.formulation.strengthen import plan

        bound = plan(instance).objective_bound
    return None if bound is None else ColourStop(float(bound), deadline)
