"""Every file a command writes is a file of its own: not one of its inputs, which it would
write over (``--weights w.csv --output w.csv`` replaced the weights by the result, exit
0), and not another of its outputs (``--output r.json --svg r.json``: the picture
replaced the result). Checked before any work, at every door."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _key(path: Any) -> str | None:
    """The file ``path`` names (links followed); None for standard input or output and
    for a device or a pipe, which may be named more than once (``/dev/null``)."""
    if path is None or str(path) in ("", "-"):
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
    except OSError:  # a new file
        pass
    return os.path.realpath(Path(path))


def check_distinct(inputs: Sequence[tuple[str, Any]], outputs: Sequence[tuple[str, Any]],
                   error: type[Exception]) -> None:
    """Refuse (``error``, one line naming both options) an output that is an input or
    another output."""
    seen: dict[str, str] = {}
    for option, path in inputs:
        key = _key(path)
        if key is not None:
            seen.setdefault(key, f"the {option} file")
    for option, path in outputs:
        key = _key(path)
        if key is None:
            continue
        if key in seen:
            raise error(f"{option} {path} is {seen[key]} too: writing it would replace "
                        f"that; give {option} a file of its own")
        seen[key] = f"the {option} file"
