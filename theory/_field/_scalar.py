"""Numerical evaluators generated from the sympy derivation.

Two layers, both produced by ``sympy.lambdify``:

* the *polynomial layer* ``j(rho, m)``, ``j'(rho, m, m')`` (``objective_poly`` and
  ``slope_poly`` of :class:`theory._derivation._scalar.Derivation`), which is bounded
  whenever ``m`` is, and the same for every prior (the pooled ``q``-coefficient is
  ``beta sigma2`` whatever the law of ``s``);
* the *coefficient layer* ``m(rho)``, ``m'(rho)`` and the nuisance mass, in an
  algebraically equivalent form that never forms ``M_s(beta theta rho)`` on its own:
  the informative mass as a logistic of ``log M_s`` and the tilted mean and variance
  of ``s`` (log-sum-exp), one form for every prior. The equivalence with the derived
  expressions is checked by sympy in :func:`stable_forms_agree` (and by the tests).

The mpmath evaluator lambdifies the derived expressions directly: mpmath has an
unbounded exponent range, so no rewriting is needed, at any precision.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import mpmath
import numpy as np
import sympy as sp
from scipy.special import expit

from ...core.validate import alignments, representable
from .._codegen._cache import cached_lambdify
from .._derivation._scalar import derive
from .._derivation._symbols import ARGS, alpha, beta, m, m1, rho, theta
from .._laws import Prior, parse_prior
from .._model import Model


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


def _stable_coefficients(prior: Prior):
    """Overflow-free sympy forms of ``m``, ``m'`` and the nuisance mass, for any prior.

    With ``t = beta theta rho``, the informative mass ``w = alpha M / (alpha M + 1 - alpha)``
    (``M = M_s(t)``), the tilted mean ``mu1 = M'/M`` and variance ``v = M''/M - mu1^2``:
    ``m = w mu1``, ``m' = beta theta w ((1 - w) mu1^2 + v)`` and nuisance mass ``1 - w``.
    Numerically ``w = expit(log alpha + log M - log(1 - alpha))`` and ``log M, mu1, v``
    come from :meth:`theory._laws.Prior.tilted` (log-sum-exp), so nothing overflows
    before the objective itself does. Fixed prior: ``mu1 = 1, v = 0`` (logistic ``m``);
    Rademacher: ``mu1 = tanh t, v = sech^2 t``.
    """
    x = beta * theta * rho
    M = prior.mgf(_t)
    mu1 = sp.diff(M, _t) / M
    var = sp.diff(M, _t, 2) / M - mu1**2
    w = 1 / (1 + (1 - alpha) / (alpha * M))
    return tuple(e.subs(_t, x) for e in (w * mu1, beta * theta * w * ((1 - w) * mu1**2 + var), 1 - w))


_t = sp.Symbol("t", real=True)


def stable_forms_agree(prior: Prior | str) -> bool:
    """Sympy proof that the stable forms equal the derived ``m``, ``m'``, nuisance mass
    (``prior`` a :class:`Prior` or a spec)."""
    law = parse_prior(prior)
    d = derive(law)
    stable = _stable_coefficients(law)
    for derived, form in zip((d.m, d.m_prime, d.noise_mass), stable, strict=True):
        diff = sp.simplify((derived - form).rewrite(sp.exp))
        if diff != 0:
            return False
    return True


@cache
def _polynomials(module: str):
    """The prior-free polynomial layer ``j(rho, m)``, ``j'(rho, m, m')`` (same for every prior),
    lambdified for ``module`` (``"numpy"`` or ``"mpmath"``), through :func:`cached_lambdify`."""
    def objective():
        return (rho, m, *ARGS[1:]), derive("fixed").objective_poly, {}

    def slope():
        return (rho, m, m1, *ARGS[1:]), derive("fixed").slope_poly, {}

    # from the verified disk cache when there (a process then skips the derivation)
    return (cached_lambdify("objective-poly", objective, module),
            cached_lambdify("slope-poly", slope, module))


def _coefficients_numpy(model: Model, r: np.ndarray):
    """``m, m', nuisance mass`` in float64 without overflow (proportional regime), from the
    tilted law of the prior (see :func:`_stable_coefficients`)."""
    a, b, t = model.alpha, model.beta, model.theta
    log_m, mu1, var = model.prior.tilted(b * t * r)
    if a == 1.0:  # no nuisance tokens: w = 1
        w, wbar = np.ones_like(r), np.zeros_like(r)
    else:
        logit = log_m + np.log(a) - np.log1p(-a)
        w, wbar = expit(logit), expit(-logit)
    return w * mu1, b * t * (w * wbar * mu1 * mu1 + w * var), wbar


def _sparse_numpy(model: Model, r: np.ndarray):
    """The ``1/alpha``-rescaled sparse objective and slope: ``2 beta sigma2 theta rho M'(t)``
    and ``2 beta sigma2 theta (M'(t) + t M''(t))`` with ``t = beta theta rho``."""
    b, t, s2 = model.beta, model.theta, model.sigma2
    x = b * t * r
    log_m, mu1, var = model.prior.tilted(x)
    scale = np.exp(log_m)  # the true size of the rescaled field (inf beyond float64)
    c = 2 * b * s2 * t
    return c * r * scale * mu1, c * scale * (mu1 + x * (var + mu1 * mu1))


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
    poly_j, poly_s = _polynomials("numpy")
    # numpy scalars, so that an overflow gives inf (checked below), never OverflowError
    a, b, t, s2 = (np.float64(v) for v in (model.alpha, model.beta, model.theta, model.sigma2))
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        if model.sparse:
            obj, slope = _sparse_numpy(model, r)
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


class _MpValues(NamedTuple):
    """The mpmath values of :func:`evaluate_mp` (its keys, in order)."""

    objective: object
    slope: object
    field: object
    noise_mass: object


class _MpFunctions(NamedTuple):
    """The derived expressions lambdified for mpmath: the values at ``rho`` (proportional and
    sparse regime) and the pole exponents ``F'(+1), F'(-1)`` (both regimes)."""

    values: Callable
    sparse_values: Callable
    poles: Callable
    sparse_poles: Callable


@cache
def _mpmath_functions(prior: Prior) -> _MpFunctions:
    d = derive(prior)
    exprs = (d.objective, d.slope, d.field, d.noise_mass)
    sparse = (d.sparse.objective, d.sparse.slope, d.sparse.field, d.sparse.noise_mass)
    return _MpFunctions(
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
    guard = math.ceil(model.prior.exponent_bound(x) / math.log(10)) + 10 if not model.sparse else 0
    work = dps + guard
    with mpmath.workdps(max(dps, work) if work <= _MP_MAX_DPS else dps + 10):
        fns = _mpmath_functions(model.prior)
        if model.sparse:
            vals = _MpValues(*fns.sparse_values(r, *params))
        elif work <= _MP_MAX_DPS:
            vals = _MpValues(*fns.values(r, *params))
        else:
            vals = _mp_stable(model.prior)(r, *params)
    with mpmath.workdps(dps):
        return {name: +mpmath.mpf(v) for name, v in vals._asdict().items()}


#: largest working precision (digits) for the derived forms in :func:`evaluate_mp`
_MP_MAX_DPS = 5000


def _mp_stable(law: Prior):
    """mpmath objective, slope, field, nuisance mass from the stable coefficient forms
    (the tilted law of :func:`_stable_coefficients`, at the working precision)."""
    poly_j, poly_s = _polynomials("mpmath")

    def values(r, t, a, b, s2) -> _MpValues:
        log_m, mu1, var = law.tilted_mp(b * t * r)
        if a == 1:  # no nuisance tokens: w = 1
            w = mpmath.mpf(1)
        else:
            w = 1 / (1 + mpmath.exp(mpmath.log(1 - a) - mpmath.log(a) - log_m))
        wm, wp, nm = w * mu1, b * t * w * ((1 - w) * mu1 * mu1 + var), 1 - w
        slope = poly_s(r, wm, wp, t, a, b, s2)
        return _MpValues(poly_j(r, wm, t, a, b, s2), slope, (1 - r * r) * slope, nm)

    return values


def pole_exponents(model: Model, dps: int = 30) -> tuple[float, float]:
    """Closed-form ``F'(+1)`` and ``F'(-1)`` (sparse: of ``F / alpha``), as floats.

    A float may round a tiny exponent to ``-0.0`` or overflow to ``-inf``: for labels
    use :func:`theory.pole_signs` (ball arithmetic), for printing
    :func:`pole_exponents_mp` (no exponent limit)."""
    plus, minus = pole_exponents_mp(model, dps)
    return float(plus), float(minus)


def pole_exponents_mp(model: Model, dps: int = 30) -> tuple:
    """Closed-form ``F'(+1)`` and ``F'(-1)`` as mpmath numbers at ``dps`` digits (any magnitude)."""
    x = float(model.beta) * float(model.theta)
    guard = math.ceil(model.prior.exponent_bound(x) / math.log(10)) + 10 if not model.sparse else 0
    with mpmath.workdps(dps + min(guard, _MP_MAX_DPS)):
        fns = _mpmath_functions(model.prior)
        plus, minus = (fns.sparse_poles if model.sparse else fns.poles)(*_mp_params(model))
    with mpmath.workdps(dps):
        return +plus, +minus
