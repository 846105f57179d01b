"""Numerical evaluators generated from the sympy derivation.

Two layers, both produced by ``sympy.lambdify``:

* the *polynomial layer* ``j(rho, m)``, ``j'(rho, m, m')`` (``objective_poly`` and
  ``slope_poly`` of :class:`theory._derivation.Derivation`), which is bounded
  whenever ``m`` is;
* the *coefficient layer* ``m(rho)``, ``m'(rho)`` and the nuisance mass, in an
  algebraically equivalent form that never forms ``exp(beta theta rho)`` on its own
  (log-odds / ``tanh``-``sech`` forms). The equivalence with the derived expressions
  is checked by sympy in :func:`stable_forms_agree` (and by the tests).

The mpmath evaluator lambdifies the derived expressions directly: mpmath has an
unbounded exponent range, so no rewriting is needed, at any precision.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp
from scipy.special import expit

from ._derivation import derive
from ._model import Model
from ._symbols import ARGS, alpha, beta, m, m1, rho, theta
from .validate import alignments


@dataclass(frozen=True)
class FieldValues:
    """Limit quantities at alignments ``rho`` (arrays of the shape of ``rho``).

    In the sparse regime (``alpha = 0``) ``objective``, ``slope`` and ``field`` are
    the ``1/alpha``-rescaled limits (docs/design.md section 1) and ``noise_mass`` is 1.
    """

    rho: np.ndarray
    objective: np.ndarray
    slope: np.ndarray
    field: np.ndarray
    noise_mass: np.ndarray


def _logit():
    """Log-odds of the fixed-prior informative mass, ``beta theta rho + log(alpha/(1-alpha))``."""
    return beta * theta * rho + sp.log(alpha) - sp.log(1 - alpha)


def _stable_coefficients(prior: str):
    """Overflow-free sympy forms of ``m``, ``m'`` and the nuisance mass.

    Fixed prior: with the log-odds ``l = beta theta rho + log(alpha / (1 - alpha))``,
    ``m = expit(l)``, ``m' = beta theta m (1 - m)`` and nuisance mass ``1 - m``.
    Rademacher: divide numerator and denominator by ``cosh(beta theta rho)``.
    """
    x = beta * theta * rho
    if prior == "fixed":
        logit = _logit()
        w = 1 / (1 + sp.exp(-logit))
        wbar = 1 / (1 + sp.exp(logit))
        return w, beta * theta * w * wbar, wbar
    sech = sp.sech(x)
    den = alpha + (1 - alpha) * sech
    return (
        alpha * sp.tanh(x) / den,
        beta * theta * alpha * (alpha * sech**2 + (1 - alpha) * sech) / den**2,
        (1 - alpha) * sech / den,
    )


def stable_forms_agree(prior: str) -> bool:
    """Sympy proof that the stable forms equal the derived ``m``, ``m'``, nuisance mass."""
    d = derive(prior)
    stable = _stable_coefficients(prior)
    for derived, form in zip((d.m, d.m_prime, d.noise_mass), stable):
        diff = sp.simplify((derived - form).rewrite(sp.exp))
        if diff != 0:
            return False
    return True


def _np_sech(x):
    """``1 / cosh(x)`` without overflow."""
    e = np.exp(-np.abs(x))
    return 2 * e / (1 + e * e)


@lru_cache(maxsize=None)
def _numpy_functions(prior: str):
    d = derive(prior)
    w, wp, nm = _stable_coefficients(prior)
    if prior == "fixed":
        # m = expit(logit): lambdify the log-odds, apply scipy's expit
        coef = sp.lambdify(ARGS, _logit(), modules="numpy")
    else:
        coef = sp.lambdify(ARGS, (w, wp, nm), modules=[{"sech": _np_sech}, "numpy"])
    poly_j = sp.lambdify((rho, m, *ARGS[1:]), d.objective_poly, modules="numpy")
    poly_s = sp.lambdify((rho, m, m1, *ARGS[1:]), d.slope_poly, modules="numpy")
    sparse = sp.lambdify(ARGS, (d.sparse.objective, d.sparse.slope), modules="numpy")
    return coef, poly_j, poly_s, sparse


