"""What a certificate is checked against when it is handed back: its model and its checksum.

A certificate is issued for one model; a function that takes a certificate already computed
(``certified_basin(certificate=...)``, ``certified_time``, ``subspace_completeness``) would
otherwise trust that it belongs to the model it is asked about. Each certificate therefore
records the model it was issued for (:meth:`theory.Model.as_dict`) and a checksum: the SHA-256 of
its own :meth:`as_dict` (without the checksum) in canonical JSON, set when it is issued
(:func:`sealed`). :func:`check_seal` refuses a certificate of another model, and one whose
content no longer matches its checksum (built by hand, or changed with ``dataclasses.replace``
after it was issued).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any, TypeVar

T = TypeVar("T")


def digest(payload: dict) -> str:
    """SHA-256 (hex) of ``payload`` without its ``"checksum"`` entry, in canonical JSON (sorted
    keys, floats by ``repr``: the same certificate gives the same digest on every machine)."""
    body = {k: v for k, v in payload.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def sealed(cert: T) -> T:
    """``cert`` with its ``checksum`` set to the digest of its content."""
    c: Any = cert
    return replace(c, checksum=digest(c.as_dict()))


def check_seal(cert: Any, model_dict: dict, what: str = "certificate") -> None:
    """``ValueError`` naming ``what`` unless ``cert`` was issued for the model ``model_dict``
    (:meth:`theory.Model.as_dict`) and its content matches its checksum."""
    if not getattr(cert, "checksum", ""):
        raise ValueError(f"`{what}` carries no checksum: pass a certificate as the library issued it")
    if cert.checksum != digest(cert.as_dict()):
        raise ValueError(f"`{what}`: its content does not match its checksum (it was changed after it was issued)")
    if _model_of(cert) != model_dict:
        raise ValueError(f"`{what}` was issued for another model: {_describe(_model_of(cert))}, not "
                         f"{_describe(model_dict)}")


def _model_of(cert: Any) -> dict:
    m = cert.model
    return m if isinstance(m, dict) else m.as_dict()


def _describe(m: dict) -> str:
    keys = ("theta", "alpha", "beta", "sigma2", "prior", "heads")
    return ", ".join(f"{k} {m.get(k)!r}" for k in keys if k in m)
