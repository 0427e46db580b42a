"""The grid of ``nqmip-compare``: cells (n, weights, method, seed, limits), and the parsing
of the sizes, methods and seeds that span it."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nqmip.cli.parser import UsageError  # the commands' bad input: exit 2, one line
from nqmip.option_types import text_float, text_int

#: The ``--weights`` of a grid: chess (black 2, white 1), none (feasibility), random
#: integers 1..9 drawn with each cell's seed, or toulbar2's weighted-queens tutorial costs
#: (minimised; :func:`nqmip.instances.families.toulbar2_tutorial`, its own seed).
WEIGHT_CHOICES = ("chess", "none", "random", "toulbar2")
#: The kind of weights of a grid whose ``--weights``/``--costs`` is a file (one matrix, so
#: one n): the matrix goes to each run's process with its cell (:attr:`Cell.matrix`).
WEIGHTS_FILE = "file"
#: Every kind a row's ``weights`` may hold.
WEIGHT_KINDS = (*WEIGHT_CHOICES, WEIGHTS_FILE)
#: The fields of a cell that go into its row (``memory_limit_mb`` is the harness's only).
CELL_FIELDS: tuple[str, ...] = ("n", "method", "weights", "sense", "fixed", "seed", "repeat",
                                "warm_start", "params", "time_limit", "hard_limit",
                                "target_mode")
#: The target modes of ``--target``: ``auto`` (the best the exact methods found on the
#: board), ``none``, or a number.
TARGET_AUTO, TARGET_NONE = "auto", "none"
#: The most runs a grid holds (sizes x methods x seeds), and so the most sizes, seeds or
#: repeats: each run is a process of a second or more, so 10^5 runs are a day's sweep;
#: ``--n 1:10**9`` was built as a list of 10^9 sizes, ``--repeats 2**63`` overflowed.
MAX_RUNS = 100_000
#: Keywords of :func:`nqmip.solve` that change the board itself (its weights or sense).
BOARD_PARAMS = ("black", "white", "weights_seed", "sense")




@dataclass(frozen=True)
class Cell:
    """One run: what the worker process is asked to solve.

    ``params`` are further keywords of :func:`nqmip.solve` (``strengthen``, ``threads``,
    ``weights_seed``, ...); ``weights="random"`` draws the weights with ``seed`` unless
    ``params`` gives ``weights_seed``. ``target_mode`` is how the cell's target is chosen
    (``"auto"``, a number as text, or None: the cell runs without one: the exact methods
    and auto, and every cell with ``--target none``); ``target`` is the value it was given
    once its board's exact runs ended (:mod:`nqmip.compare.schedule`). ``sense`` and
    ``fixed`` (the pre-placed queens, (row, col)) are the instance's, as are ``matrix``
    (the weights of ``weights == "file"``, given to the run's process, not to its row).
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
    target_mode: str | None = None
    target: float | None = None
    sense: str = "max"
    fixed: tuple[tuple[int, int], ...] = ()
    matrix: list[list[float]] | None = None

    def __post_init__(self) -> None:
        if self.weights == "toulbar2":  # the tutorial's costs: minimised, always
            object.__setattr__(self, "sense", "min")
        object.__setattr__(self, "fixed", fixed_key(self.fixed))

    def key(self) -> tuple[Any, ...]:
        """What identifies the cell in a records file (what ``--resume`` compares): not the
        target's value, which the board's exact runs decide."""
        return (self.n, self.method, self.weights, self.seed, self.warm_start,
                float(self.time_limit), params_key(self.params), self.target_mode,
                self.sense, fixed_key(self.fixed))

    def board(self) -> tuple[Any, ...]:
        """The board the cell solves (:func:`board_key`)."""
        return board_key(self.n, self.weights, self.seed, self.params, self.sense,
                         self.fixed)


def fixed_key(fixed: Any) -> tuple[tuple[int, int], ...]:
    """Fixed queens as a row holds them (a list of [row, col], or none) or as a cell
    does: sorted (row, col) pairs."""
    if not isinstance(fixed, list | tuple) and fixed is not None:
        raise ValueError(f"fixed queens {fixed!r} are not a list of [row, col]")
    pairs = []
    for queen in fixed or ():
        if not (isinstance(queen, list | tuple) and len(queen) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in queen)):
            raise ValueError(f"fixed queen {queen!r} is not [row, col]")
        pairs.append((queen[0], queen[1]))
    return tuple(sorted(pairs))


def board_key(n: int, weights: str, seed: int | None,
              params: dict[str, Any] | None, sense: str | None = "max",
              fixed: Any = ()) -> tuple[Any, ...]:
    """What tells boards apart: n, the kind of weights, the seed that drew random weights
    (``weights_seed``, else the run's seed), the keywords that change the weights or
    the sense (:data:`BOARD_PARAMS`), the sense and the fixed queens."""
    own = {k: v for k, v in (params or {}).items() if k in BOARD_PARAMS}
    drawn = own.pop("weights_seed", seed) if weights == "random" else None
    return (n, weights, drawn, json.dumps(own, sort_keys=True), sense or "max",
            fixed_key(fixed))


def params_key(params: dict[str, Any] | None) -> str:
    return json.dumps(params or {}, sort_keys=True)


