"""High-precision quadrature cross-check of every lemma (check ``derivation.quadrature``).

Independent of the symbolic route: nothing here uses ``<q, z> ~ N(0, sigma2)`` or
Stein's lemma. Work in the orthonormal pair ``e1 = xi``, ``e2`` (unit vector of
``q - rho xi``), so ``q = rho e1 + rho_perp e2`` with ``rho_perp = sqrt(1 - rho^2)``, and
integrate over the two in-plane token coordinates (the other ``d - 2`` coordinates
are centred, independent, and do not enter). Every expectation factorises into
one-dimensional Gaussian integrals

    I_k(c, mu) = int x^k exp(c x) phi_sigma2(x - mu) dx,   k = 0, 1,

computed by ``mpmath.quad`` (tanh-sinh, split at the integrand's peak) at ``dps``
digits. The prior on ``s`` is averaged over its atoms for a finite law; for a
Gaussian prior ``s ~ N(mu, tau^2)`` the informative coordinate ``x1 = theta s + y``
is itself ``N(theta mu, sigma2 + theta^2 tau^2)`` (a convolution, not the MGF route
of the derivation), integrated the same way. The symbolic side is the lambdified
derivation at the same precision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import mpmath
import numpy as np
import sympy as sp

from .._laws import Prior, parse_prior
from ._lemmas import informative_lemmas, tilted_first_moment, tilted_mean
from ._scalar import derive
from ._symbols import ARGS


@dataclass(frozen=True)
class QuadratureComparison:
    """One lemma at one parameter point: symbolic vs quadrature."""

    lemma: str
    prior: Prior
    params: dict
    symbolic: tuple
    quadrature: tuple
    rel_diff: float


@dataclass(frozen=True)
class QuadratureResult:
    """All comparisons of :func:`cross_check`.

    ``max_rel_diff <= tolerance`` (``10**(-dps + 10)``) is the pass criterion.
    """

    dps: int
    tolerance: float
    max_rel_diff: float
    comparisons: tuple = field(repr=False)

    @property
    def passed(self) -> bool:
        return self.max_rel_diff <= self.tolerance


def gaussian_integral(k: int, c, mu, s2):
    """``int x^k exp(c x) phi(x - mu) dx`` for ``phi`` the ``N(0, s2)`` density, by quadrature."""
    peak = mu + c * s2  # maximum of exp(c x) phi(x - mu); the x^k factor shifts it little
    width = mpmath.sqrt(s2)
    pts = [-mpmath.inf, peak - 8 * width, peak, peak + 8 * width, mpmath.inf]

    def dens(x):
        return x**k * mpmath.exp(c * x - (x - mu) ** 2 / (2 * s2)) / mpmath.sqrt(2 * mpmath.pi * s2)

    return mpmath.quad(dens, pts)


def _rel(a, b) -> float:
    a = [mpmath.mpf(x) for x in a]
    b = [mpmath.mpf(x) for x in b]
    num = mpmath.sqrt(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)))
    den = mpmath.sqrt(sum(x**2 for x in a))
    return float(num / den) if den != 0 else float(num)


def _plane(vec_xi_q, r):
    """Coefficients on ``(xi, q)`` -> coordinates on the orthonormal ``(e1, e2)``."""
    c_xi, c_q = vec_xi_q
    return (c_xi + c_q * r, c_q * mpmath.sqrt(1 - r * r))


@cache
def _lam(expr):
    return sp.lambdify(ARGS, expr, modules="mpmath")


def quadrature_point(prior: Prior | str, p: dict, dps: int) -> list[QuadratureComparison]:
    """Compare every lemma and the composed limit at one parameter point ``p`` (``prior`` a
    :class:`Prior` or a spec)."""
    prior = parse_prior(prior)
    out = []
    with mpmath.workdps(dps + 10):
        r, t, a, b, s2 = (mpmath.mpf(p[k]) for k in ("rho", "theta", "alpha", "beta", "sigma2"))
        args = (r, t, a, b, s2)
        rho_perp = mpmath.sqrt(1 - r * r)
        memo = {}

        def G(k, c, mu=0, var=None):  # the Gaussian integral; each distinct one is computed once per point
            key = (k, c, mu, var)
            if key not in memo:
                memo[key] = gaussian_integral(k, c, mu, s2 if var is None else var)
            return memo[key]

        def add(name, sym, quad):
            out.append(QuadratureComparison(name, prior, dict(p), tuple(map(float, sym)),
                                            tuple(map(float, quad)), _rel(sym, quad)))

        # nuisance token z: exp(beta <q,z>) = exp(beta rho z1) exp(beta rho_perp z2)
        n0 = G(0, b * r) * G(0, b * rho_perp)
        n1 = (G(1, b * r) * G(0, b * rho_perp), G(0, b * r) * G(1, b * rho_perp))
        add("tilted_mean", [_lam(tilted_mean().rhs)(*args)], [n0])
        add("tilted_first_moment", _plane([_lam(c)(*args) for c in tilted_first_moment().rhs], r), n1)

        # informative token x = theta s xi + z: x1 ~ N(theta s, sigma2), x2 ~ N(0, sigma2)
        if prior.support is not None:
            # (probability, mean of x1, variance of x1) over the atoms of s
            law = [(_mpq(q), t * _mpq(v), None) for v, q in prior.support]
        else:
            law = [(mpmath.mpf(1), t * _mpq(prior.mu), s2 + (t * _mpq(prior.tau)) ** 2)]
        i0 = sum(pr * G(0, b * r, mu, var) for pr, mu, var in law) * G(0, b * rho_perp)
        i1 = (
            sum(pr * G(1, b * r, mu, var) for pr, mu, var in law) * G(0, b * rho_perp),
            sum(pr * G(0, b * r, mu, var) for pr, mu, var in law) * G(1, b * rho_perp),
        )
        lem_mean, lem_moment = informative_lemmas(prior)
        add(f"informative_mean[{prior}]", [_lam(lem_mean.rhs)(*args)], [i0])
        add(f"informative_first_moment[{prior}]", _plane([_lam(c)(*args) for c in lem_moment.rhs], r), i1)

        # composed limit: f = N / D, j = |f|^2, nuisance mass
        d = derive(prior)
        den = a * i0 + (1 - a) * n0
        f_quad = [(a * i1[k] + (1 - a) * n1[k]) / den for k in range(2)]
        add(f"pooled_output[{prior}]", _plane([_lam(c)(*args) for c in d.pooled], r), f_quad)
        add(f"objective[{prior}]", [_lam(d.objective)(*args)], [f_quad[0] ** 2 + f_quad[1] ** 2])
        add(f"noise_mass[{prior}]", [_lam(d.noise_mass)(*args)], [(1 - a) * n0 / den])
    return out


def _mpq(value):
    """A fraction as an mpf at the working precision."""
    return mpmath.mpf(value.numerator) / value.denominator


def random_parameters(rng: np.random.Generator, n: int) -> list[dict]:
    """``n`` random parameter points in the ranges used by the check."""
    ranges = {"rho": (-0.99, 0.99), "theta": (0.05, 3.0), "alpha": (0.01, 0.99), "beta": (0.1, 3.0),
              "sigma2": (0.1, 3.0)}
    return [{name: float(rng.uniform(lo, hi)) for name, (lo, hi) in ranges.items()} for _ in range(n)]


def cross_check(n_points: int = 4, dps: int = 50, seed: int = 0, priors=("fixed", "rademacher")) -> QuadratureResult:
    """Symbolic lemmas vs ``mpmath.quad`` at ``n_points`` random parameter points.

    Parameters
    ----------
    n_points : int
        Random parameter points per prior.
    dps : int
        Working precision in significant digits (>= 50 for the check); the
        tolerance is ``10**(-dps + 10)`` relative.
    seed : int
        Seed of the parameter draw (reproducible).
    """
    if dps < 15:
        raise ValueError(f"`dps` must be >= 15, got {dps!r}")
    rng = np.random.default_rng(seed)
    comps = []
    for prior in map(parse_prior, priors):
        for p in random_parameters(rng, n_points):
            comps.extend(quadrature_point(prior, p, dps))
    worst = max(c.rel_diff for c in comps)
    return QuadratureResult(dps, 10.0 ** (-dps + 10), worst, tuple(comps))
