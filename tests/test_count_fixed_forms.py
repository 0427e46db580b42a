"""The counting API takes fixed queens in every form the other doors take (a mapping, a
list of pairs, squares as text, a numpy array): an array failed with numpy's 'truth value
of an array is ambiguous' (nqmip.count_solutions and nqmip.solutions), where nqmip.solve,
nqmip.lex_first and nqmip.build_model took it. On the bitboards and beyond them."""

from __future__ import annotations

import numpy as np
import pytest

import nqmip
from nqmip.enumeration.count import MAX_N

#: Boards and queens: on the bitboards; beyond them (counted on the free rows).
CASES = [(8, [(0, 0), (1, 4)]),
         (MAX_N + 2, [(r, c) for r, c in enumerate(
             [0, 2, 4, 1, 3, 8, 10, 12, 14, 5, 7, 18, 6, 21, 9, 24, 26, 28, 30, 32, 34, 36,
              38, 40, 42, 44, 46][:MAX_N - 10]) if c < MAX_N + 2])]


def forms(queens: list[tuple[int, int]]) -> dict[str, object]:
    return {"mapping": dict(queens), "pairs": queens, "array": np.array(queens),
            "array of one": np.array(queens[:1]), "empty array": np.zeros((0, 2), int)}


@pytest.mark.parametrize("n,queens", CASES, ids=["bitboards", "beyond"])
def test_every_form_of_fixed_queens_counts_the_same(n: int, queens: list[tuple[int, int]]
                                                    ) -> None:
    for name, fixed in forms(queens).items():
        same = (queens[:1] if name == "array of one" else [] if name == "empty array"
                else queens)
        if n > MAX_N and same != queens:
            continue  # fewer queens past the bitboards: not a count of seconds
        want = nqmip.count_solutions(n, fixed=same)
        assert nqmip.count_solutions(n, fixed=fixed) == want, name  # type: ignore[arg-type]
        listed = list(nqmip.solutions(n, fixed=fixed))  # type: ignore[arg-type]
        assert len(listed) == want, name
