"""The lexicographic descent: the first solution as a walk down the rows, each step one
question to a complete prefix oracle.

The walk keeps a solution (the *model*, the smallest met so far) and the proven rows. At
row ``r`` it asks: can the proven rows, plus row ``r`` on a column left of the model's, be
completed? Yes: the oracle's completion is a smaller solution, it becomes the model and the
question is asked again. No: the model's column of row ``r`` is the first solution's, and
the walk moves to row ``r + 1``. So the number of questions is the number of rows plus the
number of improvements, and every refutation covers all the columns left of the model's at
once (the oracle chooses where to branch; the columns are not refuted one by one). The idea
of Fischetti and Salvagnin (arXiv 1907.08246, "fix, test feasibility, move on"), with the
restriction to a range of columns in one question.

Oracles: :class:`FirstFail` (numba, :mod:`nqmip.lex.descent_kernels`), the incremental SAT
oracle of :mod:`nqmip.lex.sat`, and :class:`Portfolio` (both on each question, in turns).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from nqmip.budget import Deadline
from nqmip.chunks import run_chunks, why_stopped
from nqmip.instance import Instance
from nqmip.result import Termination

#: First-fail nodes per kernel call between two looks at the deadline (about 0.02 s at
#: n = 32, 0.06 s at 50); a node's cost grows with the board, so from ``CHUNK_FULL_N`` on a
#: chunk (and a probe) is scaled by (CHUNK_FULL_N / n)^2: at n = 200 a 20,000-node chunk
#: took 0.57 s, more than the watchdog waits after a limit (the call answered nothing).
CHUNK = 20_000
CHUNK_FULL_N = 64
#: Nodes of a probe for a completion (a quarter of a chunk), after each of the first
#: ``PROBE_EVERY_FIRST`` chunks of a question, then after every ``PROBE_EVERY``-th: a
#: question that needs probes gets them at once, a long refutation pays about 6 %.
PROBE = 5_000
PROBE_EVERY_FIRST = 16
PROBE_EVERY = 4

Placed = list[tuple[int, int]]

#: The first-fail oracle checks the diagonal sums at every node (docs/lex-first.md: the
#: hard refutation of n = 34 in 12.1 M nodes and 17.4 s instead of 23.8 M and 28.4 s).
SUMS = True


class Oracle(Protocol):
    """A complete prefix oracle, asked in slices: ``begin`` poses a question, ``step`` works
    on it for about one slice (a few hundredths of a second); each answers True (``model()``
    then holds a completion), False (no completion) or None (not yet)."""

    name: str
    #: a True answer's completion has the asked row's smallest feasible column
    proves_row: bool

    def begin(self, placed: Placed, row: int, limit: int) -> bool | None: ...

    def step(self) -> bool | None: ...

    def model(self) -> tuple[int, ...]: ...

    def stats(self) -> dict[str, int]: ...


def ask(oracle: Oracle, placed: Placed, row: int, limit: int,
        deadline: Deadline) -> bool | None:
    """The oracle's answer to one question; None when the deadline stops it first."""
    answer = oracle.begin(placed, row, limit)
    if answer is not None:
        return answer

    def chunk() -> Termination | None:
        nonlocal answer
        answer = oracle.step()
        return None if answer is None else Termination.SOLUTION_FOUND

    run_chunks(chunk, deadline)
    return answer


