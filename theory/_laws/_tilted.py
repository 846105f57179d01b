"""The tilted law ``P_t(s) ∝ exp(t s) P(s)`` of a prior: ``log M(t)``, mean, variance.

The same formulas in three arithmetics: numpy floats (log-sum-exp, no overflow beyond
``log M`` itself), python-flint ``arb`` balls (rigorous enclosures, with the third
central moment for the certificate) and mpmath at the caller's precision.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache, lru_cache

import numpy as np


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


def tilted_ball(prior, t):
    """``log M``, ``mu1``, ``v`` and the third central moment ``k3 = dv/dt`` of the tilted
    law of ``prior`` at the python-flint ``arb`` ball ``t`` (rigorous enclosures;
    ``dmu1/dt = v``), or at an ``arb_series`` ``t`` (their Taylor coefficients)."""
    from flint import ctx

    params = _ball_params(prior, ctx.prec)
    if prior.family == "gaussian":
        return gaussian_ball(*params, t)
    return finite_ball(params, t)


@lru_cache(maxsize=256)
def _ball_params(prior, prec: int):
    """The prior's parameters as balls at ``prec`` bits (``mu``, ``tau^2``, or the atoms
    ``(value, prob ball)``): formed once per prior and precision."""
    if prior.family == "gaussian":
        return _arb(prior.mu), _arb(prior.tau) ** 2
    return tuple((v, _arb(q)) for v, q in prior.support)


def gaussian_ball(mu, tau2, t):
    """:func:`tilted_ball` of ``N(mu, tau2)`` with ``mu``, ``tau2`` balls (every law they hold)."""
    zero = 0 * t
    return mu * t + tau2 * t * t / 2, mu + tau2 * t, tau2 + zero, zero


def finite_ball(atoms, t):
    """:func:`tilted_ball` of the finite law ``atoms = [(value, prob), ...]`` (values exact
    fractions, probabilities balls: every law they hold; the probabilities need not be
    normalised balls, only to hold the true ones)."""
    from flint import arb

    zero = 0 * t
    if len(atoms) == 1:
        v = _arb(atoms[0][0])
        return v * t, v + zero, zero, zero
    if len(atoms) == 2:
        return _two_point_ball(atoms, t)
    # weights exp(v t) relative to the atom nearest the centre of t: arb has no
    # overflow, this only keeps the balls tight; central moments about the tilted
    # mean are formed atom by atom (no cancellation of raw moments)
    centre = float(t.mid() if isinstance(t, arb) else t[0].mid())  # an arb_series: its constant term
    ref = max(atoms, key=lambda a: float(a[0]) * centre)[0]
    ref_b = _arb(ref)
    balls = [(_arb(v), _arb(v - ref), q) for v, q in atoms]
    e = [q * (d * t).exp() for _, d, q in balls]
    total = _sum(e)
    w = [ei / total for ei in e]
    mu1 = _sum([wi * v for wi, (v, _, _) in zip(w, balls, strict=True)])
    dev = [v - mu1 for v, _, _ in balls]
    var = _sum([wi * d * d for wi, d in zip(w, dev, strict=True)])
    k3 = _sum([wi * d * d * d for wi, d in zip(w, dev, strict=True)])
    return ref_b * t + total.log(), mu1, var, k3


def _two_point_ball(atoms, t):
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
    return log_m, a_b + d * sigma, d * d * ss, d * d * d * ss * (sigma_bar - sigma)


def _interval_mul(x, y):
    """``x y`` from the products of the ends (interval multiplication): tight for wide balls,
    where the midpoint-radius product can reach far below the true lower end."""
    ends = [u * v for u in (x.lower(), x.upper()) for v in (y.lower(), y.upper())]
    out = ends[0]
    for e in ends[1:]:
        out = out.union(e)
    return out


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
