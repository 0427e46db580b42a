"""Readers and generators of instances: CSPLib prob079's completion and excluded-diagonals
instances (:mod:`.csplib`), the OPB format (:mod:`.opb`), and weight matrices from files
(:mod:`.weights_file`, ``nqmip.read_weights``)."""
