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
from functools import cache

import sympy as sp

from .._derivation._lemmas import MGF, mgf_derivative
from .._derivation._scalar import derive, derive_general
from .._derivation._symbols import alpha, beta, m, m1, rho, sigma2, theta
from .._laws import Prior, parse_prior
from .._model import Model


@dataclass(frozen=True)
class MonotoneAnalysis:
    """Symbolic facts about the sign of ``j'`` for one prior.

    Attributes
    ----------
    prior : Prior
    m_prime_identity : sympy.Expr
        ``m'`` expressed through ``m`` (fixed prior), or ``None``.
    positive_factor, sign_factor : sympy.Expr
        ``j' = positive_factor * sign_factor`` as polynomials in ``(rho, m)``.
    endpoint_quadratic : sympy.Expr
        ``sign_factor`` at ``rho = -1`` as a polynomial in ``m`` (fixed prior), or ``None``.
    critical_m, critical_alpha : sympy.Expr
        The root ``m_c`` in ``(0, 1)`` and the ``alpha_c`` with ``m(-1) = m_c`` (fixed prior),
        or ``None``.
    sparse_sign_factor, sparse_equilibrium : sympy.Expr
        ``1 + beta theta rho`` and its root ``-1/(beta theta)`` (fixed prior).
    odd : bool
        ``m`` is odd in ``rho`` (rademacher), so ``rho = 0`` is an equilibrium.
    statements : tuple of str
        Human-readable conclusions, in the order they are proved above.
    remaining : str
        What the certified (interval) check still has to decide.
    """

    prior: Prior
    m_prime_identity: sp.Expr | None
    positive_factor: sp.Expr
    sign_factor: sp.Expr
    endpoint_quadratic: sp.Expr | None
    critical_m: sp.Expr | None
    critical_alpha: sp.Expr | None
    sparse_sign_factor: sp.Expr
    sparse_equilibrium: sp.Expr
    odd: bool
    statements: tuple[str, ...]
    remaining: str


def monotone_analysis(prior: Prior | str) -> MonotoneAnalysis:
    """Simplify the sign of ``j'`` symbolically as far as it goes (see module doc); ``prior``
    is the fixed or the symmetric Rademacher prior (a :class:`Prior` or a spec)."""
    return _monotone_analysis(parse_prior(prior))


