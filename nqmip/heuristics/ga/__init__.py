"""The genetic algorithm: the run (:mod:`.run`), the operator base and the concrete
operators (:mod:`.base`, :mod:`.operators`), parameters and presets (:mod:`.config`), and
numba code (:mod:`.codes`, :mod:`.operator_kernels`, :mod:`.kernels`)."""
