"""The documentation's examples run (issue 41): every fenced ``python``, ``bash`` and
``console`` block of README.md and docs/*.md, as a reader would run it.

* A python block runs whole in its own interpreter (``PYTHONPATH``: this checkout), in a
  scratch folder holding ``docs/examples`` and ``docs/data``; ``time_limit=X`` becomes at
  most :data:`SHORT` seconds.
* A bash block is split into commands (``\\`` continuations joined, ``&&`` chains split,
  comments dropped; in a console block only the ``$`` lines). The project's commands run
  (``python scripts/...``, ``python -m nqmip``, and the console scripts of pyproject.toml,
  through this checkout's code): ``--time-limit`` at most :data:`SHORT` seconds,
  ``--repeats`` 1, a grid of sizes its first size. Each must exit 0 without a traceback.
  Installs, the CI's own checks, benchmarks, placeholders (``...``), the reader's own files
  and the commands of :data:`LONG` are skipped, each with its reason; a command seen in an
  earlier block runs once; the first command through each door (``python
  scripts/solve_weighted.py``, ``python -m nqmip``, each console script) in its own
  interpreter, the later ones through the command's ``main(argv)`` in this process.
* A block the page marks with ``<!-- docs-test: skip REASON -->`` on the line before its
  fence is skipped with that reason.

A page that shows an API the code refuses fails here. :data:`KNOWN` lists the blocks that
fail today, each with why: they are expected failures (strict: once fixed, the entry must
go).
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHORT = 1.0  # seconds: the longest time limit an example runs with here
TIMEOUT = 120  # seconds for one block's command or script

FENCE = re.compile(r"^```(python|bash|console)[^\n]*\n(.*?)^```", re.S | re.M)
MARKER = re.compile(r"<!--\s*docs-test:\s*skip\s+(.*?)\s*-->\s*$")

#: Commands that take minutes even shortened: the first words of the command -> why.
LONG = {
    "nqmip-count --n 18": "counts 666 million solutions (73 s on two workers)",
    "nqmip-count --n 20": "a Dask cluster's count",
    "nqmip-compare --n 16,20,24": "docs/benchmarks-compare.md's second sweep (24 min)",
    "python scripts/solve_weighted.py --warm-up": "compiles every kernel (minutes cold)",
}

#: Python blocks that take minutes even shortened (page:first line of code -> why).
LONG_BLOCKS = {
    "docs/bnb.md:import nqmip": "toulbar2_tutorial(40) by bnb has no time limit (over 2 min)",
}

#: Blocks that fail today (page:first line of code -> why, strict): expected failures. A
#: strict one that passes fails: its entry goes once the page is fixed.
KNOWN: dict[str, tuple[str, bool]] = {
    "docs/completion.md:import nqmip": (
        "a fragment: `queens` is never defined (NameError)", True),
    "docs/warm-starts.md:nqmip.solve(30, \"chess\", method=\"highs\", warm_start=\"sa\")"
    "          # run SA first (timed)": (
        "a fragment: placeholders (…30 columns…) and previous_result (SyntaxError)", True),
    "docs/lex-first.md:import nqmip": (
        "at a short limit (60 s made 1 s) lex_first's answer may have no placement yet "
        "(r.placement is None: slicing it is a TypeError)", False),
}

#: Programs that are not the project's commands: the first word -> why skipped.
OTHER = {
    "pip": "an install", "apt-get": "an install", "ruff": "the CI's own check (.ci/run)",
    "mypy": "the CI's own check (.ci/run)", "git": "fetches another repository",
    "dask": "starts a Dask cluster", "jupyter": "opens Jupyter",
    "for": "a shell loop over sizes (minutes)", "/usr/bin/time": "a timed benchmark run",
}
#: Options whose value is a file the command reads; options naming a file it writes.
READS = ("--weights", "--costs", "--fixed", "--resume")
WRITES = ("--output", "--plot", "--report", "--record", "--svg", "--png", "--csv")


def console_scripts() -> dict[str, tuple[str, str]]:
    """pyproject.toml's console scripts: name -> (module, function)."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    return {name: tuple(target.split(":")) for name, target in scripts.items()}


