"""A writable place for numba's cache of compiled kernels, found before any kernel loads.

Every kernel is ``@njit(cache=True)``: numba caches it beside its source (the package's
``__pycache__``) or, failing that, in the user's cache folder (``~/.cache/numba``), and
raises ``RuntimeError: cannot cache function ...: no locator available`` at import when
neither can be written: a package installed read-only (a container image, a system
folder) run by a user whose HOME cannot be written (a service user). :func:`ensure` runs
when this module is imported, before any kernel is decorated: when neither place is writable
(and ``NUMBA_CACHE_DIR`` is not set) it points numba at a private folder under the
temporary folder, else (no writable temporary folder either) turns caching off, and says
so once (when it makes the folder) as a :class:`NumbaCacheWarning`. It tries what numba
tries (create the folder, write a file in it: access checks say yes to root on a
read-only folder) and imports nothing heavy. Every kernel module imports :func:`njit` from
here; ``import nqmip`` does not import this module (a command's launcher,
:mod:`nqmip.cli.launch`, listens for signals before it).

One compile per machine: the kernel modules decorate with this module's :func:`njit`, which
puts :class:`SourceKeyedLocator` first in numba's cache locators. numba's own locators key
the cache by the source file's *path* (``__pycache__`` beside it, or a folder named by a hash
of its directory), and the editable install gives the package two paths (the checkout, and
the ``build/__editable__`` tree of links the installed command and notebooks import): each
compiled every kernel once more. The locator keeps every nqmip kernel in one folder,
``<NUMBA_CACHE_DIR or numba's user cache folder>/nqmip/<numba>-py<XY>/<module>-<key>``,
where the key is a hash of the *contents* of the kernel module and of the nqmip modules it
imports (a kernel inlines its callees and freezes their constants: an edit to either makes a
new key, never a stale load): any path to the same source finds the same compiled kernels.
When that folder cannot be written, numba's own locators follow (and the fallback above).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import sys
import tempfile
import threading
import warnings
from functools import cache
from pathlib import Path
from typing import Any

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
    """Give numba a writable cache folder when its own two (and NUMBA_CACHE_DIR, when set)
    are not; the folder chosen
    ("" for no cache), or None when numba's own choice stands. Warns once."""
    global chosen
    given = os.environ.get("NUMBA_CACHE_DIR")
    if chosen is not None or (given and writable(Path(given))):
        return None
    package = Path(__file__).resolve().parent if package is None else package
    user = user_cache_folder()
    if writable(package / "__pycache__") or writable(user):
        return None  # numba's own locators use them (past an unwritable NUMBA_CACHE_DIR too)
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
    # one line on stderr (warn_explicit from no source file: no source line under it)
    where = f"in NUMBA_CACHE_DIR={given}, " if given else ""
    warnings.warn_explicit(NumbaCacheWarning(
        f"nqmip: numba cannot cache compiled kernels {where}beside the package ({package} "
        f"is read-only) nor in {user}; {what}"), NumbaCacheWarning, "nqmip", 0)
    return chosen


def _no_cache() -> None:
    """Turn numba's cache off: ``cache=True`` then caches nothing instead of raising."""
    from numba.core.dispatcher import Dispatcher

    Dispatcher.enable_caching = lambda self: None  # type: ignore[method-assign]


# --- one compile per machine: the cache keyed by the source, not by its path ---------------

_IMPORT = re.compile(rb"^\s*from (nqmip(?:\.\w+)*) import", re.MULTILINE)
#: numba:compile events seen since the locator was installed (a cache load raises none).
_compiles = [0]


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit``, with nqmip's kernels cached by their source (:func:`install`)."""
    install()
    import numba

    return numba.njit(*args, **kwargs)


def compiles() -> int:
    """How many kernel compiles numba ran in this process (its cache loads are not)."""
    return _compiles[0]


def _file_of(module: str, root: Path) -> Path | None:
    """The source file of ``module`` (``nqmip.a.b``) under the package folder ``root``."""
    parts = module.split(".")[1:]
    for path in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
        if path.is_file():
            return path
    return None


