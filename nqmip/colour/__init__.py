"""The colour bound and everything that proves with it (weights constant per colour).

The line model (:mod:`nqmip.formulation.line_model`) and the proven bound on the number of
black queens (:mod:`nqmip.formulation.colour_bound`) sit with the formulations, below this
folder: the model rows of :mod:`nqmip.formulation.strengthen` and the heuristics read them
too.

- :mod:`~nqmip.colour.lines`: line sets (sampling, enumeration), covers, refutation.
- :mod:`~nqmip.colour.exact_cover` (+ ``exact_cover_kernels``): restarted Algorithm X.
- :mod:`~nqmip.colour.search` (+ ``walk_kernels``): a placement with a given black count.
- :mod:`~nqmip.colour.proof`: search, refute, search again; the proof by the bound.
- :mod:`~nqmip.colour.certificate`: what a sceptic needs to re-check a proof
  (tools/check_frontier.py re-checks it by other solvers).

Nothing heavy is imported here: numba, HiGHS and CP-SAT load inside the functions.
"""
