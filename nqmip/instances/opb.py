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

from nqmip.files import write_whole
from nqmip.instance import Instance, InstanceError, make_instance, whole

#: One term of a statement, ``+3 x12``: an integer coefficient (OPB has no others) and a
#: variable; a statement is terms and nothing else (``1.5e3 x1`` was read as ``3 x1``).
_TERM = re.compile(r"([+-]?\d+)\s+x(\d+)", re.ASCII)
_TERMS = re.compile(r"(?:\s*[+-]?\d+\s+x\d+)*\s*", re.ASCII)
#: The writer's mark of a negated maximisation, whatever the spacing (tabs flipped it).
_MAXIMISE = re.compile(r"maximise\s+\(objective\s+negated\)")


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
    if not whole(weights):  # np.allclose took 1000000.3 (rtol 1e-5) and wrote 1000000
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
    write_whole(path, opb_text(instance))


def read_opb(path: str | Path) -> Instance:
    """An OPB file written by :func:`opb_text` (or any file with the same constraints) as an
    instance; anything else raises :class:`InstanceError` naming what differs."""
    from nqmip.capacity import CapacityError, check_fits
    from nqmip.instances.csplib import read_text_input

    # a missing file or a folder: an InstanceError naming it (was OSError, unlike the
    # other readers of the package's families)
    text = read_text_input(path, "OPB file")
    header = re.search(r"#variable=\s*([0-9]+)", text)
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
    for var, coef in _terms(statements[0][4:], n, path, "the objective").items():
        costs[var] = coef
    maximise = _MAXIMISE.search(text) is not None
    found = [_constraint(statement, n, path) for statement in statements[1:]]
    expected = sorted((sorted(c), k) for c, k in _lines(n))
    if sorted(found) != expected:
        raise InstanceError(f"{path}: the constraints are not those of the {n}-queens model")
    weights = (-costs if maximise else costs).reshape(n, n)
    return make_instance(n, weights, sense="max" if maximise else "min")


def _terms(body: str, n: int, path: str | Path, where: str) -> dict[int, int]:
    """The terms of a statement's left side as ``{square: coefficient}`` (0-based squares),
    InstanceError naming ``where`` for anything else: a term that is not an integer times
    a variable, a variable off the n x n board (x0 wrote the last square, x99 of 16
    squares met an IndexError) or one given twice (the second overwrote the first)."""
    if not _TERMS.fullmatch(body):
        raise InstanceError(f"{path}: {where} must be terms '+c xk' with integer c, got "
                            f"{body.strip()[:60]!r}")
    out: dict[int, int] = {}
    for coef, var in _TERM.findall(body):
        k = int(var)
        if not 1 <= k <= n * n:
            raise InstanceError(f"{path}: {where} names x{k}, off the {n * n} squares "
                                f"x1..x{n * n}")
        if k - 1 in out:
            raise InstanceError(f"{path}: {where} names x{k} twice")
        out[k - 1] = int(coef)
    return out


def _constraint(statement: str, n: int, path: str | Path) -> tuple[list[int], str]:
    """A constraint as ``(squares, "=" or "<=")``: ``+1 ... = 1`` (exactly one) or
    ``-1 ... >= -1`` (at most one), the only two the n-queens model has; any other
    (coefficients of 2, ``+1 ... >= -1``, which holds always) is not the model's."""
    match = re.fullmatch(r"(.*?)(>=|=)\s*([+-]?[0-9]+)", statement, flags=re.S)
    if match is None:
        raise InstanceError(f"{path}: a constraint must be 'terms = 1' or 'terms >= -1', "
                            f"got {statement[:60]!r}")
    terms = _terms(match.group(1), n, path, "a constraint")
    relation, rhs = match.group(2), int(match.group(3))
    unit = 1 if relation == "=" else -1
    if rhs != unit or any(c != unit for c in terms.values()):
        raise InstanceError(f"{path}: the constraints are not those of the {n}-queens model "
                            f"({statement[:60]!r})")
    return sorted(terms), "=" if relation == "=" else "<="
