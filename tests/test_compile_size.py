"""Less to compile: each kernel compiles once per argument type a run can give it, not once
per kind of weights or per literal constant at a call site (numba compiles a callee again
for every literal argument, and a C-contiguous array is a type apart from a strided one).
Counted by numba's own signatures, never by time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numba

import nqmip

#: Runs the warm-ups named and prints how many signatures some kernels have (a fresh
#: interpreter on an empty cache: a caller loaded from numba's cache loads its callees'
#: code with it, and never registers their signatures).
PROBE = """
import json
from nqmip.enumeration import count
from nqmip.enumeration.count import takaken_kernels
from nqmip.heuristics import tabu
from nqmip.heuristics.ga import kernels as ga, run
from nqmip.lex import descent_kernels, kernels as lex, search

search.warm_up()
run.warm_up()
tabu.warm_up()
count.warm_up("classes")
kernels = {"lex._propagate": lex._propagate, "lex._clear": lex._clear,
           "lex._assign": lex._assign, "descent._extreme_sums": descent_kernels._extreme_sums,
           "ga.ga_chunk": ga.ga_chunk, "ga._crossover": ga._crossover,
           "ga._record": ga._record, "ga._worst": ga._worst,
           "tabu.tabu_chunk": tabu.tabu_chunk,
           "takaken_subtree": takaken_kernels().takaken_subtree}
print(json.dumps({name: len(k.signatures) for name, k in kernels.items()}))
"""


def test_every_kind_of_weights_reaches_the_kernels_as_one_type() -> None:
    types = {str(numba.typeof(nqmip.make_instance(9, w, weights_seed=0).kernel_weights()))
             for w in (None, "chess", "random")}
    assert len(types) == 1, types


def test_a_warm_up_compiles_each_kernel_once(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}  # compiles: about 20 s of CPU
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True, env=env).stdout
    signatures = json.loads(out.strip().splitlines()[-1])
    assert signatures == dict.fromkeys(signatures, 1)
