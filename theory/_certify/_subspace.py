"""Interval certificates for the equilibria of the subspace flow (docs/subspace-certificates.md).

The flow ``V(r) = g - <r, g> r`` (:mod:`theory._derivation._subspace`) has two kinds of equilibria
(:mod:`theory._field._equilibria`), certified in the coordinates where the Krawczyk operator is
well posed (:mod:`theory._certify._subspace_balls`):

* on the sphere ``|r| = 1``: the Lagrange system ``F(r, lam) = (g - lam r, (1 - |r|^2)/2)`` in
  ``R^{k+1}``. Its zeros are exactly the sphere equilibria (then ``lam = <r, g>``) and its Jacobian
  is the symmetric bordered matrix ``B = [[H - lam I, -r], [-r^T, 0]]``, nonsingular iff the
  tangent Hessian is. ``V = 0`` in ``R^k`` would also do when ``lam != 0`` (``DV`` has the radial
  eigenvalue ``-2 lam``), but it is not symmetric, its box straddles the sphere, and it degenerates
  where ``lam`` vanishes although the equilibrium on the sphere may still be nondegenerate;
* inside the ball: ``g = 0`` with Jacobian ``H``, and the box certified to lie in ``|r| < 1``.

**Stability, certified.** On the sphere ``DV`` is block triangular (``r^perp`` invariant): the
tangent eigenvalues are those of ``P (H - lam I) P`` on ``r^perp`` (symmetric) and the radial one
is ``-2 lam``. The bordered matrix has ``In(B) = In(tangent) + (1, 1)`` (Haynsworth: the border
adds one positive and one negative eigenvalue), so the certified inertia of ``B`` on the box (with
the certified ``lam``) gives the tangent signs; the radial sign is the sign of ``-lam``. For
``k = 2`` the tangent eigenvalue is also enclosed as a ball, ``t^T (H - lam I) t`` with
``t = (-r_2, r_1)``. Inside, ``DV = (I - r r^T) H`` with ``I - r r^T`` positive definite, so its
eigenvalues are real with the inertia of ``H``.

What is proved per box: exactly one equilibrium in it, its stability (``stable`` when every
eigenvalue of ``DV`` is negative, the radial one included, as in
:func:`theory._field._equilibria.classify`; ``tangent_stable`` on the sphere alone). What is not:
that the list is complete; the boxes start from the numerical equilibria of
:func:`theory._field._equilibria.find_subspace_equilibria`.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import mpmath
from flint import arb, fmpq

from .._field._equilibria import find_subspace_equilibria
from .._model import Model
from ._kinds import certified_kind
from ._roots import precision, sign
from ._seal import sealed
from ._subspace_balls import ball_field, inertia, interior_system, krawczyk, newton_refine, sphere_system

if TYPE_CHECKING:
    from ._complete import SubspaceCompleteness

#: the largest working precision accepted, in bits
MAX_PREC = 1024


def to_ball(x) -> arb:
    """``x`` as a ball: an mpf exactly (mantissa and exponent), anything else through ``arb``."""
    if isinstance(x, mpmath.mpf):
        sgn, man, exp, _ = x._mpf_
        if not man and exp:
            raise ValueError(f"cannot make a ball of {x!r}")
        q = fmpq(man * 2**exp) if exp >= 0 else fmpq(man, 2**-exp)
        return arb(-q if sgn else q)
    return x if isinstance(x, arb) else arb(x)


def _outward(x: arb) -> tuple:
    """Float ``(lo, hi)`` with ``lo <= x <= hi`` for every point of the ball."""
    lo, hi = float(x.lower()), float(x.upper())
    return math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)


@dataclass(frozen=True)
class SubspaceBox:
    """One certified (or undecided) equilibrium.

    Attributes
    ----------
    kind : {"sphere", "interior"}
    label : str
        The symmetry label of the float equilibrium it started from.
    start : tuple of float
        That float equilibrium.
    status : {"stable", "unstable", "undecided"}
        ``stable``: every eigenvalue of the Jacobian of the flow negative (certified);
        ``unstable``: at least one certified positive.
    box : tuple of arb
        The box ``Z`` in ``r`` on which the Krawczyk test proved exactly one equilibrium
        (empty when the Krawczyk test failed).
    enclosure : tuple of arb
        ``K(Z)`` in ``r``, one ball per coordinate: a tighter box inside :attr:`box` that holds the
        equilibrium (empty when the Krawczyk test failed).
    lam : arb or None
        Sphere: the multiplier ``<r, g>`` (a ball from the same Krawczyk box).
    tangent_inertia : tuple or None
        Sphere: ``(n_negative, n_positive)`` of the tangent eigenvalues; inside: of ``H``.
    radial_sign : int or None
        Sphere: certified sign of the radial eigenvalue ``-2 lam``.
    tangent_eigenvalue : arb or None
        ``k = 2`` on the sphere: a ball holding the tangent eigenvalue.
    reason : str
        Why it is undecided (empty otherwise).
    classification : str
        What the equilibrium is (``mixture+``, ``specialised(j)``, ``anti-specialised(j)``,
        ``tilted``; :mod:`theory._field._kinds`), decided from the box
        (:func:`theory._certify._kinds.certified_kind`); ``undecided`` without a box.
    """

    kind: str
    label: str
    start: tuple
    status: str
    box: tuple = ()
    enclosure: tuple = ()
    lam: arb | None = None
    tangent_inertia: tuple | None = None
    radial_sign: int | None = None
    tangent_eigenvalue: arb | None = None
    reason: str = ""
    classification: str = "undecided"

    @property
    def certified(self) -> bool:
        return self.status != "undecided"

    @property
    def tangent_stable(self) -> bool | None:
        """Sphere: every tangent eigenvalue certified negative (stable for ``q`` in the span);
        ``None`` when undecided."""
        if self.tangent_inertia is None:
            return None
        return self.tangent_inertia[1] == 0

    def contains(self, r, enclosure: bool = False) -> bool:
        """Whether the certified box (or with ``enclosure``, ``K(Z)``) contains the point ``r``
        (floats, mpf, fractions or balls; an mpf is converted exactly, not through a float)."""
        boxes = self.enclosure if enclosure else self.box
        with precision(MAX_PREC):  # the point is converted without rounding it to the caller's precision
            return bool(boxes) and all(b.contains(to_ball(x)) for b, x in zip(boxes, r, strict=True))

    def bounds(self) -> tuple:
        """The box as float ``(lo, hi)`` pairs, rounded outward."""
        return tuple(_outward(b) for b in self.box)

    def as_dict(self) -> dict:
        return {"kind": self.kind, "label": self.label, "start": list(self.start), "status": self.status,
                "box": [list(b) for b in self.bounds()],
                "lam": None if self.lam is None else list(_outward(self.lam)),
                "tangent_inertia": None if self.tangent_inertia is None else list(self.tangent_inertia),
                "radial_sign": self.radial_sign,
                "tangent_eigenvalue": (None if self.tangent_eigenvalue is None
                                       else list(_outward(self.tangent_eigenvalue))),
                "reason": self.reason, "classification": self.classification}


class BoxesByStatus:
    """The boxes of a certificate (any class with ``boxes`` of items with a ``status`` and a
    ``reason``) by status, and what :class:`theory._certify._protocol.CertificateLike` reads of them."""

    boxes: tuple
    certified: bool
    notes: tuple

    @property
    def status(self) -> str:
        """``"certified"`` (every box decided, no two overlap) or ``"undecided"``."""
        return "certified" if self.certified else "undecided"

    @property
    def reason(self) -> str:
        """Empty when :attr:`certified`; else the reason of the first undecided box, or the notes."""
        if self.certified:
            return ""
        return next((b.reason for b in self.boxes if b.reason), "; ".join(self.notes))

    @property
    def equilibria(self) -> tuple:
        """The boxes, one per equilibrium."""
        return self.boxes

    @property
    def stable(self) -> tuple:
        return tuple(b for b in self.boxes if b.status == "stable")

    @property
    def undecided(self) -> tuple:
        return tuple(b for b in self.boxes if b.status == "undecided")


@dataclass(frozen=True)
class SubspaceCertificate(BoxesByStatus):
    """Outcome of :func:`certify_subspace`: one :class:`SubspaceBox` per numerical equilibrium.

    ``certified`` is True iff every box is decided and the boxes are pairwise disjoint (so they
    hold distinct equilibria). Completeness of the list is *not* part of the claim.

    Attributes
    ----------
    model : Model
        The model certified (one head).
    boxes : tuple of SubspaceBox
        One per numerical equilibrium, in the order they were found; empty when ``theta = 0``.
    certified : bool
        True iff every box is decided and no two boxes of the same kind overlap; False when
        ``theta = 0`` (every ``r`` is an equilibrium).
    prec : int
        Bits of ball precision.
    notes : tuple of str
        Remarks for a reader: overlapping boxes, how many equilibria are undecided, and that
        completeness is not certified by :func:`certify_subspace`.
    completeness : SubspaceCompleteness or None
        Whether the boxes hold every equilibrium (:func:`theory.certify` decides it); ``None`` when
        only :func:`certify_subspace` ran.
    checksum : str
        SHA-256 of the rest of :meth:`as_dict`, set when the certificate is issued
        (:mod:`theory._certify._seal`): :func:`theory.subspace_completeness` refuses a certificate
        changed afterwards.
    """

    model: Model
    boxes: tuple
    certified: bool
    prec: int
    notes: tuple = field(default=())
    #: whether the boxes hold every equilibrium (:func:`theory.certify` decides it; ``None`` when
    #: only :func:`certify_subspace` ran)
    completeness: SubspaceCompleteness | None = None
    checksum: str = ""

    def as_dict(self) -> dict:
        out = {"law": str(self.model.law), "params": list(self.model.params()), "certified": self.certified,
               "prec": self.prec, "boxes": [b.as_dict() for b in self.boxes], "notes": list(self.notes)}
        if self.completeness is not None:
            out["completeness"] = self.completeness.as_dict()
        out["model"] = self.model.as_dict()
        out["checksum"] = self.checksum
        return out


def _params(model: Model, theta=None) -> list:
    t = model.theta if theta is None else theta
    return [arb(t) if not isinstance(t, arb) else t, arb(model.alpha), arb(model.beta), arb(model.sigma2)]


def certify_point(model: Model, r0, kind: str, *, label: str = "", params=None, field_fn=None,
                  rad: float = 1e-20, lam0=None) -> SubspaceBox:
    """Certify the equilibrium of ``kind`` near ``r0`` at the current flint precision, and what
    it is (:attr:`SubspaceBox.classification`).

    ``params`` (balls ``theta, alpha, beta, sigma2``; default the model's numbers) may be wide:
    then the claims hold for every parameter value in them. ``field_fn`` replaces the derived
    ball field (tests use it to perturb the field)."""
    b = _certify_point(model, r0, kind, label, params, field_fn, rad, lam0)
    return replace(b, classification=certified_kind(model.law, b.box, b.enclosure))


def _certify_point(model: Model, r0, kind: str, label: str, params, field_fn, rad: float, lam0) -> SubspaceBox:
    k = model.k
    fld = field_fn or ball_field(model.law)
    params = _params(model) if params is None else params
    r0 = [float(x) for x in r0]
    start = tuple(r0)
    if kind == "sphere":
        system = sphere_system(fld)
        if lam0 is None:
            g, _ = fld([arb(x) for x in r0], [arb(p.mid()) for p in params])
            lam0 = sum(float(gi.mid()) * x for gi, x in zip(g, r0, strict=True))
        z0 = [*r0, float(lam0)]
    elif kind == "interior":
        system = interior_system(fld)
        z0 = r0
    else:
        raise ValueError(f"`kind` must be 'sphere' or 'interior', got {kind!r}")
    z = newton_refine(system, z0, params)
    Z, K, reason = krawczyk(system, z, params, rad)
    if Z is None:
        return SubspaceBox(kind, label, start, "undecided", reason=f"Krawczyk: {reason}")
    _, J = system(Z, params)
    box, enclosure = tuple(Z[:k]), tuple(K[:k])
    if kind == "interior":
        if not sum(x * x for x in Z) < 1:
            return SubspaceBox(kind, label, start, "undecided", box, enclosure,
                               reason="the box is not certified inside the open ball |r| < 1")
        inert = inertia(J)
        if inert is None:
            return SubspaceBox(kind, label, start, "undecided", box, enclosure,
                               reason="the inertia of H on the box is undecided (an eigenvalue near 0)")
        return SubspaceBox(kind, label, start, "stable" if inert[0] == k else "unstable", box, enclosure,
                           tangent_inertia=inert)
    lam = K[k]
    radial = -sign(lam)
    inert = inertia(J) if k > 1 else (1, 1)
    tangent = None if inert is None else (inert[0] - 1, inert[1] - 1)
    eig = None
    if k == 2:
        t = (-box[1], box[0])
        eig = sum(t[i] * J[i][j] * t[j] for i in range(2) for j in range(2))
    if tangent is None or radial == 0:
        what = "the tangent inertia" if tangent is None else "the sign of lam"
        return SubspaceBox(kind, label, start, "undecided", box, enclosure, lam, tangent, radial or None, eig,
                           reason=f"{what} is undecided on the box (an eigenvalue near 0)")
    stable = tangent[1] == 0 and radial < 0
    return SubspaceBox(kind, label, start, "stable" if stable else "unstable", box, enclosure, lam, tangent,
                       radial, eig)


def _check_prec(prec) -> int:
    if isinstance(prec, bool) or not isinstance(prec, numbers.Integral):
        raise ValueError(f"`prec` must be an integer number of bits, got {prec!r}")
    bits = int(prec)
    if not 53 <= bits <= MAX_PREC:
        raise ValueError(f"`prec` must be in [53, {MAX_PREC}] bits, got {prec!r}")
    return bits


def certify_subspace(model: Model, equilibria=None, prec: int = 128, n_random: int = 8,
                     field_fn=None) -> SubspaceCertificate:
    """Certify each numerical equilibrium of the subspace flow (module doc).

    Parameters
    ----------
    model : Model
    equilibria : sequence of Equilibrium, optional
        Start points (``r``, ``kind``, ``label``); default
        :func:`theory._field._equilibria.find_subspace_equilibria` with ``n_random`` random starts.
    prec : int
        Working precision in bits (the flint context is restored on exit).
    field_fn : callable, optional
        A replacement ball field ``(r, params) -> (g, H)`` (for tests).
    """
    if not isinstance(model, Model) or model.heads != 1:
        raise ValueError("`model` must be a theory.Model with one head, got "
                         + (f"{model.heads} heads" if isinstance(model, Model) else type(model).__name__))
    prec = _check_prec(prec)
    if model.theta == 0:
        return sealed(SubspaceCertificate(model, (), False, prec,
                                          ("theta = 0: the objective is constant, every r is an equilibrium",)))
    eqs = find_subspace_equilibria(model, n_random=n_random) if equilibria is None else equilibria
    with precision(prec):
        boxes = tuple(certify_point(model, e.r, e.kind, label=e.label, field_fn=field_fn) for e in eqs)
    notes = []
    disjoint = True
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if a.box and b.box and a.kind == b.kind and all(x.overlaps(y) for x, y in zip(a.box, b.box, strict=True)):
                disjoint = False
                notes.append(f"boxes of {a.start} and {b.start} overlap (the same equilibrium twice?)")
    undecided = [b for b in boxes if not b.certified]
    if undecided:
        notes.append(f"{len(undecided)} of {len(boxes)} equilibria undecided")
    notes.append("completeness is not certified: the boxes start from numerical equilibria")
    return sealed(SubspaceCertificate(model, boxes, not undecided and disjoint, prec, tuple(notes)))