SCRIPTS = console_scripts()


@dataclass
class Block:
    page: str
    line: int
    lang: str
    code: str
    skip: str | None = None
    commands: list[tuple[list[str], str | None]] = field(default_factory=list)

    @property
    def key(self) -> str:
        first = next((s.strip() for s in self.code.splitlines() if s.strip()), "")
        return f"{self.page}:{first}"


def blocks() -> list[Block]:
    found = []
    for page in PAGES:
        text = page.read_text()
        for match in FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            marker = MARKER.search(before)
            found.append(Block(str(page.relative_to(ROOT)), line, match.group(1),
                               match.group(2), marker.group(1) if marker else None))
    return found


def command_lines(block: Block) -> list[str]:
    text = block.code.replace("\\\n", " ")
    lines = text.splitlines()
    if block.lang == "console":
        lines = [s[2:] for s in lines if s.startswith("$ ")]
    return [s for s in lines if s.strip()]


def split_commands(line: str) -> list[list[str]]:
    words = shlex.split(line, comments=True)
    commands: list[list[str]] = [[]]
    for word in words:
        if word in ("&&", ";"):
            commands.append([])
        else:
            commands[-1].append(word)
    return [c for c in commands if c]


def shorten(argv: list[str]) -> list[str]:
    out = list(argv)
    for i, word in enumerate(out[:-1]):
        if word == "--time-limit":
            out[i + 1] = str(min(float(out[i + 1]), SHORT))
        elif word == "--repeats":
            out[i + 1] = "1"
        elif word == "--n" and out[0] in ("nqmip-compare", "python") \
                and "compare" in " ".join(out[:2]):
            out[i + 1] = re.split(r"[:,]", out[i + 1])[0]
    return out


def why_skipped(argv: list[str]) -> str | None:
    text = " ".join(argv)
    for start, why in LONG.items():
        if text.startswith(start):
            return why
    if argv[0] in OTHER:
        return OTHER[argv[0]]
    if argv[:3] == ["python", "-m", "pip"]:
        return "an install"
    if argv[:3] in (["python", "-m", "pytest"], ["python", "-m", "mypy"]):
        return "the CI's own check (.ci/run)"
    if any(o in WRITES and v.startswith("docs/") for o, v in itertools.pairwise(argv)):
        return "rewrites a recorded benchmark in docs/ (minutes)"
    if argv[0] == "python" and len(argv) > 1 and argv[1].startswith("benchmarks/"):
        return "a benchmark (minutes)"
    if "..." in argv or any("…" in word for word in argv):
        return "a placeholder (...)"
    for option, value in itertools.pairwise(argv):
        if option in READS and not (ROOT / value).exists():
            return f"reads the reader's own file {value}"
    if not (argv[0] in SCRIPTS or argv[:3] == ["python", "-m", "nqmip"]
            or (argv[0] == "python" and len(argv) > 1 and argv[1].startswith("scripts/"))):
        return f"not a project command ({argv[0]})"
    return None


def runnable(argv: list[str]) -> list[str]:
    """The command through this checkout's code and this interpreter."""
    if argv[0] in SCRIPTS:
        module, function = SCRIPTS[argv[0]]
        return [sys.executable, "-c", f"import sys; from {module} import {function}; "
                f"sys.argv[0] = {argv[0]!r}; sys.exit({function}())", *argv[1:]]
    if argv[1].startswith("scripts/"):
        return [sys.executable, str(ROOT / argv[1]), *argv[2:]]
    return [sys.executable, *argv[1:]]


