"""What the commands share: the parser that reports bad input as :class:`UsageError`
(one line, exit status 2) and the argument types both commands take."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from nqmip import files
from nqmip.option_types import text_float, text_int

#: The exit statuses of the package's commands (``nqmip-compare`` too), spelled once.
EXIT_BAD_INPUT = 2
EXIT_SOLVER_FAILED = 1
#: A run stopped by Ctrl-C (128 + SIGINT), its best placement printed.
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """Bad input from the command line: reported in one line with exit status 2."""


def as_flags(flags: dict[str, str], check: Any, *args: Any) -> None:
    """``check(*args)``, its ValueError a :class:`UsageError` naming the command's
    ``flags`` (option name -> flag) where it names the options."""
    import re

    try:
        check(*args)
    except ValueError as exc:
        text = str(exc)
        for name, flag in flags.items():
            text = re.sub(rf"\b{name}\b", flag, text)
        raise UsageError(text) from None


class _StoreOnce(argparse._StoreAction):
    """argparse's ``store`` that refuses an option given twice with two values (argparse
    kept the last: ``--n 5 --n 6`` solved n = 6, the 5 dropped unsaid)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        given: dict[str, tuple[str | None, Any]] = getattr(parser, "given_once", {})
        if self.dest in given and given[self.dest][1] != values:
            first, value = given[self.dest]
            raise UsageError(f"argument {option_string}: given twice ({first} {value} and "
                             f"{option_string} {values}); give it once")
        given[self.dest] = (option_string, values)
        super().__call__(parser, namespace, values, option_string)


class Parser(argparse.ArgumentParser):
    """argparse with bad input as :class:`UsageError`, ``--version``, and an option of one
    value given twice with two values refused (:class:`_StoreOnce`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.given_once: dict[str, tuple[str | None, Any]] = {}
        self.written: dict[str, str] = {}  # each option's value as typed (_get_value)
        self.register("action", None, _StoreOnce)  # the groups share the registry
        self.register("action", "store", _StoreOnce)
        from nqmip._version import __version__

        self.add_argument("--version", action="version", version=f"%(prog)s {__version__}",
                          help="print the version and exit")

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)

    def _get_value(self, action: argparse.Action, arg_string: str) -> Any:
        self.written[action.dest] = arg_string  # a message quotes it as the user typed it
        return super()._get_value(action, arg_string)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """argparse's, with ``--n -inf`` read as ``--n=-inf`` (:func:`glue_words`)."""
        import sys

        self.given_once, self.written = {}, {}
        return super().parse_known_args(
            glue_words(sys.argv[1:] if args is None else args), namespace)


def _negative_number(item: str) -> bool:
    """Whether ``item`` is a number that starts with a dash: argparse takes ``-1`` and
    ``-.5`` for values but ``-inf``, ``-nan`` and ``-1e299`` for options."""
    if not item.startswith("-") or item.startswith("--"):
        return False
    try:
        float(item)
    except ValueError:
        return False
    return True


def glue_words(argv: Sequence[str]) -> list[str]:
    """``--seed -inf`` as ``--seed=-inf`` (and ``--black -1e299``), so that the option's
    own type reads it, or refuses it by name and range (argparse took it for an option
    and said only 'expected one argument'); the other items as they are."""
    out: list[str] = []
    for item in argv:
        if out and _negative_number(item) and out[-1].startswith("--") \
                and "=" not in out[-1]:
            out[-1] = f"{out[-1]}={item}"
        else:
            out.append(item)
    return out


class Queen(tuple[int, int]):
    """A fixed queen (row, column) that remembers how the command line wrote it."""

    text: str

    def __str__(self) -> str:
        """``--fix z9`` as written, with the square it means when that differs."""
        plain = f"{self[0]},{self[1]}"
        return plain if self.text.replace(" ", "") == plain else f"{self.text} ({plain})"


def fixed_queen(text: str) -> tuple[int, int]:
    """A queen as ``ROW,COL`` (0-based) or as a chess square (``e1`` is row 0, column 4):
    :func:`nqmip.instance.parse_queen`, the notation :func:`nqmip.solve` also takes."""
    from nqmip.instance import InstanceError, parse_queen

    try:
        queen = Queen(parse_queen(text))
    except InstanceError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    queen.text = text
    return queen


