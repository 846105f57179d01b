"""A disk cache of generated numeric code: the Python source that ``sympy.lambdify`` writes.

The finite-step derivation (:func:`theory.derive_effective`) and the lambdification of its
large expressions take several seconds per prior and per process; the numbers they produce
depend only on the theory's own source. :func:`cached_lambdify` stores the generated
source of each lambdified function in the user's cache folder (:func:`cached_source`, the source a
module prints itself: the ball functions of a ``k = 2`` region certificate), keyed by a digest of the
generating modules (:func:`generating_modules`) and the sympy and numpy versions, so a second
process skips both the derivation and the code generation. A changed derivation changes the key.

The generating modules are derived from the source, not listed by hand: every theory module
that imports :func:`cached_lambdify` or :func:`cached_source`, and every theory module these
import, transitively (read by ``ast``, relative imports
resolved; ``from package import name`` reaches ``package/__init__.py`` unless every name is a
submodule; a package's ``__init__`` is not reached by importing one of its submodules, as it
only re-exports). A module outside that set cannot change what is generated, so editing it
(say ``_certify/`` or the printing layer ``_latex.py``) leaves both keys as they are; a new
import in a generating module brings the imported module into the set.

Folder: ``$SIGREC_CACHE_DIR``, else ``$XDG_CACHE_HOME/sigrec``, else ``~/.cache/sigrec``;
``SIGREC_CACHE_DIR=off`` disables it. Files are written atomically (temporary file, then
rename).

The cache is a trust boundary: it holds Python code that is executed when read. Every file
carries, on its first line, an HMAC-SHA256 of its file name and its code, keyed by a random
per-user secret (``key``, 32 bytes, mode 0600, in the cache folder, created on first use);
the bytes are read once from an open descriptor, checked, and only those bytes are executed.
A plain digest beside the code would not help (whoever can write one can write both); the
key is readable only by its owner, so only the owner can write a file that passes, and the
name in the HMAC keeps a valid file of one function from standing in for another. A folder,
key or file that is not owned by the user or is writable by group or others is not used: the
function is built in memory and nothing is written there. A file that fails its HMAC
(planted, altered, truncated) is rebuilt and rewritten; a key of the wrong length is
replaced (which invalidates every file). A too-long path or any ``OSError`` only costs time;
the numbers never change. Platforms without ``os.getuid`` build in memory.

Shipped code. The package carries the generated code of the built-in cases' priors
(``theory/_codegen/_generated/``, :data:`SHIPPED`, written by the maintainer's script
``python .ci/generate_code.py``, outside the installed package), so that a first run on a
fresh machine skips the derivations (minutes of sympy per prior). It is used only when the
first line of its ``DIGEST`` equals the digest of the current generating modules (a changed
derivation ignores it and derives, as before; ``tests/theory/test_generated.py`` fails until it
is regenerated). The other lines of ``DIGEST`` are a manifest, the SHA-256 of each
``.code`` file's bytes (:func:`manifest_lines`): a shipped file is executed only when its bytes
hash to its line, so a damaged or altered installed file (or one the manifest does not list) is
not run, and the function is derived as if nothing were shipped. The manifest guards against
damage and against an edit of the generated code alone; whoever can rewrite the installed
package can rewrite ``DIGEST`` and the modules too, so beyond that the shipped code is as
trusted as the package's modules.
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import inspect
import os
import re
import secrets
import stat
import tempfile
from functools import cache
from pathlib import Path

import numpy as np
import sympy as sp

from ...core import cache_dir, is_private

#: the secret key's file name inside the cache folder, and its length in bytes
KEY_NAME, KEY_BYTES = "key", 32
_HEADER = b"# sigrec-hmac-sha256: "
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


#: generated code shipped inside the package (``theory/_codegen/_generated/``, written by
#: ``python .ci/generate_code.py``): ``<name>.code`` files and ``DIGEST``, the
#: :func:`_source_digest` of the generating modules they were generated from
SHIPPED = Path(__file__).parent / "_generated"
#: the source folder of ``sigrec.theory``, which the digests read
_THEORY = Path(__file__).parents[1]
#: the names whose importers generate code (each is a root of :func:`generating_modules`)
_ENTRIES = ("cached_lambdify", "cached_source")


def _module_file(root: Path, parts: tuple[str, ...]) -> Path | None:
    """The source file of the theory module ``parts`` (``()`` is the package itself), if any."""
    base = root.joinpath(*parts)
    for path in ((base.with_suffix(".py"),) if parts else ()) + (base / "__init__.py",):
        if path.is_file():
            return path
    return None


def _statements(node: ast.AST):
    """Every statement under ``node``, nested ones included (in functions, classes, ``if``,
    ``try``, ...): where an import can stand. Expressions are not visited (the bulk of a module,
    and no import is an expression)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
            yield child
            yield from _statements(child)