@cache
def _monotone_analysis(prior: Prior) -> MonotoneAnalysis:
    d = derive(prior)
    odd = sp.simplify(d.m.subs(rho, -rho) + d.m) == 0
    if prior.family == "fixed":
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
        statements: tuple[str, ...] = (
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
        return MonotoneAnalysis(prior=prior, m_prime_identity=identity, positive_factor=positive, sign_factor=sign,
                                endpoint_quadratic=quad, critical_m=m_c, critical_alpha=sp.simplify(alpha_c[0]),
                                sparse_sign_factor=sparse_sign, sparse_equilibrium=sparse_root[0], odd=odd,
                                statements=statements, remaining=remaining)
    if not odd:
        raise AssertionError("rademacher informative coefficient is not odd")
    statements = (
        "m(-rho) = -m(rho): j' is odd and rho = 0 is an equilibrium for every model",
        "j'/rho = 2 theta (beta sigma2 (m/rho + m') + theta (m/rho) m') with m/rho > 0, m' > 0",
        "so j' has the sign of rho: rho = 0 is the only interior equilibrium, unstable; both poles attract",
        "sparse regime: j_s' = 2 beta sigma2 theta (sinh(b rho) + b rho cosh(b rho)), sign of rho as well",
    )
    return MonotoneAnalysis(prior=prior, m_prime_identity=None, positive_factor=2 * theta * rho,
                            sign_factor=sp.factor(d.slope_poly / (2 * theta * rho)), endpoint_quadratic=None,
                            critical_m=None, critical_alpha=None, sparse_sign_factor=rho,
                            sparse_equilibrium=sp.Integer(0), odd=odd, statements=statements,
                            remaining=("positivity of j'/rho on [-1, 1] (after removing the odd factor rho), "
                                       "certified by intervals"))


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


@cache
def _critical_m_function():
    """``m_c(theta, beta, sigma2)`` lambdified from the symbolic analysis."""
    return sp.lambdify((theta, beta, sigma2), monotone_analysis("fixed").critical_m, modules="math")


def sparse_threshold(beta_value: float = 1.0) -> float:
    """Critical signal strength of the sparse regime, ``theta* = 1 / beta``."""
    return 1.0 / float(beta_value)


# ----------------------------------------------------------------------------------
# any prior: the criteria in terms of the tilted law of s

#: stand-ins for the informative mass ``w`` and the tilted mean and variance of ``s``
#: at ``t = beta theta rho`` (see :func:`general_criteria`)
w_mass, mu1_t, var_t, t_tilt = sp.symbols("w mu1 v t", real=True)


@dataclass(frozen=True)
class GeneralCriteria:
    """The sign of ``j'`` for any prior, through the tilted law of ``s`` (sympy objects).

    With ``t = beta theta rho``, ``M = M_s(t)``, the informative mass
    ``w = alpha M / (alpha M + 1 - alpha)``, the tilted mean ``mu1 = M'/M`` and variance
    ``v = M''/M - mu1^2 >= 0``:

    Attributes
    ----------
    m, m_prime : sympy.Expr
        ``m = w mu1`` and ``m' = beta theta w ((1 - w) mu1^2 + v)`` (proved equal to the
        derived ones for an unspecified ``M_s``).
    sign_factor : sympy.Expr
        ``g = j' / (2 theta w) = mu1 A + beta sigma2 t K`` with ``K = (1 - w) mu1^2 + v``
        and ``A = beta theta^2 w K + beta sigma2``.
    sparse_sign_factor : sympy.Expr
        ``g_s = j'_s / (2 beta sigma2 theta M) = mu1 + t (v + mu1^2) = (t M')' / M``.
    pole_quadratic : sympy.Expr
        ``g`` at ``rho = -1`` as a quadratic in the informative mass ``w`` (``mu1, v`` at
        ``t = -beta theta``): ``F'(-1) = 2 j'(-1)`` has its sign.
    alpha_from_mass : sympy.Expr
        ``alpha`` in terms of ``w`` at ``rho = -1``: ``w / (w + M (1 - w))``.
    statements : tuple of str
    remaining : str
    """

    m: object
    m_prime: object
    sign_factor: object
    sparse_sign_factor: object
    pole_quadratic: object
    alpha_from_mass: object
    statements: tuple
    remaining: str


@cache
def general_criteria() -> GeneralCriteria:
    """Derive the general-prior criteria and prove the identities they rest on (sympy).

    Raises ``AssertionError`` if an identity fails (a wrong derivation would).
    """
    g_der = derive_general()
    t = beta * theta * rho
    M0, M1, M2 = (mgf_derivative(n, t) for n in range(3))
    w_of = alpha * M0 / (alpha * M0 + 1 - alpha)
    mu1_of, var_of = M1 / M0, M2 / M0 - (M1 / M0) ** 2
    K = (1 - w_mass) * mu1_t**2 + var_t
    m_form = w_mass * mu1_t
    mp_form = beta * theta * w_mass * K
    subs = {w_mass: w_of, mu1_t: mu1_of, var_t: var_of}
    for derived, form in ((g_der.m, m_form), (g_der.m_prime, mp_form)):
        if sp.simplify(derived - form.subs(subs)) != 0:
            raise AssertionError(f"tilted form {form} does not match the derivation")
    A = beta * theta**2 * w_mass * K + beta * sigma2
    g = mu1_t * A + beta * sigma2 * t_tilt * K
    slope = g_der.slope_poly.subs({m: m_form, m1: mp_form})
    if sp.simplify(slope - 2 * theta * w_mass * g.subs(t_tilt, t)) != 0:
        raise AssertionError("j' != 2 theta w g")
    g_s = mu1_t + t_tilt * (var_t + mu1_t**2)
    tt = sp.Symbol("t", real=True)
    if sp.simplify(g_der.sparse.slope - 2 * beta * sigma2 * theta * M0 * g_s.subs(subs).subs(t_tilt, t)) != 0:
        raise AssertionError("j'_s != 2 beta sigma2 theta M g_s")
    check = sp.diff(tt * MGF(tt).diff(tt), tt) / MGF(tt) - g_s.subs(
        {mu1_t: MGF(tt).diff(tt) / MGF(tt), var_t: MGF(tt).diff(tt, 2) / MGF(tt) - (MGF(tt).diff(tt) / MGF(tt)) ** 2,
         t_tilt: tt})
    if sp.simplify(check) != 0:
        raise AssertionError("g_s != (t M')'/M")
    pole = sp.expand(g.subs(t_tilt, -beta * theta))
    statements = (
        "m = w mu1 and m' = beta theta w ((1 - w) mu1^2 + v), with w the informative mass and "
        "mu1, v the mean and variance of s under the law tilted by exp(t s), t = beta theta rho",
        "j' = 2 theta w g, g = mu1 A + beta sigma2 t K, K = (1 - w) mu1^2 + v >= 0, "
        "A = beta theta^2 w K + beta sigma2 > 0",
        "E s > 0: mu1 increases (mu1' = v >= 0), so mu1(t) >= E s > 0 for rho >= 0 and every term "
        "of g is positive: no equilibrium with rho >= 0, +xi attracts",
        "E s = 0: mu1(t) = t r(t) with r = v(xi) > 0 (mean value theorem), g = t (r A + beta sigma2 K): "
        "j' has the sign of rho, rho = 0 is the only interior equilibrium (unstable), both poles attract",
        "rho = 0 is an equilibrium iff E s = 0 (j'(0) = 2 theta alpha E s (beta sigma2 + ...) otherwise)",
        "sparse regime: j'_s = 2 beta sigma2 theta (t M_s'(t))' (t = beta theta rho); for E s > 0 it is "
        "monotone iff beta theta <= c*, c* the first zero of (t M_s')' left of t = 0 "
        "(fixed and bernoulli(p): c* = 1)",
        "F'(-1) = 2 j'(-1) has the sign of g(-1), a quadratic Q(w) in the informative mass at rho = -1; "
        "w increases from 0 to 1 with alpha, so -xi attracts exactly for alpha with Q(w(alpha)) < 0, and "
        "alpha = w / (w + M_s(-beta theta) (1 - w)) at a root of Q plays the role of alpha_c "
        "(Q(0) = beta sigma2 g_s(-beta theta): the sparse criterion is its alpha -> 0 end)",
    )
    remaining = ("for E s > 0, whether g can vanish inside (-1, 0) without a sign change at rho = -1 (two "
                 "interior equilibria); the interval check decides it model by model")
    return GeneralCriteria(m=m_form, m_prime=mp_form, sign_factor=g, sparse_sign_factor=g_s, pole_quadratic=pole,
                           alpha_from_mass=w_mass / (w_mass + M0.subs(rho, -1) * (1 - w_mass)), statements=statements,
                           remaining=remaining)


def sparse_threshold_prior(prior: Prior | str, dps: int = 30) -> float:
    """``c*`` of ``prior``: the sparse field is monotone iff ``beta theta <= c*`` (``E s > 0``);
    ``0.0`` when ``E s = 0`` (``rho = 0`` is then always an equilibrium).

    The first zero of ``g_s(t) = mu1 + t (v + mu1^2)`` left of 0, found by scanning
    ``[-10^4, 0]`` (steps of ``max(1/64, |t|/64)``) and refining with mpmath at ``dps``
    digits; ``inf`` if there is none there. (As ``t -> -inf`` the tilted law tends to the
    smallest atom ``s_min``, so for ``s_min > 0`` the zero lies near ``-1/s_min``.)
    """
    import mpmath

    law = parse_prior(prior)
    if law.mean == 0:
        return 0.0
    with mpmath.workdps(dps):
        def g(t):
            _, mu1, v = law.tilted_mp(mpmath.mpf(t))
            return mu1 + t * (v + mu1 * mu1)

        prev = mpmath.mpf(0)
        while prev > -10_000:
            cur = prev - max(mpmath.mpf(1) / 64, abs(prev) / 64)
            if g(cur) <= 0:
                return float(-mpmath.findroot(g, (cur, prev), solver="anderson"))
            prev = cur
    return math.inf


def pole_alpha(model_or_prior, theta_value=None, beta_value=1.0, sigma2_value=1.0) -> list[float]:
    """The informative fractions ``alpha`` in ``(0, 1)`` where ``F'(-1)`` changes sign, for any
    prior (the roots of the pole quadratic mapped to ``alpha``), in increasing order.

    For the fixed prior with ``beta theta > 1`` this is ``[alpha_c]``.
    """
    if isinstance(model_or_prior, Model):
        prior, t, b, s2 = (model_or_prior.prior, model_or_prior.theta, model_or_prior.beta,
                           model_or_prior.sigma2)
    else:
        prior, t, b, s2 = model_or_prior, float(theta_value), float(beta_value), float(sigma2_value)
    import mpmath

    law = parse_prior(prior)
    with mpmath.workdps(30):
        log_m, mu1, v = law.tilted_mp(mpmath.mpf(-b * t))
        coeffs = [c(mu1, v, mpmath.mpf(b), mpmath.mpf(t), mpmath.mpf(s2)) for c in _pole_coefficients()]
        out = []
        for wc in _real_roots(coeffs):
            if 0 < wc < 1:
                out.append(float(wc / (wc + mpmath.exp(log_m) * (1 - wc))))
        return sorted(out)


@cache
def _pole_coefficients():
    """The coefficients of the pole quadratic ``Q(w)`` (highest first), lambdified once in
    ``(mu1, v, beta, theta, sigma2)`` for mpmath."""
    Q = sp.Poly(general_criteria().pole_quadratic, w_mass)
    return tuple(sp.lambdify((mu1_t, var_t, beta, theta, sigma2), c, modules="mpmath") for c in Q.all_coeffs())


def _real_roots(coeffs) -> list:
    """Real roots of the polynomial of degree <= 2 with ``coeffs`` (mpf, highest first).

    Closed form with the cancellation-free pairing ``q = -(b + sign(b) sqrt(D))/2``,
    roots ``q/a`` and ``c/q``: the pole quadratic's coefficients can span many orders of
    magnitude (``theta -> 0`` with a mean-zero prior), where the iterative
    ``Poly.nroots`` fails to converge.
    """
    import mpmath

    c = list(coeffs)
    while c and c[0] == 0:
        c.pop(0)
    if len(c) <= 1:
        return []  # a nonzero constant (no root) or the zero polynomial (no sign change)
    if len(c) == 2:
        return [-c[1] / c[0]]
    if len(c) > 3:
        raise ValueError(f"expected a polynomial of degree <= 2, got {len(c) - 1}")
    a, b, cc = c
    disc = b * b - 4 * a * cc
    if disc < 0:
        return []
    q = -(b + (1 if b >= 0 else -1) * mpmath.sqrt(disc)) / 2
    if q == 0:  # b = 0 and a c = 0 with a != 0: the double root 0
        return [mpmath.mpf(0)]
    return sorted({q / a, cc / q})
