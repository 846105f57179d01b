"""The certified basin of a start: the equilibrium the limit flow from ``rho0`` tends to.

On ``(-1, 1)`` the limit ODE ``d rho/dt = F(rho)`` moves monotonically: in the direction
of the sign of ``F(rho0)`` until the first zero of ``F`` in that direction, which it
approaches as ``t -> inf`` (or ``rho0`` is itself a zero and stays). :func:`certified_basin`
proves each part in ball arithmetic:

* the sign of ``F(rho0)``: :func:`theory._certify._field_ball.field_ball` at the exact point;
* the zeros: the certificate of :func:`theory.certify` (every interior zero in a bracket
  holding exactly one simple root, ``F`` of one sign outside the brackets, the poles
  ``rho = +-1`` zeros of ``F``). For a start inside a bracket the side of the root
  follows from the sign at ``rho0`` and the root's certified stability (``F`` crosses
  downward at a stable root, upward at an unstable one).

It refuses (``ValueError``) where the certificate leaves a gap: a start at a root not
known exactly, or an undecided box of the certificate between the start and its limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from flint import arb

from .._model import Model
from ._field_ball import field_ball
from ._roots import precision, sign
from ._scalar import Bracket, Certificate, certify, pole_signs
from ._seal import check_seal


@dataclass(frozen=True)
class FlowEnd:
    """An equilibrium at an end of a flow segment: a pole ``+-1``, an interior root in its
    certified bracket ``[lo, hi]`` (``lo == hi`` when known exactly), or the start itself.

    ``stability`` is ``"stable"``/``"unstable"`` (certified); a pole whose exponent
    ``F'(+-1)`` is zero or undecided is ``"neutral or undecided"``.
    """

    kind: str
    lo: float
    hi: float
    stability: str

    @property
    def point(self) -> float:
        """The point estimate: ``(lo + hi) / 2``."""
        return self.lo if self.lo == self.hi else 0.5 * (self.lo + self.hi)

    def describe(self) -> str:
        where = f"rho = {self.lo:g}" if self.lo == self.hi else f"rho* in [{self.lo:.12g}, {self.hi:.12g}]"
        return f"the {self.stability} {'pole' if self.kind == 'pole' else 'equilibrium'} {where}"

    def as_dict(self) -> dict:
        return {"kind": self.kind, "lo": self.lo, "hi": self.hi, "point": self.point, "stability": self.stability}


@dataclass(frozen=True)
class Basin:
    """Where the limit flow from ``rho0`` goes, and where it comes from, certified.

    Attributes
    ----------
    rho0 : float
    direction : int
        Certified sign of ``F(rho0)``: ``+1`` up, ``-1`` down, ``0`` a fixed point.
    limit : FlowEnd
        The equilibrium the flow tends to as ``t -> inf`` (kind ``"fixed"``: ``rho0`` itself).
    source : FlowEnd
        The first equilibrium behind ``rho0`` (the limit as ``t -> -inf``): the flow moves
        away from it, so nothing between it and ``rho0``, or beyond it, is ever reached.
    """

    rho0: float
    direction: int
    limit: FlowEnd
    source: FlowEnd

    def as_dict(self) -> dict:
        return {"rho0": self.rho0, "direction": self.direction, "limit": self.limit.as_dict(),
                "source": self.source.as_dict()}


def check_alignment(name: str, value, *, closed: bool = True) -> float:
    """``value`` as a float in ``[-1, 1]`` (``(-1, 1)`` unless ``closed``), refused naming ``name``."""
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(float(value))
    if ok:
        value = float(value)
        ok = -1 <= value <= 1 if closed else -1 < value < 1
    if not ok:
        where = "[-1, 1]" if closed else "the open interval (-1, 1) (the poles are equilibria)"
        raise ValueError(f"`{name}` must lie in {where}, got {value!r}")
    return value


def certified_basin(model: Model, rho0: float, prec: int = 128, *, certificate: Certificate | None = None) -> Basin:
    """The certified limit of the flow ``d rho/dt = F(rho)`` started at ``rho0``.

    Parameters
    ----------
    model : Model
    rho0 : float
        Start in ``[-1, 1]`` (a pole is a fixed point).
    prec : int
        Working precision in bits of the certificate and of the sign at ``rho0``.
    certificate : Certificate, optional
        ``certify(model, prec=prec)`` when the caller already has it (it is not recomputed);
        ``ValueError`` when it was issued for another model or changed since
        (:func:`theory._certify._seal.check_seal`).

    Raises
    ------
    ValueError
        ``theta = 0`` (every point is fixed: no basins), a start within the bracket of a
        root whose side cannot be told, or an undecided box between the start and its limit.
    """
    r0 = check_alignment("rho0", rho0)
    if certificate is None:
        cert = certify(model, prec=prec)
    elif isinstance(certificate, Certificate) and certificate.prec == prec:
        check_seal(certificate, model.as_dict())
        cert = certificate
    else:
        raise ValueError(f"`certificate` must be the Certificate of certify(model, prec={prec!r}), got {certificate!r}")
    if cert.status == "degenerate":
        raise ValueError("`model`: theta = 0, the field vanishes identically (every rho is fixed, no basins)")
    if abs(r0) == 1:
        fixed = FlowEnd("fixed", r0, r0, _pole_label(model, r0, prec))
        return Basin(r0, 0, fixed, fixed)
    exact = [e for e in cert.equilibria if e.exact and e.lo == r0]
    if exact:
        fixed = FlowEnd("fixed", r0, r0, exact[0].stability)
        return Basin(r0, 0, fixed, fixed)
    with precision(prec):
        s = sign(field_ball(model, arb(r0)))
    if s == 0:
        raise ValueError(f"`rho0`: the sign of the field at rho0 = {r0!r} is not decided at {prec} bits "
                         "(rho0 sits at an equilibrium, or within its bracket)")
    ahead, behind = _neighbours(cert.equilibria, r0, s)
    limit, source = (_end(model, e, d, prec) for e, d in ((ahead, s), (behind, -s)))
    for a, b in cert.undecided:
        if a <= max(limit.hi, source.hi) and min(limit.lo, source.lo) <= b:
            raise ValueError(f"`rho0`: the certificate leaves [{a:.12g}, {b:.12g}] undecided, between the "
                             f"equilibria around rho0 = {r0!r}: the basin is not certified")
    return Basin(r0, s, limit, source)


def _neighbours(equilibria, r0: float, s: int):
    """The first certified root from ``r0`` in direction ``s`` and in direction ``-s``
    (``None``: the pole on that side)."""
    up: list[Bracket] = []
    down: list[Bracket] = []
    for e in equilibria:
        if e.lo <= r0 <= e.hi:
            # F > 0 left of a stable root and right of an unstable one: with F(rho0) of sign
            # s, the root of a bracket holding rho0 lies in direction s iff it is stable
            (up if (e.stability == "stable") == (s > 0) else down).append(e)
        else:
            (up if e.lo > r0 else down).append(e)
    first_up = min(up, key=lambda e: e.lo) if up else None
    first_down = max(down, key=lambda e: e.hi) if down else None
    return (first_up, first_down) if s > 0 else (first_down, first_up)


def _end(model: Model, bracket: Bracket | None, side: int, prec: int) -> FlowEnd:
    """The :class:`FlowEnd` of a bracket, or of the pole ``side`` when there is none."""
    if bracket is None:
        return FlowEnd("pole", float(side), float(side), _pole_label(model, float(side), prec))
    return FlowEnd("interior", bracket.lo, bracket.hi, bracket.stability)


def _pole_label(model: Model, pole: float, prec: int) -> str:
    plus, minus = pole_signs(model, prec=prec)
    s = plus if pole > 0 else minus
    return {-1: "stable", 1: "unstable", 0: "neutral or undecided"}[s]
