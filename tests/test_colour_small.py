"""The colour proof on small boards (at most 12 free rows): answered from every placement,
equal to a brute force, within a limit far below the walk's quick search (4 s)."""

from __future__ import annotations

import pytest

import nqmip
from nqmip.colour.proof import colour_proof


def _black_counts(n: int, fixed: dict[int, int]) -> set[int]:
    """Every placement's black-queen count ((row + column) even), plain backtracking."""
    counts: set[int] = set()

    def place(row: int, cols: list[int]) -> None:
        if row == n:
            counts.add(sum((r + c) % 2 == 0 for r, c in enumerate(cols)))
            return
        for col in ([fixed[row]] if row in fixed else range(n)):
            if all(col != c and abs(col - c) != row - r for r, c in enumerate(cols)):
                place(row + 1, [*cols, col])

    place(0, [])
    return counts


def test_chess_six_with_a_queen_on_1_3_is_answered_by_the_listing() -> None:
    """The case of the sweep: the walk looked 4 s for 4 black queens before the line sets
    refuted that count (4.8 s); the listing answers 2, refuting 4."""
    proof = colour_proof(nqmip.make_instance(6, "chess", fixed=[(1, 3)]), time_limit=0.5)
    assert proof is not None
    assert (proof.black, proof.black_bound, proof.refuted) == (2, 2, (4,))
    result = nqmip.solve(6, "chess", method="highs", bound_proof=True, fixed=[(1, 3)],
                         time_limit=1.0)
    assert result.status == "optimal" and result.objective == 8.0


@pytest.mark.parametrize("colours,maximise", [((2, 1), True), ((1, 3), False)])
@pytest.mark.parametrize("n", [5, 6, 7, 8])
def test_small_board_proofs_equal_brute_force(n: int, colours: tuple[int, int],
                                               maximise: bool) -> None:
    """Every square of row 1 fixed in turn (and no queen): the proof's black count is the
    brute force's extreme, proven, under a limit of 0.5 s each."""
    for fixed in [{}, *({1: c} for c in range(n))]:
        counts = _black_counts(n, fixed)
        instance = nqmip.make_instance(n, "chess", fixed=list(fixed.items()), black=colours[0],
                                       white=colours[1])
        proof = colour_proof(instance, time_limit=0.5)
        if not counts:  # no completion: no proof (None where the bound says so already)
            assert proof is None or proof.placement is None, (n, fixed)
            continue
        assert proof is not None
        want = max(counts) if maximise else min(counts)
        assert proof.placement is not None, (n, fixed)
        assert (proof.black, proof.black_bound) == (want, want), (n, fixed)
        assert not set(proof.refuted) & counts, (n, fixed)
