"""The published families, drawn as their authors draw them, and OPB written and read."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import nqmip
from nqmip.instance import InstanceError
from nqmip.instances.families import (
    TOULBAR2_SEED,
    pb06_board,
    random_1_9,
    toulbar2_costs,
    toulbar2_tutorial,
)
from nqmip.instances.opb import opb_text, read_opb, write_opb


def test_toulbar2_costs_are_the_tutorial_scripts_numbers() -> None:
    # the script: seed(123456789); for each queen i: for each row a: randint(1, N)
    random.seed(TOULBAR2_SEED)
    n = 12
    expected = [[random.randint(1, n) for _ in range(n)] for _ in range(n)]
    assert toulbar2_costs(n).tolist() == expected
    assert toulbar2_costs(n).min() >= 1 and toulbar2_costs(n).max() <= n
    instance = toulbar2_tutorial(n)
    assert instance.sense == "min" and instance.name == "toulbar2(seed=123456789)"


@pytest.mark.parametrize("n", [8, 12])
def test_the_tutorial_family_solves_alike_in_three_solvers(n: int) -> None:
    instance = toulbar2_tutorial(n)
    values = {m: nqmip.solve(instance, method=m).objective
              for m in ("highs", "cpsat", "toulbar2")}
    assert len(set(values.values())) == 1, values


def test_other_families() -> None:
    assert np.array_equal(random_1_9(10, 3).weights, nqmip.random_weights(10, 3))
    board = pb06_board(1)
    assert board.n == 100 and board.sense == "min"
    assert board.weights.min() >= 1 and board.weights.max() <= 99
    assert np.array_equal(pb06_board(1).weights, board.weights)


@pytest.mark.parametrize("sense", ["min", "max"])
def test_opb_round_trip(tmp_path: Path, sense: str) -> None:
    weights = np.random.default_rng(4).integers(1, 10, (6, 6)).astype(float)
    instance = nqmip.make_instance(6, weights, sense=sense)
    path = tmp_path / "q6.opb"
    write_opb(instance, path)
    back = read_opb(path)
    assert back.sense == sense and np.array_equal(back.weights, weights)
    assert nqmip.solve(back).objective == nqmip.solve(instance).objective
    text = opb_text(instance)
    assert text.startswith("* #variable= 36 #constraint= 30")  # 12 lines, 18 diagonals


def test_opb_that_is_not_n_queens_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.opb"
    text = opb_text(nqmip.make_instance(5, np.ones((5, 5)), sense="min"))
    path.write_text(text.replace(" >= -1 ;", " >= -2 ;", 1)
                    .replace("+1 x1 +1 x2 +1 x3 +1 x4 +1 x5 = 1 ;", ""))
    with pytest.raises(InstanceError, match="not those of the 5-queens"):
        read_opb(path)
    with pytest.raises(InstanceError, match="integers"):
        opb_text(nqmip.make_instance(5, np.full((5, 5), 0.5)))
