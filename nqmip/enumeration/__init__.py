"""Exhaustive search on bitboards: counting and listing every solution (:mod:`.count`), the
optimal placements of small boards (:mod:`.optimal`) and the completion search for
pre-placed queens (:mod:`.completion`), each with its numba kernels beside it."""