def _imports(root: Path, path: Path) -> tuple[list[Path], bool]:
    """The theory modules ``path`` imports (anywhere in it, relative imports resolved), and
    whether it imports one of :data:`_ENTRIES`."""
    rel = path.relative_to(root)
    package = rel.parent.parts  # of a package's __init__, the package itself
    found: list[Path] = []
    entry = False
    for node in _statements(ast.parse(path.read_bytes(), filename=str(path))):
        targets: list[tuple[tuple[str, ...], list[str]]]
        if isinstance(node, ast.Import):
            targets = [(tuple(a.name.split(".")), []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names]
            entry = entry or any(e in names for e in _ENTRIES)
            dotted = tuple(node.module.split(".")) if node.module else ()
            if node.level == 0:
                targets = [(dotted, names)]
            elif node.level - 1 <= len(package):  # beyond theory/ (core, numerics): not theory's
                targets = [(("sigrec", "theory", *package[:len(package) - node.level + 1], *dotted), names)]
            else:
                targets = []
        else:
            continue
        for dotted, names in targets:
            if dotted[:2] != ("sigrec", "theory"):
                continue
            subs = [f for f in (_module_file(root, (*dotted[2:], n)) for n in names) if f is not None]
            found += subs
            if len(subs) < len(names) or not names:  # a name from the module itself, or `import x.y`
                module = _module_file(root, dotted[2:])
                found += [module] if module is not None else []
    return found, entry


def generating_modules(root: Path | None = None) -> tuple[str, ...]:
    """The theory modules the generated code comes from, as paths relative to ``root``
    (default :data:`_THEORY`), sorted: the closure under imports of every module that imports
    one of :data:`_ENTRIES` (module docstring)."""
    root = _THEORY if root is None else root
    parsed: dict[Path, tuple[list[Path], bool]] = {}

    def imports(path: Path) -> tuple[list[Path], bool]:
        if path not in parsed:
            parsed[path] = _imports(root, path)
        return parsed[path]

    # only a file that spells the name can import it: the others are not parsed for roots
    todo = [path for path in sorted(root.rglob("*.py")) if _spells_entry(path) and imports(path)[1]]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo += imports(path)[0]
    return tuple(sorted(path.relative_to(root).as_posix() for path in seen))


def _spells_entry(path: Path) -> bool:
    data = path.read_bytes()
    return any(e.encode() in data for e in _ENTRIES)


@cache
def _source_digest() -> str:
    """A digest of the generating modules (:func:`generating_modules`): their paths and bytes,
    what the derivations, and so the generated code, depend on."""
    h = hashlib.sha256()
    for rel in generating_modules(_THEORY):
        h.update(rel.encode())
        h.update((_THEORY / rel).read_bytes())
    return h.hexdigest()[:16]


@cache
def _digest() -> str:
    """The user cache's key: the generating modules (:func:`_source_digest`, the shipped code's
    key) and the sympy and numpy versions."""
    h = hashlib.sha256(_source_digest().encode())
    h.update(sp.__version__.encode())
    h.update(np.__version__.encode())
    return h.hexdigest()[:16]


def _key_name(tag: str, modules: str) -> str:
    return hashlib.sha256(f"{tag}|{modules}".encode()).hexdigest()[:20]


#: while :func:`recording`: every function :func:`cached_lambdify` builds, ``{name: source}``
_RECORD: dict | None = None


def manifest_lines(folder: Path) -> list[str]:
    """``DIGEST``'s manifest of the ``.code`` files in ``folder``: ``"<sha256>  <name>.code"``
    per file, sorted by name (what ``.ci/generate_code.py`` writes below the source digest)."""
    return [f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.name}"
            for path in sorted(folder.glob("*.code"))]


