"""Branch and bound over rows for any weights: the assignment bound with Lagrangian
multipliers on the diagonals (:mod:`nqmip.bnb.kernels`, driven by :mod:`nqmip.bnb.search`)."""