def queen_text(queen: tuple[int, int]) -> str:
    """How a refusal names a fixed queen: as the command line wrote it (:class:`Queen`),
    else ``ROW,COL``."""
    return str(queen) if isinstance(queen, Queen) else f"{queen[0]},{queen[1]}"


def board_and_fixed(n: int | None, fix: list[tuple[int, int]], fixed_file: Any,
                    default_n: int | None, sized_by: str | None = None
                    ) -> tuple[int, list[tuple[int, int]]]:
    """The board size and the fixed queens of ``--n``, ``--fix`` and ``--fixed`` (the
    solve and count commands'): a queen given twice, a file stating another n, or a queen
    off the board refused, each queen named as the command line wrote it; without ``--n``
    nor a file that states it, ``default_n`` (None: refused). ``sized_by``: what gave
    ``n`` when ``--n`` did not (``--weights FILE``), named where n is at fault."""
    sizes, fixed = sizes_and_fixed(None if n is None else [n], fix, fixed_file, default_n,
                                   sized_by)
    return sizes[0], fixed


def sizes_and_fixed(sizes: Sequence[int] | None, fix: list[tuple[int, int]], fixed_file: Any,
                    default_n: int | None, sized_by: str | None = None
                    ) -> tuple[list[int], list[tuple[int, int]]]:
    """:func:`board_and_fixed` over several board sizes (nqmip-compare's grid): every size
    must be the one a ``--fixed`` file states and hold every queen, the first that does
    not is named (as ``--n``, or as ``sized_by``: the weights file that gave it); the
    file is read once, a file that cannot be read a :class:`UsageError`."""
    fixed = list(fix)
    twice = [q for k, q in enumerate(fixed) if q in fixed[:k]]
    if twice:
        first = fixed[fixed.index(twice[0])]
        also = "" if queen_text(first) == queen_text(twice[0]) else \
            f" (first as --fix {getattr(first, 'text', queen_text(first))})"
        raise UsageError(f"--fix {queen_text(twice[0])} is given twice{also}")
    if fixed_file is not None:
        from nqmip.instances.csplib import FixedFileError, read_fixed

        try:
            data = read_fixed(fixed_file)
        except FixedFileError as exc:
            raise UsageError(str(exc)) from None
        for n in sizes or ():
            if data.n is not None and n != data.n:
                given = f"--n {n}" if sized_by is None else f"{sized_by} is {n} x {n}"
                raise UsageError(f"{given} but --fixed {fixed_file} says n = {data.n}")
        sizes = [data.n] if sizes is None and data.n is not None else sizes
        both = [q for q in data.fixed if q in fixed]
        if both:
            raise UsageError(f"queen {both[0][0]},{both[0][1]} is given twice: by --fix "
                             f"and by --fixed {fixed_file}")
        fixed += data.fixed
    sizes = list(sizes) if sizes is not None else [] if default_n is None else [default_n]
    if not sizes:
        raise UsageError("--n is required (or a --fixed file that states n)")
    for n in sorted(sizes):  # the smallest board that cannot hold a queen is named
        for queen in fixed:
            if queen[0] >= n or queen[1] >= n:
                # a queen of the file is named as the file's (it was called '--fix 0,9')
                where = f"--fix {queen_text(queen)}" if isinstance(queen, Queen) else \
                    f"queen {queen[0]},{queen[1]} of --fixed {fixed_file}"
                every = " (every board of --n must hold it)" if len(sizes) > 1 else ""
                raise UsageError(f"{where} is off the {n} x {n} board: rows and columns "
                                 f"count from 0 to {n - 1}{every}")
    return sizes, fixed


def add_fixed_options(parser: argparse.ArgumentParser, *, path_type: Any = Path) -> None:
    """``--fix ROW,COL`` (repeatable) and ``--fixed FILE``: the pre-placed queens of every
    command (read by :func:`board_and_fixed`)."""
    parser.add_argument("--fix", action="append", type=fixed_queen, default=[],
                        metavar="ROW,COL", help="a pre-placed queen: ROW,COL (0-based) or a "
                                                "square such as e1 (repeatable)")
    parser.add_argument("--fixed", metavar="FILE", type=path_type,
                        help="pre-placed queens from a file (- : standard input): one "
                             "ROW,COL (0-based) or square such as e1 per line ("
                             "# comments), or CSPLib prob079's 'letting n = ...' and "
                             "'letting init = [[r, c], ...]' (0-based)")