def _read_digest() -> tuple[str, dict[str, str]]:
    """``DIGEST``'s source digest and its manifest ``{file name: sha256}`` (empty when it has
    none or a line is malformed: then no shipped file is run)."""
    lines = (SHIPPED / "DIGEST").read_text().splitlines()
    manifest: dict[str, str] = {}
    for line in lines[1:]:
        digest, sep, name = line.partition("  ")
        if not sep or not re.fullmatch(r"[0-9a-f]{64}", digest) or not name.endswith(".code"):
            return (lines[0].strip() if lines else ""), {}
        manifest[name] = digest
    return (lines[0].strip() if lines else ""), manifest


def shipped_current() -> bool:
    """True iff the shipped generated code was generated from these generating modules (same
    :func:`_source_digest` on ``DIGEST``'s first line) and every ``.code`` file in it is listed in
    the manifest with the hash of its bytes; stale or altered shipped code is never used."""
    try:
        digest, manifest = _read_digest()
        files = manifest_lines(SHIPPED)
    except (OSError, UnicodeDecodeError):
        return False
    return digest == _source_digest() and files == [f"{h}  {n}" for n, h in sorted(manifest.items())]


def _shipped_source(key_name: str) -> str | None:
    """The shipped code of ``key_name`` when current and its bytes hash to its manifest line
    (package files: as trusted as the package's modules, so no HMAC), else ``None``."""
    if _RECORD is not None:
        return None
    manifest = _shipped_manifest()
    name = f"{key_name}.code"
    if name not in manifest:
        return None
    try:
        data = (SHIPPED / name).read_bytes()
        if not hmac.compare_digest(hashlib.sha256(data).hexdigest(), manifest[name]):
            return None
        return data.decode()
    except (OSError, UnicodeDecodeError):
        return None


@cache
def _shipped_manifest() -> dict[str, str]:
    """The manifest of the shipped code when its source digest is current, else empty: read once
    per process; each file's bytes are checked against it when the file is read."""
    try:
        digest, manifest = _read_digest()
    except (OSError, UnicodeDecodeError):
        return {}
    return manifest if digest == _source_digest() else {}


@cache
def _namespace(modules: str) -> dict:
    """The globals ``lambdify`` gives generated code for ``modules`` (expression-independent)."""
    return sp.lambdify((), 0, modules=modules).__globals__


def cached_lambdify(tag: str, build, modules: str = "numpy"):
    """A lambdified function, from the disk cache when a verified file is there.

    ``build()`` returns ``(args, expr, kwargs)`` for ``sympy.lambdify`` and is called only
    on a cache miss (it may run the symbolic derivation). ``tag`` names the function
    (any string; it is hashed into the file name together with the generating modules' digest).
    A module that calls this is a generating module by importing it (:func:`generating_modules`).
    Cached code runs only when its HMAC checks (see the module docstring). Before the user's
    cache, the code shipped with the package (:data:`SHIPPED`) is used when it is current
    (:func:`shipped_current`).
    """

    def made():
        args, expr, kwargs = build()
        fn = sp.lambdify(args, expr, modules=modules, **kwargs)
        try:
            return fn, inspect.getsource(fn)
        except (OSError, TypeError):
            return fn, None

    return _cached(_key_name(tag, modules), made, _namespace(modules))


def cached_source(tag: str, build, namespace: dict):
    """The function that generated Python source defines, from the disk cache when a verified file
    is there: as :func:`cached_lambdify`, for code a module prints itself.

    ``build()`` returns the source of one top-level function (``def name(...)``, the first in the
    text) and is called only on a cache miss; the source is run in a copy of ``namespace`` (the
    names it uses). ``tag`` names the function; the same trust rules hold (HMAC-checked user cache,
    current shipped code first)."""

    def made():
        source = build()
        fn = _load(source, namespace, f"<generated {tag}>")
        if fn is None:
            raise ValueError(f"the generated source of {tag!r} defines no function")
        return fn, source

    return _cached(_key_name(tag, "source"), made, namespace)


