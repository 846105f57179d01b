"""The limit field ``F(rho) = (1 - rho^2) j'(rho)`` in ball arithmetic, at a ball or a power series.

:func:`field_ball` evaluates ``F`` at a python-flint ``arb`` ball or ``arb_series`` in
``rho`` (a series gives the Taylor coefficients of ``F`` about its constant term; a ball
there encloses them at every point of the ball). It is the route of the float
evaluator, the stable coefficient forms of :func:`theory._field._scalar._stable_coefficients`
(proved equal to the derived ones by sympy, :func:`theory.stable_forms_agree`), in
balls: with ``t = beta theta rho`` and the tilted law of the prior
(:meth:`theory._laws.Prior.tilted_ball`),

    w = logistic(log M(t) + log alpha - log(1 - alpha)),   m = w mu1,
    m' = beta theta w ((1 - w) mu1^2 + v),
    j' = 2 theta (beta sigma2 m + beta sigma2 rho m' + theta m m')

(the polynomial layer ``slope_poly`` of the derivation, the same for every prior; a test
checks this copy against it symbolically). Sparse regime (``alpha = 0``, the
``1/alpha``-rescaled field): ``j'_s = 2 beta sigma2 theta M(t) (mu1 + t (v + mu1^2))``.
Nothing is factored out, so the sign of ``F`` read here is independent of the sign
functions of :mod:`theory._certify._scalar`.
"""

from __future__ import annotations

from flint import arb

from .._model import Model


def slope_polynomial(r, m, mp, theta, beta, sigma2):
    """``j'`` from ``rho``, ``m``, ``m'`` (the derivation's ``slope_poly``; any ring)."""
    return 2 * theta * (beta * sigma2 * m + beta * sigma2 * r * mp + theta * m * mp)


def field_ball(model: Model, X):
    """``F`` at the ``arb`` ball or ``arb_series`` ``X`` (the global flint precision applies)."""
    th, al, be, s2 = (arb(v) for v in (model.theta, model.alpha, model.beta, model.sigma2))
    b = be * th
    t = b * X
    log_m, mu1, v, _ = model.prior.tilted_ball(t)
    if model.sparse:
        slope = 2 * be * s2 * th * log_m.exp() * (mu1 + t * (v + mu1 * mu1))
    else:
        if model.alpha == 1.0:  # no nuisance tokens: w = 1
            w, wbar = 1, 0
        else:
            logit = log_m + (al.log() - (1 - al).log())
            w, wbar = 1 / (1 + (-logit).exp()), 1 / (1 + logit.exp())
        m = w * mu1
        mp = b * w * (wbar * mu1 * mu1 + v)
        slope = slope_polynomial(X, m, mp, th, be, s2)
    return (1 - X * X) * slope
