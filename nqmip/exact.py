"""The exact pipeline: a start (optional), the model, the backend, the verified result.

:func:`solve_exact` runs one exact backend within the call's one
:class:`~nqmip.budget.Deadline` (in :class:`~nqmip.backends.base.SolveOptions`):

1. with ``bound_proof`` and weights constant per colour, the colour proof
   (:mod:`nqmip.colour.proof`) within ``PROOF_SHARE`` of the time left
   (``PROOF_SECONDS`` without a limit): a placement reaching the colour bound is optimal
   and the backend never runs; otherwise its best placement becomes the start;
2. the warm start (:mod:`nqmip.warmstart`), a heuristic's within ``WARM_START_SHARE``;
   without one and with a time limit, the explicit solution of :mod:`nqmip.construct`
   (never empty-handed; ``warm_start=False`` turns it off);
3. the backend with what is left; its answer is verified, the start kept when the solver
   ends with nothing better, and the colour proof's bound applied. For weights constant
   per colour, an incumbent at the colour bound ends the solver's run as optimal
   (:mod:`nqmip.colour.stop`).

How the result was obtained is in ``result.provenance``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from nqmip.backends.base import RawSolution, SolveOptions, get_backend
from nqmip.budget import MIN_SOLVER_SECONDS
from nqmip.chunks import why_stopped
from nqmip.colour.stop import colour_stop
from nqmip.instance import Instance
from nqmip.methods import METHODS, check_options
from nqmip.outcome import make_result, settled_by_fixed
from nqmip.progress import ProgressReporter
from nqmip.result import Counters, Provenance, Result, Status, Termination, Timing
from nqmip.verify import VerificationError, verified
from nqmip.warmstart import Start, WarmStartSpec, prepare_start

if TYPE_CHECKING:
    from nqmip.colour.proof import ColourProof

#: Share of the time left that a named warm-start heuristic may use before the exact solve,
#: and at most ``WARM_START_SECONDS_PER_SQUARE`` seconds per square of the board (at least
#: ``WARM_START_MIN_SECONDS``): a heuristic with no goal to reach runs to its limit, and a
#: share alone gave sa 12 s at n = 12 under a 60 s limit before HiGHS proved in 0.2 s
#: (n = 12 and 36: 0.25 s; 100: 1 s). The least, 0.25 s, is what a loaded core needs to
#: reach a first placement: at 0.05 s, minconflicts and sa (chess n = 10, three busy
#: processes on two cores) passed nothing on.
WARM_START_SHARE = 0.2
WARM_START_SECONDS_PER_SQUARE = 1e-4
WARM_START_MIN_SECONDS = 0.25


def warm_start_seconds(n: int) -> float:
    """The most a named warm-start heuristic runs on an n-board under a time limit."""
    return max(WARM_START_MIN_SECONDS, WARM_START_SECONDS_PER_SQUARE * n * n)
#: Share of the time left for the colour proof of ``bound_proof`` (the backend gets the
#: rest), and its seconds when the call has no limit (the proof's search is incomplete: it
#: needs a limit to end). auto's colour-proof plan splits its budget the same way and
#: reads both here (:mod:`nqmip.auto.policy`).
PROOF_SHARE = 0.75
PROOF_SECONDS = 60.0


def _settled(instance: Instance, method: str, solver: str, options: SolveOptions,
             begin: float) -> Result | None:
    """The answer before any model: the fixed queens settle it, or, for a method that
    compiles kernels (bnb), a board of no placement or one (n = 1, 2, 3: the heuristics'
    listing; bnb compiled its kernels for it, and a first run's watchdog answered n = 3 at
    the limit, "did not stop in time")."""
    settled = settled_by_fixed(instance, method, solver, options.seed, begin)
    if settled is None and METHODS[method].warm_up is not None:
        from nqmip.heuristics.exhaustive import settled_small

        settled = settled_small(instance, method, options.seed, begin, options.deadline)
    return None if settled is None else verified(instance, settled)


#: What a solver says of a stop that may be a cancel: SCIP, toulbar2 and Pyomo's HiGHS say
#: "time limit" for any stop (a caller's cancel was answered time_limit).
STOPS = (Termination.INTERRUPTED, Termination.TIME_LIMIT)


def solve_exact(
    instance: Instance,
    method: str,
    options: SolveOptions,
    *,
    warm_start: WarmStartSpec | bool = None,
    warm_start_params: dict[str, Any] | None = None,
    bound_proof: bool = False,
) -> Result:
    """Run the exact backend ``method`` after the colour proof and the warm start (if any).

    The deadline in ``options`` covers all of it. When the solver ends with nothing better
    than the start (a backend that cannot take starts, a limit hit early), the start is the
    incumbent (``provenance.incumbent_source == "warm_start"``)."""
    backend = get_backend(method)
    backend.require()
    spec = METHODS[method]
    check_options(spec, [name for name, value in (("threads", options.threads),
                                                  ("mip_gap", options.mip_gap or None),
                                                  ("strengthen", not options.strengthen
                                                   or None)) if value is not None])
    if not spec.honour("seed"):
        options = replace(options, seed=None)  # deterministic: no seed was used
    begin = time.perf_counter()
    settled = _settled(instance, method, backend.solver_label(), options, begin)
    if settled is not None:
        return settled
    deadline = options.deadline
    colour = None
    start_label: str | None = None
    if bound_proof:  # (with strengthen=False or a warm start too: it was dropped unsaid)
        colour = _colour_proof(instance, options)
        if colour is not None and colour.proven:
            from nqmip.colour.proof import proof_by_bound

            return proof_by_bound(instance, method, backend.solver_label(), options.seed,
                                  begin, colour)
        if colour is not None and colour.placement is not None and warm_start is None:
            warm_start = colour.placement  # the best count found: the solver's incumbent
            start_label = "colour proof"
    if warm_start is None and deadline.limited and not (
            instance.fixed and options.work_limit is not None):  # (a completion is timed)
        # Never empty-handed: a stopped proof returns this (fixed queens: a completion)
        warm_start, start_label = _explicit_start(instance, start_label,
                                                  climb=options.work_limit is None)
    # a placement at the colour bound ends the solver's run: optimal, whatever its own bound
    stop = colour_stop(instance, deadline,
                       strengthened=options.strengthen and spec.honour("strengthen"),
                       bound=None if colour is None else colour.bound)
    # the start is reported past the stop: a start at the bound still runs the solver
    # (its log, its own proof), which stops at its first report of it; a deadline
    # cancelled before the solver starts sent glpsol's log to stdout (c_stdout_to_stderr)
    report_start = options.on_progress
    # a run with a record (bnb on a cluster) searches its tree to the end: the record
    # stays the whole run's, open subtrees none (its answer is settled by the bound still)
    if stop is not None and options.record is None:
        deadline = stop.deadline
        options = replace(options, deadline=deadline,
                          on_progress=stop.listen(options.on_progress),
                          # the solver's own stop where it has one (toulbar2's reports
                          # nothing live, Gurobi's BestObjStop, SCIP's limits/primal)
                          target=stop.bound if options.target is None
                          else min(options.target, stop.bound))
    start = _prepare(instance, warm_start, start_label, options, warm_start_params)
    if start is not None and start.placement is not None:
        if backend.hints_own_start or start.source not in OWN_STARTS:
            options = replace(options, warm_start=start.placement)  # else kept beside it
        # the first incumbent: the call's trajectory begins with it (a target it meets stops
        # the call before the solver runs; a limit that ends before it runs answers it)
        ProgressReporter(method, report_start)(
            incumbent=start.objective, placement=lambda: start.placement)
    if deadline.limited:
        # The solver's limit is what is left now; building its model is not counted against
        # it (as before the one deadline: a 0.05 s limit still lets HiGHS load a start).
        options = replace(options, deadline=deadline.own_clock(
            deadline.seconds(floor=MIN_SOLVER_SECONDS)))
    solve_begin = time.perf_counter()
    raw = backend.solve(instance, options)
    if options.threads is not None and options.solver_threads() != options.threads:
        raw.extra.setdefault("threads", options.solver_threads())  # the cores: fewer
    solve_time = time.perf_counter() - solve_begin
    raw = within_gap(instance, raw, options.mip_gap)
    if raw.termination in STOPS and options.deadline.stopped_by():
        # the solver heard a cancel: its reason is the termination (the watchdog's at the
        # limit "time_limit", a target's "target", Ctrl-C or another part's proof
        # "interrupted"), decided here, where the solver stopped (see STOPS)
        raw.termination = why_stopped(options.deadline)
    if raw.termination is Termination.TARGET:  # the caller's own stop, which the verdict
        raw.message = ""  # names: not 'SCIP status primallimit', 'Gurobi status INTERRUPTED'
    result = _solver_result(instance, method, backend.solver_label(), options.seed, raw,
                            start, begin, solve_time)
    if start is not None:
        result = _keep_better_start(instance, result, start)
    if colour is not None:
        from nqmip.colour.proof import with_colour_bound

        result = with_colour_bound(instance, result, colour)
    if stop is not None:
        result = stop.settle(instance, result)
    return settled_by_bound(instance, result)


def within_gap(instance: Instance, raw: RawSolution, mip_gap: float) -> RawSolution:
    """A solver's 'optimal' under the caller's ``mip_gap``: a proof only where its bound
    (made whole for whole weights) meets the incumbent; else the run stopped at the gap,
    status feasible, termination gap. One rule for every backend: at random n = 14 with
    ``mip_gap=0.2``, HiGHS, Gurobi, CP-SAT and bnb said optimal 108 with bounds 120..129,
    SCIP feasible (iteration_limit), glpsol feasible with no bound (error; time_limit when
    given one, stopped in 0.9 s of 20)."""
    if mip_gap <= 0.0 or raw.status is not Status.OPTIMAL or raw.placement is None:
        return raw
    value = instance.objective(raw.placement)
    bound = None if raw.bound is None else instance.rounded_bound(raw.bound)
    if bound is not None and bound - value <= 1e-6 * max(1.0, abs(value)):
        return raw
    return replace(raw, status=Status.FEASIBLE, termination=Termination.GAP)


def settled_by_bound(instance: Instance, result: Result) -> Result:
    """An incumbent the solver left unproven that meets a bound is optimal (proof
    ``"bound"``), as a heuristic's is: the solver's own bound, or the best square of each
    row and column (:func:`~nqmip.heuristics.common.weight_bound`). Every square worth 3 on
    n = 8, a target of 24 stopped bnb at 24 with its bound 24, HiGHS with its bound 54,
    Gurobi and CP-SAT with none: all said feasible. The solver's word for its stop ("Time
    limit reached", "INTERRUPTED") is dropped from the message: the verdict says why. A
    run stopped without a bound of its own carries the maxima's (not one stopped at its
    gap, whose own bound is within it, unsaid), and a bound looser than theirs gives way."""
    if result.status is not Status.FEASIBLE or result.objective is None:
        return result
    from nqmip.heuristics.common import weight_bound

    value = result.objective
    tol = 1e-6 * max(1.0, abs(value))
    bounds = [(result.bound, result.provenance.bound_source),
              (weight_bound(instance), "row_column_maxima")]
    for bound, source in bounds:
        if bound is not None and value >= bound - tol:
            return verified(instance, result.with_(
                status=Status.OPTIMAL, termination=Termination.OPTIMAL, bound=value,
                message="", provenance=result.provenance.with_(proof="bound", bound_source=source)))
    cheap = weight_bound(instance)
    if result.bound is None and result.termination is not Termination.GAP:
        # stopped before the solver had a bound (a time limit in its root, a target met by
        # the start): the maxima's, as the heuristics carry (HiGHS at n = 200, 2 s, and
        # every exact method stopped by a target at once said 'bound -')
        return result.with_(bound=cheap, provenance=result.provenance.with_(
            bound_source="row_column_maxima"))
    if result.bound is not None and cheap < result.bound:  # the tighter of the two:
        # HiGHS stopped early by a target answered bound 131 or 61 from one call to the
        # next on a board whose row and column maxima say 68 (no bound stays none: glpsol
        # stopped at its gap keeps its own unsaid, not the maxima's looser one)
        return result.with_(bound=cheap, provenance=result.provenance.with_(
            bound_source="row_column_maxima"))
    return result


def _colour_proof(instance: Instance, options: SolveOptions) -> ColourProof | None:
    """The colour proof of ``bound_proof``, within ``PROOF_SHARE`` of the time left."""
    from nqmip.colour.proof import colour_proof

    deadline = options.deadline
    return colour_proof(
        instance, seed=options.seed,
        time_limit=deadline.sub(None if deadline.limited else PROOF_SECONDS,
                                share=PROOF_SHARE))


#: The starts the pipeline makes itself (no warm start given, a time limit): the explicit
#: construction, or the construction climbed by swaps; ``provenance.warm_start`` names which,
#: and so does ``incumbent_source`` when the start is the answer.
OWN_STARTS = ("explicit", "climbed", "completion")


def _explicit_start(instance: Instance, label: str | None, *,
                    climb: bool) -> tuple[tuple[int, ...] | None, str | None]:
    """The explicit solution of :mod:`nqmip.construct` as the start (None where it has none;
    the label is then left as it was), with ``climb`` the stand-in a stopped search
    answers (:func:`nqmip.heuristics.swapclimb.stand_in_for`: climbed 0.1 s by numpy swaps;
    not under a work limit, whose answer must not depend on the clock; with fixed queens
    the short search's completion, "completion", never asked for under a work limit):
    HiGHS and bnb at random n = 48, 4 s, answered the bare construction's 249 (the climb:
    389)."""
    from nqmip.construct import explicit_solution
    from nqmip.heuristics.swapclimb import stand_in_for

    # labelled as the stand-ins are (nqmip.construct.STAND_IN): "climbed" where the climb
    # improved it (it said "explicit" for both)
    explicit, how = stand_in_for(instance)[:2] if climb else (explicit_solution(instance.n),
                                                               "explicit")
    if explicit is None:
        return None, label
    return tuple(int(c) for c in explicit), how


def _prepare(instance: Instance, warm_start: WarmStartSpec | bool, label: str | None,
             options: SolveOptions, params: dict[str, Any] | None) -> Start | None:
    """The checked start (a named heuristic within ``WARM_START_SHARE`` and
    :func:`warm_start_seconds`), with its source renamed to ``label`` when the pipeline
    chose it."""
    if warm_start is False or warm_start is True:
        warm_start = None  # True asks for nothing more than the default of solve_exact
    deadline = options.deadline
    start = prepare_start(instance, warm_start, seed=options.seed, params=params,
                          time_limit=deadline.sub(warm_start_seconds(instance.n) if
                                                  deadline.limited else None,
                                                  share=WARM_START_SHARE))
    if start is not None and label is not None:
        start = replace(start, source=label)
    return start


def _solver_result(instance: Instance, method: str, solver: str, seed: int | None,
                   raw: RawSolution, start: Start | None, begin: float,
                   solve_time: float) -> Result:
    """The backend's answer as a verified :class:`Result` (:func:`make_result`)."""
    compile_time = None
    if start is not None and start.heuristic_result is not None:
        compile_time = start.heuristic_result.timing.compile
    if raw.extra.get("compile_time"):  # a backend of numba kernels (bnb): its load
        compile_time = (compile_time or 0.0) + raw.extra.pop("compile_time")
    proven = raw.status in (Status.OPTIMAL, Status.INFEASIBLE)
    plan = (method,) if start is None or start.source in ("placement", "result", *OWN_STARTS) \
        else (start.source, method)
    bound = None if raw.bound is None else instance.rounded_bound(raw.bound)
    return make_result(
        instance, method, raw.placement, raw.termination, solver=solver, proven=proven,
        bound=bound, objective=raw.objective, seed=seed, message=raw.message,
        timing=Timing(wall=time.perf_counter() - begin, compile=compile_time,
                      start=start.heuristic_time if start is not None else None,
                      solve=solve_time),
        counters=Counters(nodes=raw.nodes),
        provenance=Provenance(
            plan=plan, proof="solver" if proven else None,
            bound_source="solver" if bound is not None else None,
            incumbent_source="solver" if raw.placement is not None else None,
            warm_start=start.source if start is not None else None,
            start_objective=start.objective if start is not None else None,
            start_accepted=_accepted(start, raw.warm_start_accepted)),
        extra=raw.extra)


def _accepted(start: Start | None, solver_said: bool | None) -> bool | None:
    if start is None:
        return None
    if start.placement is None:  # the heuristic found nothing to pass on
        return False
    return bool(solver_said)


def _keep_better_start(instance: Instance, result: Result, start: Start) -> Result:
    if start.placement is None or start.objective is None:
        return result
    if result.status == Status.INFEASIBLE:
        raise VerificationError(
            f"{result.method}: reports infeasible, but the warm start is a valid placement"
        )
    tol = 1e-6 * max(1.0, abs(start.objective))
    if result.objective is not None and result.objective >= start.objective - tol:
        return result
    proven = result.bound is not None and start.objective >= result.bound - tol
    return verified(instance, result.with_(
        placement=start.placement,
        objective=start.objective,
        status=Status.OPTIMAL if proven else Status.FEASIBLE,
        termination=Termination.OPTIMAL if proven else result.termination,
        provenance=result.provenance.with_(
            incumbent_source=start.source if start.source in OWN_STARTS else "warm_start",
            proof="solver" if proven else None),
    ))
