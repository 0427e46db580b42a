"""``nqmip.solve``: the façade. It checks the call against the method table
(:mod:`nqmip.methods`), starts the call's one clock, and runs the method under the
watchdog (:mod:`nqmip.watchdog`) with the call's trajectory (:mod:`nqmip.trajectory`) as
its progress listener: the exact pipeline (:mod:`nqmip.exact`), a heuristic
(:mod:`nqmip.heuristics`) or ``auto`` (:mod:`nqmip.auto.plans`).

Whatever the method, the placement is checked by :func:`nqmip.verify.verified` before the
:class:`~nqmip.result.Result` is returned; a backend that answers wrongly raises
:class:`~nqmip.verify.VerificationError` instead of returning a silent wrong answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from nqmip.backends.base import fewer_threads
from nqmip.budget import Deadline
from nqmip.cluster import check_cluster
from nqmip.fits import check_capacity, check_random
from nqmip.heuristics.workstop import out_of_time_before, out_of_work
from nqmip.instance import FixedSpec, Instance, WeightsSpec, free_rows, make_instance
from nqmip.methods import (
    METHODS,
    Method,
    check_instance_weights,
    check_magnitude,
    check_options,
    method,
)
from nqmip.option_types import call_deadline
from nqmip.progress import Dispatcher, ProgressCallback, forwarded
from nqmip.result import DEFAULT_SEED, Result, Status, Termination, interrupted
from nqmip.sense import FlipOutOfTime, from_maximisation, gap_for_maximisation, to_maximisation
from nqmip.trajectory import Trajectory, close_to
from nqmip.verify import verified
from nqmip.warmstart import WarmStartSpec, check_start
from nqmip.watchdog import Watched, finish_heard, run_watched

#: The method of :func:`solve` and of the command line when none is named.
DEFAULT_METHOD = "auto"


def all_methods() -> tuple[str, ...]:
    """Every method of :func:`solve` (the table of :mod:`nqmip.methods`)."""
    return tuple(METHODS)


def solve(
    n: int | Instance | None,
    weights: WeightsSpec = None,
    fixed: FixedSpec = None,
    method: str = DEFAULT_METHOD,
    time_limit: float | Deadline | None = None,
    seed: int | None = None,
    *,
    target: float | None = None,
    warm_start: WarmStartSpec | bool = None,
    on_progress: ProgressCallback | None = None,
    threads: int | None = None,
    mip_gap: float | None = None,
    verbose: bool = False,
    strengthen: bool | None = None,
    bound_proof: bool | None = None,
    work_limit: float | None = None,
    black: float | None = None,
    white: float | None = None,
    weights_seed: int | None = None,
    sense: str | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    record: str | None = None,
    **params: Any,
) -> Result:
    """Solve an N-Queens instance and return a verified :class:`~nqmip.result.Result`.

    ``nqmip.solve(8)`` has **no weights** (feasibility, objective 8); the command line's
    default ``--n 8`` is ``nqmip.solve(8, "chess")`` (objective 12). Each method honours
    the options the method table lists (:mod:`nqmip.methods`); any other option given is
    refused by name (ValueError), never silently dropped.

    :param n: the board size, or an :class:`~nqmip.instance.Instance` (which holds the
        weights, fixed queens and sense: giving them again is refused), or None to take
        it from a square weights array.
    :param weights: None (feasibility), ``"chess"`` (black squares, row + column even,
        worth ``black``; white ones ``white``), ``"random"`` (integers 1..9 drawn with
        ``weights_seed``, default 0: the same call gives the same weights; other weights
        draw nothing and leave it unused, so that one loop over the kinds may pass one
        seed) or any n x n array of real numbers.
    :param fixed: pre-placed queens, ``{row: col}`` or ``[(row, col), ...]``, 0-based.
    :param method: ``"auto"`` (default: proves the optimum where it can and keeps the best
        placement until the time limit), an exact backend (``"highs"``, ``"glpk"``,
        ``"gurobi"``, ``"cpsat"``, ``"highs-pyomo"``, ``"scip"``, ``"toulbar2"``, ``"bnb"``)
        or a heuristic (``"ga"``, ``"tabu"``, ``"sa"``, ``"minconflicts"``,
        ``"topsquares"``, ``"quota"``, ``"lns"``): the table of :mod:`nqmip.methods`.
    :param time_limit: seconds for the **whole call**, numba's load and compile included
        (``result.timing.compile`` says how much of it they took), or a
        :class:`~nqmip.budget.Deadline` shared with the caller (cancelling it from another
        thread stops the solve, which returns its best placement); None: no limit. The
        call returns within about 0.4 s of it, whatever the method is doing.
    :param seed: for randomised methods; None means ``DEFAULT_SEED`` (0): the same call
        gives the same answer (the result's ``seed``; None for a deterministic method).
    :param target: stop as soon as the incumbent reaches this objective (at least it when
        maximising, at most it for costs): termination ``target``, unless the incumbent
        is also proven optimal.
    :param warm_start: exact backends and auto: a placement, a ``Result`` or a
        heuristic's name to start from (by default a limited exact solve starts from the
        explicit solution, climbed 0.1 s by numpy swaps; ``False`` turns that off).
    :param on_progress: called with each report on a thread of its own; its exception is raised.
    :param threads: solver threads (the MIP backends, CP-SAT and auto).
    :param mip_gap: stop at this relative gap (the exact backends; with costs, the costs').
    :param verbose: a log on stderr: the solver's own, or one line per improvement.
    :param strengthen: False: the textbook model (no :mod:`nqmip.formulation.strengthen`).
    :param bound_proof: exact backends: first look for a placement reaching the colour
        bound (weights constant per colour), which proves optimality without the solver.
    :param work_limit: stop after this much work in the method's own unit (nodes, swaps,
        evaluations, deterministic seconds: docs/api.md's notes): the same call then gives
        the same answer on any machine and cache state (termination ``iteration_limit``).
    :param sense: ``"max"`` (default: gains) or ``"min"`` (costs; the bound is a lower one).
    :param workers: ``method="bnb"``: its search's subtrees as tasks on a local Dask
        cluster of this many one-thread worker processes (docs/cluster.md).
    :param scheduler: ``method="bnb"``: the same on this Dask scheduler's workers (an
        address such as ``"tcp://host:8786"``, or a ``distributed.Client``).
    :param record: with ``workers`` or ``scheduler``: a file keeping the run's state,
        which a call given the same file continues.
    :param params: a heuristic's own parameters (``population=50``, ``preset="..."``).
    :returns: a verified ``Result`` (status, objective, bound, gap, placement, timing,
        trajectory, counters, provenance).
    :raises TypeError: an argument of the wrong type (the message names it).
    :raises ValueError: a bad value, an option the method does not honour, or a board that
        would not fit in this machine's memory (refused before anything is allocated).
    :raises nqmip.VerificationError: a solver answered with a wrong placement.

    The first solution in lexicographic order is :func:`nqmip.lex_first`. (Over 100 lines:
    this docstring is the reference of every parameter; the body is 20 lines.)
    """
    deadline = _deadline(time_limit)  # the one clock of the call starts now
    if isinstance(warm_start, Iterator):  # read once: checked, then used ('has 0 queens')
        warm_start = tuple(warm_start)
    options: dict[str, Any] = {
        "seed": seed, "threads": threads, "mip_gap": mip_gap, "target": target,
        "strengthen": strengthen, "bound_proof": bound_proof, "verbose": verbose,
        "warm_start": warm_start, "on_progress": on_progress, "work_limit": work_limit,
        "workers": workers, "scheduler": scheduler, "record": record}
    spec, instance, options = _checked(method, n, weights, fixed, black, white,
                                       weights_seed, sense, params, deadline, **options)
    seed = DEFAULT_SEED if options["seed"] is None and spec.honour("seed") else options["seed"]
    try:
        maximised, offset = _maximised(spec, instance, deadline)
    except FlipOutOfTime as exc:  # no time left for the method: the stand-in, on the costs
        return out_of_time_before(instance, spec.name, str(exc), deadline.elapsed())
    flipped = maximised is not instance
    if flipped and options["mip_gap"]:  # the costs' gap, on the maximisation's objective
        options["mip_gap"] = gap_for_maximisation(instance, offset, options["mip_gap"])
    view = offset if flipped else None  # reports and targets in the caller's terms
    trajectory = _trajectory(deadline, maximised, options["target"], view)
    listener = trajectory.listen(dispatcher := _dispatcher(
        on_progress, options["verbose"] and not spec.log, view, deadline))

    def work() -> Result:  # the caller's reports end where the result does
        done = _dispatch(spec, maximised, deadline, params, **{
            **options, "seed": seed, "on_progress": listener, "target": trajectory.target})
        if (last := trajectory.closing(done.method, done.objective, done.bound)) is not None:
            listener(last)
        return done

    watched = _watched(work, deadline, dispatcher)

    def answer() -> Result:  # a Ctrl-C now is heard, not raised: the answer is known
        result = _answer(watched, maximised, spec, trajectory)
        result = _finish(result, trajectory, deadline, seed if spec.honour("seed") else None,
                         fewer_threads(options["threads"], options["work_limit"])
                         if spec.honour("threads") else None)
        if flipped:  # back to costs, and checked against them
            result = verified(instance, from_maximisation(result, offset))
        return result

    result, heard = finish_heard(answer)
    return interrupted(result) if heard else result


def _dispatcher(on_progress: ProgressCallback | None, log: bool, offset: float | None,
                deadline: Deadline) -> Dispatcher | None:
    """The thread that passes the reports on to the caller
    (:func:`~nqmip.progress.forwarded`), never on a search's thread; an exception of the
    callback cancels ``deadline``."""
    forward = forwarded(on_progress, log, offset)
    return None if forward is None else Dispatcher(forward, deadline.cancel)


def _watched(work: Callable[[], Result], deadline: Deadline,
             dispatcher: Dispatcher | None) -> Watched[Result]:
    """``work`` under the watchdog, then the caller's callback's thread ended; the
    exception that callback raised (it cancelled the solve) is raised here, not the
    result."""
    try:
        return run_watched(work, deadline)
    finally:
        failure = None if dispatcher is None else dispatcher.close()
        if failure is not None:
            raise failure


def _trajectory(deadline: Deadline, maximised: Instance, target: float | None,
                offset: float | None) -> Trajectory:
    """The call's trajectory, its target in the maximisation's terms (``offset``: costs)."""
    return Trajectory(deadline, target=None if target is None else
                      (offset - target if offset is not None else float(target)),
                      round_bound=maximised.rounded_bound)


def _answer(watched: Watched[Result], instance: Instance, spec: Method,
            trajectory: Trajectory) -> Result:
    """The method's result, or the fallback when it did not return in time; interrupted
    when Ctrl-C stopped it. Each part says itself why it stopped (:func:`nqmip.chunks.
    why_stopped`); only the Ctrl-C this call heard is said here."""
    result = watched.value
    if result is None:  # the method did not return in time (a cold compile, an overrun)
        from nqmip.backends.base import release_stdout

        release_stdout()  # a solver left inside its redirect: the answer goes to stdout
        return fallback(instance, spec.name, trajectory, interrupted=watched.interrupted)
    result = out_of_work(instance, spec.name, result)  # a work limit's stop: a stand-in
    if result.placement is None and result.status is Status.UNKNOWN and result.termination in (
            Termination.TIME_LIMIT, Termination.INTERRUPTED):  # stopped before any: as above
        return fallback(instance, spec.name, trajectory, returned=True, interrupted=(
            watched.interrupted or result.termination is Termination.INTERRUPTED))
    # Ctrl-C, heard here: the call was interrupted, whatever the method last did
    return interrupted(result) if watched.interrupted else result


def _checked(method: Any, n: Any, weights: Any, fixed: Any, black: Any, white: Any,
             weights_seed: Any, sense: Any, params: dict[str, Any], deadline: Deadline,
             **options: Any) -> tuple[Method, Instance, dict[str, Any]]:
    """The method, the instance and the options of a call, once every argument is checked: types and
    values (the method table's types and ranges, :mod:`nqmip.option_types`; ``options``
    is updated with the plain values), the options the method honours (the others refused
    by name), the weights it takes, and the memory the board needs."""
    spec = method_of(method)
    if "objective" in params:
        raise TypeError("solve() takes no objective: the lexicographically first solution "
                        "is nqmip.lex_first(n, fixed=..., method=..., time_limit=...)")
    options = check_options_of(spec, options, params)
    if params and spec.kind in ("exact", "auto"):
        raise TypeError(f"unexpected parameters for {spec.name!r}: {', '.join(params)}")
    if spec.kind == "heuristic":  # its own, before its run (which loads kernels first)
        from nqmip.heuristics.params import check_own

        check_own(spec.name, params)
    # before the matrix is drawn (15 GB at 45,000)
    if isinstance(weights, str) and weights.lower() == "random" \
            and n is not None and not isinstance(n, Instance):
        check_random(spec, make_instance(n).n, weights_seed, params=params,
                     costs=str(sense).lower() == "min")
    instance = _instance(n, weights, fixed, black, white, weights_seed, sense, deadline)
    given = {**options, "fixed": instance.fixed or None, "verbose": options["verbose"] or None}
    check_options(spec, [name for name, value in given.items() if value is not None])
    check_cluster(options, spec.kind == "auto")
    check_instance_weights(spec, instance)
    check_capacity(spec, instance.n, dense=instance.dense is not None,
                   free=free_rows(instance), params=params, held=True,
                   costs=instance.sense == "min")
    check_target(instance, options["target"])
    if spec.honour("warm_start"):  # before the run: a short limit's answer would hide it
        check_start(instance, options["warm_start"])
    return spec, instance, options


def _maximised(spec: Method, instance: Instance,
               deadline: Deadline) -> tuple[Instance, float]:
    """The maximisation the method solves (costs flipped into weights by ``deadline``) and
    the offset, once its weights are checked against what the method's solver represents."""
    maximised, offset = to_maximisation(instance, deadline)
    check_magnitude(spec, maximised)
    return maximised, offset