def canonical(argv: list[str]) -> list[str]:
    """One name per command: ``python scripts/compare.py`` is ``nqmip-compare``, and
    ``python scripts/solve_weighted.py``, ``python -m nqmip`` are ``solve-weighted``."""
    names = {"scripts/compare.py": "nqmip-compare", "scripts/solve_weighted.py":
             "solve-weighted", "nqmip-solve": "solve-weighted"}
    if argv[:3] == ["python", "-m", "nqmip"]:
        return ["solve-weighted", *argv[3:]]
    if argv[0] == "python" and len(argv) > 1 and argv[1] in names:
        return [names[argv[1]], *argv[2:]]
    return [names.get(argv[0], argv[0]), *argv[1:]]


def collect() -> list[Block]:
    seen: dict[str, str] = {}
    out = blocks()
    for block in out:
        if block.lang == "python" or block.skip:
            continue
        for line in command_lines(block):
            for argv in split_commands(line):
                argv = shorten(argv)
                why = why_skipped(argv)
                key = " ".join(canonical(argv))
                if why is None and key in seen:
                    why = f"runs in {seen[key]}"
                if why is None:
                    seen[key] = f"{block.page}:{block.line}"
                block.commands.append((argv, why))
    return out


BLOCKS = collect()


def environment() -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": str(ROOT) + (os.pathsep + path if path else ""),
            "MPLBACKEND": "Agg"}


def make_scratch(folder: Path) -> Path:
    """A folder like the checkout's root for what the examples read, empty for what they
    write: docs/examples and docs/data linked in."""
    (folder / "docs").mkdir()
    for name in ("examples", "data"):
        (folder / "docs" / name).symlink_to(ROOT / "docs" / name)
    return folder


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    return make_scratch(tmp_path)


def run_python(code: str, folder: Path) -> subprocess.CompletedProcess[str]:
    code = re.sub(r"time_limit=(\d+(?:\.\d+)?)",
                  lambda m: f"time_limit={min(float(m.group(1)), SHORT)}", code)
    if "nqmip." in code and not re.search(r"^\s*(import|from) nqmip", code, re.M):
        code = "import nqmip\n" + code  # a page's later block: its first one imported it
    script = folder / "example.py"
    script.write_text(code)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=folder, env=environment(), timeout=TIMEOUT)


#: A python block's run (by the block's id) as it goes on or ends.
Runs = dict[int, Future[subprocess.CompletedProcess[str]]]


def _runs_python(block: Block) -> bool:
    return block.lang == "python" and not block.skip and block.key not in LONG_BLOCKS


