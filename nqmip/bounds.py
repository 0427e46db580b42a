"""The bounds auto can afford without a MIP: the colour bound (weights constant per
colour), the LP relaxation (dense weights, small n), the row and column maxima."""

from __future__ import annotations

from nqmip import highs_threads
from nqmip.budget import MIN_SOLVER_SECONDS, Deadline
from nqmip.instance import Instance

#: Largest n for which the LP relaxation is solved for a bound. It costs 0.4 s at n = 100,
#: 1.3 s at 150 and 4.3 s at 200 (random 1..9, where it gives 9n, the row maxima, from
#: n = 64 on); beyond, its Python model building holds the GIL the annealing beside it
#: needs between chunks (random n = 200, 5 s, seeds 0-2: auto 1777/1782/1777 with it, the
#: annealing alone 1778/1780/1781).
LP_BOUND_MAX_N = 100


def colour_bound_applies(instance: Instance) -> bool:
    """Weights constant per colour, and not the same on both: the colour bound applies."""
    if instance.is_feasibility or instance.colours is None:
        return False
    return instance.colours.black != instance.colours.white


def lp_bound(instance: Instance, deadline: Deadline | None = None) -> float | None:
    """The LP relaxation's optimum (an upper bound on the weighted optimum), or None."""
    import highspy

    from nqmip.formulation.matrix import build_linear_model, pass_to_highs

    lm = build_linear_model(instance)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    if not pass_to_highs(h, lm, highspy, integer=False, deadline=deadline):
        return None
    if deadline is not None:  # what is left after the pass (HiGHS's clock counts from here)
        h.setOptionValue("time_limit", deadline.seconds(floor=MIN_SOLVER_SECONDS))
    highs_threads.run(h, 1)
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    return float(h.getInfo().objective_function_value)


def cheap_bound(instance: Instance, deadline: Deadline | None = None) -> tuple[float, str]:
    """The best bound affordable without a MIP: ``(bound, where it comes from)``."""
    from nqmip.heuristics.common import weight_bound

    combinatorial = weight_bound(instance)
    if colour_bound_applies(instance):
        from nqmip.formulation.strengthen import colour_objective_bound

        colour_bound = colour_objective_bound(instance)
        if colour_bound is not None and colour_bound < combinatorial:
            return float(colour_bound), "colour_bound"
    if not instance.is_feasibility and instance.colours is None \
            and instance.n <= LP_BOUND_MAX_N:
        lp = lp_bound(instance, deadline)
        if lp is not None and lp < combinatorial:
            return lp, "lp_relaxation"
    return combinatorial, "row_column_maxima"
