"""Atomic outputs: nothing half-written after an interrupt or a crash.

A command writes its files into a temporary sibling of the destination (same parent,
so the final step is a rename on one file system) and moves them into place only
when everything has been written. On any exception, ``KeyboardInterrupt`` included,
the temporary folder is removed and the destination is left as it was.

The destination folder may be shared (``verify``, ``reproduce`` and ``phase`` all
default to ``./sigrec-report``), so :func:`atomic_folder` replaces only the entries
the command wrote, one rename each (a folder entry such as ``figures/`` is swapped:
old renamed away, new renamed in, old removed); entries written by other commands
stay. When the destination does not exist yet, the whole folder is renamed into
place at once. SIGINT and SIGTERM are held back during these few renames, so Ctrl-C
or a ``kill`` cannot leave a mixture of old and new files (``_main`` turns SIGTERM into
an interrupt, so the temporary folder is removed as after Ctrl-C).
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

#: temporary siblings start with this prefix (hidden, easy to recognise)
TMP_PREFIX = ".sigrec-tmp-"


@contextmanager
def _no_sigint():
    """Defer SIGINT and SIGTERM (main thread only) while the block runs."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except OSError:
            pass


def _mkparent(path: Path, what: str) -> Path:
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"`{what}` could not be created: {exc.strerror or exc}, got {str(path)!r}") from None
    return parent


@contextmanager
def atomic_folder(path: Path, what: str = "out"):
    """Yield a temporary folder next to ``path``; on success move its entries into
    ``path`` (created if missing); on failure remove it, leaving ``path`` untouched."""
    path = Path(path)
    parent = _mkparent(path, what)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{path.name}-", dir=parent))
    except OSError as exc:
        raise ValueError(f"`{what}` is not writable: {exc.strerror or exc}, got {str(path)!r}") from None
    try:
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it private; give it the usual mode
        yield tmp
        with _no_sigint():
            _commit(tmp, path)
    except OSError as exc:
        raise ValueError(f"`{what}` could not be written: {exc.strerror or exc}, got {str(path)!r}") from None
    finally:
        if tmp.exists():
            _remove(tmp)


def _commit(tmp: Path, path: Path) -> None:
    if not path.exists():
        os.rename(tmp, path)
        return
    for entry in sorted(tmp.iterdir()):
        target = path / entry.name
        if entry.is_dir() and target.is_dir() and not target.is_symlink():
            old = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}old-", dir=path))
            os.rename(target, old / entry.name)
            os.rename(entry, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            os.replace(entry, target)


@contextmanager
def atomic_file(path: Path, what: str = "save"):
    """Yield a temporary file name next to ``path`` (same suffix); on success rename
    it to ``path``; on failure remove it."""
    path = Path(path)
    parent = _mkparent(path, what)
    try:
        fd, name = tempfile.mkstemp(prefix=f"{TMP_PREFIX}{path.stem}-", suffix=path.suffix, dir=parent)
    except OSError as exc:
        raise ValueError(f"`{what}` could not be written: {exc.strerror or exc}, got {str(path)!r}") from None
    os.close(fd)
    tmp = Path(name)
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        yield tmp
        with _no_sigint():
            os.replace(tmp, path)
    except OSError as exc:
        raise ValueError(f"`{what}` could not be written: {exc.strerror or exc}, got {str(path)!r}") from None
    finally:
        if tmp.exists():
            _remove(tmp)


def relocate(obj, tmp: Path, final: Path):
    """``obj`` (JSON-like) with every string path under ``tmp`` rewritten under ``final``."""
    src, dst = str(tmp), str(final)
    if isinstance(obj, dict):
        return {k: relocate(v, tmp, final) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(relocate(v, tmp, final) for v in obj)
    if isinstance(obj, str) and (obj == src or obj.startswith(src + os.sep)):
        return dst + obj[len(src):]
    return obj
