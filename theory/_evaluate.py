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

import math
from dataclasses import dataclass
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp
from scipy.special import expit

from ._derivation import derive
from ._model import Model
from ._symbols import ARGS, alpha, beta, m, m1, rho, theta
from .validate import alignments, representable


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
    q = alpha / den  # in [0, 1]: never forms den**2, which underflows for tiny alpha
    nm = (1 - alpha) * sech / den
    return (
        q * sp.tanh(x),
        beta * theta * q * (q * sech**2 + nm),
        nm,
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
    # Rademacher, the form of _stable_coefficients in an order whose factors stay in
    # [0, 1] (q = alpha/den, sech, nuisance mass): no overflow, and no 0/0 when
    # alpha is tiny (den**2 would underflow)
    # (log-odds form: q = expit(log alpha - log((1 - alpha) sech)), so that the
    # nuisance mass stays accurate where sech underflows)
    x = b * t * r
    ax = np.abs(x)
    sech = _np_sech(x)
    with np.errstate(divide="ignore"):  # alpha = 1: log(0) = -inf, q = 1, nuisance mass 0
        log_nuisance = np.log1p(-a) - ax + np.log(2.0) - np.log1p(np.exp(-2 * ax))
        log_odds = np.log(a) - log_nuisance
    q, nm = expit(log_odds), expit(-log_odds)
    return q * np.tanh(x), b * t * q * (q * sech * sech + nm), nm


def scales(model: Model) -> dict:
    """``{"theta", "beta", "sigma2"}`` of ``model``: the parameters that set the size of
    the float64 values (named when one of them overflows, :func:`validate.representable`)."""
    return {"theta": model.theta, "beta": model.beta, "sigma2": model.sigma2}


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
    # numpy scalars, so that an overflow gives inf (checked below), never OverflowError
    a, b, t, s2 = (np.float64(v) for v in (model.alpha, model.beta, model.theta, model.sigma2))
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
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
        nm = np.broadcast_to(np.asarray(nm, dtype=float), r.shape).astype(float)
        # F = (1 - rho^2) j' vanishes exactly at rho = +-1
        field = np.where(np.abs(r) == 1.0, 0.0, (1 - r * r) * slope)
    for name, values in (("objective", obj), ("slope", slope), ("field", field), ("noise_mass", nm)):
        representable(name, values, r, scales(model), hint="use evaluate_mp, which has no exponent limit")
    return FieldValues(r, obj, slope, field, nm)


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
    # The derived forms contain alpha exp(beta theta rho) - alpha + 1, which cancels
    # to exp(beta theta rho) when alpha = 1 and rho < 0 (0 at dps digits, then a
    # division by zero): work with enough guard digits to resolve exp(-|x|), up to
    # _MP_MAX_DPS; beyond that use the algebraically equal stable forms.
    with mpmath.workdps(dps):
        r = mpmath.mpf(rho_value)
        params = _mp_params(model)
    x = abs(float(model.beta) * float(model.theta) * float(abs(r)))
    guard = int(math.ceil(x / math.log(10))) + 10 if not model.sparse else 0
    work = dps + guard
    with mpmath.workdps(max(dps, work) if work <= _MP_MAX_DPS else dps + 10):
        full, sparse, _, _ = _mpmath_functions(model.prior)
        if model.sparse:
            vals = sparse(r, *params)
        elif work <= _MP_MAX_DPS:
            vals = full(r, *params)
        else:
            vals = _mp_stable(model.prior)(r, *params)
    with mpmath.workdps(dps):
        return dict(zip(("objective", "slope", "field", "noise_mass"), (+mpmath.mpf(v) for v in vals)))


#: largest working precision (digits) for the derived forms in :func:`evaluate_mp`
_MP_MAX_DPS = 5000


@lru_cache(maxsize=None)
def _mp_stable(prior: str):
    """mpmath objective, slope, field, nuisance mass from the stable coefficient forms."""
    d = derive(prior)
    coef = sp.lambdify(ARGS, _stable_coefficients(prior), modules="mpmath")
    poly = sp.lambdify((rho, m, m1, *ARGS[1:]), (d.objective_poly, d.slope_poly), modules="mpmath")

    def values(r, t, a, b, s2):
        if prior == "fixed" and a == 1:  # no nuisance tokens: m = 1, m' = 0 (log(1 - alpha) = -inf)
            w, wp, nm = mpmath.mpf(1), mpmath.mpf(0), mpmath.mpf(0)
        else:
            w, wp, nm = coef(r, t, a, b, s2)
        obj, slope = poly(r, w, wp, t, a, b, s2)
        return obj, slope, (1 - r * r) * slope, nm

    return values


def pole_exponents(model: Model, dps: int = 30, *, exact: bool = False) -> tuple:
    """Closed-form ``F'(+1)`` and ``F'(-1)`` (sparse: of ``F / alpha``), as floats, or
    with ``exact=True`` as mpmath numbers (no exponent limit: their sign is right where
    the floats overflow to ``-inf`` or underflow to ``-0.0``)."""
    with mpmath.workdps(dps):
        _, _, full, sparse = _mpmath_functions(model.prior)
        fn = sparse if model.sparse else full
        plus, minus = fn(*_mp_params(model))
        if exact:
            return +plus, +minus
        return float(plus), float(minus)
