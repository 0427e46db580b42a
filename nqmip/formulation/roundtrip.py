"""Back from a model the caller solved to a verified :class:`~nqmip.result.Result`.

:func:`result_from_model` reads the placement from a model of
:func:`~nqmip.formulation.build_model` that the caller solved with a solver of their
choice (any Pyomo solver, OR-Tools' ``CpSolver``, HiGHS on the arrays), passes it through
the independent checker (:mod:`nqmip.verify`) and returns the same ``Result`` as
:func:`nqmip.solve`, with the objective recomputed from the instance's weights.

Each model carries its :class:`~nqmip.formulation.reading.Origin` (the instance and
whether it was strengthened); before trusting the solver's word the model is compared
with a fresh build of that origin (Pyomo: its LP file, written with the readable names;
CP-SAT: its proto, hints left out; the arrays: those HiGHS holds). Measured on unchanged
models: Pyomo 0.2 s at n = 50 and 1.3 s at n = 100 (two LP files written), CP-SAT 0.1 s
and 0.4 s. A model changed since it was built (a constraint added, a variable fixed, the
objective or a weight changed) still gives a verified placement, but the solver's proof
and bound are of the changed model, not of the instance: status ``feasible`` at best
(``infeasible`` becomes ``unknown``), no bound, and ``extra["model_changed"]`` says what
changed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from nqmip.formulation.reading import ModelError, Origin, Reading
from nqmip.instance import Instance
from nqmip.result import Provenance, Result, Status, Termination, Timing, as_placement
from nqmip.verify import VerificationError, check_placement, verified

#: ``Result.method`` and ``provenance.incumbent_source`` of a model solved outside nqmip.
OUTSIDE = "outside"


def result_from_model(model: Any, solver_result: Any = None) -> Result:
    """The verified :class:`~nqmip.result.Result` of a model of
    :func:`nqmip.build_model` that you solved yourself.

    - A Pyomo model (``backend="pyomo"``): ``solver_result`` is what the solver's
      ``solve`` returned (``SolverFactory("glpk").solve(m)``, ``appsi_highs``, Pyomo's
      newer ``pyomo.contrib.solver`` interface); the placement is read from the loaded
      variables. Without it (None) the placement is ``feasible`` at best.
    - A CP-SAT model (``backend="cpsat"``): ``solver_result`` is the
      ``cp_model.CpSolver`` that solved ``model.model`` (required).
    - The arrays (``backend="matrix"``): ``solver_result`` is a ``highspy.Highs`` that
      solved them, or the solver's column values (any solver; then ``feasible`` at best).

    The status is ``optimal`` only when the solver says so (Pyomo's termination
    condition, CP-SAT's status, HiGHS's model status), the model is the one built, and,
    for whole weights, its bound made whole is the objective. The objective is
    recomputed from the instance's weights and must agree with the solver's; the bound
    is the solver's, made whole where the weights are. A minimised model
    (``sense="min"``) gives a result in costs, its bound a lower bound. Fixed queens are
    kept (a placement without them is refused). ``method`` is ``"outside"``, ``solver``
    the solver's name, ``timing`` the solver's seconds where it says (``wall`` 0 where
    it does not).

    A model changed after it was built (a constraint added, a variable fixed, the
    objective or a weight changed): the placement is still verified and valued with the
    instance's weights, but the solver's proof and bound are of the changed model:
    ``optimal`` is reported as ``feasible``, ``infeasible`` as ``unknown``, the bound is
    dropped, ``extra["model_changed"]`` says what changed and ``extra["solver_objective"]``
    keeps the solver's value. Constraints deactivated (Pyomo) count as a change too.

    One thing cannot be checked: which model a ``CpSolver`` solved (it keeps no trace
    of it). A solver of another board size is refused (its number of values), one of
    other weights too (its objective disagrees with the instance's value of its
    placement); a solver of a copy of the model with a constraint added or a variable
    fixed is taken at its word, its proof reported as the instance's. Pass the solver
    that solved ``model.model`` itself.

    Raises :class:`ModelError` (one line) for an object not built by ``build_model``,
    an unsolved model, a fractional solution (an LP relaxation), a row without exactly one
    queen, attacking queens (constraints removed) or fixed queens moved.
    """
    origin, backend = _origin_of(model)
    if backend == "pyomo":
        from nqmip.formulation.reading import read_pyomo

        reading = read_pyomo(model, origin, solver_result)
    elif backend == "cpsat":
        from nqmip.formulation.reading import read_cpsat

        reading = read_cpsat(model, origin, solver_result)
    else:
        from nqmip.formulation.reading import read_matrix

        reading = read_matrix(model, origin, solver_result)
    return result_of(origin.instance, reading, backend)


def _origin_of(model: Any) -> tuple[Origin, str]:
    """The model's :class:`Origin` and its kind; ModelError for anything else."""
    from nqmip.formulation.cpsat import CpSatModel
    from nqmip.formulation.matrix import LinearModel

    kind = {CpSatModel: "cpsat", LinearModel: "matrix"}.get(type(model))
    origin = getattr(model, "origin" if kind else "nqmip_origin", None)
    if kind is None and origin is not None and hasattr(model, "component_objects"):
        kind = "pyomo"
    if kind is None or not isinstance(origin, Origin):
        raise ModelError(
            "result_from_model takes a model of nqmip.build_model (a Pyomo model, a "
            f"CpSatModel or a LinearModel), not {type(model).__name__}: a model built "
            "otherwise has no instance to verify against")
    return origin, kind


