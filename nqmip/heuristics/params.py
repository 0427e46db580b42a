"""A heuristic's own parameters (``nqmip.solve(..., method="sa", cooling=0.99)``, the
solve command's ``--param NAME=VALUE``, compare's ``--param``) checked before its run: a
name its entry does not take, or a value not of the type its entry declares, is refused
by name at once, not when the run starts (a first run loads its kernels first, and under
a short limit the call's fallback could answer before the refusal came).

The entry's signature declares the names and types (its annotations, or the type of its
defaults), its module's ``BOUNDS`` the ranges (:class:`~nqmip.heuristics.common.Bound`,
which the entry checks with too); the GA's whole configuration is checked by
:class:`~nqmip.heuristics.ga.config.GAConfig`.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

from nqmip.heuristics.common import MOST_WHOLE, Bound, ParameterError
from nqmip.methods import METHODS, resolve

#: A heuristic's arguments that :func:`nqmip.solve` gives itself.
GIVEN = ("instance", "seed", "time_limit", "on_progress")
#: What each declared type is called in a refusal.
WORDS = {"int": "a whole number", "float": "a finite number", "bool": "true or false",
         "str": "a string", "None": "null"}
_OK = {"int": lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool | np.bool_),
       "float": lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_)
       and math.isfinite(v),
       "bool": lambda v: isinstance(v, bool), "str": lambda v: isinstance(v, str)}


class CommandLineValueError(ParameterError):
    """The parameter takes an object (an array, a callable) no command line can give."""


def _signature(method: str) -> inspect.Signature:
    """Where ``method``'s own parameters are declared: its entry, or the function the
    method table names as receiving the entry's ``**params``."""
    spec = METHODS[method]
    return inspect.signature(resolve(spec.params) if spec.params else spec.load())


def bounds_of(method: str) -> dict[str, Bound]:
    """The ranges the heuristic's module declares (its ``BOUNDS``), empty where none."""
    spec = METHODS[method]
    function = resolve(spec.params) if spec.params else spec.load()
    module = inspect.getmodule(function)
    return dict(getattr(module, "BOUNDS", {}))


def own_parameters(method: str) -> set[str] | None:
    """The parameters of a heuristic's entry (None: it takes any keyword)."""
    parameters = _signature(method).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return {p.name for p in parameters if p.name not in GIVEN}


def declared(method: str, name: str) -> Any:
    """The declared type of a heuristic's own parameter ``name``: its annotation, or the
    type of its default; None for a keyword of ``**params`` (the method checks it)."""
    parameter = _signature(method).parameters.get(name)
    if parameter is not None and parameter.kind is not inspect.Parameter.VAR_KEYWORD:
        return parameter.annotation if parameter.annotation is not inspect.Parameter.empty \
            else type(parameter.default)
    return None


def check_own_names(method: str, names: list[str]) -> None:
    """TypeError naming the first of ``names`` the heuristic ``method`` does not take."""
    own = own_parameters(method)
    for name in names:
        if own is not None and name not in own:
            known = ", ".join(sorted(own)) if own else "none"
            raise TypeError(f"{method} has no parameter {name!r} (its own: {known})")


def check_own_value(method: str, name: str, value: Any, *, command_line: bool = False
                    ) -> None:
    """:class:`ParameterError` naming ``name`` when ``value`` is not of its declared type
    (int, float, bool, str, each maybe None; at least 0 for a number) or, for the GA, not
    a valid configuration. ``command_line``: an object parameter (an array, a callable)
    is refused too (:class:`CommandLineValueError`)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_) \
            and int(value) > MOST_WHOLE:  # (2**63 met OverflowError in the kernels)
        raise ParameterError(f"{name} must be at most 10**12, got {value}")
    if method == "ga":
        from nqmip.heuristics.ga.config import GAConfig

        try:
            GAConfig.build(**{name: value}) if name != "preset" else GAConfig.build(value)
        except (TypeError, ValueError) as exc:
            raise ParameterError(str(exc)) from None
        return
    kind = declared(method, name)
    if kind is None:
        return
    text = kind if isinstance(kind, str) else getattr(kind, "__name__", str(kind))
    kinds = [k.strip() for k in text.replace("'", "").split("|")]
    if value is None and "None" in kinds:
        return
    known = [k for k in kinds if k in _OK]
    objects = [k for k in kinds if k not in _OK and k != "None"]  # an array, a callable
    if not known:  # the API's, not a command line's
        if command_line:
            raise CommandLineValueError(f"{method}'s {name} takes {text or 'an object'}, "
                                        "which a command line cannot give")
        return
    if objects and not command_line and not isinstance(value, numbers.Real | str):
        return  # an object for the API: the heuristic checks it
    if not any(_OK[k](value) for k in known):
        want = " or ".join(WORDS[k] for k in kinds if k in WORDS)
        raise ParameterError(f"{method}'s {name} takes {want}")
    bounds = bounds_of(method)
    if value is not None and name in bounds:
        bounds[name].check(name, value)  # its range, as the heuristic declares it
    elif value is not None and not isinstance(value, bool | str) and value < 0:
        raise ParameterError(f"{method}'s {name} takes a value of at least 0")


def check_own(method: str, params: Mapping[str, Any]) -> None:
    """Every own parameter of a call to the heuristic ``method``: names, then values."""
    if METHODS[method].kind != "heuristic" or not params:
        # none to check: its module (numba and its kernels, 0.6-3 s in a fresh process)
        # is not imported here, before the call's watchdog, but in the watched run
        return
    check_own_names(method, list(params))
    for name, value in params.items():
        check_own_value(method, name, value)


def own_bytes(method: str, n: int, params: Mapping[str, Any]) -> int:
    """The memory a heuristic's own parameters make it hold on an n-board beyond the
    board (the GA's population: ``population=10**9`` asked for 186 GiB at n = 50), for
    :func:`nqmip.capacity.check_fits`; 0 for the others. ``params`` already checked."""
    if method != "ga":
        return 0
    from nqmip.heuristics.ga.config import GAConfig

    own = {k: v for k, v in params.items() if k != "preset"}
    return GAConfig.build(params.get("preset", "default"), **own).memory_bytes(n)


def param_refusal(method: str, name: str, value: Any, text: str) -> str | None:
    """Why ``--param NAME=VALUE`` (``text``: the value as written) is refused for
    ``method``, in the commands' words, or None: a method that has no own parameters (an
    exact one), a name it does not take, or a value of another type."""
    if METHODS[method].kind != "heuristic":
        return f"--param {name}: {method} has no parameter {name!r} (its own: none)"
    try:
        check_own_names(method, [name])
    except TypeError as exc:
        return f"--param {name}: {exc}"
    try:
        check_own_value(method, name, value, command_line=True)
    except CommandLineValueError as exc:
        return f"--param {name}: {exc}"
    except ValueError as exc:
        return f"--param {name}={text}: {exc}"
    return None
