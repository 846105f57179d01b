"""Sign of ``j'``: how far the monotonicity question goes symbolically.

Fixed prior (``0 < alpha < 1``). Sympy finds ``m' = beta theta m (1 - m)`` (the
informative mass is a logistic function of ``rho``) and factors

    j'(rho) = 2 beta theta m * h(rho, m),
    h = sigma2 (1 + beta theta rho (1 - m)) + theta^2 m (1 - m).

The prefactor is positive for ``theta > 0``. Hence:

* ``rho >= 0``: every term of ``h`` is positive, ``j' > 0``.
* ``beta theta <= 1``: ``h >= sigma2 m > 0`` on ``[-1, 1]`` -- monotone, any ``alpha``.
* endpoint: ``F'(-1) = 2 j'(-1)`` has the sign of ``h(-1, m(-1))``, a quadratic in
  ``m(-1)`` whose root in ``(0, 1)`` is ``m_c`` (exists iff ``beta theta > 1``); since
  ``m(-1)`` increases with ``alpha`` this gives a critical fraction ``alpha_c`` in
  closed form: for ``beta theta > 1``, ``-xi`` repels iff ``alpha > alpha_c``.
* what remains: whether ``h`` can dip below zero inside ``(-1, 0)`` when
  ``h(-1) > 0`` (two interior equilibria). A dense scan finds no such case, so the
  phase boundary is conjecturally ``alpha = alpha_c(theta)``; it is *not* proved
  here, and the interval-arithmetic check decides it model by model.

Sparse regime (``alpha -> 0``): ``j_s' = 2 beta sigma2 theta e^{beta theta rho}
(1 + beta theta rho)``: monotone iff ``beta theta <= 1``, otherwise one interior
(unstable) equilibrium at ``rho* = -1 / (beta theta)``. ``sigma2`` drops out.

Rademacher prior: ``m`` is odd, so ``j'`` is odd and vanishes at ``rho = 0``;
``j' / rho = 2 theta (beta sigma2 (m/rho + m') + theta (m/rho) m') > 0`` because
``m/rho > 0`` and ``m' > 0``: always exactly one interior equilibrium, ``rho = 0``,
unstable; both poles attract (for ``theta > 0``).

``theta = 0``: ``j`` is constant and ``F`` vanishes identically (no recovery).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from ._derivation import derive
from ._model import Model
from ._symbols import alpha, beta, m, m1, rho, sigma2, theta


@dataclass(frozen=True)
class MonotoneAnalysis:
    """Symbolic facts about the sign of ``j'`` for one prior.

    Attributes
    ----------
    prior : str
    m_prime_identity : sympy.Expr
        ``m'`` expressed through ``m`` (fixed prior), or ``None``.
    positive_factor, sign_factor : sympy.Expr
        ``j' = positive_factor * sign_factor`` as polynomials in ``(rho, m)``.
    endpoint_quadratic : sympy.Expr
        ``sign_factor`` at ``rho = -1`` as a polynomial in ``m`` (fixed prior).
    critical_m, critical_alpha : sympy.Expr
        The root ``m_c`` in ``(0, 1)`` and the ``alpha_c`` with ``m(-1) = m_c``.
    sparse_sign_factor, sparse_equilibrium : sympy.Expr
        ``1 + beta theta rho`` and its root ``-1/(beta theta)`` (fixed prior).
    odd : bool
        ``m`` is odd in ``rho`` (rademacher), so ``rho = 0`` is an equilibrium.
    statements : tuple of str
        Human-readable conclusions, in the order they are proved above.
    remaining : str
        What the certified (interval) check still has to decide.
    """

    prior: str
    m_prime_identity: object
    positive_factor: object
    sign_factor: object
    endpoint_quadratic: object
    critical_m: object
    critical_alpha: object
    sparse_sign_factor: object
    sparse_equilibrium: object
    odd: bool
    statements: tuple
    remaining: str


@lru_cache(maxsize=None)
def monotone_analysis(prior: str) -> MonotoneAnalysis:
    """Simplify the sign of ``j'`` symbolically as far as it goes (see module doc)."""
    d = derive(prior)
    odd = sp.simplify(d.m.subs(rho, -rho) + d.m) == 0
    if prior == "fixed":
        ratio = sp.simplify(d.m_prime / (d.m * (1 - d.m)))
        if ratio.has(rho):
            raise AssertionError(f"m'/(m(1-m)) depends on rho: {ratio}")
        identity = ratio * m * (1 - m)
        slope_m = sp.factor(d.slope_poly.subs(m1, identity))
        positive = 2 * beta * theta * m
        sign = sp.expand(sp.cancel(slope_m / positive))
        quad = sp.expand(sign.subs(rho, -1))
        roots = sp.solve(quad, m)
        # the root in (0, 1) when beta theta > 1: the smaller one (the quadratic is
        # concave in m with value -sigma2 (beta theta - 1)... at m = 0; see tests)
        m_c = sp.simplify(min(roots, key=lambda r: r.subs({beta: 2, theta: 3, sigma2: 1})))
        alpha_c = sp.solve(sp.Eq(d.m.subs(rho, -1), m_c), alpha)
        if len(alpha_c) != 1:
            raise AssertionError(f"expected one critical alpha, got {alpha_c}")
        sparse_slope = sp.factor(d.sparse.slope)
        sparse_sign = sp.Mul(*[f for f in sp.Mul.make_args(sparse_slope) if f.has(rho) and not isinstance(f, sp.exp)])
        sparse_root = sp.solve(sparse_sign, rho)
        statements = (
            f"m' = {identity} (m is logistic in rho)",
            f"j' = ({positive}) * h, h = {sign}",
            "rho >= 0: h > 0 (all terms positive), so j' > 0",
            "beta*theta <= 1: h >= sigma2*m > 0 on [-1, 1]: monotone for every alpha",
            f"F'(-1) = 2 j'(-1) has the sign of h(-1) = {quad} (m = m(-1))",
            f"h(-1) = 0 at m_c = {m_c}, in (0, 1) iff beta*theta > 1",
            f"beta*theta > 1: -xi repels iff alpha > alpha_c = {alpha_c[0]}",
            f"sparse regime: sign(j_s') = sign({sparse_sign}); monotone iff beta*theta <= 1,"
            f" else one interior equilibrium rho* = {sparse_root[0]}",
        )
        remaining = (
            "whether h(rho, m(rho)) can vanish inside (-1, 0) when h(-1) > 0 (it is not "
            "proved that alpha > alpha_c implies monotone); the interval check decides "
            "each model, and locates the interior equilibria when beta*theta > 1 and "
            "alpha < alpha_c"
        )
        return MonotoneAnalysis(
            prior, identity, positive, sign, quad, m_c, sp.simplify(alpha_c[0]),
            sparse_sign, sparse_root[0], odd, statements, remaining,
        )
    if not odd:
        raise AssertionError("rademacher informative coefficient is not odd")
    statements = (
        "m(-rho) = -m(rho): j' is odd and rho = 0 is an equilibrium for every model",
        "j'/rho = 2 theta (beta sigma2 (m/rho + m') + theta (m/rho) m') with m/rho > 0, m' > 0",
        "so j' has the sign of rho: rho = 0 is the only interior equilibrium, unstable; both poles attract",
        "sparse regime: j_s' = 2 beta sigma2 theta (sinh(b rho) + b rho cosh(b rho)), sign of rho as well",
    )
    return MonotoneAnalysis(
        prior, None, 2 * theta * rho, sp.factor(d.slope_poly / (2 * theta * rho)), None, None, None,
        rho, sp.Integer(0), odd, statements,
        "positivity of j'/rho on [-1, 1] (after removing the odd factor rho), certified by intervals",
    )


