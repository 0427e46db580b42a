"""What ``nqmip-compare`` refuses before the sweep starts, each in one line (exit 2): a
``--param`` no method of the grid takes, a method that is not available here, an output
file that cannot be written. A sweep of an hour must not fail at its first cell, nor at
its end."""

from __future__ import annotations

import inspect
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nqmip.compare.grid import UsageError

#: Keywords the grid sets itself (or that make no sense in a row): refused as ``--param``.
GRID_OWN = ("n", "weights", "method", "time_limit", "seed", "warm_start", "weights_seed",
            "fixed", "target", "on_progress", "verbose")
#: Keywords of :func:`nqmip.solve` every method takes: they make the board.
BOARD = ("black", "white", "sense")
#: A heuristic's arguments that :func:`nqmip.solve` gives itself.
GIVEN = ("instance", "seed", "time_limit", "on_progress")


def _own_parameters(method: str) -> set[str] | None:
    """The parameters of a heuristic's entry (None: it takes any keyword)."""
    from nqmip.methods import METHODS

    function = METHODS[method].load()
    parameters = inspect.signature(function).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return {p.name for p in parameters if p.name not in GIVEN}


def check_params(params: Sequence[tuple[str | None, str, Any]],
                 methods: Sequence[str]) -> None:
    """Refuse a ``--param`` that a method it applies to would refuse: an option of the
    method table it does not honour, or a parameter of its own it does not have (the
    exact methods and auto take none). Values are checked by the runs themselves."""
    from nqmip.methods import METHODS, OPTIONS

    for aim, name, _ in params:
        if aim is not None and aim not in methods:
            raise UsageError(f"--param {aim}:{name}: {aim!r} is not in --methods")
        if name in GRID_OWN:
            raise UsageError(f"--param {name}: set it with the grid's own options")
        if name in BOARD:
            continue
        for method in [aim] if aim is not None else methods:
            spec = METHODS[method]
            if name in OPTIONS:
                if not spec.honour(name):
                    takers = [m for m in methods if METHODS[m].honour(name)]
                    who = f" ({', '.join(takers)} do)" if takers else ""
                    raise UsageError(f"--param {name}: {method} does not take {name}{who}; "
                                     f"give it as --param METHOD:{name}=VALUE")
                continue
            own = _own_parameters(method) if spec.kind == "heuristic" else set()
            if own is not None and name not in own:
                known = ", ".join(sorted(own)) if own else "none"
                raise UsageError(f"--param {name}: {method} has no parameter {name!r} "
                                 f"(its own: {known})")


def check_available(methods: Sequence[str]) -> None:
    """Refuse an exact method whose solver is not installed here (the install hint)."""
    from nqmip.backends.base import get_backend
    from nqmip.methods import METHODS

    for method in methods:
        if METHODS[method].kind != "exact":
            continue
        backend = get_backend(method)
        if not backend.available():
            raise UsageError(f"--methods: {method} is not available here: "
                             f"{backend.install_hint}")


def check_writable(option: str, path: Path) -> None:
    """Refuse an output file that cannot be written, before any work: its folder must
    exist (none is created), it must not be a folder, and opening it must work (an
    existing file is opened for appending and closed untouched; a new one is created and
    removed)."""
    if not path.parent.is_dir():
        raise UsageError(f"{option}: folder {path.parent} does not exist; create it first")
    if path.is_dir():
        raise UsageError(f"{option}: {path} is a folder; give a file name")
    try:
        if path.exists():
            if not os.access(path, os.W_OK):
                raise PermissionError(13, "Permission denied")
            with open(path, "a", encoding="utf-8"):
                pass
        else:
            with open(path, "x", encoding="utf-8"):
                pass
            path.unlink()
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise UsageError(f"{option}: cannot write {path}: {why}") from None


def check_outputs(outputs: Sequence[tuple[str, Path | None]]) -> None:
    """:func:`check_writable` for each (option, path) given; the same file named twice
    is refused."""
    seen: dict[Path, str] = {}
    for option, path in outputs:
        if path is None:
            continue
        where = path.resolve()
        if where in seen and seen[where] != option:
            raise UsageError(f"{option}: {path} is also the file of {seen[where]}")
        seen[where] = option
        check_writable(option, path)
