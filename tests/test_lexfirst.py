"""The lexicographically first solution: the search, the models, the façade, the CLI.

Oracles: an independent plain backtracking in pure Python (below; no propagation, no
bitsets), and the rows of OEIS A141843 (https://oeis.org/A141843, "lexicographically
first solution of the n-queens problem", 1-based), n = 8 and n = 12 as printed there.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import nqmip
from nqmip.budget import Deadline
from nqmip.lex import first_solution
from nqmip.methods import LEX_METHODS
from nqmip.verify import is_solution
from tests.scripts import load_script

# OEIS A141843, rows n = 8, 12 and 30 (1-based columns).
A141843 = {
    8: (1, 5, 8, 6, 3, 7, 2, 4),
    12: (1, 3, 5, 8, 10, 12, 6, 11, 2, 7, 9, 4),
    30: (1, 3, 5, 2, 4, 9, 11, 13, 15, 7, 23, 26, 28, 25, 22, 24, 30, 27, 29, 16, 12, 10, 8,
         6, 18, 20, 17, 14, 21, 19),
}


def need_sat() -> None:
    """python-sat, or skip; under CI=true it must be there (the extra is installed)."""
    if os.environ.get("CI") == "true":
        import pysat.solvers  # noqa: F401
    else:
        pytest.importorskip("pysat.solvers")


def plain_first(n: int, fixed: dict[int, int] | None = None) -> tuple[int, ...] | None:
    """Textbook backtracking, rows in order, columns ascending: its first solution."""
    return _plain_first(n, tuple(sorted((fixed or {}).items())))


@functools.cache
def _plain_first(n: int, pairs: tuple[tuple[int, int], ...]) -> tuple[int, ...] | None:
    """:func:`plain_first`, once per board for the session: the reference answers of
    n = 18, 21, 23 and 25 take seconds each in pure Python, and seven tests ask for them
    (each oracle's descent, each oracle_from, the search)."""
    fixed = dict(pairs)
    cols: list[int] = []

    def free(r: int, c: int) -> bool:
        return all(c != q and abs(c - q) != r - i for i, q in enumerate(cols))

    def go(r: int) -> bool:
        if r == n:
            return True
        for c in ([fixed[r]] if r in fixed else range(n)):
            if free(r, c):
                cols.append(c)
                if go(r + 1):
                    return True
                cols.pop()
        return False

    return tuple(cols) if go(0) else None


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 21, 23, 25])
def test_search_equals_plain_backtracking(n: int) -> None:
    found = first_solution(n)
    assert found.placement == plain_first(n)
    assert found.complete == (found.placement is not None)
    assert found.exhausted == (found.placement is None)


@pytest.mark.parametrize("n", [8, 12])
def test_oeis_rows(n: int) -> None:
    found = first_solution(n)
    assert tuple(c + 1 for c in found.placement or ()) == A141843[n]


@pytest.mark.parametrize("oracle_from", [-1, 0, 5])
def test_oracle_does_not_change_the_answer(oracle_from: int) -> None:
    for n in (12, 21, 23):
        assert first_solution(n, oracle_from=oracle_from, oracle_cap=50).placement \
            == plain_first(n)


@pytest.mark.parametrize("n,fixed", [(10, {1: 7}), (12, {0: 5, 11: 0}), (14, {3: 3}),
                                     (6, {0: 0}), (9, {0: 0, 2: 1})])
def test_fixed_queens(n: int, fixed: dict[int, int]) -> None:
    result = nqmip.lex_first(n, fixed=fixed)
    assert result.placement == plain_first(n, fixed)
    assert (result.status == "optimal") == (result.placement is not None)


def test_wide_boards_two_words() -> None:
    """n > 64 runs on two words per row; the answer is a verified solution."""
    from nqmip.construct import explicit_solution

    n = 70
    known = explicit_solution(n)
    assert known is not None
    fixed = {r: int(known[r]) for r in range(n) if r % 7 != 3}  # ten rows left free
    found = first_solution(n, fixed, Deadline(60.0))
    assert found.complete and found.placement is not None and is_solution(found.placement)
    assert all(found.placement[r] == c for r, c in fixed.items())


