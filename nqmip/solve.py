"""``nqmip.solve``: the façade. It validates, creates the call's one deadline and the
seed, and dispatches: the exact pipeline (:mod:`nqmip.exact`), a heuristic
(:mod:`nqmip.heuristics`) or ``auto`` (:mod:`nqmip.auto.portfolio`). Nothing else lives here.

Whatever the method, the placement is checked by :func:`nqmip.verify.verified` before the
:class:`~nqmip.result.Result` is returned; a backend that answers wrongly raises
:class:`~nqmip.verify.VerificationError` instead of returning a silent wrong answer.
"""

from __future__ import annotations

import math
from typing import Any

from nqmip.backends.base import EXACT_METHODS, ProgressCallback, SolveOptions
from nqmip.budget import Deadline
from nqmip.instance import CHESS_BLACK, CHESS_WHITE, FixedSpec, Instance, WeightsSpec, make_instance
from nqmip.result import DEFAULT_SEED, Result
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
    objective: str | None = None,
    **params: Any,
) -> Result:
    """Solve an N-Queens instance and return a verified :class:`Result`.

    ``method`` is an exact backend (``"highs"``, ``"glpk"``, ``"gurobi"``, ``"cpsat"``,
    ``"highs-pyomo"``), a heuristic (``"ga"``, ``"tabu"``, ``"sa"``, ``"minconflicts"``) or
    ``"auto"`` (see :mod:`nqmip.auto.portfolio`); ``params`` are the heuristic's own parameters.
    ``time_limit`` is in seconds, for the whole call; ``seed`` makes randomised methods
    reproducible; without one ``DEFAULT_SEED`` is used (the same call gives the same
    answer), and the result's ``seed`` says which was used (None for a deterministic
    backend that takes none). ``time_limit`` may also be a :class:`~nqmip.budget.Deadline`
    shared with the caller. ``warm_start`` (exact backends) is a placement, a
    :class:`Result` or a heuristic's name, run first with its time counted; without one, an
    exact solve with a time limit starts from the explicit solution of
    :mod:`nqmip.construct` (no fixed queens), so that a limit never leaves it
    empty-handed; ``warm_start=False`` turns that off. ``on_progress`` receives
    :class:`~nqmip.backends.base.Progress` updates while a solver runs. ``strengthen``
    (exact backends, default True) adds the valid rows of
    :mod:`nqmip.formulation.strengthen`; ``strengthen=False`` solves the textbook model.
    ``bound_proof`` (exact backends; what ``method="auto"`` does) first looks, for weights
    constant per colour, for a placement reaching the colour bound, which proves optimality
    without running the backend at all; by default the chosen backend does the solving.
    ``objective="lex-first"``: the lexicographically first solution (:mod:`nqmip.lex`).
    """
    instance = make_instance(n, weights, fixed, black=black, white=white,
                             weights_seed=weights_seed)
    if not isinstance(time_limit, Deadline) and time_limit is not None and not (
            time_limit > 0 and not math.isnan(time_limit)):
        raise ValueError(f"time_limit must be positive seconds, got {time_limit}")
    if not 0.0 <= mip_gap < 1.0:
        raise ValueError(f"mip_gap must be in [0, 1), got {mip_gap}")
    deadline = Deadline.of(time_limit)
    seed = DEFAULT_SEED if seed is None else seed
    if objective is not None:
        from nqmip.lex.solve import solve_lex

        return solve_lex(instance, objective, method, deadline, seed, weights, params)
    if method == "auto":
        from nqmip.auto.portfolio import solve_auto

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
                               else deadline.seconds(floor=0.01), **params)
        return verified(instance, result)
    raise ValueError(f"unknown method {method!r}: choose from {', '.join(all_methods())}")