@pytest.fixture(scope="module")
def python_runs(request: pytest.FixtureRequest,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    """Every python block this session selected, two interpreters at once (CI has two
    cores), each in its own scratch folder, started when the first block's test asks and in
    the tests' order: a block's test waits for its own (one after another, the 13 took 80 s
    of a loaded machine's full run, each most of its time in its interpreter's start and
    import)."""
    chosen = [block for item in request.session.items
              if isinstance(item, pytest.Function) and hasattr(item, "callspec")
              and item.module is request.module
              and isinstance(block := item.callspec.params.get("block"), Block)]
    pool = ThreadPoolExecutor(max_workers=2)
    runs: Runs = {}
    for block in chosen:
        if _runs_python(block) and id(block) not in runs:
            runs[id(block)] = pool.submit(run_python, block.code,
                                          make_scratch(tmp_path_factory.mktemp("example")))
    yield runs
    for future in runs.values():
        future.cancel()
    pool.shutdown(wait=True)


def params() -> list[object]:
    return [pytest.param(b, id=f"{b.page}:{b.line}", marks=[pytest.mark.xfail(
        strict=KNOWN[b.key][1], reason=KNOWN[b.key][0])] if b.key in KNOWN else [])
        for b in BLOCKS]


#: The doors (``python scripts/solve_weighted.py``, ``python -m nqmip``, ``nqmip-count``,
#: ...) a command of the pages has started in its own process in this session: a reader's
#: first command through each door runs as the reader runs it, the later ones through the
#: command's ``main(argv)`` in this process (a new interpreter's start, 1-2 s a command,
#: is each door's once; tests/test_launch.py and test_commands.py start the doors too).
STARTED: set[str] = set()
#: Each command's ``main(argv)``: canonical name -> (module, function).
MAINS = {"solve-weighted": ("nqmip.cli.solve", "solve_weighted_main"),
         "nqmip-count": ("nqmip.cli.count", "count_main"),
         "nqmip-compare": ("nqmip.compare", "main")}


def in_process(argv: list[str], folder: Path,
               monkeypatch: pytest.MonkeyPatch) -> subprocess.CompletedProcess[str]:
    """The command's ``main`` on its arguments in this process, in ``folder``: its status
    and what it wrote (an exception it raises is a traceback: it fails the test)."""
    import contextlib
    import importlib
    import io

    name, *args = canonical(argv)
    module, function = MAINS[name]
    main = getattr(importlib.import_module(module), function)
    out, err = io.StringIO(), io.StringIO()
    with monkeypatch.context() as patch:
        patch.chdir(folder)
        patch.setenv("MPLBACKEND", "Agg")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(args)
            except SystemExit as stop:  # argparse's own exits
                status = 0 if stop.code is None else \
                    stop.code if isinstance(stop.code, int) else 1
    return subprocess.CompletedProcess(argv, status, out.getvalue(), err.getvalue())


@pytest.mark.parametrize("block", params())
def test_a_documented_example_runs(block: Block, scratch: Path,
                                   monkeypatch: pytest.MonkeyPatch, python_runs: Runs) -> None:
    if block.skip or block.key in LONG_BLOCKS:
        pytest.skip(block.skip or LONG_BLOCKS[block.key])
    if block.lang == "python":
        done = python_runs[id(block)].result()
        assert done.returncode == 0, f"{block.page}:{block.line}\n{done.stderr[-3000:]}"
        return
    ran = 0
    for argv, why in block.commands:
        if why is not None:
            continue
        door = " ".join(argv[:2] if argv[0] == "python" else argv[:1])
        if door in STARTED:
            done = in_process(argv, scratch, monkeypatch)
        else:
            done = subprocess.run(runnable(argv), capture_output=True, text=True,
                                  cwd=scratch, env=environment(), timeout=TIMEOUT)
            STARTED.add(door)
        shown = " ".join(argv)
        assert done.returncode == 0, f"{block.page}:{block.line}: {shown}\n{done.stderr}"
        assert "Traceback" not in done.stderr, f"{shown}\n{done.stderr}"
        ran += 1
    if not ran:
        pytest.skip("; ".join(sorted({why for _, why in block.commands if why})) or "empty")


# --- the README's keyword arguments in running text -----------------------------------------

SPAN = re.compile(r"`([a-z_]+)=([^`]*)`")
#: README spans that name a keyword nqmip does not take today: span -> why (strict xfail).
KNOWN_SPANS = {
    '`objective="lex-first"`': "solve() refuses objective= (nqmip.lex_first is the door)",
    '`oracle="sat"`': "lex_first takes method=, not oracle=",
}


def keywords() -> set[str]:
    """The keyword arguments nqmip takes: its public functions' and its methods' own."""
    import inspect

    import nqmip
    from nqmip.methods import METHODS

    functions = [getattr(nqmip, name) for name in nqmip.__all__]
    functions += [spec.load() for spec in METHODS.values() if spec.kind == "heuristic"]
    return {name for f in functions if inspect.isfunction(f)
            for name in inspect.signature(f).parameters}


def spans() -> list[object]:
    text = (ROOT / "README.md").read_text()
    found = []
    for match in SPAN.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        span = match.group(0)
        found.append(pytest.param(match.group(1), id=f"README.md:{line}:{span}", marks=[
            pytest.mark.xfail(strict=True, reason=KNOWN_SPANS[span])]
            if span in KNOWN_SPANS else []))
    return found


@pytest.mark.parametrize("name", spans())
def test_a_keyword_the_readme_names_is_one_nqmip_takes(name: str) -> None:
    """```objective="lex-first"``` in the README's text, when solve() refuses it, fails."""
    assert name in keywords(), f"no nqmip function or method takes {name}="