@pytest.mark.timing
def test_time_limit_gives_a_proven_prefix() -> None:
    # n = 34 takes far more than a second: the search stops with a prefix proven. Its
    # kernels loaded first (the method's warm-up): a process that had not loaded them spent
    # the second loading them and answered before the search began, with no proven_rows
    # (every run of this test alone; in the whole suite an earlier test had loaded them)
    from nqmip.methods import LEX_DEFAULT, LEX_METHODS, resolve

    warm_up = LEX_METHODS[LEX_DEFAULT].warm_up
    assert warm_up is not None
    resolve(warm_up)()
    begin = Deadline(None)
    result = nqmip.lex_first(34, time_limit=1.0)
    assert begin.elapsed() < 30
    assert result.termination == "time_limit"
    rows = result.extra["proven_rows"]
    assert 0 <= rows < 34
    assert rows == 0 or result.placement is not None  # the prefix is the placement's
    if result.placement is not None:  # the smallest completion met, verified
        assert is_solution(result.placement)


@pytest.mark.parametrize("method", ["cpsat", "cpsat-fixed", "highs-pyomo"])
def test_models_agree(method: str) -> None:
    for n in (8, 11):
        result = nqmip.lex_first(n, method=method)
        assert result.status == "optimal"
        assert result.placement == plain_first(n)
        assert result.extra["proven_rows"] == n


def test_weighted_model_small_n() -> None:
    from nqmip.formulation.lex import weighted_cpsat
    from nqmip.instance import make_instance

    assert weighted_cpsat(make_instance(9)).placement == plain_first(9)
    with pytest.raises(ValueError):
        weighted_cpsat(make_instance(16))


def test_bad_requests() -> None:
    with pytest.raises(TypeError, match="lex_first"):  # the first solution's own door
        nqmip.solve(8, objective="lex-first")
    with pytest.raises(ValueError, match="without weights"):
        nqmip.lex_first(nqmip.make_instance(8, "chess"))
    with pytest.raises(ValueError, match="unknown method 'ga'"):
        nqmip.lex_first(8, method="ga")
    with pytest.raises(TypeError, match="oracle_cap"):
        nqmip.lex_first(8, method="cpsat", oracle_cap=5)


def test_cli_lex_first() -> None:
    out = subprocess.run([sys.executable, "-m", "nqmip.cli.solve", "--n", "8", "--lex-first",
                          "--json"], capture_output=True, text=True, check=True)
    import json

    data = json.loads(out.stdout)
    assert tuple(c + 1 for c in data["placement"]) == A141843[8]
    assert data["extra"]["proven_rows"] == 8


CHECKER = Path(__file__).resolve().parent.parent / "tools" / "check_lexfirst.py"


def checker_main(argv: list[str]) -> int:
    """tools/check_lexfirst.py's ``main`` in this process (its first run in each test is
    the script itself, as a reader runs it; a new interpreter's start is a second or two)."""
    module = load_script("check_lexfirst", CHECKER)
    with contextlib.redirect_stdout(io.StringIO()):
        code: int = module.main(argv)
    return code


def test_checker_second_route() -> None:
    """tools/check_lexfirst.py proves the A141843 row for n = 8 and refutes a later
    solution (2 4 6 8 3 1 7 5 is a solution, not the first)."""
    good = subprocess.run([sys.executable, str(CHECKER), "--n", "8", "--columns",
                           "1 5 8 6 3 7 2 4"], capture_output=True, text=True)
    assert good.returncode == 0, good.stdout + good.stderr
    assert checker_main(["--n", "8", "--columns", "2 4 6 8 3 1 7 5"]) == 1


# The lexicographic descent (nqmip.lex.descent) and its oracles


def descent_oracles() -> list[str]:
    return ["first-fail", "sat", "portfolio"]


@pytest.mark.parametrize("oracle", descent_oracles())
def test_descent_equals_plain_backtracking(oracle: str) -> None:
    from nqmip.instance import make_instance
    from nqmip.lex.descent import descend, make_oracle

    if oracle != "first-fail":
        need_sat()
    for n in (1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 14, 16, 18, 21):
        run = descend(make_instance(n), make_oracle(oracle, n))
        assert run.placement == plain_first(n), (oracle, n)
        assert run.complete == (run.placement is not None)
        assert run.exhausted == (run.placement is None)
        if run.complete:
            assert run.proven_rows == n
            # one question per row at least (the first), plus the improvements
            assert run.questions >= run.improvements + 1


@pytest.mark.parametrize("oracle", descent_oracles())
def test_descent_oeis_rows(oracle: str) -> None:
    if oracle != "first-fail":
        need_sat()
    for n in (8, 12):
        result = nqmip.lex.lex_first_result(nqmip.instance.make_instance(n), Deadline(60.0),
                                            oracle=oracle)
        assert tuple(c + 1 for c in result.placement or ()) == A141843[n]
        assert result.objective is None and result.method.startswith("lex-first ")
        assert result.extra["proven_rows"] == n


