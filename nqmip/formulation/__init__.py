"""Formulations of the N-Queens problem: one module per target.

- :mod:`nqmip.formulation.pyomo`: a Pyomo ``ConcreteModel`` (notebooks, any Pyomo solver).
- :mod:`nqmip.formulation.cpsat`: an OR-Tools CP-SAT model.
- :mod:`nqmip.formulation.matrix`: the ILP as arrays, behind the direct HiGHS and Gurobi
  backends.
"""

from __future__ import annotations

from typing import Any, Literal

from nqmip.instance import CHESS_BLACK, CHESS_WHITE, FixedSpec, Instance, WeightsSpec, make_instance


def build_model(
    n: int | Instance,
    weights: WeightsSpec = None,
    fixed: FixedSpec = None,
    *,
    backend: Literal["pyomo", "cpsat", "matrix"] = "pyomo",
    black: float = CHESS_BLACK,
    white: float = CHESS_WHITE,
    weights_seed: int | None = None,
) -> Any:
    """Build the N-Queens model for ``backend``.

    - ``"pyomo"`` (default): a ``pyomo.environ.ConcreteModel`` with variables ``x[i, j]``,
      constraint blocks ``rows``, ``cols``, ``diagonals``, ``anti_diagonals`` and the
      objective ``value``. Inspect it, ``pprint()`` it, ``write("m.lp")`` it, solve it with
      any Pyomo solver.
    - ``"cpsat"``: a :class:`~nqmip.formulation.cpsat.CpSatModel` (``.model`` is the
      ``CpModel``, ``.x[i, j]`` and ``.queen[i]`` the variables).
    - ``"matrix"``: a :class:`~nqmip.formulation.matrix.LinearModel` (CSR arrays).
    """
    instance = make_instance(n, weights, fixed, black=black, white=white,
                             weights_seed=weights_seed)
    if backend == "pyomo":
        from nqmip.formulation.pyomo import build_pyomo_model

        return build_pyomo_model(instance)
    if backend == "cpsat":
        from nqmip.formulation.cpsat import build_cpsat_model

        return build_cpsat_model(instance)
    if backend == "matrix":
        from nqmip.formulation.matrix import build_linear_model

        return build_linear_model(instance)
    raise ValueError(f"unknown model backend {backend!r}: use 'pyomo', 'cpsat' or 'matrix'")
