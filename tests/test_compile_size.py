"""Less to compile: each kernel compiles once per argument type a run can give it, not once
per kind of weights or per literal constant at a call site (numba compiles a callee again
for every literal argument, and a C-contiguous array is a type apart from a strided one).
Counted by numba's own signatures, never by time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import numba
import pytest

import nqmip

#: Runs the warm-ups named and prints how many signatures some kernels have (a fresh
#: interpreter on an empty cache: a caller loaded from numba's cache loads its callees'
#: code with it, and never registers their signatures).
PROBE = """
import json
from nqmip.enumeration import constellations, count
from nqmip.enumeration.count import takaken_kernels
from nqmip.enumeration.count_tasks import run_task
from nqmip.heuristics import kernels as swaps, localsearch, tabu
from nqmip.heuristics.ga import kernels as ga, run
from nqmip.lex import descent_kernels, kernels as lex, search

search.warm_up()
run.warm_up()
tabu.warm_up()
count.warm_up("classes")
count.warm_up("border")
run_task(8, (), (0, 2), border=True)  # a worker's share of the border count, from Python
kernels = {"lex._propagate": lex._propagate, "lex._clear": lex._clear,
           "lex._assign": lex._assign, "descent._extreme_sums": descent_kernels._extreme_sums,
           "ga.ga_chunk": ga.ga_chunk, "ga._crossover": ga._crossover,
           "ga._record": ga._record, "ga._worst": ga._worst,
           "tabu.tabu_chunk": tabu.tabu_chunk, "tabu._pair_slot": tabu._pair_slot,
           "swaps.apply_swap": swaps.apply_swap, "swaps.swap_delta": swaps.swap_delta,
           "swaps.queen_conflicts": swaps.queen_conflicts,
           "localsearch.note_row": localsearch.note_row,
           "constellations.count_starts": constellations.count_starts,
           "takaken_subtree": takaken_kernels().takaken_subtree}
print(json.dumps({name: len(k.signatures) for name, k in kernels.items()}))
"""


@pytest.fixture(scope="module")
def probes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, subprocess.Popen[str]]]:
    """Both probes below (:data:`PROBE`, :data:`BNB_PROBE`), started together, each in a
    fresh interpreter on its own empty cache: their compiles take a core each, side by
    side, rather than one after the other. LLVM's optimisation is off (``NUMBA_OPT=0``):
    what they count, the signatures and the functions compiled, is numba's typing, done
    before LLVM sees the code, and the same at every level; the optimising passes were
    most of the compile (the kernels' probe: 34 s of CPU at numba's default level 3, 21 s
    at 0, side by side on a loaded machine)."""
    started = {}
    for name, code in (("kernels", PROBE), ("bnb", BNB_PROBE)):
        env = {**os.environ, "NUMBA_OPT": "0",
               "NUMBA_CACHE_DIR": str(tmp_path_factory.mktemp(f"cache-{name}"))}
        started[name] = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, text=True, env=env)
    yield started
    for probe in started.values():  # a probe no test waited for (deselected, or failed)
        if probe.poll() is None:
            probe.kill()
            probe.communicate()


def _printed(probe: subprocess.Popen[str]) -> str:
    """What the probe printed, once it ended (exit 0, else its error)."""
    out, err = probe.communicate()
    assert probe.returncode == 0, err[-3000:]
    return out


def test_every_kind_of_weights_reaches_the_kernels_as_one_type() -> None:
    types = {str(numba.typeof(nqmip.make_instance(9, w, weights_seed=0).kernel_weights()))
             for w in (None, "chess", "random")}
    assert len(types) == 1, types


def test_a_warm_up_compiles_each_kernel_once(probes: dict[str, subprocess.Popen[str]]) -> None:
    out = _printed(probes["kernels"])
    signatures = json.loads(out.strip().splitlines()[-1])
    assert signatures == dict.fromkeys(signatures, 1)


#: The branch and bound's warm-up in a fresh interpreter on an empty cache, then runs of
#: every kind of weights (the kernel search at n = 7, the LP search from 30 free rows): the
#: signatures of each kernel, and the numba functions compiled (by name), in order.
BNB_PROBE = """
import json, sys
from numba.core import event
from numba.core.registry import CPUDispatcher
import nqmip
from nqmip.bnb import search

names = []

class Names(event.Listener):
    def on_start(self, ev):
        func = ev.data["dispatcher"].py_func
        names.append(f"{func.__module__}.{func.__qualname__}")

    def on_end(self, ev):
        pass

event.register("numba:compile", Names())
search.warm_up()
warm = len(names)
for weights in (None, "chess", "random"):  # what real runs give the kernels: nothing new
    nqmip.solve(7, weights, fixed=[(0, 1)], method="bnb", weights_seed=1)
    nqmip.solve(31, weights, fixed=[(0, 1)], method="bnb", weights_seed=1, time_limit=2)
signatures = {f"{m}.{k}": len(v.signatures) for m, module in list(sys.modules.items())
              if m.startswith("nqmip.bnb") for k, v in vars(module).items()
              if isinstance(v, CPUDispatcher) and v.py_func.__module__ == m and v.signatures}
print(json.dumps({"signatures": signatures, "names": names, "warm": warm,
                  "compiles": len(names)}))
"""


def test_the_bnb_warm_up_compiles_each_kernel_once_and_no_error_message(
        probes: dict[str, subprocess.Popen[str]]) -> None:
    """The branch and bound's warm-up compiles what its runs use, whatever the weights: each
    kernel of the branch and bound compiles once (no literal arguments: ``_place``
    and the dive's ``_undo`` compiled two and three times), and none compiles numba's
    shape-mismatch message (a slice assignment ``pad[n:2n, n:2n] = x`` in the clique scan
    compiled numba's string formatting: 37 of the warm-up's 70 compiles, 4 s of CPU)."""
    seen = json.loads(_printed(probes["bnb"]).strip().splitlines()[-1])
    signatures = seen["signatures"]
    assert {"nqmip.bnb.kernels._place", "nqmip.bnb.dive._undo",
            "nqmip.bnb.cliques._scan"} <= set(signatures)
    assert signatures == dict.fromkeys(signatures, 1)
    assert not [name for name in seen["names"]
                if "shape_context" in name or name.startswith("numba.cpython.unicode")]
    assert seen["warm"] <= 40, seen["names"]  # 70 before
    # the runs after the warm-up compile nothing: a feasibility board's weights (ones) were
    # writable, a type apart from the warm-up's read-only ones: every kernel compiled again
    assert seen["compiles"] == seen["warm"], seen["names"][seen["warm"]:]
