"""The counting doors agree and refuse alike (a fault hunt of the count command and the
API): beyond n = 32 with fixed queens the count ran on the free board but --workers,
--scheduler and record were taken and dropped, and --list, --plot and nqmip.solutions
refused the board the count took; enumerate_optimal crashed at n = 28..32 and listed
completions until memory ran out; unique='no' was True, batch=10**12 asked numpy for
58 TiB; lex_first's search parameters met numba's typing errors; a count stopped with
--record=FILE did not say its record was kept."""

from __future__ import annotations

import itertools
import math
import signal
from pathlib import Path
from typing import Any

import pytest

import nqmip
from nqmip.cli.count import build_parser, count_main
from nqmip.cli.signals import Stop
from nqmip.enumeration import optimal
from nqmip.enumeration.count import MAX_N, CountError, solutions
from nqmip.enumeration.optimal import EnumerationError
from nqmip.verify import is_solution

N = 40
QUEENS = [*range(1, N, 2), *range(0, N, 2)]  # a solution of n = 40
FIXED = {r: QUEENS[r] for r in range(22)}  # beyond the bitboards: the free board's


def test_the_free_board_lists_what_it_counts() -> None:
    listed = list(solutions(N, FIXED))
    assert len(listed) == nqmip.count_solutions(N, FIXED) > 1
    assert len(set(listed)) == len(listed)
    assert all(is_solution(p, FIXED) for p in listed)


@pytest.mark.parametrize("n", range(4, 10))
def test_the_free_board_listing_is_the_bitboards(n: int) -> None:
    """Every single fixed queen: the free board's search lists the same completions as
    the bitboard enumerator (its order differs: first-fail)."""
    from nqmip.enumeration.count import _generate_free
    from nqmip.instance import make_instance

    for row, col in itertools.product(range(n), range(n)):
        assert set(_generate_free(make_instance(n, None, {row: col}))) \
            == set(solutions(n, {row: col})), (row, col)


@pytest.mark.parametrize("door", ["each_completion", "solutions"])
def test_too_many_free_rows_are_refused_where_the_listing_is_asked(door: str) -> None:
    """A listing of more free rows than the search takes is refused by the call itself,
    not at the first next() (a generator's body runs only then)."""
    from nqmip.enumeration.completion import MAX_FREE, each_completion
    from nqmip.instance import InstanceError, make_instance

    n = MAX_N + MAX_FREE + 2  # one fixed queen leaves more than MAX_FREE free rows
    with pytest.raises(InstanceError, match="free rows"):
        if door == "solutions":
            solutions(n, {0: 0})
        else:
            each_completion(make_instance(n, None, {0: 0}))


@pytest.mark.parametrize("given", [{"workers": 2}, {"scheduler": "tcp://127.0.0.1:1"},
                                   {"record": "r.jsonl"}], ids=["workers", "scheduler",
                                                                "record"])
def test_options_a_free_board_count_cannot_use_are_refused(given: dict[str, Any],
                                                           tmp_path: Path) -> None:
    if "record" in given:
        given = {"record": str(tmp_path / "r.jsonl")}
    name = next(iter(given))  # named by the API's parameter, as the command names its option
    with pytest.raises(CountError, match=f"^{name}: .*drop {name}"):
        nqmip.count_solutions(N, FIXED, **given)
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("option", [["--workers", "2"], ["--scheduler", "tcp://127.0.0.1:1"],
                                    ["--record", "r.jsonl"]], ids=lambda o: o[0])
