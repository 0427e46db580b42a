"""The solve command's options checked against the method table (:mod:`nqmip.methods`)
before any work: an option the method does not honour is refused by its own flag (exit
2, one line), never dropped; ``--param`` by the method's own parameters."""

from __future__ import annotations

import argparse
from typing import Any

from nqmip.cli.parser import UsageError, as_flags

#: The command's options that are options of the method table, with the flag a refusal
#: names.
FLAGS = {"seed": "--seed", "threads": "--threads", "warm_start": "--warm-start",
         "strengthen": "--no-strengthen", "target": "--target", "verbose": "--verbose",
         "work_limit": "--work-limit", "workers": "--workers", "scheduler": "--scheduler",
         "record": "--record"}


def checked_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of the solve, each checked against the method table: an option the
    method does not honour is refused by its flag (exit 2), never dropped."""
    from nqmip.cluster import check_cluster
    from nqmip.methods import (
        LEX_CUBE_ROUTES,
        LEX_DEFAULT,
        LEX_METHODS,
        METHODS,
        Method,
        refused,
        takers_note,
    )

    options: dict[str, Any] = dict(args.param)
    if len(options) != len(args.param):
        raise UsageError("--param: a parameter is given twice")
    if args.warm_start is not None and args.no_warm_start:
        raise UsageError("--warm-start and --no-warm-start exclude each other")
    given = {name: value for name, value in (
        ("seed", args.seed), ("threads", args.threads), ("target", args.target),
        ("work_limit", args.work_limit), ("workers", args.workers),
        ("scheduler", args.scheduler), ("record", args.record),
        ("warm_start", args.warm_start or (False if args.no_warm_start else None)),
        ("strengthen", False if args.no_strengthen else None),
        ("verbose", True if args.verbose else None)) if value is not None}
    spec: Method | None
    if args.lex_first:
        spec = LEX_METHODS.get(LEX_DEFAULT if args.method == "auto" else args.method)
        if spec is None:
            raise UsageError(f"--lex-first is solved by --method auto, "
                             f"{', '.join(LEX_METHODS)}; not {args.method}")
        given.pop("verbose", None)  # the command's own output: nothing to pass on
        for name in ("workers", "scheduler", "record"):  # lex_first's own: the cubes
            if getattr(args, name) is not None:
                if spec.name not in LEX_CUBE_ROUTES:
                    raise UsageError(f"--lex-first --method {spec.name} does not take "
                                     f"--{name} (--method first-fail, sat do: their "
                                     "questions split into cubes)")
                options[name] = given.pop(name)
        _lex_params(spec.name, args.param)
    else:
        spec = METHODS.get(args.method)
        if spec is None:
            raise UsageError(f"--method {args.method} answers --lex-first only")
    names = refused(spec, given)
    if names:
        said = {**FLAGS, "warm_start": "--no-warm-start"} if args.no_warm_start else FLAGS
        flags = ", ".join(said.get(name, name) for name in names)
        what = f"--lex-first --method {spec.name}" if args.lex_first \
            else f"--method {spec.name}"
        takers = [m.name for m in (LEX_METHODS if args.lex_first else METHODS).values()
                  if not refused(m, names)]
        raise UsageError(f"{what} does not take {flags}{takers_note(takers, '--method ')}")
    if not args.lex_first:
        from nqmip.heuristics.params import param_refusal

        for name, value in options.items():
            refusal = param_refusal(spec.name, name, value, str(value))
            if refusal is not None:
                raise UsageError(refusal)
    as_flags(FLAGS, check_cluster, given, spec.kind == "auto")
    return options if args.lex_first else {**options, **given}


def _lex_params(method: str, params: list[tuple[str, Any]]) -> None:
    """``--param`` refused in the command's words where ``--lex-first --method`` has no
    such parameter (the flags --workers, --scheduler and --record are not ``--param``'s)."""
    from nqmip.lex.solve import SEARCH_PARAMS

    own = SEARCH_PARAMS if method == "search" else ()
    for name, _ in params:
        if name not in own:
            raise UsageError(f"--param {name}: --lex-first --method {method} has no "
                             f"parameter {name!r}" + (f" (its own: {', '.join(own)})" if own
                                                      else " (it takes no --param)"))
