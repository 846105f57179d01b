"""The user's cache folder and its private subfolders.

Folder: ``$SIGREC_CACHE_DIR``, else ``$XDG_CACHE_HOME/sigrec``, else ``~/.cache/sigrec``;
``SIGREC_CACHE_DIR=off`` disables it. What is kept there (the generated code of
``theory``, numba's compiled loops) is trusted only while the folder is private to the user.
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
