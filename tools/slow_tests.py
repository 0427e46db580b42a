"""The slow tests: those the fast lane (``python -m pytest -m "not slow"``) leaves to the
whole suite, listed in tests/slow_tests.txt by test function, from a run's durations.

    python -m pytest -q --durations=0 > durations.log
    python tools/slow_tests.py durations.log --write

A test function is slow when one of its cases took more than ``--case`` seconds (setup
included: a module's warm-up counts for its first test) or all of them together more than
``--total``. tests/conftest.py marks the functions listed."""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIST = ROOT / "tests" / "slow_tests.txt"
LINE = re.compile(r"^([0-9.]+)s (?:call|setup|teardown)\s+(\S+)")


def slow_functions(log: str, case: float, total: float) -> tuple[list[str], float, float]:
    """The slow test functions, and the seconds of the fast lane and of the whole run."""
    per_case: dict[str, float] = defaultdict(float)
    for line in log.splitlines():
        match = LINE.match(line)
        if match:  # a log of -n 2 names a grouped test "<id>@<group>"
            per_case[match.group(2).split("@", 1)[0]] += float(match.group(1))
    per_function: dict[str, list[float]] = defaultdict(list)
    for name, seconds in per_case.items():
        per_function[name.split("[", 1)[0]].append(seconds)
    slow = sorted(f for f, cases in per_function.items()
                  if max(cases) > case or sum(cases) > total)
    fast = sum(sum(c) for f, c in per_function.items() if f not in slow)
    return slow, fast, sum(per_case.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("log", type=Path, help="the output of pytest --durations=0")
    parser.add_argument("--case", type=float, default=2.0)
    parser.add_argument("--total", type=float, default=4.0)
    parser.add_argument("--write", action="store_true", help="write tests/slow_tests.txt")
    args = parser.parse_args()
    slow, fast, whole = slow_functions(args.log.read_text(), args.case, args.total)
    print(f"{len(slow)} slow test functions; fast lane {fast:.0f} s of {whole:.0f} s "
          "(tests alone, in that run)", file=sys.stderr)
    text = ("# Test functions the fast lane leaves out (python tools/slow_tests.py LOG "
            "--write)\n" + "".join(f"{name}\n" for name in slow))
    if args.write:
        LIST.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
