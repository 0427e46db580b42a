"""The grid of ``nqmip-compare``: cells (n, weights, method, seed, limits), and the parsing
of the sizes, methods and seeds that span it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: The ``--weights`` of a grid: chess (black 2, white 1), none (feasibility), random
#: integers 1..9 drawn with each cell's seed, or toulbar2's weighted-queens tutorial costs
#: (minimised; :func:`nqmip.instances.families.toulbar2_tutorial`, its own seed).
WEIGHT_CHOICES = ("chess", "none", "random", "toulbar2")
#: The fields of a cell that go into its row (``memory_limit_mb`` is the harness's only).
CELL_FIELDS: tuple[str, ...] = ("n", "method", "weights", "seed", "repeat", "warm_start",
                                "params", "time_limit", "hard_limit")


class UsageError(Exception):
    """Bad input from the command line: reported in one line with exit status 2."""


@dataclass(frozen=True)
class Cell:
    """One run: what the worker process is asked to solve.

    ``params`` are further keywords of :func:`nqmip.solve` (``strengthen``, ``threads``,
    ``weights_seed``, ...); ``weights="random"`` draws the weights with ``seed`` unless
    ``params`` gives ``weights_seed``.
    """

    n: int
    method: str
    weights: str
    seed: int
    repeat: int
    time_limit: float
    hard_limit: float
    warm_start: str | None = None
    memory_limit_mb: int | None = None
    params: dict[str, Any] | None = None

    def key(self) -> tuple[Any, ...]:
        """What identifies the cell in a records file (what ``--resume`` compares)."""
        return (self.n, self.method, self.weights, self.seed, self.warm_start,
                float(self.time_limit), params_key(self.params))


def params_key(params: dict[str, Any] | None) -> str:
    return json.dumps(params or {}, sort_keys=True)


def parse_sizes(text: str) -> list[int]:
    """``"8,16,32"``, ``"8:64:8"`` (inclusive, step 8), ``"8:12"`` (step 1) or a mix."""
    sizes: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise UsageError(f"--n: empty item in {text!r}")
        try:
            if ":" in part:
                pieces = [int(p) for p in part.split(":")]
                if len(pieces) == 2:
                    start, stop, step = pieces[0], pieces[1], 1
                elif len(pieces) == 3:
                    start, stop, step = pieces
                else:
                    raise ValueError
                if step < 1:
                    raise UsageError(f"--n: the step of {part!r} must be at least 1")
                if stop < start:
                    raise UsageError(f"--n: the range {part!r} is empty (stop < start)")
                sizes.extend(range(start, stop + 1, step))
            else:
                sizes.append(int(part))
        except ValueError:
            raise UsageError(
                f"--n takes sizes like 8,16,32 or ranges START:STOP[:STEP], got {part!r}"
            ) from None
    for n in sizes:
        if n < 1:
            raise UsageError(f"--n: board sizes must be at least 1, got {n}")
    return list(dict.fromkeys(sizes))


def known_methods() -> tuple[str, ...]:
    from nqmip.solve import all_methods

    return tuple(all_methods())


def exact_methods() -> tuple[str, ...]:
    from nqmip.backends.base import EXACT_METHODS

    return EXACT_METHODS


def method_kind(method: str) -> str:
    """``exact`` (a backend), ``hybrid`` (auto) or ``heuristic``."""
    if method in exact_methods():
        return "exact"
    if method == "auto":
        return "hybrid"
    return "heuristic"


def parse_methods(text: str) -> list[str]:
    methods = [m.strip() for m in text.split(",") if m.strip()]
    if not methods:
        raise UsageError("--methods: give at least one method")
    known = known_methods()
    for method in methods:
        if method not in known:
            raise UsageError(f"--methods: unknown method {method!r}: "
                             f"choose from {', '.join(known)}")
    return list(dict.fromkeys(methods))


def parse_seeds(text: str) -> list[int]:
    try:
        seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise UsageError(f"--seeds takes integers like 0,1,2, got {text!r}") from None
    if not seeds:
        raise UsageError("--seeds: give at least one seed")
    if len(set(seeds)) != len(seeds):
        raise UsageError(f"--seeds: repeated seed in {text!r}")
    return seeds


def build_grid(
    sizes: Sequence[int], methods: Sequence[str], weights: str, seeds: Sequence[int],
    time_limit: float, hard_limit: float, warm_start: str | None = None,
    memory_limit_mb: int | None = None,
    params: Sequence[tuple[str | None, str, Any]] = (),
) -> list[Cell]:
    """The cells in run order: by n, then repeat, then method (so a sweep stopped early
    has every method at the small sizes)."""
    exact = set(exact_methods())
    cells = []
    for n in sizes:
        for repeat, seed in enumerate(seeds):
            for method in methods:
                start = warm_start if method in exact else None
                own = {name: value for target, name, value in params
                       if target is None or target == method}
                cells.append(Cell(n=n, method=method, weights=weights, seed=seed,
                                  repeat=repeat, time_limit=time_limit, hard_limit=hard_limit,
                                  warm_start=start, memory_limit_mb=memory_limit_mb,
                                  params=own or None))
    return cells
