"""The tilted law ``P_t(s) ∝ exp(t s) P(s)`` of a prior: ``log M(t)``, mean, variance.

The same formulas in three arithmetics: numpy floats (log-sum-exp, no overflow beyond
``log M`` itself), python-flint ``arb`` balls (rigorous enclosures, with the third
central moment for the certificate) and mpmath at the caller's precision. For a region
certificate, :func:`finite_range` encloses the tilted law of a finite law over a wide ball
of ``t`` without the overestimation of the point formulas there (monotone and Taylor forms
on the cells of a dyadic grid).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache, lru_cache
from typing import Any, NamedTuple

import numpy as np


class TiltedBall(NamedTuple):
    """The tilted law's ``log M``, mean ``mu1``, variance ``v`` and third cumulant ``k3 = dv/dt``
    (``arb`` balls, or the Taylor coefficients of an ``arb_series`` ``t``; ``dmu1/dt = v``)."""

    log_m: Any
    mu1: Any
    var: Any
    k3: Any


class GridMoments(NamedTuple):
    """:class:`TiltedBall` with the fourth cumulant ``k4 = dk3/dt`` (what the grid's Taylor forms read)."""

    log_m: Any
    mu1: Any
    var: Any
    k3: Any
    k4: Any

    @property
    def tilted(self) -> TiltedBall:
        return TiltedBall(self.log_m, self.mu1, self.var, self.k3)


def tilted(prior, t) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``log M(t)``, the tilted mean ``mu1(t)`` and variance ``v(t)`` of ``prior`` (float
    arrays, no overflow beyond ``log M`` itself)."""
    t = np.asarray(t, dtype=float)
    if prior.family == "gaussian":
        mu, tau2 = float(prior.mu), float(prior.tau) ** 2
        return mu * t + 0.5 * tau2 * t * t, mu + tau2 * t, np.full_like(t, tau2)
    values, logp = finite_arrays(prior)
    if len(values) == 1:
        v = values[0]
        return v * t, np.full_like(t, v), np.zeros_like(t)
    a = logp + values * t[..., None]
    top = np.max(a, axis=-1, keepdims=True)
    e = np.exp(a - top)
    total = np.sum(e, axis=-1, keepdims=True)
    w = e / total
    mu1 = np.sum(w * values, axis=-1)
    var = np.sum(w * (values - mu1[..., None]) ** 2, axis=-1)
    return top[..., 0] + np.log(total[..., 0]), mu1, var


def tilted_ball(prior, t) -> TiltedBall:
    """The :class:`TiltedBall` of ``prior`` at the python-flint ``arb`` ball ``t`` (rigorous
    enclosures), or at an ``arb_series`` ``t`` (their Taylor coefficients)."""
    from flint import ctx

    params = _ball_params(prior, ctx.prec)
    if prior.family == "gaussian":
        mu, tau2 = params
        return gaussian_ball(mu, tau2, t)
    return finite_ball(params, t)


@lru_cache(maxsize=256)
def _ball_params(prior, prec: int):
    """The prior's parameters as balls at ``prec`` bits (``mu``, ``tau^2``, or the atoms
    ``(value, prob ball)``): formed once per prior and precision."""
    if prior.family == "gaussian":
        return _arb(prior.mu), _arb(prior.tau) ** 2
    return tuple((v, _arb(q)) for v, q in prior.support)


def gaussian_ball(mu, tau2, t) -> TiltedBall:
    """:func:`tilted_ball` of ``N(mu, tau2)`` with ``mu``, ``tau2`` balls (every law they hold)."""
    zero = 0 * t
    return TiltedBall(mu * t + tau2 * t * t / 2, mu + tau2 * t, tau2 + zero, zero)


def finite_ball(atoms, t) -> TiltedBall:
    """:func:`tilted_ball` of the finite law ``atoms = [(value, prob), ...]`` (values exact
    fractions, probabilities balls: every law they hold; the probabilities need not be
    normalised balls, only to hold the true ones)."""
    zero = 0 * t
    if len(atoms) == 1:
        v = _arb(atoms[0][0])
        return TiltedBall(v * t, v + zero, zero, zero)
    if len(atoms) == 2:
        return _two_point_ball(atoms, t)
    return _finite_moments(atoms, t)


def _finite_moments(atoms, t) -> TiltedBall:
    """``log M``, ``mu1``, ``v``, ``k3`` of a finite law of three or more atoms, each formula
    evaluated once at the ball ``t`` (tight at a point ``t``; over a wide ball each weight
    carries the whole width of ``t``)."""
    from flint import arb

    # weights exp(v t) relative to the atom nearest the centre of t: arb has no
    # overflow, this only keeps the balls tight
    centre = float(t.mid() if isinstance(t, arb) else t[0].mid())  # an arb_series: its constant term
    ref = max(atoms, key=lambda a: float(a[0]) * centre)[0]
    return _moments(_arb(ref), [(_arb(v), _arb(v - ref), q) for v, q in atoms], t).tilted


def _moments(ref, balls, t) -> GridMoments:
    """The moments of :func:`_finite_moments` and the fourth cumulant ``k4 = dk3/dt`` from the
    atoms as balls ``(value, value - ref, prob)`` (``ref`` the atom the weights are taken relative
    to). Central moments about the tilted mean are formed atom by atom (no cancellation of raw
    moments)."""
    e = [q * (d * t).exp() for _, d, q in balls]
    total = _sum(e)
    w = [ei / total for ei in e]
    mu1 = _sum([wi * v for wi, (v, _, _) in zip(w, balls, strict=True)])
    dev = [v - mu1 for v, _, _ in balls]
    var = _sum([wi * d * d for wi, d in zip(w, dev, strict=True)])
    k3 = _sum([wi * d * d * d for wi, d in zip(w, dev, strict=True)])
    m4 = _sum([wi * (d * d) * (d * d) for wi, d in zip(w, dev, strict=True)])
    return GridMoments(ref * t + total.log(), mu1, var, k3, m4 - 3 * var * var)


def _two_point_ball(atoms, t) -> TiltedBall:
    """:func:`finite_ball` of a two-point law ``a < b`` in logistic form: the tilted
    probability of ``b`` is ``sigma = 1 / (1 + (q_a/q_b) e^{-(b - a) t})``, each ball
    formula holds ``t`` once (tight over a wide ``t``, as the fixed prior's ``m``), then
    ``mu1 = a + d sigma``, ``v = d^2 sigma sigma_bar``, ``k3 = d^3 sigma sigma_bar
    (sigma_bar - sigma)`` with ``d = b - a``."""
    (a, qa), (b, qb) = sorted(atoms, key=lambda x: x[0])
    a_b, d = _arb(a), _arb(b - a)
    if qa > 0:
        # one exp of one sum: positive and tight when q_a, q_b and t are wide balls (a product
        # of wide positive balls in midpoint-radius form can reach below 0)
        z = qb.log() - qa.log() + d * t
        r = (-z).exp()
        sigma, sigma_bar = 1 / (1 + r), 1 / (1 + z.exp())
    else:  # a ball of q_a reaching 0 (a range of p up to 1)
        r = _interval_mul(qa, (-(d * t) - qb.log()).exp())
        sigma = 1 / (1 + r)
        sigma_bar = r * sigma
    log_m = _arb(b) * t + qb.log() + (1 + r).log()
    ss = sigma * sigma_bar
    return TiltedBall(log_m, a_b + d * sigma, d * d * ss, d * d * d * ss * (sigma_bar - sigma))


def _interval_mul(x, y):
    """``x y`` from the products of the ends (interval multiplication): tight for wide balls,
    where the midpoint-radius product can reach far below the true lower end."""
    ends = [u * v for u in (x.lower(), x.upper()) for v in (y.lower(), y.upper())]
    out = ends[0]
    for e in ends[1:]:
        out = out.union(e)
    return out


#: the grid of :func:`finite_range`: its cells are ``2^-L`` wide, the least ``L >= 0`` with
#: ``2^-L (max - min of the support) <= 1 / _CELL_SPAN``: on such a cell every weight ratio
#: changes by at most ``e^(1/8)``, so the Taylor forms over one cell are nearly exact
_CELL_SPAN = 8
#: the widest block of cells formed (and kept) as the hull of its halves: ``2^_LEVELS``
#: cells; a ball over more than ``4 * 2^_LEVELS`` cells is enclosed as one piece
_LEVELS = 10
#: the enclosures of up to this many balls (and as many grid blocks) are kept: a region walk
#: asks for many balls again (the boxes of one theta range share their t-balls)
_KEPT = 1 << 16
#: the grid laws kept (one per support and precision)
_LAWS = 16


def finite_range(support, t) -> TiltedBall:
    """``log M``, ``mu1``, ``v`` and ``k3`` of the tilted law of the finite law ``support``
    (``((value, prob), ...)`` exact fractions) enclosing their values at every point of the
    ``arb`` ball ``t``, tight however wide ``t`` is (what a region certificate reads: the
    point formulas of :func:`finite_ball` over a wide ball lose everything to the dependency
    of each weight on ``t``).

    A wide ``t = [lo, hi]`` is cut at the points of a dyadic grid: the aligned blocks of grid
    cells inside it (each the hull of its halves, kept) and the two pieces at its ends. On
    one piece ``[a, b]``: ``mu1`` is increasing (``mu1' = v >= 0``), so ``[mu1(a),
    mu1(b)]``; ``log M`` is convex with slope ``mu1``: monotone when ``mu1`` keeps a sign,
    else below ``max(log M(a), log M(b))`` and above its Taylor form; ``v`` and ``k3`` take
    the range of their end values where their derivative (``k3``, ``k4``) keeps a sign on
    the piece, else a Taylor form about the centre with the derivative enclosed by the point
    formulas on the piece.
    """
    from flint import ctx

    return grid_law(tuple(support), ctx.prec).enclose(t)


@lru_cache(maxsize=_LAWS)
def grid_law(support: tuple, prec: int) -> _GridLaw:
    """The :class:`_GridLaw` of ``support`` at ``prec`` bits: its :meth:`_GridLaw.enclose` is
    :func:`finite_range` (one per support and precision, its kept cells shared)."""
    return _GridLaw(support)


class _GridLaw:
    """The tilted law of one finite support at one precision, with the enclosures of the
    blocks of its dyadic grid and of the last balls asked for kept (see :func:`finite_range`).
    Grid points are integers ``k``, at ``t = k / scale``; a block ``(j, m)`` is ``[m 2^j,
    (m + 1) 2^j] / scale``, a cell is a block of level 0."""

    def __init__(self, support: tuple):
        import math

        from flint import arb

        self.arb = arb
        values = [v for v, _ in support]
        span = max(values) - min(values)
        self.scale = 2 ** math.ceil(math.log2(max(1.0, _CELL_SPAN * float(span))))
        # the atoms as balls relative to the largest atom (weights of t >= 0) and to the
        # smallest (t < 0): the one nearest the centre of t keeps the exponentials bounded
        self.refs = tuple((_arb(r), [(_arb(v), _arb(v - r), _arb(q)) for v, q in support])
                          for r in (max(values), min(values)))
        # bounds that hold for every law on an interval of length span: v <= span^2 / 4 and
        # |s - mu1| <= span for every atom s, so |k3| <= span v and |k4| <= max(m4, 3 v^2) <= span^4 / 4
        s = _arb(span)
        self.bounds = (s * s / 4, s * s * s / 4, s * s * s * s / 4)
        self._points: dict = {}
        self._blocks: dict = {}
        self._kept: dict = {}

    def at(self, x) -> GridMoments:
        """The five moments (with ``k4``) at ``x`` (a point, or a ball: the point formulas)."""
        ref, balls = self.refs[0 if x.mid() >= 0 else 1]
        return _moments(ref, balls, x)

    def point(self, k: int):
        """The grid point ``k / scale`` (exact) and the moments there (kept)."""
        from flint import fmpq

        if k not in self._points:
            x = self.arb(fmpq(k, self.scale))
            self._points[k] = (x, self.at(x))
        return self._points[k]

    def block(self, j: int, m: int):
        """The enclosure over the block ``(j, m)`` (kept): a cell as one piece, a wider block
        as the hull of its halves."""
        key = (j, m)
        out = self._blocks.get(key)
        if out is None:
            if j == 0:
                (a, pa), (b, pb) = self.point(m), self.point(m + 1)
                out = self.piece(a, b, pa, pb)
            else:
                out = _hull(self.block(j - 1, 2 * m), self.block(j - 1, 2 * m + 1))
            if len(self._blocks) >= _KEPT:  # a walk over a very wide range of t: start again
                self._blocks.clear()
                self._points.clear()
            self._blocks[key] = out
        return out

    def enclose(self, t) -> TiltedBall:
        """:func:`finite_range` at the ball ``t`` (kept for the next time it is asked for)."""
        if not t.is_finite():  # the bounds of every law of the support (log M: the point formula)
            lo, hi = self.refs[1][0], self.refs[0][0]
            v_max, k3_max, _ = self.bounds
            return TiltedBall(self.at(t).log_m, lo.union(hi), self.arb(0).union(v_max), k3_max.union(-k3_max))
        key = (t.mid(), t.rad())
        out = self._kept.get(key)
        if out is None:
            out = self._enclose(t)
            if len(self._kept) >= _KEPT:
                self._kept.clear()
            self._kept[key] = out
        return out

    def _enclose(self, t) -> TiltedBall:
        if t.is_exact():
            return self.at(t).tilted
        lo, hi = t.lower(), t.upper()
        pa, pb = self.at(lo), self.at(hi)
        k0 = int((lo * self.scale).ceil().unique_fmpz())
        k1 = int((hi * self.scale).floor().unique_fmpz())
        if k1 - k0 < 1 or k1 - k0 > 4 << _LEVELS:  # within about one cell, or too wide for the grid
            return self.piece(lo, hi, pa, pb)
        (a, qa), (b, qb) = self.point(k0), self.point(k1)
        out = self.piece(lo, a, pa, qa) if lo < a else None
        for j, m in _dyadic_blocks(k0, k1, _LEVELS):
            out = self.block(j, m) if out is None else _hull(out, self.block(j, m))
        assert out is not None  # k1 > k0: at least one block
        return _hull(out, self.piece(b, hi, qb, pb)) if b < hi else out

    def piece(self, a, b, pa: GridMoments, pb: GridMoments) -> TiltedBall:
        """``log M``, ``mu1``, ``v``, ``k3`` over ``[a, b]`` (exact ends ``a < b``, their five
        moments ``pa``, ``pb``): the monotone forms of :func:`finite_range`, else Taylor forms
        about the centre ``c`` with the remainder's derivative enclosed by the point formulas
        on the piece (or, where they overflow, by the bounds of every law of the support's
        span), each intersected with those point formulas (every form holds every value, so
        their intersection does)."""
        arb = self.arb
        ball = a.union(b)
        c = ball.mid()
        pc, wide = self.at(c), self.at(ball)
        if not all(x.is_finite() for x in wide):
            v_max, k3_max, k4_max = self.bounds
            wide = GridMoments(wide[0], wide[1], arb(0).union(v_max), k3_max.union(-k3_max), k4_max.union(-k4_max))
        d = ball - c  # holds t - c for every t of the piece
        d2 = arb(0).union(d.abs_upper() * d.abs_upper())  # holds (t - c)^2
        mu1 = pa[1].union(pb[1])  # mu1' = v >= 0
        # k3' = k4: the end values when k4 keeps a sign, else k3(c) + k4(xi) (t - c)
        k3 = pa[3].union(pb[3]) if _signed(wide[4]) else (pc[3] + wide[4] * d).intersection(wide[3])
        if _signed(k3):  # v' = k3
            v = pa[2].union(pb[2])
        else:  # v(t) = v(c) + k3(c) (t - c) + k4(xi) (t - c)^2 / 2, and v(c) + k3(xi) (t - c)
            v = (pc[2] + pc[3] * d + wide[4] * d2 / 2).intersection(pc[2] + k3 * d).intersection(wide[2])
            v = v.lower().max(arb(0)).union(v.upper())  # a variance is >= 0
        if pa[1] >= 0 or pb[1] <= 0:  # log M' = mu1 keeps a sign
            log_m = pa[0].union(pb[0])
        else:  # convex: below the larger end value, above its Taylor form (log M'' = v)
            taylor = pc[0] + pc[1] * d + v * d2 / 2
            log_m = taylor.lower().union(taylor.upper().min(pa[0].upper().max(pb[0].upper())))
        return TiltedBall(log_m, mu1, v, k3)


def _dyadic_blocks(k0: int, k1: int, levels: int):
    """``(j, m)`` of the aligned blocks ``[m 2^j, (m + 1) 2^j]`` (``j <= levels``) that tile
    ``[k0, k1]``, left to right, each as large as its alignment allows."""
    k = k0
    while k < k1:
        j = 0
        while j < levels and k % (2 << j) == 0 and k + (2 << j) <= k1:
            j += 1
        yield j, k >> j
        k += 1 << j


def _hull(x: TiltedBall, y: TiltedBall) -> TiltedBall:
    return TiltedBall(*(a.union(b) for a, b in zip(x, y, strict=True)))


def _signed(x) -> bool:
    return bool(x > 0 or x < 0)


def tilted_mp(prior, t):
    """``log M``, ``mu1``, ``v`` of ``prior`` at the mpmath number ``t`` (working precision
    of the caller)."""
    import mpmath

    if prior.family == "gaussian":
        mu, tau2 = mpmath.mpf(prior.mu.numerator) / prior.mu.denominator, (
            mpmath.mpf(prior.tau.numerator) / prior.tau.denominator) ** 2
        return mu * t + tau2 * t * t / 2, mu + tau2 * t, tau2
    atoms = [(mpmath.mpf(v.numerator) / v.denominator, mpmath.mpf(q.numerator) / q.denominator)
             for v, q in prior.support]
    top = max(v for v, _ in atoms)
    e = [q * mpmath.exp((v - top) * t) for v, q in atoms]
    total = mpmath.fsum(e)
    mu1 = mpmath.fsum(ei * v for ei, (v, _) in zip(e, atoms, strict=True)) / total
    var = mpmath.fsum(ei * (v - mu1) ** 2 for ei, (v, _) in zip(e, atoms, strict=True)) / total
    return top * t + mpmath.log(total), mu1, var


@cache
def finite_arrays(prior) -> tuple[np.ndarray, np.ndarray]:
    """The atoms of a finite law and their log-probabilities, as float arrays."""
    values = np.array([float(v) for v, _ in prior.support])
    logp = np.log(np.array([float(q) for _, q in prior.support]))
    return values, logp


def _sum(items):
    out = items[0]
    for x in items[1:]:
        out = out + x
    return out


def _arb(value: Fraction):
    """``value`` as an ``arb`` at the current precision (exact for dyadic values)."""
    from flint import ctx

    return _arb_at(value, ctx.prec)


@lru_cache(maxsize=4096)
def _arb_at(value: Fraction, prec: int):
    from flint import arb, fmpq

    return arb(fmpq(value.numerator, value.denominator))
