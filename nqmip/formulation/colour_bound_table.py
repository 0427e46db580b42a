"""The colour bound of every board without fixed queens, n = 0 .. 128: how many black
queens a placement can hold at most (``MOST``) and at least (``LEAST``), from the line
model of :mod:`nqmip.formulation.line_model` (HiGHS, 120 s a side, the dual bound
rounded to n's parity; None where the model is infeasible: n = 2, 3). Written by
``python tools/colour_bound_table.py --write``; do not edit by hand.
HiGHS proved every entry optimal for the line model."""

MOST: tuple[int | None, ...] = (
    0, 1, None, None, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 12, 15, 14, 15, 16, 17, 18, 19,
    20, 21, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 36, 37,
    38, 39, 40, 41, 42, 43, 44, 43, 44, 45, 46, 47, 48, 49, 50, 51, 50, 51, 52, 53, 54, 55, 56, 57,
    58, 59, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 66, 67, 68, 69, 70, 71, 72, 73, 74, 73, 74, 75,
    76, 77, 78, 79, 80, 81, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 88, 89, 90, 91, 92, 93, 94, 95,
    96, 95, 96, 97, 98, 99, 100,
)
LEAST: tuple[int | None, ...] = (
    0, 1, None, None, 2, 1, 2, 3, 4, 3, 4, 3, 4, 3, 4, 5, 4, 5, 6, 5, 6, 5, 6, 5, 6, 7, 6, 7, 8, 7,
    8, 7, 8, 9, 8, 9, 8, 9, 10, 9, 10, 9, 10, 11, 10, 11, 10, 11, 12, 11, 12, 11, 12, 13, 12, 13,
    12, 13, 14, 13, 14, 13, 14, 15, 14, 15, 16, 15, 16, 15, 16, 15, 16, 17, 16, 17, 18, 17, 18, 17,
    18, 19, 18, 19, 18, 19, 20, 19, 20, 19, 20, 21, 20, 21, 20, 21, 22, 21, 22, 21, 22, 23, 22, 23,
    24, 23, 24, 23, 24, 25, 24, 25, 24, 25, 26, 25, 26, 25, 26, 27, 26, 27, 26, 27, 28, 27, 28, 27,
    28,
)
