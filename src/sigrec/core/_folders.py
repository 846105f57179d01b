"""The user's cache folder and its private subfolders.

Folder: ``$SIGREC_CACHE_DIR``, else ``$XDG_CACHE_HOME/sigrec``, else ``~/.cache/sigrec``;
``SIGREC_CACHE_DIR=off`` disables it. What is kept there (the generated code of
``theory``, numba's compiled loops) is trusted only while the folder is private to the user
(:func:`untrusted_path` says why a folder is not).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def cache_dir() -> Path | None:
    """The cache folder, or ``None`` when disabled."""
    env = os.environ.get("SIGREC_CACHE_DIR")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "none") else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sigrec"


def is_private(st: os.stat_result) -> bool:
    """Owned by this user and not writable by group or others."""
    return st.st_uid == os.getuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def private_cache_folder(name: str) -> Path | None:
    """``name`` inside the cache folder (:func:`cache_dir`), created with mode 0700 when missing,
    if the cache is enabled and the folder and ``name`` are both owned by this user and not
    writable by group or others; else ``None``. For caches written by other tools, such as numba's
    compiled loops (``numerics/_simulate/_fused.py``), which carry no HMAC: the folder's privacy is their
    only guard, as for the user's own files. Outside the installed package, so that nothing is
    left behind there when the package is uninstalled."""
    base = cache_dir()
    if base is None or not hasattr(os, "getuid"):
        return None
    folder = base / name
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        for f in (base, folder):
            st = os.stat(f)
            if not stat.S_ISDIR(st.st_mode) or not is_private(st):
                return None
    except OSError:
        return None
    return folder


def _trusted_parent(st: os.stat_result) -> bool:
    """A folder above a cache: owned by this user or root, and writable by group or others only
    with the sticky bit (as ``/tmp``), so nobody else can rename or replace what is inside it."""
    if st.st_uid not in (os.getuid(), 0):
        return False
    return not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) or bool(st.st_mode & stat.S_ISVTX)


def _path_reason(folder: Path) -> str | None:
    """Why the folders leading to ``folder`` (as spelled and as resolved) cannot be trusted."""
    for path in dict.fromkeys((folder, Path(os.path.realpath(folder)))):
        for parent in reversed(path.parents):
            st = os.lstat(parent)
            if stat.S_ISLNK(st.st_mode):  # its target is checked on the resolved path
                if st.st_uid not in (os.getuid(), 0):
                    return f"{parent} is a symbolic link of another user"
            elif not stat.S_ISDIR(st.st_mode):
                return f"{parent} is not a folder"
            elif not _trusted_parent(st):
                return f"{parent} can be written by another user"
    return None


def _entry_reason(path: Path, st: os.stat_result) -> str | None:
    if stat.S_ISLNK(st.st_mode):
        return f"{path} is a symbolic link"
    if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
        return f"{path} is neither a file nor a folder"
    if st.st_uid != os.getuid():
        return f"{path} belongs to another user (uid {st.st_uid})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{path} is writable by group or others"
    return None


def untrusted_path(folder: Path) -> str | None:
    """Why code cached in ``folder`` must not be loaded, or ``None`` when it may: every folder
    leading to it is owned by this user or root and not writable by others (unless sticky), and
    ``folder`` and everything below it is a file or folder of this user, not writable by group or
    others, and not a symbolic link. Then nobody but this user (and root) can plant or replace a
    file there, now or later, so a file that passes stays trustworthy until it is loaded. An
    ``OSError`` while looking is a reason too; a missing ``folder`` is one."""
    folder = Path(os.path.abspath(folder))
    try:
        reason = _path_reason(folder)
        if reason is not None:
            return reason
        todo = [folder]
        reason = _entry_reason(folder, os.lstat(folder))
        while reason is None and todo:
            with os.scandir(todo.pop()) as entries:
                for entry in entries:
                    path = Path(entry.path)
                    reason = _entry_reason(path, entry.stat(follow_symlinks=False))
                    if reason is not None:
                        break
                    if entry.is_dir(follow_symlinks=False):
                        todo.append(path)
        return reason
    except OSError as exc:
        return f"{folder} cannot be inspected ({exc.strerror or exc})"
