"""The certified basin of a start: the equilibrium the limit flow from ``rho0`` tends to.

On ``(-1, 1)`` the limit ODE ``d rho/dt = F(rho)`` moves monotonically: in the direction
of the sign of ``F(rho0)`` until the first zero of ``F`` in that direction, which it
approaches as ``t -> inf`` (or ``rho0`` is itself a zero and stays). :func:`certified_basin`
proves each part in ball arithmetic:

* the sign of ``F(rho0)``: :func:`theory._field_ball.field_ball` at the exact point;
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

from ._certify import Bracket, certify, pole_signs
from ._field_ball import field_ball
from ._model import Model
from ._roots import precision, sign


@dataclass(frozen=True)
class Basin:
    """Where the limit flow from ``rho0`` goes, certified.

    Attributes
    ----------
    rho0 : float
    direction : int
        Certified sign of ``F(rho0)``: ``+1`` up, ``-1`` down, ``0`` a fixed point.
    kind : {"pole", "interior", "fixed"}
        The limit is a pole ``+-1``, an interior equilibrium, or ``rho0`` itself.
    lo, hi : float
        Bracket of the limit (``lo == hi`` when it is known exactly: a pole, ``rho = 0`` of a
        mean-zero prior, or the start itself).
    stability : str
        ``"stable"``/``"unstable"`` (certified); a pole whose exponent ``F'(+-1)`` is zero
        or undecided is ``"neutral or undecided"``.
    """

    rho0: float
    direction: int
    kind: str
    lo: float
    hi: float
    stability: str

    @property
    def limit(self) -> float:
        """The point estimate of the limit: ``(lo + hi) / 2``."""
        return self.lo if self.lo == self.hi else 0.5 * (self.lo + self.hi)

    def as_dict(self) -> dict:
        return {"rho0": self.rho0, "direction": self.direction, "kind": self.kind, "lo": self.lo, "hi": self.hi,
                "limit": self.limit, "stability": self.stability}


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


def certified_basin(model: Model, rho0: float, prec: int = 128) -> Basin:
    """The certified limit of the flow ``d rho/dt = F(rho)`` started at ``rho0``.

    Parameters
    ----------
    model : Model
    rho0 : float
        Start in ``[-1, 1]`` (a pole is a fixed point).
    prec : int
        Working precision in bits of the certificate and of the sign at ``rho0``.

    Raises
    ------
    ValueError
        ``theta = 0`` (every point is fixed: no basins), a start within the bracket of a
        root whose side cannot be told, or an undecided box between the start and its limit.
    """
    r0 = check_alignment("rho0", rho0)
    cert = certify(model, prec=prec)
    if cert.status == "degenerate":
        raise ValueError("`model`: theta = 0, the field vanishes identically (every rho is fixed, no basins)")
    if abs(r0) == 1:
        return Basin(r0, 0, "fixed", r0, r0, _pole_label(model, r0, prec))
    exact = [e for e in cert.equilibria if e.exact and e.lo == r0]
    if exact:
        return Basin(r0, 0, "fixed", r0, r0, exact[0].stability)
    with precision(prec):
        s = sign(field_ball(model, arb(r0)))
    if s == 0:
        raise ValueError(f"`rho0`: the sign of the field at rho0 = {r0!r} is not decided at {prec} bits "
                         "(rho0 sits at an equilibrium, or within its bracket)")
    target = _first_root(cert.equilibria, r0, s)
    end = float(s) if target is None else target.lo if s > 0 else target.hi
    for a, b in cert.undecided:
        if a <= max(r0, end) and min(r0, end) <= b:
            raise ValueError(f"`rho0`: the certificate leaves [{a:.12g}, {b:.12g}] undecided, between rho0 = {r0!r} "
                             "and its limit: the basin is not certified")
    if target is None:
        return Basin(r0, s, "pole", float(s), float(s), _pole_label(model, float(s), prec))
    return Basin(r0, s, "interior", target.lo, target.hi, target.stability)


def _first_root(equilibria, r0: float, s: int) -> Bracket | None:
    """The first certified root from ``r0`` in direction ``s`` (``None``: the pole)."""
    ahead = []
    for e in equilibria:
        if e.lo <= r0 <= e.hi:
            # F > 0 left of a stable root and right of an unstable one, so a start inside a
            # bracket (with F(rho0) != 0) moves toward the root iff the root is stable
            if e.stability == "stable":
                ahead.append(e)
        elif (e.lo > r0) == (s > 0):
            ahead.append(e)
    if not ahead:
        return None
    return min(ahead, key=lambda e: e.lo) if s > 0 else max(ahead, key=lambda e: e.hi)


def _pole_label(model: Model, pole: float, prec: int) -> str:
    plus, minus = pole_signs(model, prec=prec)
    s = plus if pole > 0 else minus
    return {-1: "stable", 1: "unstable", 0: "neutral or undecided"}[s]
