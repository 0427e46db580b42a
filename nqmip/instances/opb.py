"""The pseudo-Boolean competitions' OPB format: any PB solver can take nqmip's instances.

:func:`opb_text` writes the textbook model (one 0/1 variable ``x{k}`` per square, row-major,
``k = n * i + j + 1``; each row and column exactly one queen; each diagonal and
anti-diagonal at most one, written ``>= -1`` over the negated terms, as OPB has no
``<=``; the objective ``min:`` of the costs, or of the negated weights for a
maximisation). :func:`read_opb` reads such a file back into an :class:`Instance` and checks
that its constraints are exactly the n-queens ones.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from nqmip.instance import Instance, InstanceError, make_instance

_TERM = re.compile(r"([+-]?\d+(?:\.\d+)?)\s+x(\d+)")


def _lines(n: int) -> list[tuple[list[int], str]]:
    """The constraints: (squares, "=" or "<=")."""
    out: list[tuple[list[int], str]] = []
    out += [([n * i + j for j in range(n)], "=") for i in range(n)]
    out += [([n * i + j for i in range(n)], "=") for j in range(n)]
    for d in range(-(n - 1), n):
        cells = [n * i + (i - d) for i in range(n) if 0 <= i - d < n]
        if len(cells) > 1:
            out.append((cells, "<="))
    for s in range(2 * n - 1):
        cells = [n * i + (s - i) for i in range(n) if 0 <= s - i < n]
        if len(cells) > 1:
            out.append((cells, "<="))
    return out


def opb_text(instance: Instance) -> str:
    """The instance as an OPB file (integer weights only: OPB coefficients are integers)."""
    if instance.fixed:
        raise InstanceError("OPB export takes boards without fixed queens")
    n = instance.n
    weights = instance.weight_matrix()
    if not np.allclose(weights, np.round(weights)):
        raise InstanceError("OPB coefficients are integers: the weights are not")
    sign = 1 if instance.sense == "min" else -1  # OPB minimises
    lines = _lines(n)
    head = [f"* #variable= {n * n} #constraint= {len(lines)}",
            f"* nqmip: {n}-queens, weights {instance.name}, "
            f"{'minimise' if sign == 1 else 'maximise (objective negated)'}"]
    objective = " ".join(f"{sign * round(w):+d} x{k + 1}"
                         for k, w in enumerate(weights.ravel().tolist()) if round(w) != 0)
    body = [f"min: {objective} ;"]
    for cells, kind in lines:
        if kind == "=":
            body.append(" ".join(f"+1 x{k + 1}" for k in cells) + " = 1 ;")
        else:
            body.append(" ".join(f"-1 x{k + 1}" for k in cells) + " >= -1 ;")
    return "\n".join(head + body) + "\n"


def write_opb(instance: Instance, path: str | Path) -> None:
    Path(path).write_text(opb_text(instance))


def read_opb(path: str | Path) -> Instance:
    """An OPB file written by :func:`opb_text` (or any file with the same constraints) as an
    instance; anything else raises :class:`InstanceError` naming what differs."""
    from nqmip.capacity import CapacityError, check_fits
    from nqmip.instances.csplib import read_text_input

    # a missing file or a folder: an InstanceError naming it (was OSError, unlike the
    # other readers of the package's families)
    text = read_text_input(path, "OPB file")
    header = re.search(r"#variable=\s*(\d+)", text)
    if header is None:
        raise InstanceError(f"{path}: no '* #variable= N' header line")
    n = math.isqrt(int(header.group(1)))
    if n * n != int(header.group(1)):
        raise InstanceError(f"{path}: {header.group(1)} variables is not a square board")
    try:  # before its n x n weights: the header's n is the file's word
        check_fits(n, dense_weights=True, method=f"{path}'s weights (a dense n x n matrix)")
    except CapacityError as exc:
        raise InstanceError(str(exc)) from None
    statements = [s.strip() for s in re.sub(r"^\*.*$", "", text, flags=re.M).split(";")]
    statements = [s for s in statements if s]
    if not statements or not statements[0].startswith("min:"):
        raise InstanceError(f"{path}: the first statement must be the 'min:' objective")
    costs = np.zeros(n * n)
    for coef, var in _TERM.findall(statements[0][4:]):
        costs[int(var) - 1] = float(coef)
    maximise = "maximise (objective negated)" in text
    found = []
    for statement in statements[1:]:
        terms = _TERM.findall(statement)
        cells = sorted(int(v) - 1 for _, v in terms)
        kind = "=" if re.search(r"[^<>]=\s*1$", statement) else "<="
        found.append((cells, kind))
    expected = sorted((sorted(c), k) for c, k in _lines(n))
    if sorted(found) != expected:
        raise InstanceError(f"{path}: the constraints are not those of the {n}-queens model")
    weights = (-costs if maximise else costs).reshape(n, n)
    return make_instance(n, weights, sense="max" if maximise else "min")