def whole_bound(instance: Instance, bound: float | None) -> float | None:
    """The solver's bound, made whole where the weights are (floor for a maximum, ceil
    for costs); None for none or an infinite one."""
    if bound is None or not math.isfinite(bound):
        return None
    if instance.sense == "min":
        return -instance.rounded_bound(-bound)
    return instance.rounded_bound(bound)


def result_of(instance: Instance, reading: Reading, backend: str) -> Result:
    """The verified result of what the solved model says (see :func:`result_from_model`)."""
    source = f"the {backend} model's solution ({reading.solver})"
    changed = reading.changes is not None
    extra: dict[str, Any] = {"backend": backend, "solver_status": reading.word}
    if reading.objective is not None and math.isfinite(reading.objective):
        extra["solver_objective"] = float(reading.objective)
    if changed:
        extra["model_changed"] = reading.changes
    bound = None if changed else whole_bound(instance, reading.bound)
    if (bound is not None and reading.termination is not Termination.OPTIMAL
            and reading.objective is not None and reading.bound == reading.objective):
        bound = None  # a gap of 0 without the solver's proof (glpsol's results say so)
    value = None
    if reading.placement is not None:
        value = _checked(instance, reading.placement, source)
        if not changed and "solver_objective" in extra:
            _agrees(value, extra["solver_objective"], source)
    status, proof = _status(instance, reading, value, bound)
    if status is Status.OPTIMAL and bound is None:
        bound = value
    message = f"solved outside nqmip by {reading.solver}: {reading.word}"
    if changed:
        message += (f"; the model was changed ({reading.changes}): its proof and bound are "
                    "not the instance's")
    result = Result(
        status=status, termination=reading.termination, n=instance.n, method=OUTSIDE,
        solver=reading.solver, objective=value, bound=bound,
        placement=None if reading.placement is None else as_placement(reading.placement),
        timing=Timing(wall=reading.seconds or 0.0, solve=reading.seconds),
        provenance=Provenance(plan=(f"solved outside nqmip ({backend})",), proof=proof,
                              bound_source="solver" if bound is not None else None,
                              incumbent_source=OUTSIDE if value is not None else None),
        sense=instance.sense, weights_name=instance.name, fixed=instance.fixed,
        message=message, extra=extra)
    return verified(instance, result)


def _checked(instance: Instance, placement: Sequence[int], source: str) -> float:
    """The placement's value under the instance's weights; ModelError unless it is a
    solution keeping the fixed queens."""
    weights = instance.colours if instance.colours is not None else instance.dense
    try:
        return check_placement(placement, instance.n, weights, instance.fixed, None,
                               source=source)
    except VerificationError as error:
        raise ModelError(str(error)) from None


def _agrees(value: float, claimed: float, source: str) -> None:
    """VerificationError unless the solver's objective of the unchanged model is the
    placement's value."""
    if abs(value - claimed) > 1e-6 * max(1.0, abs(value)):
        raise VerificationError(f"{source}: the solver reports objective {claimed}, the "
                                f"placement is worth {value} under the instance's weights")


def _status(instance: Instance, reading: Reading, value: float | None,
            bound: float | None) -> tuple[Status, str | None]:
    """What the reading proves about the instance, and by what."""
    if value is None:
        if reading.termination is Termination.INFEASIBLE and reading.changes is None:
            _no_placement_known(instance, reading.solver)
            return Status.INFEASIBLE, "solver"
        return Status.UNKNOWN, None
    proven = reading.termination is Termination.OPTIMAL and reading.changes is None
    if proven and bound is not None and instance.integral:
        # whole weights: the bound made whole must be the objective (HiGHS's 'optimal'
        # within its relative gap 1e-4 is not, from objectives of 10^4); real weights:
        # the solver's word within its own tolerance (CP-SAT's float objective: 1e-5)
        proven = abs(bound - value) <= 1e-6 * max(1.0, abs(value))
    return (Status.OPTIMAL, "solver") if proven else (Status.FEASIBLE, None)


def _no_placement_known(instance: Instance, solver: str) -> None:
    """ModelError when a placement of the instance is at hand (the explicit construction,
    or a short search's completion of the fixed queens, :func:`nqmip.construct.stand_in`)
    though the solver says there is none: its answer is not of this model. An answer of
    a model of 4 queens with a queen in a corner, given with a model of 5 (or of 4
    without it), was reported infeasible: no values to count, so no other check saw it."""
    from nqmip.construct import stand_in

    placement, _ = stand_in(instance.n, instance.fixed)
    if placement is not None:
        raise ModelError(
            f"the solver ({solver}) says this model has no solution, but {instance.n} "
            f"queens can be placed on it ({','.join(str(int(c)) for c in placement[:12])}"
            f"{',...' if instance.n > 12 else ''}): the answer is of another model (pass "
            "the result of solving this one)")