def critical_alpha(model_or_theta, beta_value=1.0, sigma2_value=1.0) -> float | None:
    """``alpha_c`` of the fixed prior (``None`` when ``beta theta <= 1``: monotone for all alpha)."""
    if isinstance(model_or_theta, Model):
        t, b, s2 = model_or_theta.theta, model_or_theta.beta, model_or_theta.sigma2
    else:
        t, b, s2 = float(model_or_theta), float(beta_value), float(sigma2_value)
    if b * t <= 1:
        return None
    m_c = float(_critical_m_function()(t, b, s2))
    # alpha_c = m_c e^b / (m_c e^b + 1 - m_c), written without overflow
    log_odds = b * t + math.log(m_c) - math.log1p(-m_c)
    return 1.0 / (1.0 + math.exp(-log_odds)) if log_odds > -700 else 0.0


@lru_cache(maxsize=None)
def _critical_m_function():
    """``m_c(theta, beta, sigma2)`` lambdified from the symbolic analysis."""
    return sp.lambdify((theta, beta, sigma2), monotone_analysis("fixed").critical_m, modules="math")


def sparse_threshold(beta_value: float = 1.0) -> float:
    """Critical signal strength of the sparse regime, ``theta* = 1 / beta``."""
    return 1.0 / float(beta_value)