@pytest.mark.parametrize("oracle", descent_oracles())
@pytest.mark.parametrize("n,fixed", [(10, {1: 7}), (12, {0: 5, 11: 0}), (14, {3: 3}),
                                     (6, {0: 0}), (9, {0: 0, 2: 1})])
def test_descent_fixed_queens(oracle: str, n: int, fixed: dict[int, int]) -> None:
    from nqmip.instance import make_instance

    if oracle != "first-fail":
        need_sat()
    result = nqmip.lex.lex_first_result(make_instance(n, None, fixed), Deadline(60.0),
                                        oracle=oracle)
    assert result.placement == plain_first(n, fixed)
    assert result.status == ("optimal" if result.placement is not None else "infeasible")


def test_oracles_answer_alike() -> None:
    """The numba oracle and CaDiCaL agree on random questions (n = 14: placed queens on
    random rows, one row restricted to the columns below a limit), and a True answer's
    completion keeps the placed queens and the restriction."""
    from nqmip.budget import Deadline as D
    from nqmip.lex.descent import FirstFail, ask
    from nqmip.lex.sat import SatOracle

    need_sat()
    n = 14
    rng = random.Random(7)
    numba, sat = FirstFail(n), SatOracle(n)
    answers = set()
    for _ in range(60):
        rows = rng.sample(range(n), rng.randint(0, 4))
        placed = sorted((r, rng.randrange(n)) for r in rows)
        free = [r for r in range(n) if r not in rows]
        row = rng.choice(free)
        limit = rng.randint(1, n)
        got = [ask(o, placed, row, limit, D(60.0)) for o in (numba, sat)]
        assert got[0] == got[1], (placed, row, limit)
        answers.add(got[0])
        if got[0]:
            for o in (numba, sat):
                model = o.model()
                assert is_solution(model) and model[row] < limit
                assert all(model[r] == c for r, c in placed)
    assert answers == {True, False}  # both kinds of answer were exercised


def test_descent_time_limit_gives_a_proven_prefix() -> None:
    """n = 30 takes the descent over a second: stopped at 0.2 s, its proven rows are a
    prefix of the OEIS row and its placement a solution no smaller than that row."""
    from nqmip.instance import make_instance
    from nqmip.lex.descent import FirstFail, descend

    descend(make_instance(8), FirstFail(8))  # the kernels loaded
    begin = Deadline(None)
    run = descend(make_instance(30), FirstFail(30), Deadline(0.2))
    assert begin.elapsed() < 30
    assert not run.complete and run.stopped_by == "time_limit"
    assert run.placement is not None and is_solution(run.placement)
    first = tuple(c - 1 for c in A141843[30])
    assert run.placement >= first
    assert run.placement[: run.proven_rows] == first[: run.proven_rows]
    assert run.pending == (run.proven_rows, run.placement[run.proven_rows])


@pytest.mark.parametrize("oracle", descent_oracles())
def test_descent_n30_oeis(oracle: str) -> None:
    """n = 30 (the descent's hardest below 31 with first-fail: about 2 s here)."""
    from nqmip.instance import make_instance
    from nqmip.lex.descent import descend, make_oracle

    if oracle != "first-fail":
        need_sat()
    run = descend(make_instance(30), make_oracle(oracle, 30), Deadline(300.0))
    assert run.complete
    assert tuple(c + 1 for c in run.placement or ()) == A141843[30]


def test_descent_refuses_a_wrong_oracle() -> None:
    """An oracle whose completion does not improve the model is caught, not trusted."""
    from nqmip.instance import make_instance
    from nqmip.lex.descent import FirstFail, descend

    class Stale(FirstFail):
        def model(self) -> tuple[int, ...]:
            return tuple(range(self.n))  # not a solution, not smaller

    with pytest.raises(RuntimeError):
        descend(make_instance(10), Stale(10))


def test_lex_first_result_routes() -> None:
    from nqmip.instance import make_instance

    instance = make_instance(9)
    search = nqmip.lex.lex_first_result(instance, Deadline(30.0), oracle="search")
    descent = nqmip.lex.lex_first_result(instance, Deadline(30.0))
    assert search.placement == descent.placement == plain_first(9)
    assert descent.extra["oracle"] == "first-fail" and search.extra["oracle"] == "search"
    with pytest.raises(TypeError):
        nqmip.lex.lex_first_result(instance, Deadline(30.0), oracle="sat", oracle_cap=5)
    with pytest.raises(ValueError):
        nqmip.lex.lex_first_result(instance, Deadline(30.0), oracle="magic")


