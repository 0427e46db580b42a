"""A placement read as columns: the one check both the verifier and the drawing make of
what a caller hands them (numpy only, so every layer may use it)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np


def holds_booleans(placement: Any) -> bool:
    """True when a placement holds True or False (numpy reads True as column 1): a bool
    array, or a list or tuple with a Python or numpy bool among its items."""
    if isinstance(placement, np.ndarray):
        return bool(placement.dtype == np.bool_)
    return any(isinstance(c, bool | np.bool_) for c in placement)


def as_integer_columns(placement: Any) -> np.ndarray:
    """The placement as a 1-D integer array, in its own integer dtype (no copy if it is one).

    Refuses in one line what is not a placement: None or a string (a string was once read
    digit by digit), a 2-D array, floats.
    """
    if not isinstance(placement, np.ndarray | Iterable) or isinstance(placement, str | bytes):
        raise TypeError(f"a placement is a sequence of column indices (one a row), got "
                        f"{type(placement).__name__} {placement!r}"[:200])
    if isinstance(placement, np.ndarray):
        cols = placement
    else:
        items = list(placement)
        if holds_booleans(items):
            raise ValueError(f"a placement holds integer column indices, not True or False: "
                             f"{placement!r}"[:200])
        cols = np.asarray(items)
    if cols.ndim != 1:
        raise ValueError("a placement is a 1-D sequence: the column of the queen in each row")
    if cols.size and not np.issubdtype(cols.dtype, np.integer):
        raise ValueError("a placement holds integer column indices")
    return cols