def add_value_options(parser: argparse.ArgumentParser) -> None:
    """``--black``, ``--white`` (the chess colours' values) and ``--minimize`` (the weights
    are costs): the instance options of the solve and compare commands."""
    from nqmip.instance import CHESS_BLACK, CHESS_WHITE

    parser.add_argument("--black", type=finite_float, default=None,
                        help=f"value of a black square (default {CHESS_BLACK:g})")
    parser.add_argument("--white", type=finite_float, default=None,
                        help=f"value of a white square (default {CHESS_WHITE:g})")
    parser.add_argument("--minimize", "--minimise", action="store_true",
                        help="the weights are costs: find the cheapest placement (the bound "
                             "is then a lower bound)")


def check_values(black: float | None, white: float | None, minimize: bool,
                 chess: bool, source: str, costs: bool = True,
                 costs_source: str | None = None) -> None:
    """Refuse ``--black``/``--white`` for weights without colours and ``--minimize`` for a
    board without weights (``costs`` False), ``source`` naming what gave the weights: the
    refusals of :func:`nqmip.instance.make_instance`, in the commands' words
    (``costs_source``: how the first names the source, when not as ``source``)."""
    from nqmip.instance import needs_costs, no_colours

    if minimize and not costs:
        raise UsageError(needs_costs("--minimize", costs_source or source))
    given = [flag for flag, value in (("--black", black), ("--white", white))
             if value is not None]
    if given and not chess:
        raise UsageError(no_colours(given, source))


def positive_int(text: str) -> int:
    try:
        value = text_int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"takes a whole number of at least 1, got {value}")
    return value


def typed(name: str) -> Any:
    """The argparse type of the method table's option ``name``: the text read as a whole
    number or a number as the option's type says, then checked by the one validator
    (:func:`nqmip.option_types.check_value`), a refusal saying the accepted range."""
    from nqmip.option_types import TYPES, check_value

    kind = TYPES[name]

    def convert(text: str) -> Any:
        try:  # not a number, or out of the option's range: one refusal
            return check_value(name, text_int(text) if kind.kind == "int" else text_float(text))
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"takes {kind.describe()}, got {text!r}") from None

    convert.__name__ = name  # argparse names the type in its own messages
    return convert


def whole_in(low: int, high: int, unit: str = "") -> Any:
    """The argparse type of a whole number from ``low`` to ``high``: refused otherwise
    by the range, in one line ('takes a whole number from 1 to 256, got ...')."""
    what = f"a whole number{f' of {unit}' if unit else ''} from {low} to {high}"

    def convert(text: str) -> int:
        try:
            value = text_int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"takes {what}, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"takes {what}, got {text!r}")
        return value

    return convert


def seconds_in(high: float, *, zero: bool = False) -> Any:
    """The argparse type of a finite number of seconds above 0 (``zero``: from 0) up to
    ``high``: refused otherwise by the range, in one line."""
    what = (f"a number of seconds from 0 to {high:g}" if zero else
            f"a positive number of seconds, at most {high:g}")

    def convert(text: str) -> float:
        try:
            value = text_float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"takes {what}, got {text!r}") from None
        if not (value >= 0 if zero else value > 0) or not value <= high:
            raise argparse.ArgumentTypeError(f"takes {what}, got {text!r}")
        return value

    return convert


def seed_int(text: str) -> int:
    """A seed: a whole number from 0 to 2**63 - 1 (the method table's ``seed``)."""
    return int(typed("seed")(text))


def seconds(text: str) -> float:
    """A time limit: positive finite seconds (above 1e9: no limit, the caller says so; a
    written "inf" is refused, as a slip more likely than a wish)."""
    value: float = typed("time_limit")(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"takes a positive finite number of seconds (above "
                                         f"1e+09: no limit), got {text!r}")
    return value