def test_checker_sat_route() -> None:
    need_sat()
    good = subprocess.run([sys.executable, str(CHECKER), "--n", "12", "--route", "sat",
                           "--columns", " ".join(map(str, A141843[12]))],
                          capture_output=True, text=True)
    assert good.returncode == 0, good.stdout + good.stderr
    assert checker_main(["--n", "8", "--route", "sat", "--columns", "2 4 6 8 3 1 7 5"]) == 1


def test_diagonal_sums_keep_every_answer() -> None:
    """The diagonal-sum check only cuts boards without a completion: on random questions
    (n = 16) the oracle answers alike with it and without it, in no more nodes with it,
    and strictly fewer over all the questions (the check does cut)."""
    from nqmip.budget import Deadline as D
    from nqmip.lex.descent import FirstFail, ask

    n = 16
    rng = random.Random(11)
    plain, summed = FirstFail(n, sums=False), FirstFail(n, sums=True)
    for _ in range(80):
        rows = rng.sample(range(n), rng.randint(1, 5))
        placed = sorted((r, rng.randrange(n)) for r in rows)
        row = rng.choice([r for r in range(n) if r not in rows])
        limit = rng.randint(1, n)
        assert ask(plain, placed, row, limit, D(60.0)) == ask(summed, placed, row, limit,
                                                               D(60.0))
    assert summed.nodes < plain.nodes


def test_a_board_the_descent_cannot_hold_is_refused_in_one_line() -> None:
    """n = 20000: the first-fail boards alone are about 1.9 TB (a numpy MemoryError
    traceback before); every route that builds a model is refused the same way."""
    from nqmip.capacity import CapacityError

    for method in ("first-fail", "portfolio", "cpsat"):
        with pytest.raises(CapacityError, match=r"n = 20000 needs about .* lex_first method"):
            nqmip.lex_first(20000, method=method, time_limit=1)
    script = Path(__file__).resolve().parent.parent / "scripts" / "solve_weighted.py"
    done = subprocess.run([sys.executable, str(script),
                           "--lex-first", "--n", "20000", "--time-limit", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "choose a smaller n" in done.stderr


def test_the_first_fail_chunk_shrinks_with_the_board() -> None:
    """A chunk's nodes cost more on a larger board: from n = 64 on a chunk (and a probe)
    is scaled so a step stays near its time at n = 64 (a 20,000-node chunk took 0.57 s at
    n = 200, past the watchdog's grace after a limit)."""
    from nqmip.lex.descent import CHUNK, CHUNK_FULL_N, PROBE, FirstFail

    assert FirstFail(CHUNK_FULL_N).chunk == CHUNK and FirstFail(32).probe_nodes == PROBE
    big = FirstFail(4 * CHUNK_FULL_N)
    assert big.chunk == CHUNK // 16 and big.probe_nodes == PROBE // 16


def test_an_unknown_method_lists_every_name_lex_first_takes() -> None:
    """The list left out "auto", the default."""
    from nqmip.methods import LEX_METHODS

    with pytest.raises(ValueError, match="unknown method") as refused:
        nqmip.lex_first(8, method="bogus")
    listed = str(refused.value).split("choose from ", 1)[1].split(", ")
    assert sorted(listed) == sorted(["auto", *LEX_METHODS])



@pytest.mark.parametrize("name", ["auto", *LEX_METHODS])
def test_a_stopped_run_answers_its_proven_rows_at_once(name: str) -> None:
    """Every lex-first method, stopped 1.5 s into n = 30 (a Ctrl-C: the deadline cancelled
    from another thread): answered within the watchdog's grace, termination interrupted,
    and its proven rows, if any, in its placement. CP-SAT's and Pyomo's row-by-row models
    went on to their own limits and were answered 'had not returned when its time was up',
    proven_rows=0 and no placement."""
    import threading
    import time

    from nqmip.budget import Deadline
    from nqmip.watchdog import GRACE

    if name == "sat":
        need_sat()
    deadline = Deadline(None)
    timer = threading.Timer(1.5, deadline.cancel)
    timer.start()
    begin = time.perf_counter()
    r = nqmip.lex_first(30, method=name, time_limit=deadline)
    seconds = time.perf_counter() - begin
    timer.cancel()
    first = tuple(c - 1 for c in A141843[30])
    if r.status == "optimal":  # settled before the stop
        assert r.placement == first
        return
    assert r.termination == "interrupted", r
    assert seconds <= 1.5 + GRACE + 2.0, seconds  # the watchdog's grace, a loaded core
    proven = r.extra["proven_rows"]
    assert r.message and "time was up" not in r.message, r.message
    if proven:
        assert r.placement is not None and is_solution(r.placement)
        assert tuple(r.placement[:proven]) == first[:proven]
