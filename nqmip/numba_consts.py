"""Small integers as kernels pass them to their callees: numpy int64 scalars, never literals.

numba compiles a callee once per *literal* argument: a call ``f(..., 0, ...)`` beside
``f(..., level, ...)`` compiles ``f`` twice (once for ``Literal[int](0)``, once for
``int64``), and so does a variable that starts as a plain ``-1`` or ``0`` and changes in a
loop (type inference meets it as a literal on its first pass). A numpy scalar is never
literal, so a kernel writes these names where it would write the plain number, and each
callee compiles once (docs/compile.md; tests/test_compile_size.py counts the signatures).
Booleans have numpy's own: ``np.True_`` and ``np.False_``.

The names are typed ``int`` for mypy (a variable that starts at one takes plain ints after
it); numba sees ``int64``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

#: -1: "no row (column, partner) yet".
NO_ROW = cast(int, np.int64(-1))
INT0 = cast(int, np.int64(0))
INT1 = cast(int, np.int64(1))
INT2 = cast(int, np.int64(2))

#: ``np.int64``, typed for mypy as giving an int: an index read from an int32 array (a row
#: of ``free_rows``) passed on as int64, so a callee compiles once, not once per width.
as_int64 = cast("Callable[[Any], int]", np.int64)
