"""The lexicographically first solution (OEIS A141843): an exact search
(:mod:`nqmip.lex.search`, kernels in :mod:`nqmip.lex.kernels`); the same order as models
for the backends is in :mod:`nqmip.formulation.lex`."""

from nqmip.lex.search import LexSearch, first_solution, lex_first_result

__all__ = ["LexSearch", "first_solution", "lex_first_result"]
