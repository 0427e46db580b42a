"""The weighted N-Queens families users bring, named and reproducible.

- :func:`toulbar2_tutorial`: toulbar2's weighted n-queens tutorial
  (``web/TUTORIALS/weightedqueens.py``): Python's ``random.seed(123456789)``, then a cost
  ``randint(1, N)`` for each queen ``i`` and each of its positions ``a``, queen by queen;
  minimise the total cost. The same numbers, drawn the same way, so that nqmip and toulbar2
  can be checked against each other (queen ``i`` at position ``a`` is our row ``i``,
  column ``a``: the problem is the same under that transposition).
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


def toulbar2_costs(n: int, seed: int = TOULBAR2_SEED) -> np.ndarray:
    """The tutorial's unary costs, ``costs[i, a] = randint(1, n)`` in its draw order."""
    draw = random.Random(seed)
    return np.array([[draw.randint(1, n) for _ in range(n)] for _ in range(n)], dtype=float)


def toulbar2_tutorial(n: int, seed: int = TOULBAR2_SEED) -> Instance:
    """toulbar2's weighted n-queens tutorial instance (minimise the costs)."""
    instance = make_instance(n, toulbar2_costs(n, seed), sense="min")
    return _named(instance, f"toulbar2(seed={seed})")


def random_1_9(n: int, seed: int = 0) -> Instance:
    """The package's random 1..9 board (maximise), as ``weights="random"``."""
    return _named(make_instance(n, random_weights(n, seed)), f"random(seed={seed})")


def pb06_board(seed: int, n: int = 100) -> Instance:
    """A PB06-style weighted N-queens board: n x n weights 1..99 drawn with ``seed``,
    minimised (the style of the family, not its files)."""
    weights = np.random.default_rng(seed).integers(1, 100, size=(n, n)).astype(float)
    return _named(make_instance(n, weights, sense="min"), f"pb06-style(seed={seed})")


def _named(instance: Instance, name: str) -> Instance:
    from dataclasses import replace

    return replace(instance, name=name)
