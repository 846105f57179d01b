"""Interval (ball) certification of the sign of ``j'`` and of its interior roots.

Check ``field.monotone`` of docs/design.md section 3, in python-flint ``arb`` arithmetic.
The field is ``F = (1 - rho^2) j'`` and ``j' = P(rho) * g(rho)`` with ``P`` a factor
known analytically to be positive on ``[-1, 1]`` (or the odd factor ``rho``), see
:mod:`theory._certify._conditions`:

* fixed prior:  ``g = h = sigma2 (1 + b rho (1 - m)) + theta^2 m (1 - m)``,
  ``P = 2 beta theta m`` (``b = beta theta``, ``m`` logistic in ``rho``);
* fixed prior, sparse: ``g = 1 + b rho``, ``P = 2 beta sigma2 theta e^{b rho}``;
* rademacher: ``j' = 2 beta theta^2 rho k(rho)`` with
  ``k = (beta sigma2 (m/rho + m') + theta (m/rho) m') / b``; ``rho = 0`` is an exact root
  (``m`` is odd) and ``k`` is certified positive, using the enclosure of
  ``sinh(x)/x`` on a ball from its monotonicity in ``|x|``;
* rademacher, sparse: ``k = sinh(b rho)/(b rho) + cosh(b rho)``.

Only the removed factors are known analytically; everything else is decided by
balls: :func:`theory._certify._roots.isolate` bisects ``[-1, 1]`` and brackets the simple roots
of ``g`` (or reports the boxes it cannot decide). The interior equilibrium is stable
iff ``g`` crosses downward (``F'(rho*) = (1 - rho*^2) P(rho*) g'(rho*)``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from flint import arb

from .._model import Model
from ._roots import isolate, precision, sign
from ._seal import sealed


@dataclass(frozen=True)
class Bracket:
    """An interior equilibrium isolated in ``[lo, hi]`` (exactly one root inside).

    Attributes
    ----------
    lo, hi : float
        Ends of the bracket in the alignment ``rho`` (within ``[-1, 1]``): exactly one root of the
        field lies in it; ``lo == hi`` when the root is exact.
    stability : {"stable", "unstable"}
        From the certified sign of ``F'`` at the root (``"stable"``: ``F' < 0``, the field crosses
        downward).
    exact : bool
        True when the root is known exactly (``lo == hi``; ``rho = 0`` for a mean-zero law).
    """

    lo: float
    hi: float
    stability: str
    exact: bool = False

    @property
    def midpoint(self) -> float:
        """The point estimate of the equilibrium: ``(lo + hi) / 2``, or the exact root."""
        return self.lo if self.exact else 0.5 * (self.lo + self.hi)

    def as_dict(self) -> dict:
        return {"lo": self.lo, "hi": self.hi, "stability": self.stability, "exact": self.exact}


@dataclass(frozen=True)
class Certificate:
    """Outcome of :func:`certify`.

    Attributes
    ----------
    status : {"monotone", "bistable", "undecided", "degenerate"}
        ``monotone``: ``j' > 0`` on ``(-1, 1)``, certified; ``bistable``: interior
        equilibria, each in a certified bracket; ``undecided``: some part of
        ``[-1, 1]`` could not be decided (listed in ``undecided``);
        ``degenerate``: ``theta = 0``, the field vanishes identically.
    monotone : bool
    certified : bool
        True iff every part of ``[-1, 1]`` was decided by interval arithmetic.
    equilibria : tuple of Bracket
    undecided : tuple of (float, float)
    boxes : int
        Number of boxes evaluated.
    prec : int
        Working precision in bits.
    sign_function : str
        What was certified (the factor of ``j'`` left after removing known ones).
    notes : tuple of str
        Remarks for a reader: why the status is ``degenerate`` or ``undecided`` (e.g. the sign of
        ``F'(0)`` undecided); empty when there is nothing to add.
    model : dict
        The model certified (:meth:`theory.Model.as_dict`): a certificate handed back to
        :func:`theory.certified_basin` or :func:`theory.certified_time` must be of their model.
    checksum : str
        SHA-256 of the rest of :meth:`as_dict`, set when :func:`certify` issues it
        (:mod:`theory._certify._seal`): a certificate changed afterwards is refused.
    """

    status: str
    monotone: bool
    certified: bool
    equilibria: tuple = ()
    undecided: tuple = ()
    boxes: int = 0
    prec: int = 0
    sign_function: str = ""
    notes: tuple = field(default=())
    model: dict = field(default_factory=dict)
    checksum: str = ""

    @property
    def reason(self) -> str:
        """Empty when :attr:`certified`; else why not (the notes, or the undecided intervals)."""
        if self.certified:
            return ""
        return "; ".join(self.notes) or f"undecided on {len(self.undecided)} interval(s) of [-1, 1]"

    @property
    def midpoints(self) -> tuple:
        """:attr:`Bracket.midpoint` of each interior equilibrium, in order (floats)."""
        return tuple(float(e.midpoint) for e in self.equilibria)

    def as_dict(self) -> dict:
        return {
            "status": self.status,
            "monotone": self.monotone,
            "certified": self.certified,
            "interior_equilibria": [b.as_dict() for b in self.equilibria],
            "undecided": [list(u) for u in self.undecided],
            "boxes": self.boxes,
            "prec": self.prec,
            "sign_function": self.sign_function,
            "notes": list(self.notes),
            "model": dict(self.model),
            "checksum": self.checksum,
        }


# ----------------------------------------------------------------------------------
# the model-specific sign functions


def _sinhc(x: arb) -> arb:
    """Enclosure of ``sinh(x)/x`` on a ball (even, increasing in ``|x|``, = 1 at 0)."""
    ax = abs(x)
    lo, hi = ax.lower(), ax.upper()

    def at(t: arb) -> arb:
        return arb(1) if t == 0 else t.sinh() / t

    return at(lo).union(at(hi))


class SignFunctions(NamedTuple):
    """The certified factor of ``j'`` (module doc): ``g`` and its derivative ``dg`` on balls (``dg``
    ``None`` when ``g`` is proved of one sign without it), what ``g`` is, and whether ``rho = 0`` is an
    exact root removed from it (a mean-zero prior)."""

    g: Any
    dg: Any
    description: str
    root_at_zero: bool


def _sign_functions(model: Model) -> SignFunctions:
    """The :class:`SignFunctions` of the model; see module doc."""
    if model.prior.spec not in ("fixed", "rademacher"):
        return _general_sign_functions(model)
    th, al, be, s2 = (arb(v) for v in (model.theta, model.alpha, model.beta, model.sigma2))
    b = be * th
    if model.prior.family == "fixed":
        if model.sparse:
            return SignFunctions((lambda X: 1 + b * X), (lambda X: b + 0 * X), "1 + beta*theta*rho", False)
        if model.alpha == 1.0:
            return SignFunctions((lambda X: s2 + 0 * X), (lambda X: 0 * X), "sigma2 (alpha = 1: m = 1)", False)
        if al < 1:
            shift = al.log() - (1 - al).log()

            def parts(X):
                logit = b * X + shift
                m = 1 / (1 + (-logit).exp())
                mb = 1 / (1 + logit.exp())
                return m, mb
        else:  # a ball of alphas reaching 1 (region certificates): no log of 1 - alpha
            def parts(X):
                e = al * (b * X).exp()
                den = e + (1 - al)
                return e / den, (1 - al) / den

        def h(X):
            m, mb = parts(X)
            return s2 * (1 + b * X * mb) + th * th * m * mb

        def dh(X):
            m, mb = parts(X)
            mp = b * m * mb
            return s2 * b * mb - s2 * b * X * mp + th * th * mp * (mb - m)

        return SignFunctions(h, dh, "h = sigma2 (1 + beta theta rho (1 - m)) + theta^2 m (1 - m)", False)
    # rademacher
    # the factor b = beta theta > 0 of m/rho and m' is removed too: k stays positive as theta -> 0
    # (a region certificate's box may start at theta = 0)
    if model.sparse:
        return SignFunctions((lambda X: _sinhc(b * X) + (b * X).cosh()), None,
                             "(sinh(b rho) + b rho cosh(b rho)) / (b rho)", True)

    def k(X):
        x = b * X
        ch = x.cosh()
        den = al * ch + 1 - al
        m_over_rho_b = al * _sinhc(x) / den
        mp_b = al * (al + (1 - al) * ch) / (den * den)
        return be * s2 * (m_over_rho_b + mp_b) + th * b * m_over_rho_b * mp_b

    return SignFunctions(k, None, ("j'/(2 beta theta^2 rho) = beta sigma2 (m/rho + m')/b + theta b (m/rho)/b m'/b, "
                                   "b = beta theta"), True)


@dataclass(frozen=True)
class _TiltedTerms:
    """The terms of the general sign function at ``t = b rho`` (balls; see
    :func:`_general_sign_functions`): the tilted mean ``mu1``, variance ``v`` and third central
    moment ``k3`` of ``s``, the informative mass ``w`` and ``wbar = 1 - w``, ``K = wbar mu1^2 + v``
    and ``A = beta theta^2 w K + beta sigma2``."""

    mu1: arb
    v: arb
    k3: arb
    w: arb
    wbar: arb
    K: arb
    A: arb


def _general_sign_functions(model: Model):
    """(g, dg, description, exact_root_at_zero) for any prior, from its tilted law.

    With ``t = b rho``, informative mass ``w`` and the tilted mean ``mu1``, variance ``v``
    and third central moment ``k3`` of ``s`` (:meth:`theory._laws.Prior.tilted_ball`):
    ``m = w mu1``, ``m' = b w K`` with ``K = (1 - w) mu1^2 + v``, and

        j' / (2 theta w) = g = mu1 A + beta sigma2 t K,   A = beta theta^2 w K + beta sigma2.

    Sparse: ``j'_s / (2 beta sigma2 theta M_s(t)) = g = mu1 + t (v + mu1^2)``. When
    ``E s = 0`` exactly, ``mu1(t) = t r(t)`` with ``r(t) = mu1(t)/t = v(xi)`` for some
    ``xi`` between 0 and ``t`` (mean value theorem: on a ball that contains 0, ``r`` is
    enclosed by ``v`` on the ball; elsewhere by the quotient), so ``g = t k`` with ``k = r A + beta sigma2 K`` (sparse:
    ``k = r + v + mu1^2``): ``rho = 0`` is an exact root and ``k`` is certified instead.
    """
    law = model.prior
    th, al, be, s2 = (arb(v) for v in (model.theta, model.alpha, model.beta, model.sigma2))
    b = be * th
    c = be * s2
    mean_zero = law.mean == 0

    def r_of(t):
        """``mu1(t)/t`` for a mean-zero law: the quotient where the ball excludes 0, else the
        variance on the ball (it contains 0 and t, so it holds the mean-value point)."""
        if t > 0 or t < 0:
            return law.tilted_ball(t)[1] / t
        return law.tilted_ball(t)[2]

    if model.sparse:
        if mean_zero:
            def k_s(X):
                t = b * X
                _, mu1, v, _ = law.tilted_ball(t)
                return r_of(t) + v + mu1 * mu1

            return SignFunctions(k_s, None, "j'_s / (2 beta^2 sigma2 theta^2 M_s rho) = mu1/t + v + mu1^2 "
                                 "(t = beta theta rho)", True)

        def g_s(X):
            t = b * X
            _, mu1, v, _ = law.tilted_ball(t)
            return mu1 + t * (v + mu1 * mu1)

        def dg_s(X):
            t = b * X
            _, mu1, v, k3 = law.tilted_ball(t)
            return b * (2 * v + mu1 * mu1 + t * (k3 + 2 * mu1 * v))

        return SignFunctions(g_s, dg_s, "j'_s / (2 beta sigma2 theta M_s) = mu1 + t (v + mu1^2) (t = beta theta rho)",
                             False)

    shift = None if model.alpha == 1.0 or not al < 1 else al.log() - (1 - al).log()

    def parts(t):
        log_m, mu1, v, k3 = law.tilted_ball(t)
        if model.alpha == 1.0:
            w, wbar = arb(1) + 0 * t, arb(0) + 0 * t
        elif shift is None:  # a ball of alphas reaching 1 (region certificates): no log of 1 - alpha
            odds = (1 - al) * (-log_m).exp() / al
            w, wbar = 1 / (1 + odds), odds / (1 + odds)
        else:
            logit = log_m + shift
            w, wbar = 1 / (1 + (-logit).exp()), 1 / (1 + logit.exp())
        K = wbar * mu1 * mu1 + v
        A = be * th * th * w * K + c
        return _TiltedTerms(mu1=mu1, v=v, k3=k3, w=w, wbar=wbar, K=K, A=A)

    if mean_zero:
        def k(X):
            t = b * X
            p = parts(t)
            return r_of(t) * p.A + c * p.K

        return SignFunctions(k, None, "j' / (2 beta theta^2 w rho) = (mu1/t) A + beta sigma2 K", True)

    def g(X):
        t = b * X
        p = parts(t)
        return p.mu1 * p.A + c * t * p.K

    def dg(X):
        t = b * X
        p = parts(t)
        dw = p.w * p.wbar * p.mu1
        dK = -dw * p.mu1 * p.mu1 + 2 * p.wbar * p.mu1 * p.v + p.k3
        dA = be * th * th * (dw * p.K + p.w * dK)
        return b * (p.v * p.A + p.mu1 * dA + c * (p.K + t * dK))

    return SignFunctions(g, dg, ("j' / (2 theta w) = mu1 A + beta sigma2 t K, K = (1 - w) mu1^2 + v, "
                                 "A = beta theta^2 w K + beta sigma2"), False)


#: the largest working precision :func:`certify` accepts, in bits
MAX_PREC = 4096


def certify(model: Model, prec: int = 128, bracket_width: float = 1e-10, min_width: float = 1e-12) -> Certificate:
    """Certify the sign of ``j'`` on ``[-1, 1]`` and isolate the interior equilibria.

    Parameters
    ----------
    model : Model
    prec : int
        Working precision in bits (the global flint context is restored on exit).
    bracket_width : float
        Width to which root brackets are refined.
    min_width : float
        Boxes narrower than this are not split further (reported undecided).
    """
    if isinstance(prec, bool) or not isinstance(prec, numbers.Integral):
        raise ValueError(f"`prec` must be an integer number of bits, got {prec!r}")
    if prec < 53:
        raise ValueError(f"`prec` must be >= 53 bits, got {prec!r}")
    if prec > MAX_PREC:
        raise ValueError(f"`prec` must be <= {MAX_PREC} bits (ball arithmetic cost grows faster than linearly), "
                         f"got {prec!r}")
    if model.theta == 0:
        return sealed(Certificate(status="degenerate", monotone=False, certified=True, prec=prec,
                                  sign_function="j' = 0 identically (theta = 0)",
                                  notes=("theta = 0: the objective is constant, every rho is an equilibrium",),
                                  model=model.as_dict()))
    with precision(prec):
        g, dg, desc, root_at_zero = _sign_functions(model)
        iso = isolate(g, dg, min_width=min_width, bracket_width=bracket_width)
        equilibria = []
        notes = []
        if root_at_zero:
            # exact root at 0 from the odd factor rho; F'(0) = 2 theta k(0) (sign of k(0))
            sign0 = sign(g(arb(0)))
            if sign0 != 0:
                equilibria.append(Bracket(0.0, 0.0, "unstable" if sign0 > 0 else "stable", exact=True))
            else:
                notes.append("sign of F'(0) undecided")
        for a, b, ds in iso.roots:
            # F' at the root has the sign of g' times the removed factor (positive, or the
            # odd factor rho, whose sign is constant on a bracket away from 0)
            if root_at_zero:
                ds *= 1 if a > 0 else -1
            equilibria.append(Bracket(float(a), float(b), "unstable" if ds > 0 else "stable"))
        equilibria.sort(key=lambda e: e.lo)
        # overall sign of g where decided: positive everywhere means monotone
        positive_everywhere = not iso.roots and not iso.undecided and not root_at_zero
        if positive_everywhere:
            # g has one sign on [-1, 1]; check it is positive (it must be: j'(1) > 0)
            positive_everywhere = sign(g(arb(1))) > 0
        certified = not iso.undecided and (not root_at_zero or sign(g(arb(0))) != 0)
        if iso.undecided:
            status = "undecided"
            notes.append("could not decide the sign of the field on some boxes (a double root or a zero at a pole?)")
        elif equilibria:
            status = "bistable"
        elif positive_everywhere:
            status = "monotone"
        else:
            status = "undecided"
            certified = False
            notes.append("the sign factor is negative on all of [-1, 1]")
        return sealed(Certificate(
            status=status,
            monotone=status == "monotone",
            certified=certified,
            equilibria=tuple(equilibria),
            undecided=tuple((float(a), float(b)) for a, b in iso.undecided),
            boxes=iso.boxes,
            prec=prec,
            sign_function=desc,
            notes=tuple(notes),
            model=model.as_dict(),
        ))


def pole_signs(model: Model, prec: int = 128) -> tuple[int, int]:
    """Certified signs of ``F'(+1)`` and ``F'(-1)`` (sparse: of ``F'/alpha``), each in ``{-1, 0, 1}``.

    ``-1`` is a stable pole, ``+1`` an unstable one, ``0`` a sign the ball arithmetic
    could not decide up to :data:`MAX_PREC` bits (an exact zero: ``theta = 0``, or a
    root of ``j'`` at the pole such as the sparse fixed prior at ``beta theta = 1``).
    ``F'(+1) = -2 j'(1)`` and ``F'(-1) = 2 j'(-1)``, and ``j'`` has the sign of the
    factor certified by :func:`certify` (times ``rho`` for a mean-zero law), so these
    signs never contradict the certificate, however small the exponent (float64 may
    round it to ``-0.0``: use them, not the float, for the label).
    """
    if model.theta == 0:
        return 0, 0
    bits = max(53, int(prec))
    while True:
        with precision(bits):
            g, _, _, root_at_zero = _general_sign_functions(model)
            s_plus, s_minus = sign(g(arb(1))), sign(g(arb(-1)))
            if root_at_zero:  # j' = (positive) * rho * k
                s_minus = -s_minus
        if (s_plus and s_minus) or bits >= MAX_PREC:
            return -s_plus, s_minus
        bits = min(MAX_PREC, bits * 4)
