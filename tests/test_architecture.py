"""The package's layout: no import circle among its modules, and no long module or long
function without a reason written at its top.

The import graph is read with ``ast`` from the source (no module is imported): every
``import``/``from … import`` anywhere in a module counts, function-level ones included;
only blocks under ``if TYPE_CHECKING:`` are left out (they never run).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import ModuleType

import pytest

from tests.scripts import load_script

PACKAGE = Path(__file__).resolve().parents[1] / "nqmip"
#: A module longer than this says at its top why (a line starting with "Long module:").
MAX_LINES = 500
LONG_MARKER = "Long module:"
#: Long modules being rewritten on other branches; each entry must go when it lands.
PENDING_SPLIT: dict[str, str] = {}
#: A function longer than this (numba kernels apart) says why in its docstring or in a
#: comment on its first lines (a line with "Over 100 lines:").
MAX_FUNCTION_LINES = 100
LONG_FUNCTION_MARKER = "Over 100 lines:"
NUMBA_DECORATORS = {"njit", "jit", "vectorize", "guvectorize", "cfunc"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules that ``name`` imports (at any depth of its code)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def add(target: str) -> None:
        while target and target not in known:  # a name inside a module: the module
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.startswith("nqmip"):
                        add(alias.name)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - child.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                if base.startswith("nqmip"):
                    for alias in child.names:
                        add(f"{base}.{alias.name}")  # a submodule, or a name in base
            visit(child)

    visit(tree)
    return found


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state:
                found = dfs(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = dfs(node)
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_planted_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_function_level_imports_are_seen() -> None:
    graph = import_graph()
    # nqmip.solve imports the exact pipeline and the heuristics inside functions only
    # (auto's entry it resolves from the method table, by name).
    assert {"nqmip.exact", "nqmip.heuristics"} <= graph["nqmip.solve"]
    # ... and no layer below it imports the façade back (the former circles through
    # hybrid and warmstart); only the public API, the CLI and compare sit above it.
    above = {"nqmip"} | {m for m in graph if m.startswith(("nqmip.compare", "nqmip.cli"))}
    assert not [m for m, deps in graph.items() if "nqmip.solve" in deps and m not in above]


def test_no_import_cycle() -> None:
    graph = import_graph()
    # The package's __init__ imports the public API; a submodule importing
    # ``nqmip.<module>`` does not run through it in a cycle, so it is left out.
    graph = {m: {d for d in deps if d != "nqmip"} for m, deps in graph.items()}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


@pytest.mark.parametrize("name", sorted(modules()))
def test_long_modules_say_why(name: str) -> None:
    path = modules()[name]
    lines = path.read_text().splitlines()
    if len(lines) <= MAX_LINES or name in PENDING_SPLIT:
        return
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    assert LONG_MARKER in doc, (
        f"{path.relative_to(PACKAGE.parent)} has {len(lines)} lines (> {MAX_LINES}) and no "
        f"'{LONG_MARKER}' reason in its docstring")


def _is_numba_kernel(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in NUMBA_DECORATORS:
            return True
    return False


def long_functions(path: Path) -> list[str]:
    """The functions of ``path`` over ``MAX_FUNCTION_LINES`` lines (numba kernels apart)
    that give no reason, as ``name (lines)``."""
    text = path.read_text()
    source = text.splitlines()
    found = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        length = (node.end_lineno or node.lineno) - node.lineno + 1
        if length <= MAX_FUNCTION_LINES or _is_numba_kernel(node):
            continue
        doc = ast.get_docstring(node) or ""
        first = node.body[0].lineno if node.body else node.lineno
        head = "\n".join(source[node.lineno - 1: first + 2])  # signature and first comments
        if LONG_FUNCTION_MARKER not in doc and LONG_FUNCTION_MARKER not in head:
            found.append(f"{node.name} ({length} lines)")
    return found


def test_the_function_length_check_sees_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    plain = tmp_path / "plain.py"
    plain.write_text(f"def f():\n{body}\n")
    assert long_functions(plain) == [f"f ({MAX_FUNCTION_LINES + 1} lines)"]
    reasoned = tmp_path / "reasoned.py"
    reasoned.write_text(f'def f():\n    """{LONG_FUNCTION_MARKER} one table."""\n{body}\n')
    assert long_functions(reasoned) == []
    kernel = tmp_path / "kernel.py"
    kernel.write_text(f"@njit(cache=True)\ndef f():\n{body}\n")
    assert long_functions(kernel) == []


@pytest.mark.parametrize("name", sorted(modules()))
def test_long_functions_say_why(name: str) -> None:
    path = modules()[name]
    found = long_functions(path)
    assert not found, (
        f"{path.relative_to(PACKAGE.parent)}: {', '.join(found)} over "
        f"{MAX_FUNCTION_LINES} lines with no '{LONG_FUNCTION_MARKER}' reason; split it")


def test_the_architecture_page_lists_every_module() -> None:
    tool = _architecture_tool()
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text()
    assert tool.page_with_table(page) == page, "run: python tools/architecture.py --write"
    listed = set(re.findall(r"^\| `(nqmip/[\w/]+\.py)` \|", page, re.M))
    on_disk = {str(p.relative_to(PACKAGE.parent)) for p in PACKAGE.rglob("*.py")}
    assert listed == on_disk


def _architecture_tool() -> ModuleType:
    return load_script("architecture_tool", PACKAGE.parent / "tools" / "architecture.py")


def layer_breaks(graph: dict[str, set[str]], rank: object) -> list[str]:
    """Every import of a module by one in a lower layer (``rank(path)`` orders the layers
    top to bottom), function-level imports included."""
    mods = modules()

    def path(name: str) -> str:
        return str(mods[name].relative_to(PACKAGE.parent))

    return sorted(f"{path(a)} -> {path(b)}" for a, deps in graph.items() for b in deps
                  if rank(path(a))[0] > rank(path(b))[0])  # type: ignore[operator]


def test_no_import_against_the_layers() -> None:
    """A module imports only modules of its own layer or below (the table of
    tools/architecture.py, in docs/architecture.md): an import inside a function counts."""
    breaks = layer_breaks(import_graph(), _architecture_tool().rank)
    assert not breaks, "imports against the layers:\n" + "\n".join(breaks)


def test_the_layer_check_sees_a_planted_break() -> None:
    rank = _architecture_tool().rank
    graph = {"nqmip.formulation.strengthen": {"nqmip.colour.proof"}}
    assert layer_breaks(graph, rank) == [
        "nqmip/formulation/strengthen.py -> nqmip/colour/proof.py"]
