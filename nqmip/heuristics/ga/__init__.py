"""The genetic algorithm: the driver, operators and presets (:mod:`.run`) and its numba
kernels (:mod:`.kernels`)."""
