"""The high-dimensional limit, composed step by step by sympy (docs/design.md section 1).

Step 1 (lemmas): Gaussian tilting identities, :mod:`theory._derivation._lemmas`.

Step 2 (ratio limit): with ``R / L -> alpha``, the numerator and the denominator of
``f_q(X) = sum_i e^{u_i} x_i / sum_i e^{u_i}`` divided by ``L`` obey the law of large
numbers, so ``f_q(X) -> N / D`` with

    N = alpha E_inf[e^u x] + (1 - alpha) E_nuis[e^u x],
    D = alpha E_inf[e^u]   + (1 - alpha) E_nuis[e^u].

The result is ``f = c_xi xi + c_q q``; sympy finds ``c_q = beta sigma2`` (free of
``rho``) and ``c_xi = theta m(rho)`` with ``m`` the *informative coefficient*.

Step 3 (objective): ``j(rho) = |f|^2 = c_xi^2 + c_q^2 + 2 rho c_xi c_q``; it depends
on ``q`` only through ``rho`` (rotational symmetry about ``xi``). As a polynomial in
``(rho, m)`` this is ``objective_poly``; its total derivative, with ``m' = dm/drho``,
is ``slope_poly``.

Step 4 (field): the Riemannian gradient of ``j`` on the sphere has ``xi``-component
``(1 - rho^2) j'(rho)``, so ``F = (1 - rho^2) j'``; ``F'(+-1)`` by differentiation.

Step 5 (sparse regime): ``alpha -> 0`` with time rescaled by ``1/alpha``: the
first-order coefficient in ``alpha`` of ``j - j|_{alpha=0}``, of ``F`` and of ``m``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import sympy as sp

from .._laws import Prior, parse_prior
from ._lemmas import Lemma, informative_lemmas, informative_lemmas_general, tilted_first_moment, tilted_mean
from ._symbols import alpha, m, m1, rho, theta


@dataclass(frozen=True)
class SparseLimit:
    """First-order (in ``alpha``) limit: every quantity here is ``lim X / alpha``
    (for the objective, of ``j - j|_{alpha = 0}``); the nuisance mass is the plain limit."""

    m: sp.Expr
    m_prime: sp.Expr
    objective: sp.Expr
    slope: sp.Expr
    field: sp.Expr
    field_prime_plus: sp.Expr
    field_prime_minus: sp.Expr
    noise_mass: sp.Expr
    endpoints: tuple[sp.Expr, sp.Expr]


@dataclass(frozen=True)
class Derivation:
    """Every intermediate object of the limit derivation for one prior.

    ``prior`` is the :class:`Prior` (the label ``"M_s"`` for :func:`derive_general`); the
    other attributes are sympy expressions in ``rho`` and the parameters
    ``theta, alpha, beta, sigma2`` (see :mod:`theory._derivation._symbols`).
    """

    prior: Prior | str
    lemmas: tuple[Lemma, ...]
    numerator: tuple[sp.Expr, sp.Expr]
    denominator: sp.Expr
    pooled: tuple[sp.Expr, sp.Expr]
    m: sp.Expr
    m_prime: sp.Expr
    objective_poly: sp.Expr
    slope_poly: sp.Expr
    objective: sp.Expr
    slope: sp.Expr
    field: sp.Expr
    field_prime_plus: sp.Expr
    field_prime_minus: sp.Expr
    noise_mass: sp.Expr
    endpoints: tuple[sp.Expr, sp.Expr]
    sparse: SparseLimit


def _at(poly, m_expr, m_prime, r):
    """``poly(rho, m, m')`` at ``rho = r`` with the derived ``m(r)``, ``m'(r)``."""
    return poly.subs(
        {m: sp.simplify(m_expr.subs(rho, r)), m1: sp.simplify(m_prime.subs(rho, r))}
    ).subs(rho, r)


def _norm2(c_xi, c_q):
    """Squared norm of ``c_xi xi + c_q q`` with ``|xi| = |q| = 1`` and ``<xi, q> = rho``."""
    return c_xi**2 + c_q**2 + 2 * rho * c_xi * c_q


def derive(prior: Prior | str) -> Derivation:
    """Run the derivation for the prior ``prior``, a :class:`Prior` or a spec (cached per prior).

    ``"fixed"``, ``"rademacher"``, ``"gaussian(mu=1, tau=0.5)"``, ... (see
    :mod:`theory._laws`); :func:`derive_general` is the same derivation with the
    prior's MGF left unspecified.
    """
    return _derive(parse_prior(prior))


@cache
def derive_general() -> Derivation:
    """The derivation for any prior: the MGF ``M_s`` of ``s`` stays an unspecified function.

    Substituting a family's MGF (:func:`theory._derivation._lemmas.specialise`) gives that family's
    :func:`derive` (tested for every family, including the fixed and symmetric priors).
    """
    return _compose("M_s", informative_lemmas_general())


@cache
def _derive(prior: Prior) -> Derivation:
    return _compose(prior, informative_lemmas(prior))


def _compose(prior: Prior | str, informative) -> Derivation:
    lem_mean, lem_moment = tilted_mean(), tilted_first_moment()
    inf_mean, inf_moment = informative

    # Step 2: ratio limit of the softmax-pooled output.
    num_xi = alpha * inf_moment.rhs[0] + (1 - alpha) * lem_moment.rhs[0]
    num_q = alpha * inf_moment.rhs[1] + (1 - alpha) * lem_moment.rhs[1]
    den = alpha * inf_mean.rhs + (1 - alpha) * lem_mean.rhs
    c_xi = sp.simplify(num_xi / den)
    c_q = sp.simplify(num_q / den)
    if c_q.has(rho):  # the structure used below; a failure here means a wrong lemma
        raise AssertionError(f"q-coefficient of the pooled output depends on rho: {c_q}")
    m_expr = sp.simplify(c_xi / theta)
    m_prime = sp.simplify(sp.diff(m_expr, rho))

    # Step 3: objective as a polynomial in (rho, m), then its total derivative.
    objective_poly = sp.expand(_norm2(theta * m, c_q))
    slope_poly = sp.factor(sp.diff(objective_poly, rho) + sp.diff(objective_poly, m) * m1)
    objective = objective_poly.subs(m, m_expr)
    slope = slope_poly.subs({m: m_expr, m1: m_prime})

    # Step 4: field and its derivative at the poles. With S = j' an arbitrary smooth
    # function, sympy differentiates (1 - rho^2) S(rho) and evaluates at +-1; only
    # the product-rule term survives, and S(+-1) is the slope polynomial there.
    field = (1 - rho**2) * slope
    S = sp.Function("S")
    generic = sp.diff((1 - rho**2) * S(rho), rho)
    fp_plus, fp_minus = (
        generic.subs(rho, r).doit().subs(S(r), _at(slope_poly, m_expr, m_prime, r)) for r in (1, -1)
    )
    endpoints = tuple(sp.simplify(field.subs(rho, r)) for r in (1, -1))
    noise_mass = sp.simplify((1 - alpha) * lem_mean.rhs / den)

    # Step 5: sparse regime. m vanishes at alpha = 0 (checked), so to first order in
    # alpha the objective moves by (d objective_poly / dm at m = 0) * alpha * m_s.
    if sp.simplify(m_expr.subs(alpha, 0)) != 0:
        raise AssertionError("informative coefficient does not vanish at alpha = 0")
    m_s = sp.simplify(sp.diff(m_expr, alpha).subs(alpha, 0))
    m_s_prime = sp.simplify(sp.diff(m_s, rho))
    obj_s = sp.factor(sp.diff(objective_poly, m).subs(m, 0) * m_s)
    slope_s = sp.factor(sp.diff(obj_s, rho))
    field_s = sp.factor((1 - rho**2) * slope_s)
    sparse = SparseLimit(
        m=m_s,
        m_prime=m_s_prime,
        objective=obj_s,
        slope=slope_s,
        field=field_s,
        field_prime_plus=sp.simplify(sp.diff(field_s, rho).subs(rho, 1)),
        field_prime_minus=sp.simplify(sp.diff(field_s, rho).subs(rho, -1)),
        noise_mass=sp.simplify(noise_mass.subs(alpha, 0)),
        endpoints=(sp.simplify(field_s.subs(rho, 1)), sp.simplify(field_s.subs(rho, -1))),
    )
    return Derivation(
        prior=prior,
        lemmas=(lem_mean, lem_moment, inf_mean, inf_moment),
        numerator=(sp.simplify(num_xi), sp.simplify(num_q)),
        denominator=sp.simplify(den),
        pooled=(c_xi, c_q),
        m=m_expr,
        m_prime=m_prime,
        objective_poly=objective_poly,
        slope_poly=slope_poly,
        objective=objective,
        slope=slope,
        field=field,
        field_prime_plus=fp_plus,
        field_prime_minus=fp_minus,
        noise_mass=noise_mass,
        endpoints=endpoints,
        sparse=sparse,
    )
