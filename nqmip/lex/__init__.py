"""The lexicographically first solution (OEIS A141843): the lexicographic descent
(:mod:`nqmip.lex.descent`, a walk down the rows asking a complete prefix oracle: numba
first-fail in :mod:`nqmip.lex.descent_kernels`, CaDiCaL in :mod:`nqmip.lex.sat`), the
row-ordered search (:mod:`nqmip.lex.search`, kernels in :mod:`nqmip.lex.kernels`), and
:func:`lex_first_result` choosing between them; the same order as models for the backends
is in :mod:`nqmip.formulation.lex`."""

from nqmip.lex.search import LexSearch, first_solution, lex_first_result

__all__ = ["LexSearch", "first_solution", "lex_first_result"]
