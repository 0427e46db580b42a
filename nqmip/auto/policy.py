"""auto's policy: every threshold it decides by, in one table, and the backend it prefers.

A reader sees here, whole, which parts of the portfolio run at which n
(:mod:`nqmip.auto.plans` follows it); each threshold says what measurement set it.
"""

from __future__ import annotations

from dataclasses import dataclass

from nqmip.backends.base import get_backend
from nqmip.bnb.common import LP_MIN_FREE
from nqmip.bounds import colour_bound_applies
from nqmip.enumeration.completion import MAX_FREE
from nqmip.exact import PROOF_SECONDS, PROOF_SHARE
from nqmip.formulation.line_model import COLOUR_PROOF_MAX_N
from nqmip.instance import Instance, free_rows

#: Most free rows that "auto" hands straight to HiGHS, fixed queens or not: HiGHS proves chess
#: and random 1..9 weights there in under 0.1 s, faster than loading numba for a heuristic.
#: With a fixed queen the plans past this one loaded the completion search's, the
#: annealing's and the colour proof's or bnb's kernels first: n = 8, --fix 1,3, 1.0-3.2 s
#: a call from the command (the colour proof's quick search 4 s at chess n = 6) where
#: HiGHS answers in 0.02-0.09 s (benchmarks/bench_small.py, docs/small-boards.md). At 13
#: HiGHS proved chess and random, costs or not, a fixed queen or not, in 0.2-1.4 s on a
#: loaded machine, where the colour proof's and the MIP plan's kernel loads left them the
#: explicit solution, climbed, under limits of 1-2 s (chess n = 13, costs, 2 s: 18, the
#: optimum 16; benchmarks/bench_small_limits.py).
FAST_EXACT_MAX_N = 13
#: On a first run (a plan's kernels not in numba's cache yet, compiled by a child while the
#: run climbs with numpy) under a time limit, HiGHS alone up to this many free rows: it
#: proved n = 14..16, chess and random, costs or not, a fixed queen or not, in 0.4-7.0 s on
#: a loaded machine; the plans' first runs at n = 14 answered their climbs under limits of
#: 1-2 s (random n = 14, 2 s: 101 where the optimum is 113; benchmarks/bench_small_limits.py).
FIRST_RUN_EXACT_MAX_FREE = 16
#: Largest n for which "auto" runs an exact backend to a proof on other weights: HiGHS proved
#: random weights (1..9) up to n = 36 within 60 s (docs/benchmarks-warmstart.md).
AUTO_EXACT_MAX_N = 36
#: Largest n for which the MIP (Gurobi only, beyond ``AUTO_EXACT_MAX_N``) takes part in the
#: portfolio on other weights, warm-started from the heuristic. Measured (random 1..9):
#: n = 64, 5 s: GA alone 559, GA + HiGHS 549; n = 100, 20 s: GA 881, GA + HiGHS 877.
MIP_PORTFOLIO_MAX_N = 60
#: Other weights up to this many free rows: nqmip's own branch and bound (method "bnb")
#: runs on the second core beside the MIP from the start, and the first to prove stops the
#: other. The toulbar2 family, medians of 3 seeds, idle machine (docs/weighted.md): bnb
#: N = 24 1.7 s, 28 8.4 s, 32 45.0 s; HiGHS 14.3, 27.0, 44.7 s; auto with both 1.7, 6.7,
#: 34.7 s. Neither part wins everywhere (N = 32, seed 123456789: HiGHS 34.7 s, bnb 58.4 s).
#: From ``nqmip.bnb.common.LP_MIN_FREE`` (30) free rows without Gurobi, the branch and bound
#: is the LP search on every core instead (``LP_SEARCH``, below); up to 48 free rows, the
#: range of the issue's grid (docs/weighted.md).
BNB_PORTFOLIO_MAX_N = 48
#: Other weights beyond ``AUTO_EXACT_MAX_N`` free rows, up to ``BNB_PORTFOLIO_MAX_N``: the
#: exact plan ("mip") too when the budget is at least this long, where a proof is within
#: reach: toulbar2 family N = 40, the LP search proves seed 123456789 in about 100 s on one
#: thread (docs/bnb.md); shorter budgets keep the anytime plan, whose incumbents are better
#: there (random 1..9, n = 40, 20 s: HiGHS 344 against the GA's 345; docs/anytime.md).
LONG_BUDGET_SECONDS = 30.0
#: From this many free rows, where SCIP is installed (``pip install "nqmip[scip]"``) and
#: Gurobi is not, the MIP plan runs SCIP (one thread, after the short annealing) beside the
#: LP search on one worker, instead of the LP search on both cores. Toulbar2 family, one
#: thread each, 60 s (docs/weighted.md): SCIP proved N = 36 seeds 1 and 123456789 in 40.6 and
#: 52.7 s where HiGHS did not, and N = 40 seed 123456789 in 78 s (HiGHS 176 s); at N = 28 and
#: 32 HiGHS proved where SCIP did not.
SCIP_MIN_FREE = 36
#: Colour weights: the strengthened MIP after the colour proof up to this n, the proof
#: itself up to ``COLOUR_PROOF_MAX_N`` (docs/frontier.md), the range of the colour package's
#: line model (:data:`nqmip.formulation.line_model.COLOUR_PROOF_MAX_N`, spelled there).
AUTO_COLOUR_EXACT_MAX_N = 64
#: The colour proof runs beside the annealing with the whole budget (without a limit:
#: ``COLOUR_PROOF_SECONDS``), or this share of it where the MIP follows it: the same
#: split as ``bound_proof`` in the exact pipeline, so the values are
#: :data:`nqmip.exact.PROOF_SECONDS` and :data:`nqmip.exact.PROOF_SHARE`.
COLOUR_PROOF_SECONDS = PROOF_SECONDS
COLOUR_PROOF_EXACT_SHARE = PROOF_SHARE
#: A first run (the annealing's kernels not in numba's cache yet): the colour-proof plan
#: searches from the explicit solution by swaps in plain numpy (a tabu search,
#: :mod:`nqmip.heuristics.swapclimb`) for at most this long, or this share of the budget,
#: before the proof compiles its kernel: chess n = 100, 150 to 172-174 in 0.7 s with
#: nothing to compile, where the README's 5 s example answered the construction's 150 on
#: a first run (and a climb by conflict-free swaps only, 168).
FIRST_CLIMB_SECONDS = 1.0
FIRST_CLIMB_SHARE = 0.3
#: The MIP's incumbent: the annealing runs alone for this share of the budget, at most
#: ``INCUMBENT_SECONDS`` (without a limit: ``INCUMBENT_SECONDS``), then beside the MIP.
INCUMBENT_SHARE = 0.15
INCUMBENT_SECONDS = 2.0
#: Dense weights from ``TOPSQUARES_MIN_N`` on: the search on the heaviest squares runs beside
#: the annealing. Random 1..9 at n = 1000, 10^4 and 20,000 it reaches 9n (optimal) in 0.4 s,
#: 3.8 s and 20 s; below n = 1000 it stalls short of the annealing (n = 200, 20 s: 1703
#: against 1788).
TOPSQUARES_MIN_N = 1000
#: The exact backends "auto" prefers, among those installed and licensed for n: Gurobi
#: proved what HiGHS could not (chess n = 36, 37; random n = 40) and was faster elsewhere
#: (random n = 36: 12.7 s against 37.9 s; docs/benchmarks-warmstart.md). Else HiGHS.
AUTO_BACKENDS = ("gurobi", "highs")
#: The heuristic of the portfolio (incumbents, and the search beyond the MIP range): the
#: simulated annealing, sized to the time, is the strongest weighted search measured given
#: the same seconds (one seed, `python benchmarks/bench_anytime.py --methods sa ga quota`):
#: random 1..9, 20 s: n = 64 570 (GA 563), n = 100 887 (GA 881), n = 200 1788 (GA 1784);
#: chess, 20 s: n = 100 176 (quota 174), n = 200 352 (quota 348), n = 1000 1726 (quota
#: 1720); docs/anytime.md.
AUTO_HEURISTIC = "sa"
#: Dense weights beyond the MIP's range: the search on the second core, beside the
#: annealing, once the bound is computed: the window search (random 1..9, n = 100, 20 s,
#: seeds 0-2: auto 896/897/892 with it, 889/890/890 with the GA; docs/anytime.md).
SECOND_HEURISTIC = "lns"
#: For weights constant per colour beyond the colour proof's range: the colour quota search
#: on both cores, two seeds, one from a random start and one from the explicit solution (it
#: raises the count on the better colour two queens at a time, each board repaired by an
#: annealing over conflicts). Chess, one seed, 5 s, quota against
#: the annealing: n = 200 350 against 350, n = 400 704 against 610; 20 s: n = 1000 1766
#: against 1726; 60 s: n = 10^4 17,578 (the annealing after the old quota: 17,194).
AUTO_COLOUR_HEURISTIC = "quota"
COLOUR_QUOTA_MIN_N = COLOUR_PROOF_MAX_N + 1
#: Most free rows for which auto answers a feasibility completion with the complete search
#: of :func:`nqmip.enumeration.completion.search_free_board`: all it takes (its masks hold
#: 62 columns, :data:`nqmip.enumeration.completion.MAX_FREE`).
COMPLETION_SEARCH_MAX_FREE = MAX_FREE