def method_of(name: Any) -> Method:
    """The method table's entry for ``name`` (``objective="lex-first"`` has its own door)."""
    return method(name)


def _deadline(time_limit: Any) -> Deadline:
    """The call's one deadline: the caller's, or ``time_limit`` seconds from now (checked
    by the method table's type; beyond :data:`~nqmip.option_types.TIME_LIMIT_MAX` it is
    no limit, with a warning)."""
    deadline: Deadline = call_deadline(time_limit, stacklevel=4)
    return deadline


def check_options_of(spec: Method, options: dict[str, Any],
                     params: dict[str, Any]) -> dict[str, Any]:
    """The typed options of a call checked by the method table (:meth:`Method.check`: each
    wrong type a TypeError, each value out of range a ValueError, naming the option and
    its range), as plain Python values; ``work_limit`` also against the method's unit."""
    checked = {name: spec.check(name, value) for name, value in options.items()}
    check_work_limit(spec, checked.get("work_limit"), params, checked.get("bound_proof"))
    return checked


def check_work_limit(spec: Method, work_limit: Any, params: dict[str, Any],
                     bound_proof: Any) -> None:
    """``work_limit``: a positive number up to the method's counter's most (checked by
    :meth:`Method.check`), whole where the method counts whole units, not given twice (as
    the heuristic's own budget parameter too), and not with the colour proof of
    ``bound_proof`` (its search is stopped by time)."""
    if work_limit is not None and not spec.honour("work_limit"):
        from nqmip.methods import check_options

        check_options(spec, ["work_limit"])  # 'does not take', whatever the value
    work_limit = spec.check("work_limit", work_limit)
    if work_limit is None:
        return
    if not spec.fractional_work and not float(work_limit).is_integer():
        raise ValueError(f"work_limit of {spec.name!r} counts whole units "
                         f"({(spec.notes or {}).get('work_limit', 'its work')}), "
                         f"got {work_limit}")
    if spec.work is not None and spec.work in params:
        raise ValueError(f"work_limit and {spec.work} both set the budget of "
                         f"{spec.name!r}: give one")
    if bound_proof:
        raise ValueError("work_limit with bound_proof: the colour proof's search is "
                         "stopped by time, not by work; drop one")


