"""Certified time of the limit flow: ``T(rho0 -> rho1) = int_{rho0}^{rho1} d rho / F(rho)``.

Along ``d rho/dt = F(rho)`` (docs/design.md section 1; in the sparse regime ``F`` is the
``1/alpha``-rescaled field and ``T`` the rescaled time) the time to go from ``rho0`` to
``rho1`` is the integral of ``1/F``, finite when ``F`` has one sign on the closed interval
between them and that sign points from ``rho0`` to ``rho1``. :func:`certified_time`
encloses it in python-flint ball arithmetic:

* the interval is split adaptively (bisection) into pieces ``[a, b]``, ``c = (a + b)/2``,
  ``h = (b - a)/2``;
* on each piece ``f = 1/F`` is expanded to ``order`` terms (``order = n`` even) about ``c``
  with :class:`flint.arb_series`, and its Taylor coefficient of degree ``n`` is enclosed
  over the whole piece by the same series evaluated at the ball ``[a, b]`` (a series with a
  ball constant term encloses the coefficients at every point of the ball). Then, by
  Taylor's theorem with the Lagrange remainder, ``f(c + x) = sum_{k<n} f_k x^k + C(x) x^n``
  with ``C(x)`` in that enclosure, and ``x^n >= 0``, so

      int_a^b f  in  sum_{k<n, k even} f_k 2 h^(k+1)/(k+1)  +  [C] 2 h^(n+1)/(n+1);

  ``order = 2`` is the midpoint rule with a rigorous bound on ``f''``;
* the ball of ``F`` over each piece must exclude 0 with the expected sign (so the sign is
  proved again, piece by piece, independently of the certificate); a piece is accepted when
  its enclosure's width is at most ``rtol`` times its size, so the sum (terms of one sign)
  has relative width at most ``rtol``. Every evaluation is a ball; no float enters the
  enclosure, whose endpoints are rounded outward to floats at the end.

The direction and the refusals come from :func:`theory._certify._basin.certified_basin`: the flow from
``rho0`` tends to the first equilibrium in the direction of ``F(rho0)``, and a ``rho1``
beyond it, behind ``rho0``, or inside its bracket is never (certifiably) reached.
"""

from __future__ import annotations

import math
import numbers
from contextlib import contextmanager
from dataclasses import dataclass

from flint import arb, arb_series, ctx

from .._model import Model
from ._basin import Basin, certified_basin, check_alignment
from ._field_ball import field_ball
from ._roots import precision, sign
from ._scalar import MAX_PREC

#: default Taylor order of the piece rule (even); 2 is the midpoint rule
ORDER = 8
#: the largest number of pieces before :func:`certified_time` gives up
MAX_PIECES = 20_000
#: the accepted range of ``rtol``
RTOL_LIMITS = (1e-15, 0.1)


@dataclass(frozen=True)
class TimeEnclosure:
    """A certified enclosure ``lo <= T(rho0 -> rho1) <= hi`` of the limit-flow time.

    Attributes
    ----------
    lo, hi : float
        Endpoints, rounded outward from the ball sum.
    rho0, rho1 : float
    direction : int
        Sign of ``F`` on the interval (``+1``: ``rho`` increases), ``0`` when ``rho0 == rho1``.
    basin : Basin
        The certified limit of the flow from ``rho0`` (what ``rho1`` is short of).
    pieces : int
        Pieces of the final subdivision.
    order, prec : int
        Taylor order of the piece rule; working precision in bits.
    rtol : float
        The requested relative width.
    """

    lo: float
    hi: float
    rho0: float
    rho1: float
    direction: int
    basin: Basin
    pieces: int
    order: int
    prec: int
    rtol: float

    def contains(self, value) -> bool:
        """True iff ``lo <= value <= hi`` (``value`` a float, an mpmath number, ...)."""
        return self.lo <= value <= self.hi

    @property
    def mid(self) -> float:
        """The centre ``(lo + hi) / 2`` (a point estimate, not a bound)."""
        return 0.5 * (self.lo + self.hi)

    @property
    def relative_width(self) -> float:
        """``(hi - lo) / |mid|`` (0 for the zero time)."""
        return (self.hi - self.lo) / abs(self.mid) if self.mid else 0.0

    def as_dict(self) -> dict:
        return {"lo": self.lo, "hi": self.hi, "rho0": self.rho0, "rho1": self.rho1, "direction": self.direction,
                "basin": self.basin.as_dict(), "pieces": self.pieces, "order": self.order, "prec": self.prec,
                "rtol": self.rtol, "relative_width": self.relative_width}


