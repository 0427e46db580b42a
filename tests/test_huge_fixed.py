"""Fixed queens on a huge board (here 10^5 rows; the sweep met a million): every method
that takes such a board answers (a placement, or none with the limit's reason), none asks
for the free board's F^2 squares. Before, at a million rows, the check whether the fixed
queens settle the board (every heuristic asks it first) and auto's colour bound built the
free board: 7.3 TiB asked, a numpy traceback, exit 1, for auto, ga, tabu, sa,
minconflicts, quota and lns. auto now repairs a completion
by min-conflicts first (the quota search's random start found none in 8 s).

Then every method answers a placement: one stopped before its own (ga, tabu and quota at a
million rows and 4 s, whose random starts held no conflict-free board) answers min-conflicts'
repair of the fixed queens (``repaired``), as a stopped search without fixed queens answers
the explicit construction; so does a work limit that ends a search first."""

from __future__ import annotations

import pytest

import nqmip
from nqmip.methods import METHODS

#: A tenth of the million the sweep met: its free board (8 * 10^10 bytes of indices)
#: fails as the million's did, and each run costs a tenth.
N = 10**5
FIXED = {0: 5, N - 1: 3}
#: The methods that take a million rows with weights constant per colour.
HUGE = [m.name for m in METHODS.values()
        if m.kind != "exact" and "colour" in m.weights and m.name != "topsquares"]


@pytest.fixture(scope="module")
def repair_ready() -> None:
    """min-conflicts' kernels for colour weights in numba's cache (a stand-in compiles
    nothing: on a cold cache it answers no placement)."""
    nqmip.solve(200, "chess", fixed={0: 1}, method="minconflicts", time_limit=60)


@pytest.mark.parametrize("method", HUGE)
def test_fixed_queens_on_a_million_rows_are_answered(method: str, repair_ready: None) -> None:
    result = nqmip.solve(N, "chess", fixed=FIXED, method=method, time_limit=3)
    assert result.placement is not None, (result.provenance.plan, result.message)
    assert all(result.placement[row] == col for row, col in FIXED.items())


WORK = [m for m in HUGE if "work_limit" in METHODS[m].honours and m != "quota"]


@pytest.mark.parametrize("method", WORK)
def test_a_work_limit_with_fixed_queens_answers_a_placement(method: str,
                                                            repair_ready: None) -> None:
    """The smallest work (quota's unit is a repair of up to 1000 n moves: left out)."""
    result = nqmip.solve(N, "chess", fixed=FIXED, method=method, work_limit=1)
    assert result.placement is not None, (result.provenance.plan, result.message)
    assert all(result.placement[row] == col for row, col in FIXED.items())


def test_the_colour_bound_with_fixed_queens_builds_no_board() -> None:
    from nqmip.bounds import cheap_bound
    from nqmip.formulation.strengthen import plan

    for n, fixed in ((8, {0: 0}), (31, {0: 1, 3: 5}), (60, {1: 1})):
        instance = nqmip.make_instance(n, "chess", fixed)
        assert cheap_bound(instance) == (plan(instance).objective_bound, "colour_bound")
    bound, source = cheap_bound(nqmip.make_instance(N, "chess", FIXED))
    assert source == "colour_bound" and bound < 2 * N