def pick_backend(n: int) -> str:
    """The first of ``AUTO_BACKENDS`` that says it can take an n x n board
    (:meth:`~nqmip.backends.base.Backend.available_for`: installed and licensed for n);
    else HiGHS."""
    for name in AUTO_BACKENDS:
        if get_backend(name).available_for(n):
            return name
    return "highs"



def scip_beside(size: int) -> bool:
    """Whether the MIP plan runs SCIP beside the LP search (``SCIP_MIN_FREE``)."""
    return size >= SCIP_MIN_FREE and get_backend("scip").available()


# --- the plans: which parts run for which instance ------------------------------------------

@dataclass(frozen=True)
class Plan:
    """What auto runs for an instance: ``name`` (a function of :mod:`nqmip.auto.plans`),
    ``parts`` (what each core does, in words) and ``kernels`` (the heuristics whose numba
    kernels it loads before its parts start: its warm-up; or, for a plan of
    :data:`nqmip.auto.kernels.LAZY`, while they run)."""

    name: str
    when: str
    parts: tuple[str, ...]
    kernels: tuple[str, ...]


#: Every plan, in the order :func:`choose_plan` tries them; docs/anytime.md shows this table.
PLANS: tuple[Plan, ...] = (
    Plan("small", f"<= {FAST_EXACT_MAX_N} free rows (fixed queens or not); weights and <= "
         f"{FIRST_RUN_EXACT_MAX_FREE} on a first run under a limit (kernels not compiled yet)",
         ("HiGHS proves the optimum (nothing else is loaded)",), ()),
    Plan("warm-start", f"a warm start is given (n <= {MIP_PORTFOLIO_MAX_N})",
         ("the MIP from the caller's start",), ()),
    Plan("completion", f"feasibility with fixed queens, <= {COMPLETION_SEARCH_MAX_FREE} "
         "free rows", ("the complete first-fail search (proves either way)",), ()),
    Plan("feasibility", "no weights",
         ("min-conflicts", f"the MIP if it found nothing (<= {AUTO_EXACT_MAX_N} free rows)"),
         ("minconflicts",)),
    Plan("colour-proof", f"weights constant per colour, n <= {COLOUR_PROOF_MAX_N}",
         ("core 1: the colour proof, then the MIP (n <= "
          f"{AUTO_COLOUR_EXACT_MAX_N}) or a search at the bound",
          "core 2: a search at the bound from another seed (n > "
          f"{AUTO_COLOUR_EXACT_MAX_N}), then the annealing from the incumbent"),
         ("colour", "sa")),
    Plan("mip", f"other weights, <= {AUTO_EXACT_MAX_N} free rows (<= {MIP_PORTFOLIO_MAX_N} "
         f"with Gurobi, <= {BNB_PORTFOLIO_MAX_N} with a limit of "
         f"{LONG_BUDGET_SECONDS:g} s or more)",
         (f"core 1: the annealing for {INCUMBENT_SHARE:.0%} of the budget "
                          f"(at most {INCUMBENT_SECONDS:g} s), then the MIP warm-started "
                          "from it",
                          f"core 2 (<= {BNB_PORTFOLIO_MAX_N} free rows): nqmip's branch and "
                          "bound from the explicit solution, then the annealing; beyond: "
                          "the annealing from the MIP's start",
                          f"from {LP_MIN_FREE} free rows without Gurobi, instead: nqmip's "
                          "LP search on both cores (one tree), beside the same short "
                          f"annealing, no MIP; from {SCIP_MIN_FREE} free rows with SCIP "
                          "installed: SCIP as the MIP of core 1, the LP search on core 2"),
         ("anneal-start", "bnb")),
    Plan("colour-quota", f"weights constant per colour, n >= {COLOUR_QUOTA_MIN_N}",
         ("core 1: the quota search from the explicit solution",
          "core 2: the quota search from a random start"), ("quota",)),
    Plan("topsquares", f"dense weights, n >= {TOPSQUARES_MIN_N}",
         ("core 1: the search on the heaviest squares, then the annealing",
          "core 2: the annealing"), ("anneal-start", "topsquares")),
    Plan("anneal", "anything else",
         ("core 1: the best cheap bound, then a second search (lns for dense weights, "
          "the annealing from another seed otherwise)", "core 2: the annealing"),
         ("anneal-start", "lns")),
)
PLAN_BY_NAME = {plan.name: plan for plan in PLANS}


