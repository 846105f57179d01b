"""A disk cache of generated numeric code: the Python source that ``sympy.lambdify`` writes.

The finite-step derivation (:func:`theory.derive_effective`) and the lambdification of its
large expressions take several seconds per prior and per process; the numbers they produce
depend only on the theory's own source. :func:`cached_lambdify` stores the generated
source of each lambdified function in the user's cache folder, keyed by a digest of every
``.py`` file under ``theory/`` (subpackages included) and the sympy and numpy versions, so
a second process skips both the derivation and the code generation (``sigrec complexity``
answers a cold instance in a few seconds). A changed theory changes the key; a missing or unwritable cache only costs time.

Folder: ``$SIGREC_CACHE_DIR``, else ``$XDG_CACHE_HOME/sigrec``, else ``~/.cache/sigrec``;
``SIGREC_CACHE_DIR=off`` disables it. Files are written atomically (temporary file, then
rename). The cache holds Python code that is executed when read: like ``__pycache__``, it
must be writable only by its owner.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import re
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np
import sympy as sp


@lru_cache(maxsize=None)
def _digest() -> str:
    h = hashlib.sha256()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):  # subpackages included (e.g. _priors/)
        h.update(path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    h.update(sp.__version__.encode())
    h.update(np.__version__.encode())
    return h.hexdigest()[:16]


def cache_dir() -> Path | None:
    """The cache folder, or ``None`` when disabled."""
    env = os.environ.get("SIGREC_CACHE_DIR")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "none") else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sigrec"


@lru_cache(maxsize=None)
def _namespace(modules: str) -> dict:
    """The globals ``lambdify`` gives generated code for ``modules`` (expression-independent)."""
    return sp.lambdify((), 0, modules=modules).__globals__


def cached_lambdify(tag: str, build, modules: str = "numpy"):
    """A lambdified function, from the disk cache when possible.

    ``build()`` returns ``(args, expr, kwargs)`` for ``sympy.lambdify`` and is called only
    on a cache miss (it may run the symbolic derivation). ``tag`` names the function
    (any string; it is hashed into the file name together with the theory's digest).
    """
    folder = cache_dir()
    key = hashlib.sha256(f"{tag}|{modules}".encode()).hexdigest()[:20]
    path = None if folder is None else folder / f"{_digest()}-{key}.py"
    if path is not None and path.is_file():
        try:
            fn = _load(path.read_text(), modules, str(path))
            if fn is not None:
                return fn
        except Exception:  # a damaged file: rebuild it
            pass
    args, expr, kwargs = build()
    fn = sp.lambdify(args, expr, modules=modules, **kwargs)
    if path is not None:
        try:
            _store(path, inspect.getsource(fn))
        except (OSError, TypeError):
            pass
    return fn


def _load(source: str, modules: str, filename: str):
    match = re.search(r"^def (\w+)\(", source, flags=re.M)
    if not match:
        return None
    ns = dict(_namespace(modules))
    exec(compile(source, filename, "exec"), ns)  # noqa: S102 - our own generated code
    return ns[match.group(1)]


def _store(path: Path, source: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".py")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(source)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
