"""What ``sigrec certify`` reports: the certificate of a model or of a box of models
(:func:`theory.certify`, a box's subtrees on the executor through :func:`numerics.certify_region_tasks`),
with what goes beside it: the pole stabilities and exponents of a scalar point, the certified flow time
(:func:`theory.certified_time`), a box's closed-form boundaries for its figure, and the one document
(:meth:`CertifyResult.as_dict`) the command prints as JSON.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mpmath

from ...numerics import certify_region_tasks
from ...theory import (
    Certificate,
    HeadsCertificate,
    Model,
    ModelBox,
    RegionOptions,
    certified_time,
    certify,
    pole_exponents_mp,
    pole_signs,
)
from ._region_figure import RegionLine, region_boundaries

#: certified sign of a pole exponent -> label (0: zero or not decided at MAX_PREC bits)
POLE_LABEL = {-1: "stable", 1: "unstable", 0: "neutral or undecided"}


@dataclass(frozen=True)
class FlowTime:
    """The flow time asked of a point certificate.

    Attributes
    ----------
    rho0, rho1 : float
        The start and the end of the flow.
    rtol : float
        The relative width asked of the time's enclosure.
    """

    rho0: float
    rho1: float
    rtol: float


@dataclass(frozen=True)
class CertifyResult:
    """The certificate of ``sigrec certify`` and what is reported beside it (:meth:`as_dict`: the
    document the command prints).

    Attributes
    ----------
    model : Model or ModelBox
        What was certified.
    certificate : theory.CertificateLike
        A :class:`theory.Certificate`, :class:`theory.SubspaceCertificate`,
        :class:`theory.HeadsCertificate` or :class:`theory.RegionCertificate`.
    poles : dict
        Scalar point: ``plus`` / ``minus`` -> ``stability``, ``exponent_text`` and (finite, not
        rounded to 0) ``exponent``; empty otherwise.
    time : dict or None
        The certified flow time (:meth:`theory.TimeEnclosure.as_dict`), when asked.
    lines : tuple of RegionLine
        A box's closed-form boundaries, when its figure is drawn.
    figure : str or None
        The path of the box's figure, when asked.
    """

    model: Model | ModelBox
    certificate: Any
    poles: dict
    time: dict | None = None
    lines: tuple[RegionLine, ...] = ()
    figure: str | None = None

    @property
    def kind(self) -> str:
        """``"point"`` (scalar), ``"subspace"``, ``"heads"`` or ``"region"``."""
        c = self.certificate
        if isinstance(self.model, ModelBox):
            return "region"
        return "point" if isinstance(c, Certificate) else ("heads" if isinstance(c, HeadsCertificate) else "subspace")

    def as_dict(self) -> dict:
        """The document ``sigrec certify --json`` prints."""
        cert, kind = self.certificate, self.kind
        if kind == "point":
            return {"model": dict(cert.model), **cert.as_dict(), "poles": self.poles,
                    **({} if self.time is None else {"time": self.time})}
        if kind == "subspace":
            return subspace_document(cert)
        doc = cert.as_dict()
        if self.figure is not None:
            doc["figure"] = self.figure
        return doc


def certify_study(model: Model | ModelBox, prec: int = 128, min_width: float | None = None,
                  time: FlowTime | None = None, figure: str | None = None) -> CertifyResult:
    """Certify ``model`` (a box on the current executor, :func:`numerics.certify_region_tasks`) at
    ``prec`` bits, with a box's ``min_width``; ``time``: also the certified flow time (a scalar point);
    ``figure``: the path a box's figure goes to (its boundaries are computed here)."""
    if isinstance(model, ModelBox):
        region = certify_region_tasks(model, RegionOptions(min_width=min_width, prec=prec))
        lines = region_boundaries(region.region) if figure is not None else ()
        return CertifyResult(model, region, {}, lines=lines, figure=figure)
    if time is not None and not model.scalar:
        raise ValueError("--time-to and --rho0 certify the flow time of one query on one signal direction "
                         + ("(a scalar prior, one head)" if model.heads > 1 else "(a scalar prior)"))
    cert = certify(model, prec=prec)
    if not isinstance(cert, Certificate):
        return CertifyResult(model, cert, {})
    return CertifyResult(model, cert, pole_document(model, prec),
                         None if time is None else _time(model, cert, time, prec))


def pole_document(model: Model, prec: int) -> dict:
    """The pole stabilities (ball arithmetic: they never contradict the certificate) and exponents
    (mpmath, printed at any magnitude: float64 may round them to -0 or -inf)."""
    poles = {}
    for key, sign, value in zip(("plus", "minus"), pole_signs(model, prec=prec), pole_exponents_mp(model),
                                strict=True):
        as_float = float(value)
        poles[key] = {"stability": POLE_LABEL[sign], "exponent_text": mpmath.nstr(value, 6)}
        if math.isfinite(as_float) and (as_float != 0 or value == 0):
            poles[key]["exponent"] = as_float
    return poles


def _time(model: Model, cert: Certificate, time: FlowTime, prec: int) -> dict:
    enc = certified_time(model, time.rho0, time.rho1, rtol=time.rtol, prec=prec, certificate=cert)
    if not math.isfinite(enc.hi):
        raise ValueError(f"`model`: the time from rho0 = {time.rho0!r} to rho1 = {time.rho1!r} exceeds the float "
                         f"range")
    return enc.as_dict()


def subspace_document(cert) -> dict:
    """The document of a :class:`theory.SubspaceCertificate`: every equilibrium's box, kind and
    stability, and whether the list is complete."""
    comp = cert.completeness
    equilibria = []
    for b in cert.boxes:
        eq = {"r": [list(x) for x in b.bounds()], "start": list(b.start), "kind": b.classification,
              "label": b.label, "location": b.kind, "stability": b.status, "certified": b.certified}
        if b.kind == "sphere" and b.certified:
            eq["radial_sign"] = b.radial_sign
            eq["tangent_inertia"] = list(b.tangent_inertia)
            if b.tangent_eigenvalue is not None:
                eq["tangent_eigenvalue"] = list(b.as_dict()["tangent_eigenvalue"])
        elif b.certified:
            eq["hessian_inertia"] = list(b.tangent_inertia)
        if b.reason:
            eq["reason"] = b.reason
        equilibria.append(eq)
    return {"model": cert.model.as_dict(), "equilibria": equilibria, "certified": cert.certified,
            "complete": comp.complete, "completeness": comp.as_dict(), "prec": cert.prec,
            "notes": [n for n in cert.notes if not n.startswith("completeness is not certified")] + (
                [] if comp.complete else [f"completeness not proved: {comp.reason}"])}
