"""The weighted N-Queens families users bring, named and reproducible.

- :func:`toulbar2_tutorial`: toulbar2's weighted n-queens tutorial
  (``web/TUTORIALS/weightedqueens.py``): Python's ``random.seed(123456789)``, then a cost
  ``randint(1, N)`` for each queen ``i`` and each of its positions ``a``, queen by queen;
  minimise the total cost. The same numbers, drawn the same way, so that nqmip and toulbar2
  can be checked against each other (queen ``i`` at position ``a`` is our row ``i``,
  column ``a``: the problem is the same under that transposition).
- :func:`aaai26_board` and :data:`AAAI26_SIZES`, :data:`AAAI26_SEEDS`: the setting of
  Sewa, Allouche, de Givry, Katsirelos, Montalbano and Schiex, "Assignment Problems in Cost
  Function Networks" (AAAI-26): ten boards per even N, costs uniform in [1, N], minimised.
  The paper's 140 boards (N = 4, 6, ..., 30) are not published; these are drawn by the
  tutorial's generator (the same law) with the seeds ``AAAI26_SEEDS``, and carried to
  N = 40: 19 sizes, 190 boards.
- :func:`random_1_9`: the package's own random integers 1..9 (maximise).
- :func:`pb06_board`: boards in the style of the Pseudo-Boolean Evaluation 2006 weighted
  N-queens family (Liu and Truszczynski): 100 x 100, weights 1..99, minimise; seeded.
"""

from __future__ import annotations

import random

import numpy as np

from nqmip.instance import Instance, make_instance, random_weights

#: The seed of toulbar2's tutorial script.
TOULBAR2_SEED = 123456789


def _checked(n: int, seed: int, family: str) -> tuple[int, int]:
    """``(n, seed)`` of a family's board, checked before its n x n matrix is drawn: n as
    :func:`~nqmip.instance.make_instance` takes it, the seed as every seed (0 to 2^63 - 1,
    not a boolean), and the matrix against this machine's memory (``n = 200000`` drew
    past 30 s, or met numpy's MemoryError). InstanceError otherwise, in one line."""
    from nqmip.capacity import CapacityError, check_fits
    from nqmip.instance import InstanceError
    from nqmip.option_types import check_value

    size = make_instance(n).n
    try:
        seed = check_value("seed", seed)
        check_fits(size, dense_weights=True, method=f"{family} (a dense n x n matrix)")
    except (TypeError, ValueError, CapacityError) as exc:
        raise InstanceError(str(exc)) from None
    return size, seed


def toulbar2_costs(n: int, seed: int = TOULBAR2_SEED) -> np.ndarray:
    """The tutorial's unary costs, ``costs[i, a] = randint(1, n)`` in its draw order."""
    n, seed = _checked(n, seed, "the toulbar2 tutorial's costs")
    draw = random.Random(seed)
    return np.array([[draw.randint(1, n) for _ in range(n)] for _ in range(n)], dtype=float)


def toulbar2_tutorial(n: int, seed: int = TOULBAR2_SEED) -> Instance:
    """toulbar2's weighted n-queens tutorial instance (minimise the costs)."""
    instance = make_instance(n, toulbar2_costs(n, seed), sense="min")
    return _named(instance, f"toulbar2(seed={seed})")


#: The sizes of the AAAI-26 setting carried to N = 40 (the paper stops at 30).
AAAI26_SIZES: tuple[int, ...] = tuple(range(4, 41, 2))
#: Ten boards per size: the tutorial's generator seeded with these.
AAAI26_SEEDS: tuple[int, ...] = tuple(range(1, 11))


def aaai26_board(n: int, seed: int) -> Instance:
    """One board of the AAAI-26 setting: ``toulbar2_costs(n, seed)`` (costs
    ``randint(1, n)``, the paper's uniform law on [1, N]), minimised."""
    instance = make_instance(n, toulbar2_costs(n, seed), sense="min")
    return _named(instance, f"aaai26(n={n}, seed={seed})")


def aaai26_family() -> list[tuple[int, int]]:
    """The 190 boards of the setting as (N, seed), smallest first."""
    return [(n, seed) for n in AAAI26_SIZES for seed in AAAI26_SEEDS]


def random_1_9(n: int, seed: int = 0) -> Instance:
    """The package's random 1..9 board (maximise), as ``weights="random"``."""
    return _named(make_instance(n, random_weights(n, seed)), f"random(seed={seed})")


def pb06_board(seed: int, n: int = 100) -> Instance:
    """A PB06-style weighted N-queens board: n x n weights 1..99 drawn with ``seed``,
    minimised (the style of the family, not its files)."""
    n, seed = _checked(n, seed, "a PB06-style board")
    weights = np.random.default_rng(seed).integers(1, 100, size=(n, n)).astype(float)
    return _named(make_instance(n, weights, sense="min"), f"pb06-style(seed={seed})")


def _named(instance: Instance, name: str) -> Instance:
    from dataclasses import replace

    return replace(instance, name=name)
