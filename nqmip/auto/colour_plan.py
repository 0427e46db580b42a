"""The colour-proof plan of ``method="auto"`` (weights constant per colour, n up to
``COLOUR_PROOF_MAX_N``): the colour proof beside the annealing, the strengthened MIP after
it inside the MIP's range.

On a first run under a limit the proof's kernel compiles in a child process. The run used
to climb with numpy until it was compiled (up to ``CLIMB_SHARE`` of the time) and to wait
for it before the MIP started: chess n = 17, 5 s, an empty numba cache, answered the
climb's 28 where HiGHS alone proves 30 in 2.1 s (Gurobi started at 3.6 s of the 5, and
on a loaded machine did not finish). Inside the MIP's range the MIP now starts after the
first climb (``FIRST_CLIMB_SECONDS``), beside the wait; the proof joins once compiled, and
the first to prove ends the other.
"""

from __future__ import annotations

import threading

from nqmip.auto.call import Call
from nqmip.auto.cold import climb_until_colour, first_climb
from nqmip.auto.kernels import load_colour
from nqmip.auto.policy import (
    AUTO_COLOUR_EXACT_MAX_N,
    AUTO_EXACT_MAX_N,
    COLOUR_PROOF_EXACT_SHARE,
    COLOUR_PROOF_SECONDS,
)
from nqmip.bounds import cheap_bound
from nqmip.budget import Deadline

#: The MIP that starts beside the proof's compile on a first run: one thread (the child's
#: compile has the other core; then the annealing), unless the caller gave ``threads``.
EARLY_MIP_THREADS = 1


def colour_proof(call: Call) -> None:
    """Weights constant per colour within the colour proof's range: the plan of
    :mod:`nqmip.auto.plans` (the annealing holds an incumbent within a second whatever the
    proof does); on a first run the MIP does not wait for the proof's compile (the
    module)."""
    run, deadline, exact = call.run, call.deadline, call.exact
    instance = run.instance
    n = instance.n
    # The strengthened MIP after the proof, warm-started, where it can still prove in the
    # time; beyond, the proof has the whole budget (HiGHS at chess n = 64: 96 after 20 s).
    mip_after = n <= AUTO_COLOUR_EXACT_MAX_N and (
        n <= AUTO_EXACT_MAX_N or bool(instance.fixed) or not deadline.limited)

    proof_limit = deadline.sub(None if deadline.limited else COLOUR_PROOF_SECONDS,
                               share=COLOUR_PROOF_EXACT_SHARE if mip_after else None)
    from nqmip.colour import proof

    refuted: list[int] = []  # by the proof, in order; each cancels the searches at the bound
    attempts: list[Deadline] = []

    def lowered(count: int) -> None:
        refuted.append(count)
        for attempt in list(attempts):
            attempt.cancel()

    def at_bound(seed: int, limit: Deadline, step: str) -> bool:  # proven?
        found = proof.search_at_bound(instance, seed=seed, time_limit=limit,
                                      refuted=lambda: tuple(refuted), attempts=attempts.append)
        if found is not None:
            with run.lock:
                run.offer(found, step)
        return run.proven()

    # A first run (the proof's kernel compiling in a child) whose MIP can prove: the MIP
    # from the first climb's best at once, the proof joining once it is compiled.
    early = mip_after and call.beside is not None and call.beside.colour
    mip: list[threading.Thread] = []

    def start_mip() -> None:
        start = run.best.placement if run.best is not None else None
        mip.append(threading.Thread(target=exact, args=(deadline,), kwargs={
            "start": start, "threads": call.threads or EARLY_MIP_THREADS},
            name="nqmip-mip", daemon=True))
        mip[0].start()

    def prove() -> None:
        if early:
            start_mip()
        try:  # its own kernels (LAZY); on a first run compiled by the child, not here
            seconds = (load_colour(n, run.on_progress) if call.beside is None
                       else call.beside.load_colour(proof_limit))
        finally:
            if call.beside is not None:  # then the annealing's compile, in a child process
                call.beside.start()
        found = None if seconds is None else proof.proof_result(
            instance, seed=run.seed, time_limit=proof_limit, on_refuted=lowered)
        bound = cheap_bound(instance)
        with run.lock:
            if call.beside is None:
                run.compile_time += seconds or 0.0
            if found is not None:
                run.offer(found, "colour proof")
            elif seconds is not None or not run.proven():  # not: the MIP proved first
                run.plan.append("colour proof" if seconds is not None
                                else "colour proof (not compiled yet)")
            run.tighten(*bound)
        if mip:
            mip[0].join()
        elif mip_after and not run.proven() and not deadline.expired():
            exact(deadline, start=run.best.placement if run.best is not None else None)
        elif n > AUTO_COLOUR_EXACT_MAX_N and not run.proven() and not proof_limit.expired():
            # the proof has moved below the bound: this core searches at it too
            at_bound(run.seed + 2, proof_limit, "bound search (after the proof)")

    def second_stream(limit: Deadline) -> None:
        # Beyond the MIP's range with a budget worth sharing: the search at the bound from
        # another seed on the other core first, the annealing after; a placement at the
        # bound ends the proof and the annealing. Without a limit: the proof's seconds.
        if n <= AUTO_COLOUR_EXACT_MAX_N or limit.remaining() < proof.SECOND_STREAM_MIN_SECONDS:
            return
        stream = limit.sub(None if limit.limited else COLOUR_PROOF_SECONDS,
                           share=proof.SECOND_STREAM_SHARE)
        if at_bound(run.seed + 1, stream, "bound search (second stream)"):
            proof_limit.cancel()
            limit.cancel()

    if early and call.beside is not None:  # the proof's compile, the MIP after one climb
        call.beside.start()
        first_climb(run, deadline)
    elif call.beside is not None and call.beside.colour:  # the proof's compile too
        climb_until_colour(run, call.beside, deadline)
    elif call.beside is not None and call.beside.compiling:
        first_climb(run, deadline)
    run.beside(deadline, prove, lead=second_stream,
               ready=None if call.beside is None else call.beside.ready)
