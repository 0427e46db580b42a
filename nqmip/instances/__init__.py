"""Readers and generators of published instance families: CSPLib prob079's completion and
excluded-diagonals instances (:mod:`.csplib`)."""