class _Board:
    """The arrays of one first-fail search (:mod:`nqmip.lex.descent_kernels`)."""

    def __init__(self, n: int) -> None:
        from nqmip.lex import descent_kernels as k

        self.k = k
        words = (n + 63) // 64
        levels = n + 2
        self.avail = np.zeros((levels, n, words), np.uint64)
        self.row_count = np.zeros((levels, n), np.int64)
        self.col_count = np.zeros((levels, n), np.int64)
        self.queen = np.full((levels, n), -1, np.int64)
        self.queue = np.zeros((6 * n * n + 16 * n, 2), np.int64)
        self.line = np.zeros(levels, np.int64)
        self.pos = np.zeros(levels, np.int64)
        self.meta = np.zeros(k.META_SIZE, np.int64)
        self.mark = np.zeros(2 * ((2 * n + 63) // 64 + 1), np.uint64)

    def setup(self, placed: Placed, row: int, limit: int, row_first: bool,
              sums: bool) -> int:
        fixed = np.array(placed, np.int64).reshape(-1, 2)
        return int(self.k.setup(self.avail, self.row_count, self.col_count, self.queen,
                                self.queue, fixed, row, limit, self.line, self.pos,
                                self.meta, row_first, sums, self.mark))

    def run(self, budget: int, sums: bool, descending: bool, offset: int) -> tuple[int, int]:
        """The status after at most ``budget`` more nodes, and the nodes spent."""
        before = int(self.meta[self.k.NODES])
        status = int(self.k.run(self.avail, self.row_count, self.col_count, self.queen,
                                self.queue, self.line, self.pos, self.meta, budget, sums,
                                self.mark, descending, offset))
        return status, int(self.meta[self.k.NODES]) - before

    def model(self) -> tuple[int, ...]:
        return tuple(int(c) for c in self.queen[int(self.meta[self.k.LEVEL])])


class FirstFail:
    """The numba oracle: a complete first-fail search on the propagated board
    (:mod:`nqmip.lex.descent_kernels`), ``chunk`` nodes per step.

    After a step (every step at first, then every ``PROBE_EVERY``-th), a *probe* of at most
    ``probe`` nodes looks for a completion under
    the node the complete search is in (the candidate column of the asked row), with the
    squares of each line tried from a rotated start, a different one each time: the
    restarts a depth-first search needs against its heavy tails when it has to *find* a
    completion on a large board (n = 93: the complete search alone meets no solution in
    20 s). A probe that finds one answers the question; one that does not is forgotten.
    """

    name = "first-fail"

    def __init__(self, n: int, chunk: int | None = None, row_first: bool = True,
                 sums: bool = SUMS, descending: bool = True, probe: int | None = None
                 ) -> None:
        from nqmip.lex import descent_kernels as k

        self.k = k
        self.n = n
        scale = min(1.0, (CHUNK_FULL_N / max(n, 1)) ** 2)
        self.chunk = chunk if chunk is not None else max(64, int(CHUNK * scale))
        probe = probe if probe is not None else max(16, int(PROBE * scale))
        #: branch on the asked row first: a completion found then has the row's smallest
        #: feasible column (every smaller one refuted on the way), and the row is settled
        self.proves_row = row_first
        self.sums = sums
        #: try the columns (rows) of a line from the last, below the asked row: a
        #: completion is looked for away from the small columns, where the hard
        #: refutations are (n = 32: 5.97 s ascending, 1.96 s descending)
        self.descending = descending
        self.probe_nodes = probe
        self.main = _Board(n)
        self._probe: _Board | None = None
        self._found: _Board = self.main
        self._question: tuple[Placed, int, int] = ([], -1, n)
        self._steps = 0
        self.calls = self.nodes = self.settled = self.probes = self.probe_wins = 0

    def _answer(self, status: int) -> bool | None:
        if status == self.k.RUNNING:
            return None
        self.settled += 1
        return status == self.k.FOUND

    def begin(self, placed: Placed, row: int, limit: int) -> bool | None:
        self.calls += 1
        self._question = (placed, row, limit)
        self._found = self.main
        self._steps = 0
        return self._answer(self.main.setup(placed, row, limit, self.proves_row, self.sums))

    def step(self) -> bool | None:
        status, spent = self.main.run(self.chunk, self.sums, self.descending, 0)
        self.nodes += spent
        answer = self._answer(status)
        self._steps += 1
        due = self._steps <= PROBE_EVERY_FIRST or self._steps % PROBE_EVERY == 0
        if answer is None and due and self.probe_nodes > 0 and self._probe_found():
            self.settled += 1
            self.probe_wins += 1
            return True
        return answer

    def _probe_found(self) -> bool:
        """One probe under the complete search's current candidate; True when it found a
        completion (then the question's answer)."""
        placed, row, limit = self._question
        if self.proves_row and row >= 0 and self.main.meta[self.k.ROW_FIRST]:
            if self.main.meta[self.k.TOP] < 1:
                return False  # between two candidates
            placed = [*placed, (row, int(self.main.queen[1, row]))]
            row, limit = -1, self.n
        if self._probe is None:
            self._probe = _Board(self.n)
        self.probes += 1
        offset = (self.probes * 0.6180339887 * self.n) % self.n
        status = self._probe.setup(placed, row, limit, False, self.sums)
        if status == self.k.RUNNING:
            status, spent = self._probe.run(self.probe_nodes, self.sums, False, int(offset))
            self.nodes += spent
        if status != self.k.FOUND:
            return False
        self._found = self._probe
        return True

    def model(self) -> tuple[int, ...]:
        return self._found.model()

    def stats(self) -> dict[str, int]:
        return {"ff_calls": self.calls, "ff_settled": self.settled, "ff_nodes": self.nodes,
                "ff_probes": self.probes, "ff_probe_wins": self.probe_wins}


class Portfolio:
    """Two oracles on the same question, one slice at a time to whichever has spent less
    time on it; the first answer wins. On one core it costs at most about twice the
    better oracle's time, question by question (the numba search refutes fast, the SAT
    solver finds completions fast: docs/lex-first.md)."""

    def __init__(self, *oracles: Oracle) -> None:
        self.oracles = oracles
        self.name = " | ".join(o.name for o in oracles)
        self.proves_row = False
        self._winner: Oracle = oracles[0]
        self._spent = [0.0] * len(oracles)
        self.wins = [0] * len(oracles)

    def _won(self, i: int, answer: bool | None) -> bool | None:
        if answer is not None:
            self._winner = self.oracles[i]
            self.proves_row = self._winner.proves_row
            self.wins[i] += 1
        return answer

    def begin(self, placed: Placed, row: int, limit: int) -> bool | None:
        self._spent = [0.0] * len(self.oracles)
        for i, oracle in enumerate(self.oracles):
            begin = time.perf_counter()
            answer = oracle.begin(placed, row, limit)
            self._spent[i] += time.perf_counter() - begin
            if answer is not None:
                return self._won(i, answer)
        return None

    def step(self) -> bool | None:
        i = min(range(len(self.oracles)), key=self._spent.__getitem__)
        begin = time.perf_counter()
        answer = self.oracles[i].step()
        self._spent[i] += time.perf_counter() - begin
        return self._won(i, answer)

    def model(self) -> tuple[int, ...]:
        return self._winner.model()

    def stats(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for oracle, wins in zip(self.oracles, self.wins, strict=True):
            out.update(oracle.stats())
            out[f"{oracle.name}_wins"] = wins
        return out


@dataclass(frozen=True)
class Descent:
    """The outcome of :func:`descend`: ``placement`` the first solution when ``complete``,
    else the smallest solution met (None: none yet); ``proven_rows`` leading rows of the
    first solution proven; ``exhausted``: no solution at all. ``questions`` asked of the
    oracle, ``improvements`` among them answered by a smaller solution."""

    n: int
    placement: tuple[int, ...] | None
    complete: bool
    exhausted: bool
    proven_rows: int
    questions: int
    improvements: int
    seconds: float
    oracle: str
    stats: dict[str, int] = field(default_factory=dict)
    stopped_by: Termination | None = None
    #: seconds per proven row (the time of the questions that settled it)
    row_seconds: tuple[float, ...] = ()
    #: the question a stopped descent was working on: (row, limit), the row to settle
    #: and the column (0-based) its answer must be left of; None when it ended by itself
    pending: tuple[int, int] | None = None

    @property
    def proven_prefix(self) -> tuple[int, ...]:
        return () if self.placement is None else self.placement[: self.proven_rows]


def descend(instance: Instance, oracle: Oracle, deadline: Deadline | None = None) -> Descent:
    """The first solution of ``instance`` (keeping its fixed queens) by the descent, each
    question asked of ``oracle``; stopped at ``deadline`` with the rows proven so far."""
    deadline = Deadline(None) if deadline is None else deadline
    begin = time.perf_counter()
    n = instance.n
    fixed = {int(r): int(c) for r, c in instance.fixed}
    placed: Placed = sorted(fixed.items())
    questions = improvements = 0
    row_seconds: list[float] = []

    def outcome(model: tuple[int, ...] | None, proven: int, *, complete: bool = False,
                exhausted: bool = False, pending: tuple[int, int] | None = None) -> Descent:
        stopped = None if complete or exhausted else (
            why_stopped(deadline))
        return Descent(n=n, placement=model, complete=complete, exhausted=exhausted,
                       proven_rows=proven, questions=questions, improvements=improvements,
                       seconds=time.perf_counter() - begin, oracle=oracle.name,
                       stats=oracle.stats(), stopped_by=stopped,
                       row_seconds=tuple(row_seconds), pending=pending)

    questions += 1
    answer = ask(oracle, placed, -1, n, deadline)
    if answer is None:
        return outcome(None, 0, pending=(-1, n))
    if not answer:
        return outcome(None, 0, exhausted=True)
    model = _checked(oracle.model(), fixed)
    for r in range(n):
        start = time.perf_counter()
        while r not in fixed and model[r] > 0:
            questions += 1
            answer = ask(oracle, placed, r, model[r], deadline)
            if answer is None:
                return outcome(model, r, pending=(r, model[r]))
            if not answer:
                break
            improvements += 1
            smaller = _checked(oracle.model(), fixed)
            if not smaller < model or smaller[:r] != model[:r]:
                raise RuntimeError(f"the oracle's completion {smaller} does not improve "
                                   f"on {model} at row {r}")
            model = smaller
            if oracle.proves_row:
                break
        row_seconds.append(time.perf_counter() - start)
        if r not in fixed:
            placed.append((r, model[r]))
    return outcome(model, n, complete=True)


def _checked(model: tuple[int, ...], fixed: dict[int, int]) -> tuple[int, ...]:
    """An oracle's completion, checked (a solution keeping the fixed queens): the descent
    trusts an oracle's refutations, never its solutions."""
    from nqmip.verify import is_solution

    if not is_solution(model) or any(model[r] != c for r, c in fixed.items()):
        raise RuntimeError(f"the oracle's completion {model} is not a solution of the "
                           "question")
    return model


#: The oracles of the descent by name ("search" is the row-ordered search of
#: :mod:`nqmip.lex.search`, kept as a second route); the default is the numba one, which
#: needs nothing beyond the package.
ORACLES = ("first-fail", "sat", "portfolio")
DEFAULT_ORACLE = "first-fail"


def make_oracle(name: str, n: int) -> Oracle:
    """The oracle ``name`` for boards of size ``n`` ("sat" and "portfolio" need python-sat:
    ``pip install "nqmip[sat]"``)."""
    if name == "first-fail":
        return FirstFail(n)
    if name in ("sat", "portfolio"):
        from nqmip.lex import sat

        if not sat.available():
            raise ImportError(f"the {name!r} oracle needs python-sat: "
                              'pip install "nqmip[sat]"')
        if name == "sat":
            return sat.SatOracle(n)
        return Portfolio(FirstFail(n), sat.SatOracle(n, row_first=True))
    raise ValueError(f"unknown lex-first oracle {name!r}: choose from "
                     f"{', '.join(ORACLES)} or 'search'")

