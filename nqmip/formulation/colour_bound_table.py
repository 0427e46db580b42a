"""Placeholder until tools/colour_bound_table.py --write."""

MOST: tuple[int | None, ...] = ()
LEAST: tuple[int | None, ...] = ()
