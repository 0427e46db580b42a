"""Formulations of the N-Queens problem: one module per target.

- :mod:`nqmip.formulation.pyomo`: a Pyomo ``ConcreteModel`` (notebooks, any Pyomo solver).
- :mod:`nqmip.formulation.cpsat`: an OR-Tools CP-SAT model.
- :mod:`nqmip.formulation.matrix`: the ILP as arrays, behind the direct HiGHS and Gurobi
  backends.
- :mod:`nqmip.formulation.roundtrip`: back from a model the caller solved to a verified
  result (:func:`~nqmip.formulation.roundtrip.result_from_model`).
"""

from __future__ import annotations

from typing import Any, Literal

from nqmip.instance import FixedSpec, Instance, WeightsSpec, make_instance


def build_model(
    n: int | Instance | None,
    weights: WeightsSpec = None,
    fixed: FixedSpec = None,
    *,
    backend: Literal["pyomo", "cpsat", "matrix"] = "pyomo",
    black: float | None = None,
    white: float | None = None,
    weights_seed: int | None = None,
    strengthen: bool = False,
    sense: str | None = None,
) -> Any:
    """Build the N-Queens model for ``backend``.

    - ``"pyomo"`` (default): a ``pyomo.environ.ConcreteModel`` with variables ``x[i, j]``,
      constraint blocks ``rows``, ``cols``, ``diagonals``, ``anti_diagonals`` and the
      objective ``value``. Inspect it, ``pprint()`` it, ``write("m.lp")`` it, solve it with
      any Pyomo solver.
    - ``"cpsat"``: a :class:`~nqmip.formulation.cpsat.CpSatModel` (``.model`` is the
      ``CpModel``, ``.x[i, j]`` and ``.queen[i]`` the variables).
    - ``"matrix"``: a :class:`~nqmip.formulation.matrix.LinearModel` (CSR arrays).

    ``strengthen=True`` adds the valid rows of :mod:`nqmip.formulation.strengthen` (in
    their own blocks ``black_bound``, ``symmetry_breaking``, ``parity`` for Pyomo; appended
    rows for the matrix). The default here is the textbook model, the one to read and teach
    (64 binaries, 46 constraints at n = 8); :func:`nqmip.solve` strengthens by default.

    ``sense="min"`` minimises (the weights are costs) in the Pyomo and CP-SAT models; the
    strengthening rows are written for maximisation, so they go with ``sense="max"`` only
    (:func:`nqmip.solve` solves a minimisation as the equivalent maximisation,
    :mod:`nqmip.sense`).

    Each model keeps what it was built from (``m.nqmip_origin`` for Pyomo, ``.origin``
    otherwise), so that once you have solved it, :func:`nqmip.result_from_model` turns
    it into a verified :class:`~nqmip.result.Result`.
    """
    from nqmip.capacity import check_fits
    from nqmip.formulation.reading import Origin
    from nqmip.instance import free_rows
    from nqmip.option_types import check_value

    strengthen = check_value("strengthen", strengthen)  # 'no' was taken as True

    instance = make_instance(n, weights, fixed, black=black, white=white,
                             weights_seed=weights_seed, sense=sense)
    # a model of 4 * 10^10 binaries was met as a MemoryError (an OverflowError at 2^63)
    check_fits(instance.n, dense_weights=instance.dense is not None, exact_model=True,
               method=f"build_model backend {backend!r}", model_rows=free_rows(instance))
    if instance.sense == "min" and (strengthen or backend == "matrix"):
        raise ValueError("sense='min' builds the textbook Pyomo or CP-SAT model: the "
                         "strengthening rows and the matrix are written for maximisation")
    origin = Origin(instance, bool(strengthen))
    if backend == "pyomo":
        from nqmip.formulation.strengthen import pyomo_model

        model = pyomo_model(instance, strengthen)
        model.nqmip_origin = origin
        return model
    if backend == "cpsat":
        from nqmip.formulation.strengthen import cpsat_model

        cps = cpsat_model(instance, strengthen)
        cps.origin = origin
        return cps
    if backend == "matrix":
        from dataclasses import replace

        from nqmip.formulation.matrix import build_linear_model
        from nqmip.formulation.strengthen import linear_extras

        lm = build_linear_model(instance, **linear_extras(instance, strengthen))
        return replace(lm, origin=origin)
    raise ValueError(f"unknown model backend {backend!r}: use 'pyomo', 'cpsat' or 'matrix'")
