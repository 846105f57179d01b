"""numba's disk cache of sigrec's compiled loops, checked before anything in it is loaded.

Claim. A function decorated with :func:`cached_jit` is compiled by numba, and numba keeps the
compiled code in :data:`FOLDER` and nowhere else, or in memory only:

- :data:`FOLDER` is ``$NUMBA_CACHE_DIR`` when the user set it, else ``numba/`` in sigrec's
  private cache folder (:func:`sigrec.core.private_cache_folder`). It is used only when
  :func:`sigrec.core.untrusted_path` finds nothing wrong with it when this module is imported:
  every folder above it owned by this user or root and not writable by others (unless sticky, as
  ``/tmp``), and the folder and every file and folder below it this user's, not writable by group
  or others, and not a symbolic link. Otherwise numba's cache is off for the process, and one
  :class:`CacheWarning` says why (none when the user turned the cache off with
  ``SIGREC_CACHE_DIR=off``); the loops are compiled again in each process (a few seconds).
- numba unpickles its index (``.nbi``) and data (``.nbc``) files, which runs code. Nobody but
  this user and root can write into a folder that passed, then or later, so what passed stays
  trustworthy; each file is checked again (:func:`_private_file`) right before it is opened, and
  one that fails is not read (numba compiles instead).
- numba's own locators are not consulted for these functions (not ``__pycache__`` beside the
  sources, where files outside pip's install record stay behind on uninstall and once shadowed an
  editable install as an empty namespace package; not numba's user-wide folder; not the locators
  of ``NUMBA_CACHE_LOCATOR_CLASSES``). Folders numba creates in :data:`FOLDER` get mode 0700.

This uses numba's caching classes (``numba.core.caching``), which are not a documented API: the
tests (``tests/numerics/test_jitcache.py``) check that the cache is used, where it is written, and
that a planted file is not loaded, so a numba release that changes them fails there.
"""

from __future__ import annotations

import os
import stat
import tempfile
import warnings
from pathlib import Path
from typing import Any, ClassVar

from numba import njit
from numba.core import caching, config

from ...core import cache_dir, private_cache_folder, untrusted_path

_numba_config: Any = config  # settings made at run time, unknown to mypy


class CacheWarning(UserWarning):
    """numba's cache of sigrec's loops is off for this process (the message says why)."""


def _choose() -> tuple[Path | None, str | None]:
    """``(folder, None)`` when the cache may be used, ``(None, reason)`` when not (``reason`` is
    ``None`` when the user turned the cache off)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env:
        folder = Path(env)
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            return None, f"NUMBA_CACHE_DIR={env} cannot be created ({exc.strerror or exc})"
        where = f"NUMBA_CACHE_DIR={env}"
    else:
        private = private_cache_folder("numba")
        if private is None:
            base = cache_dir()
            return None, (None if base is None else f"{base / 'numba'} is not private to this user")
        folder, where = private, str(private)
    reason = untrusted_path(folder)
    if reason is not None:
        return None, f"{where} cannot be trusted: {reason}"
    return folder, None


FOLDER, _REASON = _choose()


class _Refused(caching.NullCache):
    """No cache, and one :class:`CacheWarning` saying why when the first loop is compiled (not at
    import, so that the command line, which imports the package before it runs, prints it as its
    one ``warning:`` line)."""

    warned: ClassVar[bool] = False

    def load_overload(self, sig, target_context):
        if not _Refused.warned:
            _Refused.warned = True
            warnings.warn(f"numba's cache of compiled loops is off for this process ({_REASON}); "
                          "they are compiled again in each process", CacheWarning, stacklevel=2)


def _private_file(path: str) -> bool:
    """A missing file, or a regular file of this user not writable by group or others (not a
    symbolic link) in a folder of the same kind."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    folder = os.lstat(os.path.dirname(path))
    return (stat.S_ISREG(st.st_mode) and stat.S_ISDIR(folder.st_mode)
            and all(s.st_uid == os.getuid() and not s.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
                    for s in (st, folder)))


class _Locator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """A function's cache folder inside :data:`FOLDER` (one subfolder per source folder, named
    as numba names them)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        assert FOLDER is not None  # from_function builds one only with a folder
        self._cache_path = os.path.join(FOLDER, self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self):
        return self._cache_path

    def ensure_cache_path(self):
        os.makedirs(self._cache_path, mode=0o700, exist_ok=True)
        reason = untrusted_path(Path(self._cache_path))
        if reason is not None:
            raise OSError(reason)
        tempfile.TemporaryFile(dir=self._cache_path).close()

    @classmethod
    def from_function(cls, py_func, py_file):
        return None if FOLDER is None else super().from_function(py_func, py_file)


class _Impl(caching.CompileResultCacheImpl):
    _locator_classes = [_Locator]  # noqa: RUF012  (numba reads it from the class)

    def __init__(self, py_func):
        # numba would take NUMBA_CACHE_LOCATOR_CLASSES over _locator_classes; not for these loops
        saved = getattr(_numba_config, "CACHE_LOCATOR_CLASSES", None)
        if saved:
            _numba_config.CACHE_LOCATOR_CLASSES = ""
        try:
            super().__init__(py_func)
        finally:
            if saved:
                _numba_config.CACHE_LOCATOR_CLASSES = saved


class _File(caching.IndexDataCacheFile):
    """numba's index and data files, each checked (:func:`_private_file`) before it is opened."""

    def _load_index(self):
        return super()._load_index() if _private_file(self._index_path) else {}

    def _load_data(self, name):
        path = self._data_path(name)
        if not _private_file(path):
            raise OSError(f"{path} is not private to this user")  # load() then compiles
        return super()._load_data(name)


class _Cache(caching.FunctionCache):
    _impl_class = _Impl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file = _File(cache_path=self._cache_path, filename_base=self._impl.filename_base,
                                 source_stamp=self._impl.locator.get_source_stamp())


def cached_jit(**options):
    """``numba.njit(**options)`` with the checked cache of this module (in memory when
    :data:`FOLDER` is ``None`` or numba finds no usable folder for the function)."""
    def decorate(fn):
        dispatcher = njit(cache=False, **options)(fn)
        if _REASON is not None:
            dispatcher._cache = _Refused()
        elif FOLDER is not None:
            try:
                dispatcher._cache = _Cache(dispatcher.py_func)
            except RuntimeError:  # no locator: the folder could not be made or written
                pass
        return dispatcher
    return decorate
