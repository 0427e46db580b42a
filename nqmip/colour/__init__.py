"""The colour bound and everything that proves with it (weights constant per colour).

- :mod:`~nqmip.colour.line_model`: the line model, one description, two emitters (HiGHS, CP-SAT).
- :mod:`~nqmip.colour.bound`: the proven bound on the number of black queens.
- :mod:`~nqmip.colour.lines`: line sets (sampling, enumeration), covers, refutation.
- :mod:`~nqmip.colour.exact_cover` (+ ``exact_cover_kernels``): restarted Algorithm X.
- :mod:`~nqmip.colour.search` (+ ``walk_kernels``): a placement with a given black count.
- :mod:`~nqmip.colour.proof`: search, refute, search again; the proof by the bound.
- :mod:`~nqmip.colour.certificate`: what a sceptic needs to re-check a proof
  (tools/check_frontier.py re-checks it by other solvers).

Nothing heavy is imported here: numba, HiGHS and CP-SAT load inside the functions.
"""
