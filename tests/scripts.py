"""A file of the project's that is not a module of the package (a benchmark, a tool, a
model file) loaded as a module in the test's process: its functions tested without a new
interpreter."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_script(name: str, path: Path) -> ModuleType:
    """The file ``path`` run as the module ``name`` (registered in ``sys.modules``: a
    dataclass of the file looks its module up there)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
