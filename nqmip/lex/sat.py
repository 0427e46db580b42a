"""The incremental SAT prefix oracle of the lexicographic descent (:mod:`nqmip.lex.descent`):
one CNF of the n-queens constraints kept alive in CaDiCaL (python-sat, ``pip install
"nqmip[sat]"``), each question asked under assumptions, so the clauses learnt refuting one
prefix prune every later question.

The CNF: ``x[r, c]`` true when a queen stands on (r, c); every row and every column at
least one queen; at most one on every row, column and diagonal, pairwise (the encodings
with auxiliary variables were slower on the hard refutations: docs/lex-first.md). A question
"can ``placed`` plus row ``r`` on a column below ``limit`` be completed?" assumes the placed
queens and one fresh selector literal ``s`` with the clause ``-s or x[r, 0] or ... or
x[r, limit - 1]``, retired (``-s`` added as a unit) after the answer. With ``row_first`` the
columns are asked one by one, ascending (``placed + x[r, c]``), so a yes settles the row.
"""

from __future__ import annotations

from collections.abc import Iterator

#: the solver of python-sat used (CaDiCaL 1.9.5)
SOLVER = "cadical195"
#: conflicts per slice of a question (a slice lasts a few hundredths of a second)
CONFLICTS = 2_000


def available() -> bool:
    try:
        import pysat.solvers  # noqa: F401
    except ImportError:
        return False
    return True


def lines(n: int) -> Iterator[list[tuple[int, int]]]:
    """Every row, column, anti-diagonal and diagonal of two squares or more."""
    for r in range(n):
        yield [(r, c) for c in range(n)]
    for c in range(n):
        yield [(r, c) for r in range(n)]
    for d in range(1, 2 * n - 2):
        yield [(r, d - r) for r in range(max(0, d - n + 1), min(n, d + 1))]
    for d in range(-(n - 2), n - 1):
        yield [(r, r - d) for r in range(max(0, d), min(n, n + d))]


def queens_cnf(n: int) -> list[list[int]]:
    """The clauses, variable ``r * n + c + 1`` for square (r, c)."""
    def x(r: int, c: int) -> int:
        return r * n + c + 1

    clauses = [[x(r, c) for c in range(n)] for r in range(n)]
    clauses += [[x(r, c) for r in range(n)] for c in range(n)]
    for line in lines(n):
        lits = [x(r, c) for r, c in line]
        clauses += [[-a, -b] for i, a in enumerate(lits) for b in lits[i + 1:]]
    return clauses


class SatOracle:
    """Questions of the descent answered by one incremental CaDiCaL instance, in slices of
    ``conflicts`` conflicts (CaDiCaL in python-sat cannot be interrupted from another
    thread; a slice resumes with every clause learnt so far)."""

    name = "sat"

    def __init__(self, n: int, row_first: bool = False, conflicts: int = CONFLICTS) -> None:
        from pysat.solvers import Solver

        self.n = n
        self.solver = Solver(name=SOLVER, bootstrap_with=queens_cnf(n))
        self.top = n * n
        self.proves_row = row_first
        self.conflicts = conflicts
        self._model: tuple[int, ...] = ()
        self._queue: list[list[int]] = []  # the solver calls left of this question
        self._selector = 0
        self.calls = self.settled = 0

    def x(self, r: int, c: int) -> int:
        return r * self.n + c + 1

    def begin(self, placed: list[tuple[int, int]], row: int, limit: int) -> bool | None:
        self._retire()
        self.calls += 1
        assumptions = [self.x(r, c) for r, c in placed]
        if row < 0:
            self._queue = [assumptions]
        elif self.proves_row:
            taken = {c for r, c in placed}
            self._queue = [[*assumptions, self.x(row, c)] for c in range(limit)
                           if c not in taken]
        else:
            self.top += 1
            self._selector = self.top
            self.solver.add_clause([-self._selector, *(self.x(row, c) for c in range(limit))])
            self._queue = [[*assumptions, self._selector]]
        return None if self._queue else self._settle(False)

    def _retire(self) -> None:
        if self._selector:
            self.solver.add_clause([-self._selector])
            self._selector = 0

    def _settle(self, answer: bool) -> bool:
        self.settled += 1
        if answer:
            model = self.solver.get_model()
            n = self.n
            self._model = tuple(next(c for c in range(n) if model[r * n + c] > 0)
                                for r in range(n))
        self._queue = []
        self._retire()
        return answer

    def step(self) -> bool | None:
        self.solver.conf_budget(self.conflicts)
        answer = self.solver.solve_limited(assumptions=self._queue[0])
        if answer is None:
            return None
        if answer or len(self._queue) == 1:
            return self._settle(answer)
        self._queue.pop(0)
        return None

    def model(self) -> tuple[int, ...]:
        return self._model

    def stats(self) -> dict[str, int]:
        return {"sat_calls": self.calls, "sat_settled": self.settled}
