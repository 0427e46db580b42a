"""nqmip: the N-Queens problem, exactly as an optimisation model and heuristically at scale.

The public API is small; slow imports (Pyomo, OR-Tools, numba) happen only when a
function that needs them is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nqmip import numba_cache as _numba_cache
from nqmip._version import __version__
from nqmip.budget import Deadline
from nqmip.enumeration.optimal import enumerate_optimal
from nqmip.formulation import build_model
from nqmip.instance import Instance, InstanceError, chess_weights, make_instance, random_weights
from nqmip.lex.solve import lex_first
from nqmip.result import Result, Status, Termination
from nqmip.solve import all_methods, solve
from nqmip.verify import VerificationError, conflicts, is_solution

# Before any kernel loads (none has: numba is imported by the first kernel module a call
# needs, after this): a read-only install with an unwritable HOME gets a cache folder.
_numba_cache.ensure()

if TYPE_CHECKING:
    from nqmip.drawing import draw
    from nqmip.enumeration.count import count_solutions, solutions


#: Exported lazily (PEP 562): the counting module loads on first use.
_LAZY = {"count_solutions": "nqmip.enumeration.count", "solutions": "nqmip.enumeration.count",
         "draw": "nqmip.drawing"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'nqmip' has no attribute {name!r}")


__all__ = [
    "Deadline",
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
    "count_solutions",
    "draw",
    "enumerate_optimal",
    "is_solution",
    "lex_first",
    "make_instance",
    "random_weights",
    "solutions",
    "solve",
]