@cache
def source_key(module: str, root: Path, source: Path) -> str:
    """A hash of the contents of ``module`` (its file ``source``) and, transitively through
    the modules that define kernels, of the nqmip modules it imports from the package folder
    ``root`` (what numba freezes into a kernel)."""
    digest = hashlib.sha256()
    seen: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        path = source if name == module else _file_of(name, root)
        if name in seen or path is None or name == __name__:  # this file compiles nothing
            continue
        seen.add(name)
        text = path.read_bytes()
        digest.update(name.encode() + b"\0" + hashlib.sha256(text).digest())
        if name == module or b"njit" in text:  # a kernel module: follow its imports
            todo += sorted({m.decode() for m in _IMPORT.findall(text)} - seen)
    return digest.hexdigest()[:20]


def cache_root() -> Path:
    """Where the locator keeps nqmip's kernels: ``NUMBA_CACHE_DIR`` (numba's config) or
    numba's user cache folder, then ``nqmip/<numba version>-py<XY>``."""
    import numba
    from numba.core import config

    base = Path(config.CACHE_DIR) if config.CACHE_DIR else user_cache_folder()
    version = f"{numba.__version__}-py{sys.version_info[0]}{sys.version_info[1]}"
    return base / "nqmip" / version


def install() -> None:
    """Put :class:`SourceKeyedLocator` first in numba's cache locators (once), and count
    numba's compiles (:func:`compiles`)."""
    with _installing:  # kernel modules may be first imported by two threads at once
        if not _installed:
            _install()


def _install() -> None:
    from numba.core import caching, event

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    locator = _locator_class(caching._CacheLocator)
    impl._locator_classes = [locator, *impl._locator_classes]

    class _Count(event.Listener):
        def on_start(self, event: object) -> None:
            _compiles[0] += 1

        def on_end(self, event: object) -> None:
            pass

    event.register("numba:compile", _Count())
    _locked_saves(caching.IndexDataCacheFile)
    _installed.append(locator)


def _locked_saves(index_file: Any) -> None:
    """numba saves a kernel's cache entry by reading its index, adding the entry and
    writing the index back, unlocked: two processes that compile two signatures of one
    kernel at once each write the index they read, so one entry is lost (the next run
    compiles it again: a warm-up's kernels cold in the command after it, CI's ``bnb``
    answered by the watchdog at 20 s where it proves in 0.7 s) and both may take the same
    data file (the index names one signature's file, the other's code in it). Each save
    holds an exclusive lock on a file beside the index, across processes."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): numba's unlocked save
        return
    save = index_file.save

    def locked_save(self: Any, key: Any, data: Any) -> None:
        try:
            lock = open(f"{self._index_path}.lock", "ab")  # noqa: SIM115 (closed below)
        except OSError:  # the folder is numba's to report on
            return save(self, key, data)
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                save(self, key, data)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    index_file.save = locked_save


_installed: list[type] = []
_installing = threading.Lock()


def _locator_class(base: type) -> type:
    """The locator class, made once numba is imported (its base class is numba's)."""

    class SourceKeyedLocator(base):
        """numba's cache of an nqmip kernel, found by the module's name and the hash of
        its source (:func:`source_key`), whatever path the package was imported from."""

        def __init__(self, py_func: Any, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            module = py_func.__module__
            root = Path(py_file).parent
            for _ in module.split(".")[1:-1]:
                root = root.parent
            self._stamp = source_key(module, root, Path(py_file))
            self._cache_path = str(cache_root() / f"{module}-{self._stamp}")

        def get_cache_path(self) -> str:
            return self._cache_path

        def get_source_stamp(self) -> str:
            return self._stamp

        def get_disambiguator(self) -> str:
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            module = getattr(py_func, "__module__", None) or ""
            if not module.startswith("nqmip.") or not os.path.isfile(py_file):
                return None
            try:
                self = cls(py_func, py_file)
                self.ensure_cache_path()
            except OSError:  # not writable: numba's own locators follow
                return None
            return self

    return SourceKeyedLocator


# Before any kernel module decorates a kernel (each imports njit from here): a read-only
# install with an unwritable HOME gets a cache folder.
ensure()