def finite_seconds(text: str) -> float:
    """A time limit that must end (``nqmip-compare``'s ``--time-limit`` and
    ``--hard-limit``: each run's process is killed after its limit): the spellings
    :func:`seconds` refuses are refused, and so is a limit above
    :data:`~nqmip.option_types.TIME_LIMIT_MAX`, which the solve command and
    :func:`nqmip.solve` run as no limit; one message for all, saying why."""
    from nqmip.option_types import TIME_LIMIT_MAX

    what = (f"takes a positive number of seconds, at most {TIME_LIMIT_MAX:g} (each run "
            f"needs a finite limit: its process is killed after it), got {text!r}")
    try:
        value = seconds(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(what) from None
    if value > TIME_LIMIT_MAX:
        raise argparse.ArgumentTypeError(what)
    return value


#: The least ``--time-limit`` of the solve command (seconds). Its limit counts from the
#: process's start, and the interpreter, numpy and the answer of the smallest board take
#: 0.35 s on an idle machine (0.6-1.1 s with two busy cores: ``--time-limit 0.2`` exited at
#: 0.55-1.06 s); no lazier import makes 0.2 s: ``python -c pass`` alone took 0.22-0.29 s.
COMMAND_FLOOR = 0.5


def command_seconds(text: str) -> float:
    """The solve command's ``--time-limit``: :func:`seconds`, at least :data:`COMMAND_FLOOR`."""
    value = seconds(text)
    if value < COMMAND_FLOOR:
        raise argparse.ArgumentTypeError(
            f"takes at least {COMMAND_FLOOR:g} s (the limit counts from the command's start, "
            f"and Python and numpy take some 0.35 s to start; nqmip.solve's time_limit "
            f"counts from the call), got {text!r}")
    return value


#: A method's own least ``--time-limit`` where its start-up does not fit in
#: :data:`COMMAND_FLOOR`: glpk and highs-pyomo import Pyomo (0.7 s on an idle machine,
#: 3.3-3.6 s with two busy cores) and write their model through it before the solver
#: starts: glpk at random n = 30 answered at 1.6-2.0 s under limits of 0.5-1.5 s ("did not
#: stop in time"); with 2 s it kept the limit. ``nqmip.solve``'s ``time_limit`` (counted
#: from the call) has no such floor.
METHOD_FLOORS = {"glpk": 2.0, "highs-pyomo": 2.0}


def check_method_floor(method: str, time_limit: float | None) -> None:
    """The solve command's ``--time-limit`` against ``method``'s floor
    (:data:`METHOD_FLOORS`): :class:`UsageError` below it."""
    floor = METHOD_FLOORS.get(method)
    if time_limit is not None and floor is not None and time_limit < floor:
        raise UsageError(
            f"argument --time-limit: takes at least {floor:g} s with --method {method} "
            f"(Pyomo's import and the model's writing come before the solver, and the limit "
            f"counts from the command's start), got {time_limit:g}")


def work_amount(text: str) -> float:
    """A ``--work-limit``: a positive finite number (whole for the methods that count)."""
    value = typed("work_limit")(text)
    return int(value) if float(value).is_integer() and abs(value) < 2**63 else value


def threads_int(text: str) -> int:
    """``--threads``: a whole number from 1 to the method table's most."""
    return int(typed("threads")(text))


def scheduler_address(text: str) -> str:
    """``--scheduler``: a Dask scheduler's address, refused blank (Dask: "missing port")."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"takes a scheduler's address, tcp://host:8786: {text!r}")
    return text


def target_float(text: str) -> float:
    """``--target``: a finite number (the method table's ``target``)."""
    value: float = typed("target")(text)
    return value


def finite_float(text: str) -> float:
    try:
        value = text_float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"takes a finite number, got {text!r}")
    return value


def glue_values(argv: Sequence[str], options: Sequence[str]) -> list[str]:
    """``--fix -1,0`` as ``--fix=-1,0``: argparse would read a value that starts with a
    dash as an option, and say only that ``--fix`` expected an argument."""
    out: list[str] = []
    items = list(argv)
    i = 0
    while i < len(items):
        item = items[i]
        if item in options and i + 1 < len(items) and items[i + 1].startswith("-") \
                and len(items[i + 1]) > 1 and (items[i + 1][1].isdigit()
                                               or items[i + 1][1] == "."):
            out.append(f"{item}={items[i + 1]}")
            i += 2
            continue
        out.append(item)
        i += 1
    return out


def check_writable(path: str | os.PathLike[str], option: str,
                   error: type[Exception] = UsageError) -> None:
    """:func:`nqmip.files.check_writable`, a usage error by default."""
    files.check_writable(path, option, error)


def check_record_file(path: str | os.PathLike[str], option: str = "--record",
                      error: type[Exception] = UsageError) -> None:
    """:func:`nqmip.files.check_record_file`, a usage error by default."""
    files.check_record_file(path, option, error)