def _coefficients_numpy(model: Model, r: np.ndarray):
    """``m, m', nuisance mass`` in float64 without overflow (proportional regime)."""
    coef = _numpy_functions(model.prior)[0]
    a, b, t, s2 = model.alpha, model.beta, model.theta, model.sigma2
    if model.prior == "fixed":
        if a == 1.0:  # no nuisance tokens: m = 1 identically
            return np.ones_like(r), np.zeros_like(r), np.zeros_like(r)
        logit = coef(r, t, a, b, s2)
        w, wbar = expit(logit), expit(-logit)
        return w, b * t * w * wbar, wbar
    return tuple(np.broadcast_to(v, r.shape) for v in coef(r, t, a, b, s2))


def evaluate(model: Model, rho_values) -> FieldValues:
    """Evaluate ``j``, ``j'``, ``F`` and the nuisance mass at ``rho_values`` (float64).

    Parameters
    ----------
    model : Model
    rho_values : array_like
        Alignments in ``[-1, 1]``.

    Returns
    -------
    FieldValues
        Arrays of the shape of ``rho_values``.
    """
    r = alignments("rho", rho_values)
    _, poly_j, poly_s, sparse = _numpy_functions(model.prior)
    a, b, t, s2 = model.alpha, model.beta, model.theta, model.sigma2
    if model.sparse:
        # exp(beta theta rho) is the true size of the rescaled field here
        obj, slope = sparse(r, t, a, b, s2)
        nm = np.ones_like(r)
    else:
        w, wp, nm = _coefficients_numpy(model, r)
        obj = poly_j(r, w, t, a, b, s2)
        slope = poly_s(r, w, wp, t, a, b, s2)
    obj = np.broadcast_to(obj, r.shape).astype(float)
    slope = np.broadcast_to(slope, r.shape).astype(float)
    return FieldValues(r, obj, slope, (1 - r * r) * slope, np.asarray(nm, dtype=float))


@lru_cache(maxsize=None)
def _mpmath_functions(prior: str):
    d = derive(prior)
    exprs = (d.objective, d.slope, d.field, d.noise_mass)
    sparse = (d.sparse.objective, d.sparse.slope, d.sparse.field, d.sparse.noise_mass)
    return (
        sp.lambdify(ARGS, exprs, modules="mpmath"),
        sp.lambdify(ARGS, sparse, modules="mpmath"),
        sp.lambdify(ARGS[1:], (d.field_prime_plus, d.field_prime_minus), modules="mpmath"),
        sp.lambdify(ARGS[1:], (d.sparse.field_prime_plus, d.sparse.field_prime_minus), modules="mpmath"),
    )


def _mp_params(model: Model):
    return tuple(mpmath.mpf(v) for v in (model.theta, model.alpha, model.beta, model.sigma2))


def evaluate_mp(model: Model, rho_value, dps: int = 50) -> dict:
    """Evaluate the derived expressions with mpmath at ``dps`` significant digits.

    Returns a dict with mpf values ``objective``, ``slope``, ``field``, ``noise_mass``.
    """
    with mpmath.workdps(dps):
        full, sparse, _, _ = _mpmath_functions(model.prior)
        fn = sparse if model.sparse else full
        vals = fn(mpmath.mpf(rho_value), *_mp_params(model))
        return dict(zip(("objective", "slope", "field", "noise_mass"), (mpmath.mpf(v) for v in vals)))


def pole_exponents(model: Model, dps: int = 30) -> tuple[float, float]:
    """Closed-form ``F'(+1)`` and ``F'(-1)`` (sparse: of ``F / alpha``), as floats."""
    with mpmath.workdps(dps):
        _, _, full, sparse = _mpmath_functions(model.prior)
        fn = sparse if model.sparse else full
        plus, minus = fn(*_mp_params(model))
        return float(plus), float(minus)
