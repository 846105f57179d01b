r"""Higher-order Gaussian tilting for the finite-step derivation, by sympy integration.

The first-order chain (:mod:`theory._derivation._lemmas`) needs ``E exp(beta <q, x>)`` and
``E exp(beta <q, x>) x``. The variance of the per-sample gradient needs *k-th order
tilting*, ``E exp(k beta <q, x>) x1^a x2^b`` for ``k = 1..4``: ``k = 2`` for the
second moments, ``k = 3, 4`` for the self-interaction terms
(:mod:`theory._effective._derivation`).

Coordinates: ``x1 = <x, xi>`` and ``x2 = <x, e2>`` with ``e2`` the unit vector of
``q - rho xi``, so ``<q, x> = rho x1 + rho_perp x2`` with ``rho_perp = sqrt(1 - rho^2)``.
For an informative token ``x1 ~ N(theta s, sigma2)`` (``s`` the signal sign), for
a nuisance token ``x1 ~ N(0, sigma2)``; ``x2 ~ N(0, sigma2)`` independent. Every
such expectation factorises into one-dimensional integrals

    E x^n exp(c x),  x ~ N(mu, sigma2),

obtained from the centred lemma ``int y^n exp(c y) phi_sigma2(y) dy``
(:func:`centred_tilted_moment`, sympy integration) by the shift ``x = mu + y``.
The prior on ``s`` is averaged by a finite sum over its atoms (finite laws), or through
its moment generating function: ``E_s s^n exp(c s) = M_s^{(n)}(c)``.
"""

from __future__ import annotations

from functools import cache

import sympy as sp

from .._derivation._lemmas import Lemma, mgf_derivative, prior_law, specialise
from .._derivation._symbols import alpha, beta, rho, rho_perp, s, sigma2, theta, x1, x2
from .._laws import Prior

#: tilt and integration variable of the one-dimensional lemmas
_c, _x = sp.Symbol("c", real=True), sp.Symbol("x", real=True)

#: the two token kinds and their weights in the token mixture
KIND_WEIGHTS = (("informative", alpha), ("nuisance", 1 - alpha))


@cache
def centred_tilted_moment(n: int) -> Lemma[sp.Expr]:
    """``int y^n exp(c y) phi_sigma2(y) dy``, by sympy integration (any real ``c``)."""
    dens = sp.exp(-(_x**2) / (2 * sigma2)) / sp.sqrt(2 * sp.pi * sigma2)
    integral = sp.Integral(_x**n * sp.exp(_c * _x) * dens, (_x, -sp.oo, sp.oo))
    rhs = sp.factor(sp.simplify(integral.doit(conds="none")))
    return Lemma(f"tilted_moment[{n}]", f"E y^{n} exp(c y), y ~ N(0, sigma2)", integral, rhs)


def _tilted_1d(n: int, c, mu, tilt: bool = True):
    """``E x^n exp(c x)`` for ``x ~ N(mu, sigma2)``: shift ``x = mu + y`` and use the lemmas
    (without the factor ``exp(c mu)`` when ``tilt`` is false)."""
    poly = sp.Poly(sp.expand((mu + _x) ** n), _x)
    out = sum(coef * centred_tilted_moment(k).rhs.subs(_c, c) for (k,), coef in poly.terms())
    return sp.exp(c * mu) * out if tilt else out


def tilted_expectation(poly, k: int, kind: str, prior: Prior | None):
    """``E_kind[exp(k beta <q, x>) P(x1, x2)]`` for a polynomial ``P`` of the in-plane coordinates.

    ``<q, x> = rho x1 + rho_perp x2`` with ``x1 ~ N(theta s, sigma2)`` (informative;
    nuisance: mean 0) and ``x2 ~ N(0, sigma2)`` independent; the prior on the sign
    ``s`` is averaged by a finite sum (finite laws) or through the MGF (any law;
    ``prior=None`` leaves the MGF ``M_s`` unspecified). ``k = 2`` is the second-order tilting.
    """
    P = sp.Poly(sp.expand(poly), x1, x2)
    total = sp.Integer(0)  # without the factor exp(k beta rho theta s): a polynomial in s
    for (a, b), coef in P.terms():
        total += coef * _tilted_1d(a, k * beta * rho, theta * s, tilt=False) * _tilted_1d(b, k * beta * rho_perp, 0)
    if kind == "nuisance":
        return total.subs(s, 0)
    at = k * beta * rho * theta
    law = prior_law(prior) if prior is not None else None
    if law is not None:
        return sum(p * (sp.exp(at * s) * total).subs(s, v) for v, p in law.items())
    by_power = sp.Poly(sp.expand(total), s)
    general = sum(coef * mgf_derivative(n, at) for (n,), coef in by_power.terms())
    return general if prior is None else specialise(general, prior)


def mixture(poly, k: int, prior: Prior | None):
    """``E_mix[exp(k beta <q, x>) P(x1, x2)]``: weight ``alpha`` on informative tokens."""
    return alpha * tilted_expectation(poly, k, "informative", prior) + (1 - alpha) * tilted_expectation(
        poly, k, "nuisance", prior
    )