@dataclass(frozen=True)
class Board:
    """What a grid's every cell solves besides n and the kind of weights: the sense, the
    fixed queens, and the matrix of a weights file (its name and digest go into the
    records file's header: :meth:`describe`)."""

    sense: str = "max"
    fixed: tuple[tuple[int, int], ...] = ()
    matrix: list[list[float]] | None = None
    source: str | None = None
    digest: str | None = None

    def describe(self) -> dict[str, Any]:
        """The instance as the records file's header and the JSON summary say it."""
        out: dict[str, Any] = {"sense": self.sense, "fixed": [list(q) for q in self.fixed]}
        if self.matrix is not None:
            out.update(weights_file=self.source, weights_sha256=self.digest)
        return out


def parse_sizes(text: str) -> list[int]:
    """``"8,16,32"``, ``"8:64:8"`` (inclusive, step 8), ``"8:12"`` (step 1) or a mix."""
    sizes: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise UsageError(f"--n: empty item in {text!r}")
        try:
            if ":" in part:
                pieces = [text_int(p) for p in part.split(":")]
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
                span = range(start, stop + 1, step)
                if len(sizes) + len(span) > MAX_RUNS:
                    raise UsageError(f"--n: {text!r} spans {len(sizes) + len(span):,} "
                                     f"sizes; a grid takes at most {MAX_RUNS:,} runs")
                sizes.extend(span)
            else:
                sizes.append(text_int(part))
        except ValueError:
            raise UsageError(
                f"--n takes sizes like 8,16,32 or ranges START:STOP[:STEP], got {part!r}"
            ) from None
    for n in sizes:
        if n < 1:
            raise UsageError(f"--n: board sizes must be at least 1, got {n}")
    _once("--n", sizes, text)
    return sizes


def _once(option: str, items: list[Any], text: str) -> None:
    """Refuse an item given twice (a grid runs each once: nothing dropped unsaid)."""
    seen: set[Any] = set()
    twice = None
    for item in items:
        if item in seen:
            twice = item
            break
        seen.add(item)
    if twice is not None:
        raise UsageError(f"{option}: {twice} is given twice in {text!r}; each is run once, "
                         "give it once")


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


def runs_first(method: str) -> bool:
    """Whether a method runs before the heuristics of its board, without a target: the
    exact methods and auto, which prove optima (the heuristics' target comes from them)."""
    return method_kind(method) != "heuristic"


def parse_target(text: str) -> str:
    """``--target``: ``auto``, ``none`` or a finite number (kept as the text given)."""
    text = text.strip().lower()
    if text in (TARGET_AUTO, TARGET_NONE):
        return text
    try:
        value = text_float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise UsageError(f"--target takes auto, none or a number, got {text!r}")
    return format(value, "g")


def parse_methods(text: str) -> list[str]:
    methods = [m.strip() for m in text.split(",")]
    if not any(methods):
        raise UsageError("--methods: give at least one method")
    if not all(methods):
        raise UsageError(f"--methods: empty item in {text!r}")
    known = known_methods()
    for method in methods:
        if method not in known:
            raise UsageError(f"--methods: unknown method {method!r}: "
                             f"choose from {', '.join(known)}")
    _once("--methods", methods, text)
    return methods


def parse_seeds(text: str) -> list[int]:
    items = [s.strip() for s in text.split(",")]
    if not any(items):
        raise UsageError("--seeds: give at least one seed")
    if not all(items):  # as --n and --methods: '1,,2' was run as 1,2, the slip unsaid
        raise UsageError(f"--seeds: empty item in {text!r}")
    try:
        seeds = [text_int(s) for s in items]
    except ValueError:
        raise UsageError(f"--seeds takes integers like 0,1,2, got {text!r}") from None
    from nqmip.option_types import SEED_MAX

    wrong = next((seed for seed in seeds if not 0 <= seed <= SEED_MAX), None)
    if wrong is not None:  # refused by every run, and said once, before the sweep
        raise UsageError(f"--seeds takes whole numbers from 0 to {SEED_MAX}, got {wrong}")
    if len(seeds) > MAX_RUNS:
        raise UsageError(f"--seeds: {len(seeds):,} seeds; a grid takes at most "
                         f"{MAX_RUNS:,} runs")
    if len(set(seeds)) != len(seeds):
        raise UsageError(f"--seeds: repeated seed in {text!r}")
    return seeds


def build_grid(
    sizes: Sequence[int], methods: Sequence[str], weights: str, seeds: Sequence[int],
    time_limit: float, hard_limit: float, warm_start: str | None = None,
    memory_limit_mb: int | None = None,
    params: Sequence[tuple[str | None, str, Any]] = (), target: str = TARGET_NONE,
    board: Board | None = None,
) -> list[Cell]:
    """The cells in run order: by n; within it the exact methods and auto of every
    repeat, then the heuristics of every repeat (they wait for their board's target);
    within each, by repeat, then method. A sweep stopped early has every method at the
    small sizes. ``target`` is the ``--target`` mode (:func:`parse_target`) of the
    heuristics' cells; ``board`` the instance's sense, fixed queens and weights file."""
    exact = set(exact_methods())
    board = Board() if board is None else board
    cells = []
    for n in sizes:
        for first in (True, False):
            for repeat, seed in enumerate(seeds):
                for method in methods:
                    if runs_first(method) != first:
                        continue
                    start = warm_start if method in exact else None
                    own = {name: value for aim, name, value in params
                           if aim is None or aim == method}
                    mode = None if first or target == TARGET_NONE else target
                    cells.append(Cell(n=n, method=method, weights=weights, seed=seed,
                                      repeat=repeat, time_limit=time_limit,
                                      hard_limit=hard_limit, warm_start=start,
                                      memory_limit_mb=memory_limit_mb, params=own or None,
                                      target_mode=mode, sense=board.sense,
                                      fixed=board.fixed, matrix=board.matrix))
    return cells