def check_target(instance: Instance, target: float | None) -> None:
    """A target no placement can reach is refused, naming the bound: above the weights'
    bound when maximising, below it with costs (the run would never stop at it)."""
    if target is None:
        return
    from nqmip.heuristics.common import weight_bound

    bound = weight_bound(instance)
    if instance.sense == "min" and target < bound - 1e-9 * max(1.0, abs(bound)):
        raise ValueError(f"target {target:g} is below {bound:g}, a bound no placement of "
                         f"these costs goes under (each row's cheapest square): give a "
                         f"target of at least {bound:g}")
    if instance.sense != "min" and target > bound + 1e-9 * max(1.0, abs(bound)):
        raise ValueError(f"target {target:g} is above {bound:g}, a bound no placement of "
                         f"these weights passes (each row's best square): give a target of "
                         f"at most {bound:g}")


def _instance(n: Any, weights: Any, fixed: Any, black: Any, white: Any, weights_seed: Any,
              sense: Any, deadline: Deadline) -> Instance:
    """The instance of the call; with an Instance given, any of its parts given again is
    refused by name (:func:`~nqmip.instance.make_instance`: it would be ignored)."""
    return make_instance(n, weights, fixed, black=black, white=white,
                         weights_seed=weights_seed, sense=sense, deadline=deadline)


