"""One compile per machine (issue 42): numba's cache of nqmip's kernels is keyed by their
source, not by the path the package was imported from. The editable install gives the
package two paths (the checkout, and the ``build/__editable__`` tree of symbolic links the
installed command imports); before, each compiled every kernel again. Measured by numba's
own counters (the dispatcher's cache hits and misses) and by the files the cache folder
holds, never by time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Loads the kernels that count a permutation's attacks (three small kernels, a second or
#: two to compile) and prints numba's counters for the one called.
PROBE = """
import json, numpy as np
from nqmip.heuristics import kernels
kernels.init_counters(np.arange(8, dtype=np.int64))
stats = kernels.init_counters.stats
print(json.dumps({"file": kernels.__file__, "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values())}))
"""


def _run(pythonpath: Path, cache: Path, cwd: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath), "NUMBA_CACHE_DIR": str(cache)}
    p = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                       env=env, cwd=cwd, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _files(cache: Path) -> dict[str, int]:
    return {str(p.relative_to(cache)): p.stat().st_mtime_ns for p in cache.rglob("*")
            if p.is_file()}


def _linked_tree(source: Path, target: Path, copy: bool) -> None:
    """The package again under ``target``: folders made, files linked (what pip's strict
    editable install builds) or copied (a second checkout of the same commit)."""
    for path in sorted(source.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        destination = target / path.relative_to(source.parent)
        destination.parent.mkdir(parents=True, exist_ok=True)
        if copy:
            shutil.copyfile(path, destination)
        else:
            destination.symlink_to(path)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The checkout on PYTHONPATH compiled into an empty cache, once for both cases below
    (each works on a copy of it, its files' times kept)."""
    cache = tmp_path_factory.mktemp("compiled") / "cache"
    first = _run(ROOT, cache, ROOT)
    assert first["misses"] == 1 and first["hits"] == 0, first
    return cache


@pytest.mark.parametrize("copy", [False, True], ids=["links", "copies"])
def test_a_second_path_to_the_same_source_compiles_nothing(tmp_path: Path, copy: bool,
                                                           compiled: Path) -> None:
    """The checkout on PYTHONPATH compiles into an empty cache; the same package through a
    tree of links (the editable install's) or of copies, started from another folder,
    loads every kernel from it: no cache miss, no file written. Before (numba's locators,
    keyed by the file's folder): a miss and a second set of files. The key is the content:
    the copy with its kernel module edited (one comment line) compiles again, beside the
    first entries, not over them (never a stale load)."""
    cache = tmp_path / "cache"
    shutil.copytree(compiled, cache, copy_function=shutil.copy2)
    written = _files(cache)
    assert written == _files(compiled)  # the same files, the same times
    assert any(name.endswith(".nbc") for name in written), written
    other = tmp_path / "elsewhere"
    _linked_tree(ROOT / "nqmip", other, copy)
    second = _run(other, cache, tmp_path)
    assert Path(str(second["file"])).is_relative_to(other), second  # the other path ran
    assert second["misses"] == 0 and second["hits"] == 1, second
    assert _files(cache) == written  # nothing compiled, nothing rewritten
    if copy:
        edited = other / "nqmip" / "heuristics" / "kernels.py"
        edited.write_text(edited.read_text() + "\n# edited\n")
        third = _run(other, cache, tmp_path)
        assert third["misses"] == 1 and third["hits"] == 0, third
        after = _files(cache)
        assert all(after.get(name) == stamp for name, stamp in written.items())  # kept
        assert len(after) > len(written)



def test_the_report_says_compile_only_when_numba_compiled(tmp_path: Path) -> None:
    """The first run on an empty cache reports a ``compile time`` line; the second, whose
    kernels all come from the cache, a ``kernel load`` line and no compile (before: both
    said ``compile time ... (numba, once ...)``, the load too)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(tmp_path)}
    command = [sys.executable, "-m", "nqmip", "--n", "8", "--feasibility",
               "--method", "minconflicts"]
    lines = []
    for _ in range(2):
        p = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path,
                           timeout=600)
        assert p.returncode == 0, p.stderr
        lines.append(p.stdout)
    assert "compile time" in lines[0] and "kernel load" not in lines[0], lines[0]
    assert "kernel load" in lines[1] and "compile time" not in lines[1], lines[1]


def test_the_warm_up_leaves_lex_first_nothing_to_compile() -> None:
    """``--warm-up`` runs lex-first's warm-up too (before, none: the first ``--lex-first``
    compiled 21 s), and it covers what the numba routes run: after it, lex-first with the
    first-fail descent and with the row-ordered search (its prefix oracle on from 24
    queens, fixed queens or none) compiles nothing (numba's own compile events)."""
    import nqmip
    from nqmip import numba_cache
    from nqmip.methods import resolve, warm_up_targets

    assert "nqmip.lex.search:warm_up" in warm_up_targets()
    resolve("nqmip.lex.search:warm_up")()
    before = numba_cache.compiles()
    for method in ("first-fail", "search"):
        for n, fixed in ((12, None), (26, {0: 3})):
            assert nqmip.lex_first(n, fixed, method=method).placement is not None
    assert numba_cache.compiles() == before


def test_the_warm_up_runs_every_warm_up_a_run_can_ask_for() -> None:
    """The solve command's ``--warm-up`` (:func:`nqmip.warmup.warm_up_every`) runs, and
    marks ready, every group a later run loads or has a child compile: each method's of
    both tables, and auto's completion search's (its first incumbent with fixed queens;
    before, left out: the first such run compiled or loaded it in a child process)."""
    from nqmip.auto.kernels import COMPLETION_TARGET
    from nqmip.methods import LEX_METHODS, METHODS, warm_up_targets

    asked = {m.warm_up for m in (*METHODS.values(), *LEX_METHODS.values()) if m.warm_up}
    assert asked | {COMPLETION_TARGET} <= set(warm_up_targets())


#: In a fresh interpreter: the warm-up's targets, then the completion search on fixed
#: queens with each kind of weights, as the runs of the solve command call it; the
#: completion kernels' signatures the searches added (loaded from the cache, or compiled).
COMPLETION_PROBE = """
import json, sys
from numba.core.registry import CPUDispatcher
from nqmip.methods import resolve, warm_up_targets

def signatures():
    module = sys.modules.get("nqmip.enumeration.completion_kernels")
    return {f"{k}{s}" for k, v in (vars(module) if module else {}).items()
            if isinstance(v, CPUDispatcher) for s in v.signatures}

for target in warm_up_targets():
    resolve(target)()
warm = signatures()
from nqmip.enumeration.completion import search_free_board
from nqmip.instance import make_instance
for weights in (None, "chess", "random"):
    for n, fixed in ((8, [(0, 0)]), (30, [(0, 1), (5, 9)])):
        search_free_board(make_instance(n, weights, fixed, weights_seed=1))
print(json.dumps(sorted(signatures() - warm)))
"""


@pytest.mark.slow
def test_the_warm_up_leaves_the_completion_search_nothing_to_load() -> None:
    """After the warm-up's targets, the completion search (auto's first incumbent with
    fixed queens) adds no signature to its kernels: the warm-up loaded them all."""
    p = subprocess.run([sys.executable, "-c", COMPLETION_PROBE], capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=900)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.strip().splitlines()[-1]) == []


#: One kernel of a module outside the package, compiled for one argument type (argv[2]),
#: with numba's index write slowed (the time between reading the index and writing it back
#: is where two processes' saves race).
RACER = """
import json, sys, time
from numba.core import caching
from nqmip.numba_cache import install

install()
write = caching.IndexDataCacheFile._save_index

def slow(self, overloads):
    time.sleep(float(sys.argv[3]))
    write(self, overloads)

caching.IndexDataCacheFile._save_index = slow
sys.path.insert(0, sys.argv[1])
import toy

values = {"int": [1], "float": [1.5], "both": [1, 1.5]}[sys.argv[2]]
for value in values:
    toy.double(value)
stats = toy.double.stats
print(json.dumps({"hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values())}))
"""


def test_two_processes_compiling_one_kernel_at_once_both_keep_their_entry(
        tmp_path: Path) -> None:
    """Two commands compiling two signatures of one kernel at once (a warm-up and another
    test's command, CI's two workers): numba read its index, added its entry and wrote it
    back, so the last writer's index lost the other's entry, and the command after them
    compiled again (``bnb`` warmed, then answered by the watchdog at its 20 s limit).
    Saves are locked (nqmip.numba_cache): both entries load."""
    (tmp_path / "toy.py").write_text("from nqmip.numba_cache import njit\n\n\n"
                                     "@njit(cache=True)\ndef double(x):\n    return 2 * x\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def start(kind: str, pause: float) -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, "-c", RACER, str(tmp_path), kind, str(pause)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env)

    racers = [start("int", 3.0), start("float", 3.0)]
    for racer in racers:
        out, err = racer.communicate(timeout=300)
        assert racer.returncode == 0, err
        assert json.loads(out)["misses"] == 1, out  # each compiled its own
    after = start("both", 0.0)
    out, err = after.communicate(timeout=300)
    assert after.returncode == 0, err
    assert json.loads(out) == {"hits": 2, "misses": 0}, out
