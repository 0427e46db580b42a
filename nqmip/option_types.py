"""The type, range and unit of every option of the method table (:mod:`nqmip.methods`),
declared once, and the one validator that reads them: :func:`check_value`.

:func:`nqmip.solve`, :func:`nqmip.lex_first`, the three commands and ``nqmip-compare``'s
``--param`` all check an option's value here, so a value is refused (or taken) the same
way at every door, each refusal naming the parameter and the range it accepts. Numpy's
scalars are taken wherever Python's numbers are (``seed=np.int64(3)``), and turned into
them; a boolean is only a boolean (``unique="no"`` is refused, not read as true).

Where solvers differ (the most threads, the most work a counter holds) a method's own
maximum is declared on its row of the table (:attr:`nqmip.methods.Method.most`) and given
to :func:`check_value` as ``most``.

Policies, one for each kind of excess:

- ``threads`` above :data:`THREADS_MAX` is refused: a solver handed 100,000 threads
  starts tens of thousands of them (HiGHS) or rejects the model without a reason
  (CP-SAT). The maximum does not depend on the machine, so a command that runs here runs
  everywhere;
- ``time_limit`` above :data:`TIME_LIMIT_MAX` (about 31 years) means no limit, with a note
  (:func:`time_limit_note`): solvers read such numbers as overflowing integers. A backend
  whose solver takes less (glpsol counts milliseconds in 32 bits) is given its own most
  (:attr:`nqmip.methods.Method.most`), which ends no earlier than the call's clock allows.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

import numpy as np

#: The most threads any method is given (refused above): a machine-independent ceiling.
THREADS_MAX = 256
#: A time limit above this many seconds (about 31.7 years) is no limit at all.
TIME_LIMIT_MAX = 1e9
#: The most worker processes of a count (nqmip-count --workers, count_solutions(workers=))
#: or of bnb's local Dask cluster (solve(method="bnb", workers=)).
WORKERS_MAX = 256
#: 2^63 - 1: a seed is a 64-bit integer.
SEED_MAX = 2**63 - 1


def text_int(text: str) -> int:
    """A whole number written as text, as every door reads one (the commands' options,
    ``--fix``, the files of fixed queens): ASCII digits with an optional sign, spaces
    around allowed; ValueError otherwise. Python's ``int`` also takes ``1_000`` and other
    scripts' digits (``'\u0663'``), which the weights files' reader (NumPy's) refuses: one
    rule at every door."""
    if not text.isascii() or "_" in text:
        raise ValueError(f"not a number: {text!r}")
    return int(text)


def text_float(text: str) -> float:
    """A number written as text, as every door reads one: Python's ``float`` on ASCII
    text without underscores (:func:`text_int`'s rule); ValueError otherwise."""
    if not text.isascii() or "_" in text:
        raise ValueError(f"not a number: {text!r}")
    return float(text)


@dataclass(frozen=True)
class OptionType:
    """An option's type (``int``, ``number``, ``bool``; ``any``: checked by its own code),
    its range ``low``..``high`` (``open_low``: ``low`` itself excluded), its unit, and what
    a value above ``high`` means: ``refuse`` or ``no_limit``."""

    kind: Literal["int", "number", "bool", "callable", "path", "any"]
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    unit: str = ""
    above: Literal["refuse", "no_limit"] = "refuse"

    def describe(self, high: float | None = None) -> str:
        """The accepted values in words: 'a whole number from 1 to 256', 'a positive
        number of units, at most 2147483647', ..."""
        high = self.high if high is None else high
        if self.kind == "bool":
            return "True or False"
        if self.kind == "any":
            return "any value its method reads"
        if self.kind == "callable":
            return "a function (or None)"
        if self.kind == "path":
            return "a file's path (str or pathlib.Path), not a folder"
        what = "a whole number" if self.kind == "int" else "a number"
        if self.open_low and self.low == 0:
            what = what.replace("a ", "a positive ", 1)
        if self.unit:
            what = f"{what} of {self.unit}"
        if self.above == "no_limit":  # the high end is where no limit begins
            return f"{what} (above {_show(high or math.inf)}: no limit)"
        if self.low is None:
            return f"a finite {what.removeprefix('a ')}"
        if high is None:
            return what if self.open_low and self.low == 0 else \
                f"{what} {'above' if self.open_low else 'at least'} {_show(self.low)}"
        if self.open_high:
            return f"{what} at least {_show(self.low)} and below {_show(high)}"
        if self.open_low:
            return (f"{what}, at most {_show(high)}" if self.low == 0 else
                    f"{what} above {_show(self.low)}, at most {_show(high)}")
        return f"{what} from {_show(self.low)} to {_show(high)}"


def _show(value: float) -> str:
    """A bound as people read it: 256, 0.5, 1e+09, 2147483647."""
    if float(value).is_integer() and (abs(value) < 1e7 or 2**31 - 1 <= abs(value) < 2**64):
        return str(int(value))
    return f"{value:g}"


#: Every option of :data:`nqmip.methods.OPTIONS` (and the call's own ``time_limit``) with
#: its type and range; ``any``: a placement, a callable, queens: checked where they are read.
TYPES: dict[str, OptionType] = {
    "seed": OptionType("int", 0, SEED_MAX),
    "threads": OptionType("int", 1, THREADS_MAX),
    "mip_gap": OptionType("number", 0.0, 1.0, open_high=True),
    "strengthen": OptionType("bool"),
    "bound_proof": OptionType("bool"),
    "verbose": OptionType("bool"),
    "target": OptionType("number"),
    "work_limit": OptionType("number", 0.0, float(2**62), open_low=True, unit="units"),
    "time_limit": OptionType("number", 0.0, TIME_LIMIT_MAX, open_low=True, unit="seconds",
                             above="no_limit"),
    "warm_start": OptionType("any"),
    "on_progress": OptionType("callable"),
    "fixed": OptionType("any"),
    # the counting's own (nqmip.enumeration.count.count_solutions, nqmip-count)
    "unique": OptionType("bool"),
    # the counting's and bnb's: a local Dask cluster (bnb) or processes (the count)
    "workers": OptionType("int", 1, WORKERS_MAX),
    "scheduler": OptionType("any"),
    "record": OptionType("path"),
}


def number(value: Any, name: str, *, whole: bool = False) -> int | float:
    """``value`` as a Python int (``whole``: Python's and numpy's integers) or float (also
    their reals, and exact numbers: Fraction, Decimal); TypeError naming ``name`` for
    anything else (a bool, a string, None)."""
    if isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be {'a whole number' if whole else 'a number'}, "
                        f"not a boolean ({value!r})")
    if isinstance(value, numbers.Integral):
        return int(value)
    if whole:
        raise TypeError(f"{name} must be a whole number, got {type(value).__name__} "
                        f"{value!r}")
    if isinstance(value, numbers.Real | Decimal):
        return float(value)
    raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")


def check_value(name: str, value: Any, *, most: float | None = None,
                who: str = "") -> Any:
    """``value`` checked against the type and range of option ``name`` (:data:`TYPES`),
    as a plain Python value (None stays None). ``most``: the method's own maximum, with
    ``who`` naming it. TypeError for the wrong type, ValueError for a value out of range,
    each naming ``name`` and the values it accepts. A ``no_limit`` option above its range
    comes back as it is: :func:`time_limit_note` says what it means."""
    kind = TYPES[name]
    if value is None or kind.kind == "any":
        return value
    if kind.kind == "callable":  # 5 met "'int' object is not callable" on the first report
        if callable(value):
            return value
        raise TypeError(f"{name} must be {kind.describe()}, got {type(value).__name__} "
                        f"{value!r}")
    if kind.kind == "path":  # a folder met IsADirectoryError, 5 os.fspath's own words
        return _path(name, value, kind)
    if kind.kind == "bool":
        if isinstance(value, bool | np.bool_):
            return bool(value)
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} "
                        f"{value!r}")
    try:
        plain = number(value, name, whole=kind.kind == "int")
    except TypeError:
        raise TypeError(f"{name} must be {kind.describe(most)}, got "
                        f"{type(value).__name__} {value!r}") from None
    high = kind.high if most is None else most
    low_ok = kind.low is None or (plain > kind.low if kind.open_low else plain >= kind.low)
    beyond = high is not None and (plain >= high if kind.open_high else plain > high)
    if not (math.isfinite(plain) or (plain == math.inf and kind.above == "no_limit")) \
            or not low_ok or (beyond and kind.above == "refuse"):
        owner = f" for {who}" if who and most is not None else ""
        raise ValueError(f"{name} must be {kind.describe(high)}{owner}, got {value!r}")
    return plain