def _dispatch(spec: Method, instance: Instance, deadline: Deadline, params: dict[str, Any],
              *, seed: int | None, warm_start: Any, on_progress: ProgressCallback,
              target: float | None, threads: int | None, mip_gap: float | None,
              verbose: bool, strengthen: bool | None, bound_proof: bool | None,
              work_limit: float | None, workers: int | None = None,
              scheduler: Any = None, record: Any = None) -> Result:
    if spec.kind == "auto":
        return spec.load()(instance, time_limit=deadline, seed=seed, threads=threads,
                           verbose=verbose, on_progress=on_progress,
                           warm_start=warm_start, **params,
                           **({} if scheduler is None else {"scheduler": scheduler}))
    if spec.kind == "exact":
        from nqmip.backends.base import SolveOptions
        from nqmip.exact import solve_exact

        options = SolveOptions(deadline=deadline, seed=seed, threads=threads,
                               mip_gap=mip_gap or 0.0, verbose=verbose,
                               on_progress=on_progress, target=target,
                               strengthen=True if strengthen is None else strengthen,
                               work_limit=work_limit, workers=workers,
                               scheduler=scheduler, record=record)

        def search(limit: Deadline) -> Result:  # verified by the exact pipeline
            return solve_exact(instance, spec.name, replace(options, deadline=limit),
                               warm_start=warm_start, bound_proof=bool(bound_proof))

        alone = work_limit is not None or workers or scheduler or record is not None \
            or not (warm_start is None or warm_start is False)  # (an array: no truth)
    else:
        from nqmip.heuristics import run_heuristic

        if work_limit is not None and spec.work is not None:  # the heuristic's own budget
            params = {**params, spec.work: int(work_limit)}

        def search(limit: Deadline) -> Result:  # it marks its kernels ready
            return verified(instance, run_heuristic(spec.name, instance, seed=seed,
                                                    time_limit=limit, on_progress=on_progress,
                                                    **params))

        alone = work_limit is not None and spec.work is not None
    from nqmip.auto.first import first_run

    if not alone and (cold := first_run(spec.name, instance, deadline, seed, on_progress,
                                        search)) is not None:
        return cold  # a first run: its kernels compiled beside, numpy climbs here
    return search(deadline)


