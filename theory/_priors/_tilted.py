"""The tilted law ``P_t(s) ∝ exp(t s) P(s)`` of a prior: ``log M(t)``, mean, variance.

The same formulas in three arithmetics: numpy floats (log-sum-exp, no overflow beyond
``log M`` itself), python-flint ``arb`` balls (rigorous enclosures, with the third
central moment for the certificate) and mpmath at the caller's precision.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

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
    from flint import arb

    zero = arb(0) + 0 * t
    if prior.family == "gaussian":
        mu, tau2 = _arb(prior.mu), _arb(prior.tau) ** 2
        return mu * t + tau2 * t * t / 2, mu + tau2 * t, tau2 + 0 * t, zero
    atoms = [(_arb(v), _arb(q)) for v, q in prior.support]
    if len(atoms) == 1:
        v = atoms[0][0]
        return v * t, v + 0 * t, zero, zero
    # weights exp(v t) relative to the atom nearest the centre of t: arb has no
    # overflow, this only keeps the balls tight; central moments about the tilted
    # mean are formed atom by atom (no cancellation of raw moments)
    centre = t.mid() if isinstance(t, arb) else t[0].mid()  # an arb_series: its constant term
    ref = max(prior.support, key=lambda a: float(a[0]) * float(centre))[0]
    ref_b = _arb(ref)
    e = [q * ((v - ref_b) * t).exp() for v, q in atoms]
    total = _sum(e)
    w = [ei / total for ei in e]
    mu1 = _sum([wi * v for wi, (v, _) in zip(w, atoms)])
    var = _sum([wi * (v - mu1) ** 2 for wi, (v, _) in zip(w, atoms)])
    k3 = _sum([wi * (v - mu1) ** 3 for wi, (v, _) in zip(w, atoms)])
    return ref_b * t + total.log(), mu1, var, k3


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
    mu1 = mpmath.fsum(ei * v for ei, (v, _) in zip(e, atoms)) / total
    var = mpmath.fsum(ei * (v - mu1) ** 2 for ei, (v, _) in zip(e, atoms)) / total
    return top * t + mpmath.log(total), mu1, var


@lru_cache(maxsize=None)
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
    from flint import arb, fmpq

    return arb(fmpq(value.numerator, value.denominator))
