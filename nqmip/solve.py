"""``nqmip.solve``: the façade. It validates, creates the call's one deadline and the
seed, and dispatches: the exact pipeline (:mod:`nqmip.exact`), a heuristic
(:mod:`nqmip.heuristics`) or ``auto`` (:mod:`nqmip.auto.plans`). Nothing else lives here.

Whatever the method, the placement is checked by :func:`nqmip.verify.verified` before the
:class:`~nqmip.result.Result` is returned; a backend that answers wrongly raises
:class:`~nqmip.verify.VerificationError` instead of returning a silent wrong answer.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from nqmip.backends.base import EXACT_METHODS, Progress, ProgressCallback, SolveOptions
from nqmip.budget import MIN_SOLVER_SECONDS, Deadline
from nqmip.capacity import check_fits
from nqmip.instance import (
    CHESS_BLACK,
    CHESS_WHITE,
    FixedSpec,
    Instance,
    WeightsSpec,
    free_rows,
    make_instance,
)
from nqmip.result import DEFAULT_SEED, Result
from nqmip.sense import from_maximisation, to_maximisation
from nqmip.verify import verified
from nqmip.warmstart import WarmStartError, WarmStartSpec

#: The method of :func:`solve` and of the command line when none is named.
DEFAULT_METHOD = "auto"


def heuristic_methods() -> tuple[str, ...]:
    from nqmip.heuristics import HEURISTIC_METHODS

    return HEURISTIC_METHODS


def all_methods() -> tuple[str, ...]:
    return (*EXACT_METHODS, *heuristic_methods(), "auto")


def solve(
    n: int | Instance,
    weights: WeightsSpec = None,
    fixed: FixedSpec = None,
    method: str = DEFAULT_METHOD,
    time_limit: float | Deadline | None = None,
    seed: int | None = None,
    *,
    warm_start: WarmStartSpec | bool = None,
    on_progress: ProgressCallback | None = None,
    threads: int | None = None,
    mip_gap: float = 0.0,
    verbose: bool = False,
    strengthen: bool = True,
    bound_proof: bool = False,
    black: float = CHESS_BLACK,
    white: float = CHESS_WHITE,
    weights_seed: int | None = None,
    sense: str = "max",
    objective: str | None = None,
    **params: Any,
) -> Result:
    """Solve an N-Queens instance and return a verified :class:`~nqmip.result.Result`.

    ``nqmip.solve(8)`` has **no weights**: it places 8 queens (feasibility, objective 8).
    The command line's default is the chess weights: ``solve_weighted.py --n 8`` is
    ``nqmip.solve(8, "chess")`` (objective 12).

    :param n: the board size, or an :class:`~nqmip.instance.Instance` (then ``weights``,
        ``fixed``, ``black``, ``white`` and ``weights_seed`` are not read).
    :param weights: None (feasibility), ``"chess"`` (black squares, row + column even,
        worth ``black``; white ones ``white``), ``"random"`` (integers 1..9 drawn with
        ``weights_seed``, default 0: the same call gives the same weights) or any n x n
        array of real numbers.
    :param fixed: pre-placed queens, ``{row: col}`` or ``[(row, col), ...]``, 0-based.
    :param method: ``"auto"`` (default: proves the optimum where it can and keeps the best
        placement until the time limit, :mod:`nqmip.auto.plans`), an exact backend
        (``"highs"``, ``"glpk"``, ``"gurobi"``, ``"cpsat"``, ``"highs-pyomo"``,
        ``"scip"``, ``"toulbar2"``, or nqmip's own ``"bnb"`` for any weights) or a
        heuristic (``"ga"``, ``"tabu"``, ``"sa"``, ``"minconflicts"``, ``"topsquares"``,
        ``"quota"``, ``"lns"``); :func:`all_methods` lists them.
    :param time_limit: seconds for the whole call, or a :class:`~nqmip.budget.Deadline`
        shared with the caller (cancelling it from another thread stops the solve, which
        returns its best placement); None: no limit.
    :param seed: makes randomised methods reproducible; None means ``DEFAULT_SEED`` (0),
        and the result's ``seed`` says which was used.
    :param warm_start: exact backends: a placement, a ``Result`` or a heuristic's name to
        start from; by default a limited exact solve starts from the explicit solution of
        :mod:`nqmip.construct`, so that a limit never leaves it empty-handed;
        ``False`` turns that off.
    :param on_progress: called with :class:`~nqmip.backends.base.Progress` (incumbent,
        bound, elapsed time) while the method runs.
    :param threads: solver threads (exact backends and auto).
    :param mip_gap: exact backends: stop at this relative gap.
    :param verbose: stream the solver's log.
    :param strengthen: exact backends: add the valid rows of
        :mod:`nqmip.formulation.strengthen` (default); False solves the textbook model.
    :param bound_proof: exact backends: first look for a placement reaching the colour
        bound (weights constant per colour), which proves optimality without the solver.
    :param sense: ``"max"`` (default: the weights are gains) or ``"min"`` (the weights
        are costs: the cheapest placement; the bound is then a lower bound).
    :param objective: ``"lex-first"``: instead of weights, the lexicographically first
        solution (rows in order, smallest column first; OEIS A141843), by :mod:`nqmip.lex`.
    :param params: a heuristic's own parameters (``population=50``, ``preset="..."``).
    :returns: a verified ``Result``: status, objective, bound, gap, placement, times and
        how it was obtained (``provenance``).
    :raises TypeError: an argument of the wrong type (the message names it).
    :raises ValueError: a bad value, an option the method does not take, or a board that
        would not fit in this machine's memory (refused before anything is allocated).
    :raises nqmip.VerificationError: a solver answered with a wrong placement.
    """
    _check_arguments(method, time_limit, seed, threads, mip_gap)
    instance = make_instance(n, weights, fixed, black=black, white=white,
                             weights_seed=weights_seed, sense=sense)
    if objective is not None:
        from nqmip.lex.solve import solve_lex

        return solve_lex(instance, objective, method, Deadline.of(time_limit),
                         DEFAULT_SEED if seed is None else seed, weights, params)
    _refuse_ignored(method, mip_gap=mip_gap, strengthen=strengthen, bound_proof=bound_proof)
    check_fits(instance.n, dense_weights=instance.dense is not None,
               exact_model=method in EXACT_METHODS, method=method,
               model_rows=free_rows(instance))
    maximised, offset = to_maximisation(instance)
    if maximised is not instance and on_progress is not None:
        report = on_progress  # the live figures in the user's terms (costs)

        def on_progress(p: Progress) -> None:
            report(replace(p, incumbent=None if p.incumbent is None else offset - p.incumbent,
                           bound=None if p.bound is None else offset - p.bound))

    result = _dispatch(maximised, method, time_limit, seed, warm_start=warm_start,
                       on_progress=on_progress, threads=threads, mip_gap=mip_gap,
                       verbose=verbose, strengthen=strengthen, bound_proof=bound_proof,
                       **params)
    if maximised is not instance:  # back to costs, and checked against them
        result = verified(instance, from_maximisation(result, offset))
    return result.with_(fixed=instance.fixed) if instance.fixed else result


#: The options each kind of method honours beyond the common ones (an option another
#: method would honour, given with a value that changes something, is refused by name).
HONOURS = {"exact": {"mip_gap", "strengthen", "bound_proof"}, "auto": set(),
           "heuristic": set()}


def _refuse_ignored(method: str, **given: Any) -> None:
    kind = "exact" if method in EXACT_METHODS else "auto" if method == "auto" else "heuristic"
    defaults = {"mip_gap": 0.0, "strengthen": True, "bound_proof": False}
    ignored = [name for name, value in given.items()
               if value != defaults[name] and name not in HONOURS[kind]]
    if ignored:
        raise ValueError(f"method {method!r} does not take {', '.join(ignored)} "
                         "(the exact backends do)")


def _check_arguments(method: Any, time_limit: Any, seed: Any, threads: Any,
                     mip_gap: Any) -> None:
    """Wrong types are TypeErrors and bad values ValueErrors, each naming its argument."""
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__}")
    if time_limit is not None and not isinstance(time_limit, Deadline):
        if isinstance(time_limit, bool) or not isinstance(time_limit, int | float):
            raise TypeError(f"time_limit must be seconds (a number) or None, got "
                            f"{type(time_limit).__name__} {time_limit!r}")
        if not (time_limit > 0 and not math.isnan(time_limit)):
            raise ValueError(f"time_limit must be positive seconds, got {time_limit}")
    for name, value, low in (("seed", seed, 0), ("threads", threads, 1)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an integer or None, got {type(value).__name__}")
        if value < low:
            raise ValueError(f"{name} must be at least {low}, got {value}")
    if isinstance(mip_gap, bool) or not isinstance(mip_gap, int | float):
        raise TypeError(f"mip_gap must be a number, got {type(mip_gap).__name__}")
    if not 0.0 <= mip_gap < 1.0:
        raise ValueError(f"mip_gap must be in [0, 1), got {mip_gap}")


def _dispatch(instance: Instance, method: str, time_limit: float | Deadline | None,
              seed: int | None, *, warm_start: Any, on_progress: ProgressCallback | None,
              threads: int | None, mip_gap: float, verbose: bool, strengthen: bool,
              bound_proof: bool, **params: Any) -> Result:
    deadline = Deadline.of(time_limit)
    seed = DEFAULT_SEED if seed is None else seed
    if method == "auto":
        from nqmip.auto.plans import solve_auto

        # seconds stay seconds: auto loads its kernels first and starts the clock after
        return solve_auto(instance, time_limit=time_limit, seed=seed, threads=threads,
                          verbose=verbose, on_progress=on_progress, warm_start=warm_start,
                          **params)
    if method in EXACT_METHODS:
        from nqmip.exact import solve_exact

        if params:
            raise TypeError(f"unexpected parameters for {method!r}: {', '.join(params)}")
        options = SolveOptions(deadline=deadline, seed=seed, threads=threads,
                               mip_gap=mip_gap, verbose=verbose, on_progress=on_progress,
                               strengthen=strengthen)
        return solve_exact(instance, method, options, warm_start=warm_start,
                           bound_proof=bound_proof)
    if warm_start is not None and warm_start is not False:
        raise WarmStartError(f"warm starts are for the exact backends, not {method!r}")
    if threads is not None:
        raise TypeError(f"the heuristic {method!r} is single-threaded: no threads option")
    if method in heuristic_methods():
        from nqmip.heuristics import run_heuristic

        # A Deadline goes down as it is (absolute, and it may be cancelled); seconds
        # count from the end of the heuristic's compile.
        result = run_heuristic(method, instance, seed=seed,
                               time_limit=time_limit if isinstance(time_limit, Deadline)
                               else deadline.seconds(floor=MIN_SOLVER_SECONDS),
                               on_progress=on_progress, **params)
        return verified(instance, result)
    raise ValueError(f"unknown method {method!r}: choose from {', '.join(all_methods())}")
