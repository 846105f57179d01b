"""Gaussian lemmas, derived by sympy integration (docs/design.md section 1).

With ``z ~ N(0, sigma2 I_d)`` and ``|q| = 1``, write ``z = y q + z_perp`` where
``y = <q, z> ~ N(0, sigma2)`` and ``z_perp`` (the projection on ``q^perp``) is
centred and independent of ``y``. Then

* tilted mean:          ``E exp(beta <q,z>)   = int exp(beta y) phi(y) dy``
* tilted first moment:  ``E exp(beta <q,z>) z = (int y exp(beta y) phi(y) dy) q``
  (the ``z_perp`` part vanishes by independence: this is Gaussian integration by
  parts / Stein's lemma, and sympy does the integral).

Informative tokens ``x = theta s xi + z`` have ``<q, x> = theta s rho + y``, so
``E_z exp(beta<q,x>) = exp(beta theta s rho) M`` and
``E_z exp(beta<q,x>) x = exp(beta theta s rho) (theta s M xi + T q)``; the prior on
``s`` is then averaged by a finite sum. Vectors are kept as coefficient pairs on
the (non-orthogonal) pair ``(xi, q)``, with ``<xi, q> = rho``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from ._symbols import beta, rho, s, sigma2, theta, y

#: prior laws of the signal sign, as {value: probability}
PRIOR_LAWS = {
    "fixed": {sp.Integer(1): sp.Integer(1)},
    "rademacher": {sp.Integer(1): sp.Rational(1, 2), sp.Integer(-1): sp.Rational(1, 2)},
}


@dataclass(frozen=True)
class Lemma:
    """One derived identity ``lhs = rhs``.

    ``integral`` is the unevaluated sympy object that was evaluated (``None`` for a
    composition of earlier lemmas); ``rhs`` is a scalar, or for vector identities a
    pair of coefficients on ``(xi, q)``.
    """

    name: str
    statement: str
    integral: object
    rhs: object


def gaussian_density():
    """Density of ``N(0, sigma2)`` in the variable ``y``."""
    return sp.exp(-(y**2) / (2 * sigma2)) / sp.sqrt(2 * sp.pi * sigma2)


@lru_cache(maxsize=None)
def tilted_mean() -> Lemma:
    """``M = E exp(beta <q,z>)``, evaluated by sympy."""
    integral = sp.Integral(sp.exp(beta * y) * gaussian_density(), (y, -sp.oo, sp.oo))
    rhs = sp.simplify(integral.doit(conds="none"))
    return Lemma("tilted_mean", "E exp(beta <q,z>) = M", integral, rhs)


@lru_cache(maxsize=None)
def tilted_first_moment() -> Lemma:
    """``E exp(beta <q,z>) z = T q`` with ``T = E y exp(beta y)``, evaluated by sympy."""
    integral = sp.Integral(y * sp.exp(beta * y) * gaussian_density(), (y, -sp.oo, sp.oo))
    T = sp.simplify(integral.doit(conds="none"))
    return Lemma("tilted_first_moment", "E exp(beta <q,z>) z = T q", integral, (sp.Integer(0), T))


@lru_cache(maxsize=None)
def informative_lemmas(prior: str) -> tuple[Lemma, Lemma]:
    """Prior-averaged ``E exp(beta<q,x>)`` and ``E exp(beta<q,x>) x`` for ``x = theta s xi + z``."""
    M = tilted_mean().rhs
    T = tilted_first_moment().rhs[1]
    law = PRIOR_LAWS[prior]
    tilt = sp.exp(beta * theta * s * rho)
    mean = sp.simplify(sum(p * (tilt * M).subs(s, v) for v, p in law.items()))
    xi_coef = sp.simplify(sum(p * (tilt * theta * s * M).subs(s, v) for v, p in law.items()))
    q_coef = sp.simplify(sum(p * (tilt * T).subs(s, v) for v, p in law.items()))
    return (
        Lemma(f"informative_mean[{prior}]", "E exp(beta <q,x>) (informative)", None, mean),
        Lemma(
            f"informative_first_moment[{prior}]",
            "E exp(beta <q,x>) x (informative)",
            None,
            (xi_coef, q_coef),
        ),
    )