def choose_plan(instance: Instance, *, warm_start: bool = False,
                backend: str = "highs", budget: float | None = None,
                first_run: bool = False) -> Plan:
    """The plan auto runs for ``instance``: a pure function of the instance, whether a warm
    start is given, the exact ``backend`` auto would use for it (:func:`pick_backend`), the
    time ``budget`` in seconds (None: no limit) and whether the run would be a first run
    (``first_run``: its plan's kernels not in numba's cache) — no solver runs, so a table
    of instances tests it."""
    n = instance.n
    size = free_rows(instance)
    colour = colour_bound_applies(instance)
    first = first_run and budget is not None and not instance.is_feasibility
    if (size <= FAST_EXACT_MAX_N or (first and size <= FIRST_RUN_EXACT_MAX_FREE)) \
            and not warm_start:
        name = "small"
    elif warm_start:
        name = "warm-start"
    elif instance.is_feasibility and instance.fixed and size <= COMPLETION_SEARCH_MAX_FREE:
        name = "completion"
    elif instance.is_feasibility:
        name = "feasibility"
    elif colour and n <= COLOUR_PROOF_MAX_N:
        name = "colour-proof"
    elif size <= AUTO_EXACT_MAX_N or (size <= MIP_PORTFOLIO_MAX_N and backend == "gurobi") \
            or (size <= BNB_PORTFOLIO_MAX_N and budget is not None
                and budget >= LONG_BUDGET_SECONDS):
        name = "mip"
    elif colour and n >= COLOUR_QUOTA_MIN_N:
        name = "colour-quota"
    elif instance.dense is not None and n >= TOPSQUARES_MIN_N:
        name = "topsquares"
    else:
        name = "anneal"
    return PLAN_BY_NAME[name]


def policy_markdown() -> str:
    """The plans as a Markdown table (docs/anytime.md holds it; a test keeps them equal)."""
    lines = ["| plan | when | what runs |", "| --- | --- | --- |"]
    for plan in PLANS:
        lines.append(f"| `{plan.name}` | {plan.when} | {'; '.join(plan.parts)} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(policy_markdown(), end="")