def certified_time(model: Model, rho0: float, rho1: float, rtol: float = 1e-6, *, prec: int = 128,
                   order: int = ORDER, certificate=None) -> TimeEnclosure:
    """Enclose the time the limit flow takes from ``rho0`` to ``rho1`` (see the module doc).

    Parameters
    ----------
    model : Model
    rho0, rho1 : float
        Start and target, strictly inside ``(-1, 1)`` (the time to a pole is infinite).
    rtol : float
        Relative width of the enclosure to reach, in ``[1e-15, 0.1]``.
    prec : int
        Working precision in bits.
    order : int
        Even Taylor order of the piece rule, in ``[2, 24]``.
    certificate : Certificate, optional
        ``certify(model, prec=prec)`` if at hand (see :func:`theory.certified_basin`); it
        decides only the direction and the refusals: the enclosure re-proves the sign of ``F``
        on every piece.

    Raises
    ------
    ValueError
        A bad parameter, ``rho1`` not reached by the flow from ``rho0`` (naming the
        equilibrium that blocks it), or more than :data:`MAX_PIECES` pieces needed.
    """
    r0 = check_alignment("rho0", rho0, closed=False)
    r1 = check_alignment("rho1", rho1, closed=False)
    if isinstance(rtol, bool) or not isinstance(rtol, numbers.Real) or not RTOL_LIMITS[0] <= rtol <= RTOL_LIMITS[1]:
        raise ValueError(f"`rtol` must lie in [{RTOL_LIMITS[0]:g}, {RTOL_LIMITS[1]:g}], got {rtol!r}")
    if isinstance(prec, bool) or not isinstance(prec, numbers.Integral) or not 53 <= prec <= MAX_PREC:
        raise ValueError(f"`prec` must be an integer number of bits in [53, {MAX_PREC}], got {prec!r}")
    if isinstance(order, bool) or not isinstance(order, numbers.Integral) or order % 2 or not 2 <= order <= 24:
        raise ValueError(f"`order` must be an even integer in [2, 24], got {order!r}")
    basin = certified_basin(model, r0, prec=prec, certificate=certificate)
    args = dict(rho0=r0, rho1=r1, basin=basin, order=int(order), prec=int(prec), rtol=float(rtol))
    if r0 == r1:
        return TimeEnclosure(0.0, 0.0, direction=0, pieces=0, **args)
    _check_reached(basin, r0, r1)
    s = basin.direction
    with precision(prec), _series_length(int(order) + 1):
        total, pieces = _integrate(model, min(r0, r1), max(r0, r1), s, float(rtol), int(order))
    return TimeEnclosure(_down(total), _up(total), direction=s, pieces=pieces, **args)