def _cached(key_name: str, made, namespace: dict):
    """The function of ``key_name``: the shipped code, else the user cache's verified file, else
    ``made() -> (function, its source or None)``, whose source is then stored."""
    shipped = _shipped_source(key_name)
    if shipped is not None:
        try:
            fn = _load(shipped, namespace, str(SHIPPED / f"{key_name}.code"))
            if fn is not None:
                return fn
        except Exception:
            pass
    try:
        folder = cache_dir()
        secret = None if folder is None else _secret(folder)
    except (OSError, ValueError):  # a too-long or otherwise unusable path: no cache
        folder, secret = None, None
    path = None if folder is None or secret is None else folder / f"{_digest()}-{key_name}.py"
    writable = path is not None
    if path is not None:
        assert secret is not None  # a cache file only with the folder's key
        try:
            source = _read_verified(path, secret)
        except FileNotFoundError:
            source = None
        except (OSError, ValueError):  # foreign, group/other-writable or unreadable: bypass
            source, writable = None, False
        if source is not None:
            try:
                fn = _load(source, namespace, str(path))
                if fn is not None:
                    return fn
            except Exception:
                pass
    fn, body = made()
    if _RECORD is not None and body is not None:
        _RECORD[key_name] = body
    if writable and body is not None:
        assert path is not None and secret is not None  # writable only with a cache file and its key
        try:
            data = body.encode()
            _store(path, _HEADER + _mac(secret, path.name, data).encode() + b"\n" + data)
        except (OSError, ValueError):
            pass
    return fn


def _secret(folder: Path) -> bytes | None:
    """The folder's key (created with the folder when missing), or ``None`` when the folder or
    the key is not private to this user; ``OSError`` when the path cannot be used at all."""
    if not hasattr(os, "getuid"):
        return None
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.stat(folder)
    if not stat.S_ISDIR(st.st_mode) or not is_private(st):
        return None
    path = folder / KEY_NAME
    for _ in range(2):
        try:
            fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
        except FileNotFoundError:
            _new_key(path, replace=False)
            continue
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode) or not is_private(st) or st.st_mode & 0o077:
                return None
            secret = fh.read(KEY_BYTES + 1)
        if len(secret) == KEY_BYTES:
            return secret
        _new_key(path, replace=True)  # a damaged key: a new one (every old file then fails its HMAC)
    return None


def _new_key(path: Path, *, replace: bool) -> None:
    """Write a random key to ``path`` atomically; without ``replace`` a key another process
    wrote first wins (hard link, which never overwrites)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-key-")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_bytes(KEY_BYTES))
        if replace:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                pass
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _mac(secret: bytes, name: str, body: bytes) -> str:
    return hmac.new(secret, name.encode() + b"\0" + body, hashlib.sha256).hexdigest()


def _read_verified(path: Path, secret: bytes) -> str | None:
    """The code of the cache file ``path`` if its HMAC checks, else ``None`` (rebuild it);
    ``ValueError`` for a file that is not private to this user (do not touch it)."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or not is_private(st):
            raise ValueError(f"cache file {path} is not private to this user")
        data = fh.read(st.st_size + 1)
    head, sep, body = data.partition(b"\n")
    if not sep or not head.startswith(_HEADER):
        return None
    if not hmac.compare_digest(head[len(_HEADER):], _mac(secret, path.name, body).encode()):
        return None
    try:
        return body.decode()
    except UnicodeDecodeError:
        return None


def _load(source: str, namespace: dict, filename: str):
    match = re.search(r"^def (\w+)\(", source, flags=re.M)
    if not match:
        return None
    ns = dict(namespace)
    exec(compile(source, filename, "exec"), ns)
    return ns[match.group(1)]


def _store(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".py")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
