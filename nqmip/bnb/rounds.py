"""The search in rounds of a falling target (whole weights): the incumbent is no longer
what the proof waits for.

A depth-first search with a poor incumbent explores every node whose bound beats that
incumbent; given the optimum it explores only the nodes that beat the optimum, the proof's
own tree. Measured (toulbar2 family, seed 123456789, one thread): at N = 40 the LP search
proves 1475 in 74 s given the optimum, while its own incumbents after 60 s from the explicit
solution are far from it. So the search runs in rounds: with ``B`` the best proven bound
(first the root's), a round looks only for placements worth at least ``tau = B - delta + 1``
(the target is a floor under the incumbent). A round that ends empty proves ``B = tau - 1``,
and the next one starts from the root with a lower target; a round that finds a placement
goes on as the plain search, whose incumbent is then at most ``delta - 1`` below the
optimum. A round's tree is that of a proof at its target, and the trees grow geometrically
as the target falls, so the rounds before the last cost a fraction of it; ``delta`` is
chosen from the growth of the last two rounds, to make each about ``ROUND_GROWTH`` times
the one before. After an empty round the plain search from the incumbent comes next if it
is predicted small (``PLAIN_GROWTH``, ``PLAIN_STABLE``). The proven bound rises round by
round, so a run stopped early reports it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from nqmip.bnb.common import HAIR, Outcome
from nqmip.budget import Deadline
from nqmip.chunks import why_stopped
from nqmip.instance import Instance
from nqmip.result import Termination

#: Each round's tree, about this many times the last one's (the first rounds: ``delta`` 2).
ROUND_GROWTH = 4.0
FIRST_DELTA = 2
MAX_DELTA = 16
#: After a round that ends empty, the plain search from the incumbent (the target at the
#: incumbent plus one) once its tree, predicted from the growth per unit of the last two
#: rounds, is at most this many times the last round's (None: only when the next round's
#: target reaches it), if ``PLAIN_STABLE`` allows. The rounds' waste is the empty rounds
#: above the optimum, and the dives often hold the optimum rounds before the target
#: reaches it. Toulbar2, one thread, from the explicit start (docs/bnb.md, Part 7),
#: N = 28, 32, 36 seeds 123456789, 1, 2: 55,710 nodes in 136.3 CPU s against 60,719 in
#: 150.2 (41,213 given the optimum); N = 40 seeds 1 and 2: the same rounds.
PLAIN_GROWTH: float | None = 8.0
#: With ``PLAIN_GROWTH``: only when the last round left the incumbent as it found it (an
#: incumbent still rising is less likely the optimum). Without: 57,121 nodes in 136.3 s on
#: the boards above.
PLAIN_STABLE = True


Report = Callable[[float | None, float | None], None]
#: One search from the root: (start, floor, report, ceiling) to its outcome. ``floor``: only
#: placements worth at least this are looked for; ``ceiling``: a proven bound, which an
#: incumbent that reaches it ends the search at.
Engine = Callable[[tuple[int, ...] | None, float | None, Report | None, float | None],
                  Outcome]


def in_rounds(instance: Instance, deadline: Deadline, start: tuple[int, ...] | None,
              start_value: float | None, root: float | None, low: float, engine: Engine,
              report: Callable[[float | None, float | None], None] | None,
              state: dict[str, Any] | None = None) -> Outcome:
    """Run ``engine`` (a search that takes a floor under its incumbent) in rounds of a
    falling target from the bound ``root`` (whole weights; None: the board has no
    placement, which one plain search shows) down to ``low``, the least value a placement
    can have: a target there is the plain search (which shows there is none, if so).
    ``state``: the round's ``proven``, ``delta`` and ``last_nodes``, written before each
    round (a record of the search: :mod:`nqmip.bnb.record`), and read at the start when
    it holds them (a record continued)."""
    if root is None:
        return engine(start, None, report, None)
    proven = math.floor(root + 1e-6)
    delta = FIRST_DELTA
    nodes = 0
    last_nodes: int | None = None
    again: list[float | None] = []  # a record's round: its floor, whatever the start now
    if state is not None and state.get("proven") is not None:
        proven, delta, last_nodes = state["proven"], state["delta"], state["last_nodes"]
        floor = state.get("floor")
        # a record written before the floor kept its hair holds a whole floor, which could
        # cut off a placement worth it: the round runs again from its root, with the hair
        again.append(floor - HAIR if floor is not None and float(floor).is_integer() else floor)
    best: tuple[tuple[int, ...] | None, float | None] = (start, start_value)

    def capped(inc: float | None, bound: float | None) -> None:
        if report is not None:
            report(_better(inc, best[1]), _min(bound, proven))

    while True:
        tau = proven - delta + 1
        # the incumbent as high as the target, or no placement can be lower: plain search
        plain = (best[1] is not None and tau <= best[1] + 1) or tau <= low
        # the floor less a rounding hair (as the incumbent's step): a placement worth tau
        # whose LP comes out a hair below it is kept
        tau_floor = again.pop() if again else (None if plain else float(tau) - HAIR)
        if state is not None:
            state.update(proven=proven, delta=delta, last_nodes=last_nodes, floor=tau_floor)
        held = best[1]
        out = engine(best[0], tau_floor, capped, float(proven))
        nodes += out.nodes
        if out.objective is not None and (best[1] is None or out.objective > best[1]):
            best = (out.placement, out.objective)
        if out.termination is not Termination.OPTIMAL and \
                out.termination is not Termination.INFEASIBLE:  # stopped
            bound = _min(out.bound, proven)
            return Outcome(out.termination, best[0], best[1], bound, nodes,
                           instance.rounded_bound(root))
        if tau_floor is None or (out.objective is not None and out.objective >= tau - 1e-9):
            # a proof, or a placement at or above the target (then the plain search's end)
            if best[0] is None:
                return Outcome(Termination.INFEASIBLE, None, None, None, nodes,
                               instance.rounded_bound(root))
            return Outcome(Termination.OPTIMAL, best[0], best[1], best[1], nodes,
                           instance.rounded_bound(root))
        proven = tau - 1  # nothing at or above the target
        capped(best[1], proven)
        if deadline.expired():
            why = why_stopped(deadline)
            return Outcome(why, best[0], best[1], float(proven), nodes,
                           instance.rounded_bound(root))
        step = _next_delta(delta, last_nodes, out.nodes)
        if best[1] is not None and (not PLAIN_STABLE or held == best[1]) and \
                _plain_soon(proven - best[1], delta, last_nodes, out.nodes):
            step = max(step, math.ceil(proven - best[1] - 1e-9))
        delta, last_nodes = step, out.nodes


def _next_delta(delta: int, before: int | None, now: int) -> int:
    """The step that makes the next round about ``ROUND_GROWTH`` times this one, from the
    growth per unit of the target between the last two rounds."""
    if before is None or before <= 0 or now <= before:
        return min(MAX_DELTA, delta * 2 if before is not None and now <= before else delta)
    per_unit = (now / before) ** (1.0 / delta)
    if per_unit <= 1.0 + 1e-9:
        return min(MAX_DELTA, delta * 2)
    return max(1, min(MAX_DELTA, round(math.log(ROUND_GROWTH) / math.log(per_unit))))


def _plain_soon(gap: float, delta: int, before: int | None, now: int) -> bool:
    """Whether the plain search from an incumbent ``gap`` below the proven bound is
    predicted at most ``PLAIN_GROWTH`` times the last round (``now`` nodes; ``before``
    the one before it, ``delta`` units higher)."""
    if PLAIN_GROWTH is None or before is None or before <= 0 or now <= before:
        return False
    return gap * math.log(now / before) / delta <= math.log(PLAIN_GROWTH) + 1e-9


def _min(a: float | None, b: float) -> float:
    return b if a is None else min(a, b)


def _better(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    return a if b is None else max(a, b)
