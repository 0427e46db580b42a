"""A writable place for numba's cache of compiled kernels, found before any kernel loads.

Every kernel is ``@njit(cache=True)``: numba caches it beside its source (the package's
``__pycache__``) or, failing that, in the user's cache folder (``~/.cache/numba``), and
raises ``RuntimeError: cannot cache function ...: no locator available`` at import when
neither can be written: a package installed read-only (a container image, a system
folder) run by a user whose HOME cannot be written (a service user). :func:`ensure` runs
when :mod:`nqmip` is imported, before any kernel module: when neither place is writable
(and ``NUMBA_CACHE_DIR`` is not set) it points numba at a private folder under the
temporary folder, else (no writable temporary folder either) turns caching off, and says
so once (when it makes the folder) as a :class:`NumbaCacheWarning`. It tries what numba
tries (create the folder, write a file in it: access checks say yes to root on a
read-only folder) and imports nothing heavy: ``import nqmip`` stays fast.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
import warnings
from pathlib import Path

#: Set by :func:`ensure` when it chose a folder (or "" for no cache); None otherwise.
chosen: str | None = None


class NumbaCacheWarning(UserWarning):
    """numba's cache moved to a temporary folder (or off): the install is read-only."""


def writable(folder: Path) -> bool:
    """Whether a file can be made in ``folder`` (created if missing), as numba checks."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def user_cache_folder() -> Path:
    """numba's user-wide cache folder (``numba.misc.appdirs.user_cache_dir("numba")``)."""
    if sys.platform == "darwin":
        return Path(os.path.expanduser("~/Library/Caches")) / "numba"
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~/AppData/Local")
        return Path(base) / "numba" / "Cache"
    return Path(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")) / "numba"


def private_folder() -> tuple[Path | None, bool]:
    """``<tmp>/nqmip-numba-cache-<uid>``, reused only when it is this user's alone (another
    user's folder could hold planted cache files), else a fresh one; None if the temporary
    folder cannot be written. With whether it is new (the first run: say so then)."""
    try:
        base = Path(tempfile.gettempdir())
    except OSError:  # FileNotFoundError: no usable temporary folder at all
        return None, True
    uid = os.getuid() if hasattr(os, "getuid") else 0
    folder = base / f"nqmip-numba-cache-{uid}"
    try:
        try:
            folder.mkdir(mode=0o700)
            new = True
        except FileExistsError:
            new = False
        info = folder.lstat()
        private = (stat.S_ISDIR(info.st_mode) and info.st_uid == uid
                   and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))
        if private and writable(folder):
            return folder, new
        return Path(tempfile.mkdtemp(prefix="nqmip-numba-cache-")), True
    except OSError:
        return None, True


def ensure(package: Path | None = None) -> str | None:
    """Give numba a writable cache folder when its own two are not; the folder chosen
    ("" for no cache), or None when numba's own choice stands. Warns once."""
    global chosen
    if chosen is not None or os.environ.get("NUMBA_CACHE_DIR"):
        return None
    package = Path(__file__).resolve().parent if package is None else package
    user = user_cache_folder()
    if writable(package / "__pycache__") or writable(user):
        return None
    folder, new = private_folder()
    chosen = "" if folder is None else str(folder)
    if folder is not None:
        os.environ["NUMBA_CACHE_DIR"] = chosen  # child processes (workers) inherit it
        config = sys.modules.get("numba.core.config")
        if config is not None:  # numba already imported: its config read the variable
            config.CACHE_DIR = chosen  # type: ignore[attr-defined]
        what = f"caching them in {folder} (set NUMBA_CACHE_DIR to choose)"
    else:
        _no_cache()
        what = "compiling them in each run (no writable temporary folder either)"
    if not new:  # said when the folder was made; the runs after it use it quietly
        return chosen
    warnings.warn(NumbaCacheWarning(
        f"nqmip: numba cannot cache compiled kernels beside the package ({package} is "
        f"read-only) nor in {user}; {what}"), stacklevel=2)
    return chosen


def _no_cache() -> None:
    """Turn numba's cache off: ``cache=True`` then caches nothing instead of raising."""
    from numba.core.dispatcher import Dispatcher

    Dispatcher.enable_caching = lambda self: None  # type: ignore[method-assign]
