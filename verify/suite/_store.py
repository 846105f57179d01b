"""The result store: what a run computed, kept on disk under a key of everything it depends on, so
that a run of the same inputs by the same code reads it back instead of computing it again.

**What a key covers.** A key is the SHA-256 of the canonical form (:func:`canonical`) of the
inputs (the suite's configuration, a unit's checks, case and context, a figure's data), and the
entry lives in the folder of :func:`code_fingerprint`: the text of every source file of the
installed ``sigrec``, the versions of the numerical libraries, the Python version, the machine and its CPU features, and
``NPY_DISABLE_CPU_FEATURES``. The seed is an input, so a stored result is the one the same run
would compute again, bit for bit; a change to any source file, library or input is a miss. What
the key cannot see is a change made at run time (a function patched in a notebook or a test):
the library therefore never reads the store unless asked (``run_suite(store=...)``), and the
tests run with it off.

**Where.** The folder ``results`` of the user's cache folder (``$SIGREC_CACHE_DIR``, else
``$XDG_CACHE_HOME/sigrec``, else ``~/.cache/sigrec``; :func:`sigrec.core.cache_dir`), made private
(mode 0700) as the other caches there. Entries are pickles, so they are read only while that folder
and everything in it is this user's and writable by nobody else (:func:`sigrec.core.untrusted_path`,
checked once per store); otherwise the store is refused (``ResultStore.refused`` says why) and a run
computes everything. ``SIGREC_RESULT_CACHE=off`` turns off this store alone (the tests do),
``SIGREC_CACHE_DIR=off`` every cache. One folder per fingerprint; deleting any of it at any time is
safe.

**Failure.** The store is an optimisation: an entry that cannot be read (damaged, from another
pickle protocol) is a miss and is removed, and one that cannot be written is not kept; neither
stops a run. Inputs without a canonical form (an object whose text is its address) are never
stored.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import importlib
import json
import os
import pickle
import platform
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ...core import cache_dir, untrusted_path
from ._environment import package_versions

#: the environment variable that, set to one of :data:`OFF`, turns the store off
ENV = "SIGREC_RESULT_CACHE"
OFF = ("", "0", "off", "no", "none", "false")
#: the libraries whose versions enter :func:`code_fingerprint`
_LIBRARIES = ("numpy", "scipy", "sympy", "mpmath", "python-flint", "numba", "matplotlib")
#: the packages whose source files enter :func:`code_fingerprint`
_PACKAGES = ("sigrec", "sigrec.core", "sigrec.theory", "sigrec.numerics", "sigrec.verify")


class Uncanonical(TypeError):
    """An input without a canonical form (its text would name its address): never stored."""


def canonical(obj: Any) -> Any:
    """A JSON-ready form of ``obj`` that two equal inputs share and two different ones do not.

    Floats by their exact hex form (``-0.0``, ``nan`` and the last bit kept), dataclasses by their
    class and every field, mappings sorted by key, sets sorted, arrays by dtype, shape and the
    SHA-256 of their bytes, ``arb`` balls by the exact midpoint and radius; anything else whose
    ``repr`` would name its address raises :class:`Uncanonical`.
    """
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return {"float": float(obj).hex()}
    if isinstance(obj, enum.Enum):
        return {"enum": f"{type(obj).__qualname__}.{obj.name}"}
    if isinstance(obj, Path):
        return {"path": str(obj)}
    if isinstance(obj, np.ndarray):
        data = np.ascontiguousarray(obj)
        if data.dtype == object:
            return {"object array": list(data.shape), "items": [canonical(x) for x in data.ravel()]}
        digest = hashlib.sha256(data.tobytes()).hexdigest()
        return {"array": str(data.dtype), "shape": list(data.shape), "sha256": digest}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {"class": f"{type(obj).__module__}.{type(obj).__qualname__}",
                "fields": {f.name: canonical(getattr(obj, f.name)) for f in dataclasses.fields(obj)}}
    if isinstance(obj, dict):
        items = [(json.dumps(canonical(k), sort_keys=True), canonical(v)) for k, v in obj.items()]
        return {"dict": sorted(items, key=lambda kv: kv[0])}
    if isinstance(obj, (set, frozenset)):
        return {"set": sorted(json.dumps(canonical(x), sort_keys=True) for x in obj)}
    if isinstance(obj, (list, tuple)):
        return [canonical(x) for x in obj]
    return _other(obj)


def _other(obj: Any) -> Any:
    """:func:`canonical` of a ball (``flint.arb``: exact midpoint and radius) or of an object whose
    ``repr`` is its whole value (no address in it); else :class:`Uncanonical`."""
    name = f"{type(obj).__module__}.{type(obj).__qualname__}"
    if name == "flint.types.arb.arb" or type(obj).__name__ == "arb":
        return {"arb": [str(obj.mid().man_exp()), str(obj.rad().man_exp())]}
    text = repr(obj)
    if " at 0x" in text or (text.startswith("<") and text.endswith(">")):
        raise Uncanonical(f"no canonical form for a {name}")
    return {"repr": name, "text": text}


def _source_files() -> list[Path]:
    """The ``.py`` files of every package of :data:`_PACKAGES`, each once, in a fixed order."""
    roots = []
    for name in _PACKAGES:
        module = sys.modules.get(name)
        if module is None:
            __import__(name)
            module = sys.modules[name]
        roots += [Path(p).resolve() for p in getattr(module, "__path__", ())]
    files = {f for root in dict.fromkeys(roots) for f in root.rglob("*.py")}
    return sorted(files)


def fingerprint_of(files, extra: dict) -> str:
    """SHA-256 of the contents of ``files`` (by name within their folder tree and bytes) and of
    ``extra`` (its canonical JSON)."""
    h = hashlib.sha256(json.dumps(canonical(extra), sort_keys=True).encode())
    for f in files:
        path = Path(f)
        h.update(f"{path.parent.name}/{path.name}\0".encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


@cache
def code_fingerprint() -> str:
    """The fingerprint of the code a stored result came from (module doc): computed once per process."""
    versions = package_versions(_LIBRARIES)
    try:
        umath = importlib.import_module("numpy._core._multiarray_umath")
    except ImportError:  # numpy < 2
        umath = importlib.import_module("numpy.core._multiarray_umath")
    features = umath.__cpu_features__
    extra = {"python": sys.version, "machine": platform.machine(), "libraries": versions,
             "cpu": sorted(k for k, v in features.items() if v),
             "NPY_DISABLE_CPU_FEATURES": os.environ.get("NPY_DISABLE_CPU_FEATURES", "")}
    return fingerprint_of(_source_files(), extra)


def key(kind: str, *inputs) -> str:
    """The key of a result of ``kind`` computed from ``inputs`` by this code (:class:`Uncanonical`
    when an input has no canonical form)."""
    text = json.dumps([kind, canonical(inputs)], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def moved(obj, src: str, dst: str):
    """``obj`` (dicts, lists, tuples and strings, each kept as its type) with every path under the
    folder ``src`` moved under ``dst``: a stored record's figures into the run that reads it, a
    report's paths from its temporary folder to its final one."""
    if isinstance(obj, dict):
        return {k: moved(v, src, dst) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(moved(v, src, dst) for v in obj)
    if isinstance(obj, str) and (obj == src or obj.startswith(src + "/")):
        return dst + obj[len(src):]
    return obj


def default_dir() -> Path | None:
    """Where the store lives (module doc), or ``None`` when it is off (:data:`ENV`, or every cache)."""
    env = os.environ.get(ENV)
    if env is not None and env.strip().lower() in OFF:
        return None
    base = cache_dir()
    return None if base is None else base / "results"


@dataclasses.dataclass
class ResultStore:
    """Results on disk under :func:`key`, in one folder per :func:`code_fingerprint`.

    Attributes
    ----------
    root : Path
        The store's folder (created private, mode 0700); entries go under
        ``root / fingerprint[:16] / kind``.
    read, written : int
        Entries read back and entries written by this store object (hits and stored misses).
    """

    root: Path
    read: int = 0
    written: int = 0
    #: why the folder cannot be trusted (then nothing is read or written), once looked at
    _refused: tuple = dataclasses.field(default=(), repr=False, compare=False)

    @classmethod
    def default(cls) -> ResultStore | None:
        """The store at :func:`default_dir`, or ``None`` when it is off."""
        where = default_dir()
        return None if where is None else cls(where)

    @property
    def refused(self) -> str | None:
        """Why nothing is read from or written to the folder (module doc), or ``None``: looked at
        once, creating the folder private when it is missing."""
        if not self._refused:
            try:
                self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
            except OSError as exc:
                self._refused = (f"{self.root} cannot be created ({exc.strerror or exc})",)
            else:
                self._refused = (untrusted_path(self.root),)
        return self._refused[0]

    @staticmethod
    def key(kind: str, *inputs) -> str | None:
        """The key of a result of ``kind`` from ``inputs`` (:func:`stored_key`; ``None``: not storable)."""
        return stored_key(kind, *inputs)

    def _path(self, kind: str, k: str) -> Path:
        return self.root / code_fingerprint()[:16] / kind / f"{k}.pkl"

    def get(self, kind: str, k: str) -> Any | None:
        """The result stored under ``k`` (a :func:`key` of ``kind``), or ``None``."""
        if self.refused is not None:
            return None
        path = self._path(kind, k)
        try:
            with path.open("rb") as fh:
                value = pickle.load(fh)
        except FileNotFoundError:
            return None
        except Exception:  # damaged or unreadable: a miss, and gone
            path.unlink(missing_ok=True)
            return None
        self.read += 1
        return value

    def put(self, kind: str, k: str, value: Any) -> None:
        """Keep ``value`` under ``k``; written whole or not at all (never a half entry)."""
        if self.refused is not None:
            return
        path = self._path(kind, k)
        tmp = None
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except Exception:  # unpicklable or unwritable: not kept
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
            return
        self.written += 1


def stored_key(kind: str, *inputs) -> str | None:
    """:func:`key`, or ``None`` when an input has no canonical form (then nothing is stored)."""
    try:
        return key(kind, *inputs)
    except Uncanonical:
        return None