def _path(name: str, value: Any, kind: OptionType) -> Any:
    """``value`` when it names a file (or none yet); TypeError or ValueError otherwise."""
    import os

    if not isinstance(value, str | os.PathLike) or isinstance(value, bytes):
        raise TypeError(f"{name} must be {kind.describe()}, got {type(value).__name__} "
                        f"{value!r}")
    if not os.fspath(value) or os.path.isdir(value):
        raise ValueError(f"{name} must be {kind.describe()}, got {os.fspath(value)!r}")
    return value


def time_limit_note(seconds: float | None, name: str = "time_limit") -> str | None:
    """The note for a time limit read as no limit (above :data:`TIME_LIMIT_MAX`)."""
    if seconds is None or seconds <= TIME_LIMIT_MAX:
        return None
    return (f"{name} {seconds:g} s is beyond {TIME_LIMIT_MAX:g} s (about 31 years): "
            "run without a time limit")


def time_limit(value: Any, name: str = "time_limit") -> float | None:
    """A call's time limit: seconds, checked (:func:`check_value`); None for no limit,
    which is also what a limit above :data:`TIME_LIMIT_MAX` means."""
    seconds = check_value("time_limit", value)
    if seconds is None or seconds > TIME_LIMIT_MAX:
        return None
    return float(seconds)


def call_deadline(limit: Any, stacklevel: int = 3) -> Any:
    """A call's one :class:`~nqmip.budget.Deadline`: the caller's own, or ``limit`` seconds
    from now, checked (:func:`check_value`); above :data:`TIME_LIMIT_MAX` no limit, with
    a warning saying so (:func:`time_limit_note`)."""
    from nqmip.budget import Deadline

    if limit is None or isinstance(limit, Deadline):
        return Deadline.of(limit)
    seconds = check_value("time_limit", limit)
    note = time_limit_note(seconds)
    if note is not None:
        import warnings

        warnings.warn(note, stacklevel=stacklevel)
        return Deadline(None)
    return Deadline(float(seconds))