def test_the_command_refuses_them_in_one_line(option: list[str], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    fixes = [a for r, c in FIXED.items() for a in ("--fix", f"{r},{c}")]
    if option[0] == "--record":
        option = ["--record", str(tmp_path / "r.jsonl")]
    assert count_main(["--n", str(N), *fixes, *option]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and option[0] in err and "drop" in err, err


def test_the_command_lists_the_board_it_counts(capsys: pytest.CaptureFixture[str]) -> None:
    fixes = [a for r, c in FIXED.items() for a in ("--fix", f"{r},{c}")]
    assert count_main(["--n", str(N), *fixes, "--list", "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == nqmip.count_solutions(N, FIXED)


@pytest.mark.parametrize("unique", ["no", 1])
def test_solutions_takes_unique_as_a_boolean(unique: Any) -> None:
    with pytest.raises(CountError, match="unique"):
        next(solutions(8, unique=unique))


@pytest.mark.parametrize("batch", [0, 10**12, 2.5, True])
def test_solutions_refuses_a_batch_it_cannot_hold(batch: Any) -> None:
    with pytest.raises(CountError, match="batch"):
        next(solutions(8, batch=batch))


@pytest.mark.parametrize("n", range(MAX_N - 4, MAX_N + 1))
def test_enumerating_a_board_whose_count_is_unknown_is_refused_in_a_line(n: int) -> None:
    with pytest.raises(EnumerationError) as refused:
        nqmip.enumerate_optimal(n)
    assert "\n" not in str(refused.value) and "max_solutions" in str(refused.value)


@pytest.mark.parametrize("weights", [None, "ones"])
def test_a_listing_past_its_memory_is_refused_as_it_grows(
        weights: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixed queens (or ties of the weights): the number is not known up front; the list
    stops at the machine's share (made small here) instead of running out of memory."""
    import numpy as np

    monkeypatch.setattr(optimal, "LIST_BYTES", 2**20)  # about 5,000 placements of n = 14
    w = None if weights is None else np.ones((14, 14))
    with pytest.raises(EnumerationError, match="max_solutions"):
        nqmip.enumerate_optimal(14, w, fixed={0: 5}, time_limit=None)
    _, kept = nqmip.enumerate_optimal(14, w, fixed={0: 5}, max_solutions=10,
                                      time_limit=None)
    assert len(kept) == 10 and all(is_solution(p, {0: 5}) for p in kept)


@pytest.mark.parametrize("engine", ["bitboard", "cpsat"])
@pytest.mark.parametrize("limit", ["x", -1, math.nan])
def test_both_engines_refuse_a_bad_time_limit_alike(engine: str, limit: Any) -> None:
    with pytest.raises((TypeError, ValueError), match="time limit"):
        nqmip.enumerate_optimal(6, engine=engine, time_limit=limit)  # type: ignore[arg-type]


@pytest.mark.parametrize("given", [{"oracle_from": "x"}, {"oracle_from": [1]},
                                   {"oracle_from": 1.5}, {"oracle_from": -5},
                                   {"oracle_from": 8}, {"oracle_cap": 2**70},
                                   {"oracle_cap": 1e9}, {"oracle_cap": 0}])
def test_the_search_routes_parameters_are_checked(given: dict[str, Any]) -> None:
    with pytest.raises((TypeError, ValueError)) as refused:
        nqmip.lex_first(8, method="search", **given)
    said = str(refused.value)
    assert "\n" not in said and next(iter(given)) in said, said


@pytest.mark.parametrize("spelling", [["--record", "r.jsonl"], ["--record=r.jsonl"],
                                      ["--rec", "r.jsonl"]])
def test_a_stopped_count_says_its_record_is_kept_however_it_was_spelled(
        spelling: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from nqmip.cli.count import _stopped

    args = build_parser().parse_args(["--n", "17", *spelling])
    stop = Stop()
    stop.signum = signal.SIGTERM
    assert _stopped(stop, args) == 143
    assert "kept in the record" in capsys.readouterr().err


def test_the_listed_columns_are_one_line_however_wide(
        capsys: pytest.CaptureFixture[str]) -> None:
    """rich broke n = 40's columns at 100 characters: a reader copied half a placement."""
    fixes = [a for r, c in FIXED.items() for a in ("--fix", f"{r},{c}")]
    assert count_main(["--n", str(N), *fixes, "--list", "--limit", "1"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("# 1: ")
    columns = tuple(int(c) for c in first.removeprefix("# 1: ").split(","))
    assert columns == next(solutions(N, FIXED))
