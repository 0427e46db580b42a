"""The kinds of weights a heuristic's kernels are compiled for, and the ready mark a run
leaves once it has loaded them (:func:`mark_loaded`).

A warm-up given ``like=instance`` compiles the kernels for that instance's kind of weights
(:func:`kind_of`); :mod:`nqmip.warmup` keeps one mark per (warm-up, kind) in numba's cache
folder, which a first run under a time limit reads (:func:`nqmip.auto.first.compiled`): a
run of the method, wherever it runs (the method itself, an exact method's warm start, a
part of auto), leaves that mark from :func:`nqmip.heuristics.run_heuristic`, so the next
run loads the kernels and is not taken for a first one.
"""

from __future__ import annotations

from nqmip.instance import Instance

#: The kinds of instance a warm-up compiles for (its ``like``): ``any`` is every kind.
KINDS = ("any", "none", "colour", "dense")
#: From this many queens on, min-conflicts' line counters are uint8 (a line holds at most
#: tail + 1 queens after the greedy phase, and the repair never adds a queen to a full
#: line): a kind of its own (``+huge``). Here, not in :mod:`nqmip.heuristics.minconflicts`,
#: so that telling a kind imports no heuristic (the colour quota plan loads none of it).
SMALL_COUNTERS_FROM = 2**20


def kind_of(instance: Instance | None) -> str:
    """The kind of weights a warm-up with ``like=instance`` compiles for (``KINDS``), with
    ``+huge`` from min-conflicts' byte counters' size on."""
    if instance is None:
        return "any"
    kind = ("none" if instance.is_feasibility
            else "colour" if instance.colours is not None else "dense")
    return kind + ("+huge" if instance.n >= SMALL_COUNTERS_FROM else "")


def stand_in(kind: str) -> Instance | None:
    """A small instance of ``kind`` (:func:`kind_of`): what a warm-up's ``like`` reads."""
    if kind == "any":
        return None
    from nqmip.instance import make_instance

    base, _, huge = kind.partition("+")
    n = SMALL_COUNTERS_FROM if huge else 8
    return {"none": lambda: make_instance(n), "colour": lambda: make_instance(n, "chess"),
            "dense": lambda: make_instance(6, "random", weights_seed=0)}[base]()


def mark_loaded(target: str, instance: Instance) -> None:
    """Note that the warm-up ``target`` ran to its end in this process on ``instance``
    (compiled, or loaded from the cache): its kernels for ``instance``'s kind of weights
    are in numba's cache (:func:`nqmip.warmup.mark_ready`)."""
    from nqmip.warmup import mark_ready

    mark_ready(target, kind_of(instance))