def _check_reached(basin: Basin, r0: float, r1: float) -> None:
    """Refuse a ``rho1`` the flow from ``r0`` never reaches: behind ``r0`` (the flow moves away
    from ``basin.source``), at or beyond ``basin.limit``, or inside the limit's bracket."""
    s, limit, source = basin.direction, basin.limit, basin.source
    if s == 0:
        raise ValueError(f"`rho0`: rho0 = {r0!r} is an equilibrium ({limit.stability}): the flow stays there and "
                         f"never reaches rho1 = {r1!r}")
    way = "up" if s > 0 else "down"
    if (r1 - r0) * s < 0:
        past = r1 < source.lo if s > 0 else r1 > source.hi
        where = (f"{source.describe()} lies between them" if past and source.kind == "interior"
                 else f"it moves away from {source.describe()}")
        raise ValueError(f"`rho1`: the flow from rho0 = {r0!r} moves {way}, toward {limit.describe()}, and never "
                         f"reaches rho1 = {r1!r} {'below' if s > 0 else 'above'} it: {where}")
    if limit.kind == "interior" and (r1 >= limit.lo if s > 0 else r1 <= limit.hi):
        inside = limit.lo <= r1 <= limit.hi
        raise ValueError(f"`rho1`: the flow from rho0 = {r0!r} moves {way} and tends to {limit.describe()}"
                         + (f", whose bracket holds rho1 = {r1!r} (it may never be reached)" if inside
                            else f": it never reaches rho1 = {r1!r} beyond it"))


def _integrate(model: Model, a: float, b: float, s: int, rtol: float, order: int) -> tuple[arb, int]:
    """Ball enclosure of ``int_a^b s / F`` (``s F > 0`` on ``[a, b]``) and the pieces used."""
    stack = [(arb(a), arb(b))]
    total, pieces, seen = arb(0), 0, 0
    while stack:
        lo, hi = stack.pop()
        seen += 1
        if seen > 2 * MAX_PIECES:
            raise ValueError(f"`rtol`: the enclosure needs more than {MAX_PIECES} pieces on [{a!r}, {b!r}] "
                             f"(ask for a larger rtol than {rtol:g}, or a target further from an equilibrium)")
        piece = _piece(model, lo, hi, s, order)
        if piece is not None and 2 * piece.rad() <= rtol * abs(piece).lower():
            total += piece
            pieces += 1
            continue
        mid = (lo + hi) / 2  # exact: the endpoints are dyadic
        if not (lo < mid < hi):
            raise ValueError(f"the sign of the field is not decided on [{float(lo)!r}, {float(hi)!r}] "
                             "at the working precision (raise `prec`)")
        stack.extend(((mid, hi), (lo, mid)))
    return total, pieces


def _piece(model: Model, a: arb, b: arb, s: int, n: int) -> arb | None:
    """Enclosure of ``int_a^b s/F`` by the order-``n`` Taylor rule, or ``None`` when the ball of
    ``F`` over the piece does not have the sign ``s``."""
    over = field_ball(model, arb_series([a.union(b), 1], prec=n + 1))
    if over.prec < n + 1:  # truncated (flint's series cap): the remainder coefficient would read 0
        raise RuntimeError(f"series truncated to {over.prec} terms, {n + 1} needed")
    if sign(over[0]) != s:
        return None
    c, h = (a + b) / 2, (b - a) / 2
    at_c = field_ball(model, arb_series([c, 1], prec=n))
    if sign(at_c[0]) != s:
        return None
    f = s / at_c  # indexing past the stored length gives 0
    remainder = (s / over)[n]
    out = remainder * 2 * h ** (n + 1) / (n + 1)
    for k in range(0, n, 2):
        out += f[k] * 2 * h ** (k + 1) / (k + 1)
    return out


@contextmanager
def _series_length(terms: int):
    """Context raising flint's series cap (default 10 terms) to ``terms``: beyond the cap every
    series operation truncates, and a coefficient read past it would be a silent 0."""
    old = ctx.cap
    ctx.cap = max(old, terms)
    try:
        yield
    finally:
        ctx.cap = old


def _down(x: arb) -> float:
    """The largest float ``<=`` every point of ``x``."""
    lower = x.lower()
    out = float(lower)
    return math.nextafter(out, -math.inf) if arb(out) > lower else out


def _up(x: arb) -> float:
    """The smallest float ``>=`` every point of ``x``."""
    upper = x.upper()
    out = float(upper)
    return math.nextafter(out, math.inf) if arb(out) < upper else out