def _finish(result: Result, trajectory: Trajectory, deadline: Deadline,
            seed: int | None, threads: int | None = None) -> Result:
    """The call's own figures on the method's result (maximisation terms): the whole
    call's wall time, the times to the best and to the target, the trajectory, and
    termination ``target`` when the target stopped it; ``extra['threads']``, ``threads``."""
    trajectory.finish(result.objective, result.bound)
    termination = result.termination
    if trajectory.target_reached and termination is not Termination.INFEASIBLE:
        # the target's cancel stopped it (the method saw "interrupted"): the target, or
        # the optimum when the placement that reached it is also proven
        termination = (Termination.OPTIMAL if result.status is Status.OPTIMAL
                       else Termination.TARGET)
    to_best = trajectory.time_to(result.objective)
    if stood_in(trajectory, result):  # the answer's own time, not the stand-in's
        to_best = result.timing.to_best
    timing = result.timing.with_(wall=deadline.elapsed(), to_best=to_best,
                                 to_target=trajectory.target_time)
    extra = result.extra if threads is None else {**result.extra, "threads": threads}
    return result.with_(termination=termination, timing=timing, seed=seed, extra=extra,
                        trajectory=tuple(trajectory.points), target=trajectory.target)


def stood_in(trajectory: Trajectory, result: Result) -> bool:
    """Whether a stand-in reported a better incumbent than the answer: a named heuristic's
    first run's climbs, its answer the method's own (:mod:`nqmip.auto.first`)."""
    best, objective = trajectory.incumbent, result.objective
    return best is not None and objective is not None and best > objective \
        and not close_to(best, objective)


