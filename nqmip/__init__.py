"""nqmip: the N-Queens problem, exactly as an optimisation model and heuristically at scale.

The public API is small, and ``import nqmip`` is light: each name below loads its module
on first use (PEP 562), so slow imports (numpy, Pyomo, OR-Tools, numba) happen only when
a function that needs them is called, and a command's launcher (:mod:`nqmip.cli.launch`)
hears Ctrl-C before any of them.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from nqmip._version import __version__

if TYPE_CHECKING:
    from nqmip.budget import Deadline
    from nqmip.drawing import draw
    from nqmip.enumeration.count import count_solutions, solutions
    from nqmip.enumeration.optimal import enumerate_optimal
    from nqmip.formulation import build_model
    from nqmip.formulation.placement import ModelError
    from nqmip.formulation.roundtrip import result_from_model
    from nqmip.instance import (
        Instance,
        InstanceError,
        chess_weights,
        make_instance,
        random_weights,
    )
    from nqmip.instances.weights_file import read_weights
    from nqmip.lex.solve import lex_first
    from nqmip.result import Result, Status, Termination
    from nqmip.solve import all_methods, solve
    from nqmip.verify import VerificationError, conflicts, is_solution


#: Each public name and the module it is loaded from on first use.
_LAZY = {
    "Deadline": "nqmip.budget",
    "draw": "nqmip.drawing",
    "count_solutions": "nqmip.enumeration.count",
    "solutions": "nqmip.enumeration.count",
    "enumerate_optimal": "nqmip.enumeration.optimal",
    "build_model": "nqmip.formulation",
    "ModelError": "nqmip.formulation.reading",
    "result_from_model": "nqmip.formulation.roundtrip",
    **dict.fromkeys(("Instance", "InstanceError", "chess_weights", "make_instance",
                     "random_weights"), "nqmip.instance"),
    "lex_first": "nqmip.lex.solve",
    "read_weights": "nqmip.instances.weights_file",
    **dict.fromkeys(("Result", "Status", "Termination"), "nqmip.result"),
    **dict.fromkeys(("all_methods", "solve"), "nqmip.solve"),
    **dict.fromkeys(("VerificationError", "conflicts", "is_solution"), "nqmip.verify"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'nqmip' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


class _Package(types.ModuleType):
    """The package, whose ``nqmip.solve`` stays the function: importing the submodule of
    the same name would otherwise set the attribute to the module (the import system
    sets a package's attribute for each submodule it loads); the submodule is
    ``sys.modules["nqmip.solve"]``, as ``from nqmip.solve import ...`` finds it."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "solve" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # pickled by its name, as a plain module is (cloudpickle's reducers key on the
        # exact type): a function sent to Dask workers that uses nqmip
        import importlib

        return importlib.import_module, (self.__name__,)


sys.modules[__name__].__class__ = _Package


__all__ = [
    "Deadline",
    "Instance",
    "InstanceError",
    "ModelError",
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
    "read_weights",
    "result_from_model",
    "solutions",
    "solve",
]
