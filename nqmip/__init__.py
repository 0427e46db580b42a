"""nqmip: the N-Queens problem, exactly as an optimisation model and heuristically at scale.

The public API is small; slow imports (Pyomo, OR-Tools, numba) happen only when a
function that needs them is called.
"""

from __future__ import annotations

from nqmip.enumerate import enumerate_optimal
from nqmip.formulation import build_model
from nqmip.instance import Instance, InstanceError, chess_weights, make_instance, random_weights
from nqmip.result import Result, Status, Termination
from nqmip.solve import all_methods, solve
from nqmip.verify import VerificationError, conflicts, is_solution

__version__ = "0.1.0"

__all__ = [
    "Instance",
    "InstanceError",
    "Result",
    "Status",
    "Termination",
    "VerificationError",
    "__version__",
    "all_methods",
    "build_model",
    "chess_weights",
    "conflicts",
    "enumerate_optimal",
    "is_solution",
    "make_instance",
    "random_weights",
    "solve",
]