def fallback(instance: Instance, method: str, trajectory: Trajectory, *,
             interrupted: bool, returned: bool = False) -> Result:
    """What the call answers when its method has no placement to give in time (it had not
    returned, or with ``returned``, returned without one: a compile ate the budget): the
    best placement reported while it ran (auto's parts hand theirs over), else a stand-in of
    :mod:`nqmip.construct` (the explicit construction, a short swap climb from it; with
    fixed queens a short search's completion, or its proof that none exists), with the best
    bound reported; on a board of few free rows the optimum itself, every placement listed
    in numpy (:func:`nqmip.heuristics.exhaustive.best_listed`), proven.
    ``instance`` is the maximisation."""
    from nqmip.construct import STAND_IN
    from nqmip.heuristics.common import weight_bound
    from nqmip.heuristics.exhaustive import best_listed
    from nqmip.heuristics.swapclimb import stand_in_for
    from nqmip.outcome import make_result
    from nqmip.result import Provenance

    why = "interrupted" if interrupted else "out of time"
    termination = (Termination.INTERRUPTED if interrupted else Termination.TARGET
                   if trajectory.target_reached else Termination.TIME_LIMIT)
    bounds = [b for b in (trajectory.bound, weight_bound(instance, coarse=True))
              if b is not None]
    bound = min(bounds) if bounds else None
    placement: Any = trajectory.placement
    source, none = "reported", False
    if (listed := best_listed(instance)) is not None:  # a small board: the optimum, at once
        (placement, none), source = listed, "every"
        bound = None if placement is None else instance.objective(placement)
    elif placement is None:
        placement, source, none = stand_in_for(instance)
    state = "stopped before it held a placement" if returned else "did not stop in time"
    what = (f"and no placement {'exists' if none else 'is known'}" if placement is None else
            "so this is the best placement it had reported" if source == "reported" else
            f"so this is {STAND_IN[source][1]}, the optimum" if source == "every" else
            f"so this is {STAND_IN[source][1]}, standing in for its answer")
    proven = (placement is not None and bound is not None
              and instance.objective(placement) >= bound - 1e-9 * max(1.0, abs(bound)))
    steps, bound_from, incumbent_from = trajectory.sources(
        bound, source if placement is not None else None)
    bound_from = "exhaustive" if source == "every" and bound is not None else bound_from
    return make_result(
        instance, method, placement, termination,  # why it stopped; a proof of none: status
        solver="" if placement is None else STAND_IN.get(source, (method,))[0],
        proven=proven or none, bound=None if none else bound,
        message=f"{why}: the {method} search {state}, {what}",
        provenance=Provenance(plan=steps or (method,), proof=(
                                  "exhaustive" if source == "every" else "bound" if proven
                                  else None),
                              bound_source=bound_from, incumbent_source=incumbent_from))


def fallback_result(instance: Instance, method: str, elapsed: float, *,
                    interrupted: bool) -> Result:
    """:func:`fallback` for the user's instance (either sense), for a caller that got no
    placement back (the command line answers with it)."""
    maximised, offset = to_maximisation(instance)
    trajectory = Trajectory(Deadline(None))
    result = fallback(maximised, method, trajectory, interrupted=interrupted, returned=True)
    result = result.with_(timing=result.timing.with_(wall=elapsed))
    if maximised is not instance:
        result = verified(instance, from_maximisation(result, offset))
    return result
