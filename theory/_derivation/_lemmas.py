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
``s`` is then averaged: by a finite sum over its atoms for a finite law, or, for any
law, through its moment generating function ``M_s(t) = E exp(t s)`` (written ``M``
below, an unspecified sympy function): ``E_s exp(t s) = M_s(t)`` and
``E_s s exp(t s) = M_s'(t)`` at ``t = beta theta rho``
(:func:`informative_lemmas_general`). Vectors are kept as coefficient pairs on
the (non-orthogonal) pair ``(xi, q)``, with ``<xi, q> = rho``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Generic, TypeVar

import sympy as sp

from .._laws import Prior
from ._symbols import beta, rho, s, sigma2, theta, y

#: the moment generating function of the prior, unspecified, and its argument
MGF = sp.Function("M_s")
t_mgf = sp.Symbol("t", real=True)


def prior_law(prior: Prior) -> dict | None:
    """The finite law of ``s`` as ``{value: probability}`` (sympy rationals), or ``None``."""
    support = prior.support
    if support is None:
        return None
    return {sp.Rational(v): sp.Rational(q) for v, q in support}


def mgf_derivative(n: int, at):
    """``M_s^{(n)}(at)`` for the unspecified MGF ``M_s``."""
    return sp.diff(MGF(t_mgf), t_mgf, n).subs(t_mgf, at) if n else MGF(at)


def specialise(expr, prior: Prior):
    """``expr`` with the unspecified MGF ``M_s`` replaced by the prior's MGF (derivatives done)."""
    return expr.replace(MGF, sp.Lambda(t_mgf, prior.mgf(t_mgf))).doit()


#: the type of a lemma's right-hand side: a sympy expression, or a pair of them
_Rhs = TypeVar("_Rhs")


@dataclass(frozen=True)
class Lemma(Generic[_Rhs]):
    """One derived identity ``lhs = rhs``.

    ``integral`` is the unevaluated sympy object that was evaluated (``None`` for a
    composition of earlier lemmas); ``rhs`` is a scalar, or for vector identities a
    pair of coefficients on ``(xi, q)``.
    """

    name: str
    statement: str
    integral: sp.Integral | None
    rhs: _Rhs


def gaussian_density():
    """Density of ``N(0, sigma2)`` in the variable ``y``."""
    return sp.exp(-(y**2) / (2 * sigma2)) / sp.sqrt(2 * sp.pi * sigma2)


@cache
def tilted_mean() -> Lemma[sp.Expr]:
    """``M = E exp(beta <q,z>)``, evaluated by sympy."""
    integral = sp.Integral(sp.exp(beta * y) * gaussian_density(), (y, -sp.oo, sp.oo))
    rhs = sp.simplify(integral.doit(conds="none"))
    return Lemma("tilted_mean", "E exp(beta <q,z>) = M", integral, rhs)


@cache
def tilted_first_moment() -> Lemma[tuple[sp.Expr, sp.Expr]]:
    """``E exp(beta <q,z>) z = T q`` with ``T = E y exp(beta y)``, evaluated by sympy."""
    integral = sp.Integral(y * sp.exp(beta * y) * gaussian_density(), (y, -sp.oo, sp.oo))
    T = sp.simplify(integral.doit(conds="none"))
    return Lemma("tilted_first_moment", "E exp(beta <q,z>) z = T q", integral, (sp.Integer(0), T))


@cache
def informative_lemmas_general() -> tuple[Lemma[sp.Expr], Lemma[tuple[sp.Expr, sp.Expr]]]:
    """``E exp(beta<q,x>)`` and ``E exp(beta<q,x>) x`` for any prior, through its MGF ``M_s``."""
    M = tilted_mean().rhs
    T = tilted_first_moment().rhs[1]
    at = beta * theta * rho
    mean = M * mgf_derivative(0, at)
    xi_coef = theta * M * mgf_derivative(1, at)
    q_coef = T * mgf_derivative(0, at)
    return (
        Lemma("informative_mean[M_s]", "E exp(beta <q,x>) (informative, any prior)", None, mean),
        Lemma("informative_first_moment[M_s]", "E exp(beta <q,x>) x (informative, any prior)", None,
              (xi_coef, q_coef)),
    )


@cache
def informative_lemmas(prior: Prior) -> tuple[Lemma[sp.Expr], Lemma[tuple[sp.Expr, sp.Expr]]]:
    """Prior-averaged ``E exp(beta<q,x>)`` and ``E exp(beta<q,x>) x`` for ``x = theta s xi + z``.

    A finite law is averaged by a finite sum over its atoms; a Gaussian prior by
    substituting its MGF into :func:`informative_lemmas_general`.
    """
    M = tilted_mean().rhs
    T = tilted_first_moment().rhs[1]
    law = prior_law(prior)
    if law is None:
        general = informative_lemmas_general()
        mean = sp.simplify(specialise(general[0].rhs, prior))
        xi_coef, q_coef = (sp.simplify(specialise(c, prior)) for c in general[1].rhs)
    else:
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
