r"""Float evaluators of the finite-step effective dynamics (float64, broadcast).

The expressions come from :func:`derive_effective` (:mod:`theory._effective._derivation`,
where the derivation and its approximations are stated), lambdified once per prior:

* :func:`gradient_second_moment`: ``E |P g|^2`` to first order in ``1/L``, with each token's
  own weight kept in its softmax normaliser and the self-interaction terms in ``d/L``
  (:mod:`theory._effective._tokens`);
* :func:`effective_drift`: ``F_eta(rho) = F + F_1 / L - (eta / 2) rho E |P g|^2``, and
  optionally the Euler modified-equation term ``-(eta / 2) F F'``;
* :func:`stationary_alignment`: the constant-step plateau.

Noise floor and spread (constant step)
--------------------------------------
The constant-step plateau is the stable zero ``rho_eta`` of ``F_eta``; near
``rho = 1`` the field vanishes while the drag does not, so ``rho_eta < 1``. The only
``O(eta)`` fluctuation of ``rho`` is ``eta X`` with ``Var X = (1 - rho^2) V_p / (L B)``;
linearising, ``Var_stat(rho) = eta Var X / (2 |F_eta'(rho_eta)|)``.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np
from scipy.optimize import brentq

from ...core.validate import alignments, instance, nonnegative, real, representable
from .._calculus import central_difference
from .._codegen._cache import cached_lambdify
from .._derivation._symbols import ARGS, dim
from .._field._scalar import evaluate, scales
from .._laws import Prior
from .._model import Model
from ._derivation import derive_effective
from ._tokens import expansion_parameters, token_moments

#: half-width of the central differences (slope at the plateau, ``F'`` of the Euler term)
_H = 1e-6


@cache
def _numpy_functions(prior: Prior):
    """The lambdified finite-step coefficients (from the disk cache of generated code when the
    theory is unchanged: :mod:`theory._codegen._cache`; the derivation runs only on a miss)."""

    def moments():
        e = derive_effective(prior)
        exprs = (e.out_of_plane_variance, e.in_plane_variance, e.weight_square, e.mean_perp, *e.self_interaction)
        return ARGS, exprs, {"cse": True}

    def finite_l():
        e = derive_effective(prior)
        return (*ARGS, dim), (e.finite_L_objective, e.finite_L_field), {"cse": True}

    return (cached_lambdify(f"effective-moments|{prior.spec}", moments),
            cached_lambdify(f"effective-finite-L|{prior.spec}", finite_l))


def _params(model: Model) -> tuple:
    """``(theta, alpha, beta, sigma2)`` as numpy scalars, so that the lambdified
    expressions overflow to ``inf`` (Python floats raise ``OverflowError``)."""
    return tuple(np.float64(v) for v in (model.theta, model.alpha, model.beta, model.sigma2))


def _check_model(model) -> Model:
    instance("model", model, Model, "theory.Model")
    if model.sparse:
        raise ValueError("the finite-step correction needs alpha = R/L > 0 (at least one informative token)")
    return model


def _check_sizes(d, L, batch) -> None:
    """``d >= 2``, ``L >= 1``, ``batch >= 1`` (finite real numbers; the values are used as given)."""
    for name, value, low in (("d", d, 2), ("L", L, 1), ("batch", batch, 1)):
        real(name, value, lower=low)


@dataclass(frozen=True)
class GradientSecondMoment:
    """``E |P g|^2`` to first order in ``1/L`` at alignments ``rho`` (arrays).

    Attributes
    ----------
    rho : ndarray
    mean_square : ndarray
        ``|E P g|^2 = F^2 / (1 - rho^2)``.
    out_of_plane_variance, in_plane_variance : ndarray
        ``V_o``, ``V_p`` (per ``1/L``) with self-normalised token weights and the
        self-interaction (:func:`theory._effective._tokens.token_moments`): the values used.
    out_of_plane_leading, in_plane_leading : ndarray
        The closed forms of :func:`derive_effective` (weights ``w / (L D)``, no terms in ``d/L``),
        the ``L -> inf`` limit of the two above.
    trace : ndarray
        ``((d - 2) V_o + V_p) / (L B)``.
    total : ndarray
        ``mean_square + trace``.
    d, L, batch : float
    """

    rho: np.ndarray
    mean_square: np.ndarray
    out_of_plane_variance: np.ndarray
    in_plane_variance: np.ndarray
    out_of_plane_leading: np.ndarray
    in_plane_leading: np.ndarray
    trace: np.ndarray
    total: np.ndarray
    d: float
    L: float
    batch: float


def gradient_second_moment(model: Model, rho_values, d, L, batch: int = 1, *,
                           self_interaction: bool = True, self_normalised: bool = True) -> GradientSecondMoment:
    """``E |P g|^2`` to first order in ``1/L`` (float64).

    Parameters
    ----------
    model : Model
        ``alpha = R / L > 0``.
    rho_values : array_like
        Alignments in ``[-1, 1]``.
    d, L : number
        Dimension ``>= 2`` and number of tokens.
    batch : int
        Mini-batch size ``B`` (the covariance is divided by ``B``).
    self_interaction : bool
        Include the terms in ``d/L`` of the token coefficients (a token sees itself in the
        out-of-plane part of ``f``); without them ``E |P g|^2`` is about 6% low at
        ``d/L = 0.01``, ``beta = 1``.
    self_normalised : bool
        Keep each token's own weight in its softmax normaliser (``a = w / (w + L D)``).
        Without it (the closed forms' ``a = w / (L D)``) ``E |P g|^2`` is 57% high at
        ``beta = 1.5``, ``L = 3200`` (:mod:`theory._effective._tokens`).
    """
    _check_model(model)
    _check_sizes(d, L, batch)
    r = alignments("rho", rho_values)
    lam, _ = _numpy_functions(model.prior)
    with np.errstate(all="ignore"):  # an overflow gives inf (refused below), never OverflowError
        lead_o, lead_p = (np.broadcast_to(v, r.shape).astype(float) for v in lam(r, *_params(model))[:2])
        tm = token_moments(model, r, d, L, saturate=self_normalised, self_interaction=self_interaction)
        V_o, V_p = tm.out_of_plane_variance, tm.in_plane_variance
        F = evaluate(model, r).field
        one = 1.0 - r * r
        mean_sq = np.divide(F * F, one, out=np.zeros_like(r), where=one > 0)
        trace = ((d - 2) * V_o + V_p) / (L * batch)
        total = mean_sq + trace
    representable("gradient second moment E|P g|^2", total, r, scales(model))
    return GradientSecondMoment(rho=r, mean_square=mean_sq, out_of_plane_variance=V_o, in_plane_variance=V_p,
                                out_of_plane_leading=lead_o, in_plane_leading=lead_p, trace=trace, total=total,
                                d=float(d), L=float(L), batch=float(batch))


@dataclass(frozen=True)
class DriftOptions:
    """The variants of :func:`effective_drift` beside the derived one (the defaults).

    Attributes
    ----------
    euler : bool
        Include the Euler modified-equation term ``-(eta/2) F F'``.
    drag_scale : float
        Multiplies the drag; 1 is the derived value (other values exist to test that
        checks fail on a wrong correction).
    self_normalised : bool
        Passed to :func:`gradient_second_moment` (``False``: the closed forms' weights, for tests).
    """

    euler: bool = False
    drag_scale: float = 1.0
    self_normalised: bool = True


@dataclass(frozen=True)
class EffectiveDrift:
    """Terms of the effective drift at alignments ``rho`` (arrays).

    ``drift = field + finite_L - drag`` (+ ``euler`` when requested, else 0).

    Attributes
    ----------
    rho, field : ndarray
        ``F`` of the limit.
    finite_L : ndarray
        ``(1 - rho^2) J_1'(rho) / L`` (0 when ``finite_L=False``).
    drag : ndarray
        ``(eta / 2) rho E |P g|^2``.
    euler : ndarray
        ``-(eta / 2) F F'`` (0 unless ``euler=True``).
    drift : ndarray
    noise : ndarray
        ``Var <P g, xi> = (1 - rho^2) V_p / (L B)`` (per step, divided by ``eta^2``): the
        gradient noise along ``xi`` (not the token noise variance ``sigma2``).
    """

    rho: np.ndarray
    field: np.ndarray
    finite_L: np.ndarray
    drag: np.ndarray
    euler: np.ndarray
    drift: np.ndarray
    noise: np.ndarray


def effective_drift(model: Model, rho_values, eta_value, d, L, batch: int = 1, *, finite_L: bool = True,
                    options: DriftOptions = DriftOptions()) -> EffectiveDrift:
    """``F_eta(rho) = F + F_1 / L - (eta / 2) rho E |P g|^2`` (float64, broadcast).

    Parameters
    ----------
    model : Model
    rho_values : array_like
        Alignments in ``[-1, 1]``.
    eta_value : float or array_like
        Step size(s) ``>= 0`` (broadcast against ``rho``).
    d, L : number
    batch : int
    finite_L : bool
        Include the ``O(1/L)`` bias of ``E <P g, xi>`` (:attr:`finite_L_field`).
    options : DriftOptions
        The Euler term, a scaled drag, the closed forms' weights (default: none of them).
    """
    instance("options", options, DriftOptions, "theory.DriftOptions")
    euler = options.euler
    r = alignments("rho", rho_values)
    e = nonnegative("eta", eta_value)
    r, e = np.broadcast_arrays(r, e)
    G = gradient_second_moment(model, r, d, L, batch, self_normalised=options.self_normalised)
    F = evaluate(model, r).field
    if finite_L:
        _, lam_j = _numpy_functions(model.prior)
        with np.errstate(all="ignore"):
            fl = np.broadcast_to(lam_j(r, *_params(model), np.float64(d))[1], r.shape) / L
        representable("finite-L correction F_1 / L", fl, r, scales(model))
    else:
        fl = np.zeros_like(r)
    if euler:
        Fp = central_difference(lambda u: evaluate(model, u).field, r, _H, lo=-1.0, hi=1.0)
    with np.errstate(all="ignore"):
        drag = options.drag_scale * 0.5 * e * r * G.total
        eu = -0.5 * e * F * Fp if euler else np.zeros_like(r)
        drift = F + fl - drag + eu
    representable("effective drift", drift, r, {**scales(model), "eta": float(np.max(e, initial=0.0))})
    var_x = (1 - r * r) * G.in_plane_variance / (L * batch)
    return EffectiveDrift(rho=r, field=F, finite_L=fl, drag=drag, euler=eu, drift=drift, noise=var_x)


@dataclass(frozen=True)
class Plateau:
    """Constant-step noise floor: the stable zero of ``F_eta`` in ``(0, 1)``.

    Attributes
    ----------
    rho : float
        Stationary alignment ``rho_eta``.
    slope : float
        ``F_eta'(rho_eta)`` (negative: stable).
    spread : float
        Stationary standard deviation ``sqrt(eta Var X / (2 |F_eta'|))``.
    deficit : float
        ``1 - rho_eta``.
    eta, d, L, batch : float
    """

    rho: float
    slope: float
    spread: float
    deficit: float
    eta: float
    d: float
    L: float
    batch: float


def stationary_alignment(model: Model, eta_value: float, d, L, batch: int = 1, *, finite_L: bool = True,
                         drag_scale: float = 1.0, self_normalised: bool = True) -> Plateau:
    """The constant-step plateau ``F_eta(rho_eta) = 0`` and its linearised spread.

    The root is the largest zero of ``F_eta`` in ``(0, 1)`` (``F_eta(1) < 0``);
    ``ValueError`` if ``F_eta`` has no sign change on ``(0, 1)``.
    """
    eta_value = real("eta", eta_value, lower=0.0, strict=True)
    options = DriftOptions(drag_scale=drag_scale, self_normalised=self_normalised)

    def terms(r) -> EffectiveDrift:
        return effective_drift(model, r, eta_value, d, L, batch, finite_L=finite_L, options=options)

    def drift(r):
        return float(terms(r).drift)

    grid = np.linspace(0.0, 1.0, 401)
    vals = terms(grid).drift
    idx = np.flatnonzero((vals[:-1] > 0) & (vals[1:] <= 0))
    if idx.size == 0:
        raise ValueError("the effective drift has no stable zero in (0, 1) for these parameters")
    i = idx[-1]
    root = brentq(drift, grid[i], grid[i + 1], xtol=1e-14)
    slope = central_difference(drift, root, _H, hi=1.0)
    noise_options = DriftOptions(self_normalised=self_normalised)
    var_x = float(effective_drift(model, root, eta_value, d, L, batch, options=noise_options).noise)
    spread = math.sqrt(eta_value * var_x / (2 * abs(slope))) if slope < 0 else math.inf
    return Plateau(rho=root, slope=slope, spread=spread, deficit=1.0 - root, eta=float(eta_value), d=float(d),
                   L=float(L), batch=float(batch))


#: where the finite-step predictions are accurate (provisional, from the measured cases in
#: docs/design.md section 1.1): the normaliser's relative variance A2 / L, and eta^2 E|P g|^2,
#: the size of the first neglected term of the step expansion; and d / L, the weight of the
#: terms of order d / L the token expansion drops (the validation matrix's one failure inside
#: the other two limits had d / L = 0.11, docs/validation.md)
CONCENTRATION_LIMIT = 0.005
STEP_LIMIT = 0.25
DIMENSION_LIMIT = 0.05


@dataclass(frozen=True)
class Validity:
    """Whether a finite-step prediction lies where its expansion's small parameters are small.

    Attributes
    ----------
    concentration : float
        ``max_rho A2 / L`` (the relative variance of the softmax normaliser; measured
        relative errors of ``1 - rho`` at the plateau are about ``10 A2 / L``).
    step : float
        ``max_rho eta_max^2 E |P g|^2`` (the step expansion's parameter).
    dimension : float
        ``d / L``.
    inside : bool
        All three at most their limits (:data:`CONCENTRATION_LIMIT`, :data:`STEP_LIMIT`,
        :data:`DIMENSION_LIMIT`).
    message : str
    """

    concentration: float
    step: float
    dimension: float
    inside: bool
    message: str

    def as_dict(self) -> dict:
        return {"concentration": self.concentration, "step": self.step, "dimension": self.dimension,
                "inside": self.inside, "message": self.message,
                "limits": {"concentration": CONCENTRATION_LIMIT, "step": STEP_LIMIT, "dimension": DIMENSION_LIMIT}}


@lru_cache(maxsize=64)
def _validity_grid(model: Model, d: float, L: float, batch: int) -> tuple[float, np.float64]:
    """``(max_rho A2 / L, max_rho E |P g|^2)`` over 81 alignments: the step-independent part of
    :func:`validity`, once per instance and process (``numerics.predict`` asks for it at every
    call, the budget planner at every step count it tries; the answer depends on nothing else)."""
    rho = np.linspace(-1.0, 1.0, 81)
    y = gradient_second_moment(model, rho, d, L, batch).total
    with np.errstate(all="ignore"):
        conc = float(np.max(expansion_parameters(model, rho, L)["concentration"]))
    return conc, np.max(y)


def validity(model: Model, d, L, eta_max: float, batch: int = 1) -> Validity:
    """The :class:`Validity` of a finite-step prediction for ``(model, d, L, batch)`` with steps
    up to ``eta_max`` (float64; ``ValueError`` where :func:`gradient_second_moment` overflows)."""
    etas = nonnegative("eta_max", eta_max)
    _check_model(model)
    _check_sizes(d, L, batch)
    conc, y_max = _validity_grid(model, float(d), float(L), batch)
    with np.errstate(all="ignore"):
        step = float(np.float64(np.max(etas)) ** 2 * y_max)  # inf, not OverflowError, for a huge eta
    # documented JSON numbers are finite: beyond float64 the parameter is reported as its largest value
    huge = not math.isfinite(step)
    step = min(step, sys.float_info.max)
    bad = []
    if not conc <= CONCENTRATION_LIMIT:
        bad.append(f"the softmax normaliser's relative variance A2/L = {conc:.3g} exceeds {CONCENTRATION_LIMIT} "
                   f"(expect errors of ~{min(10 * conc, 1):.0%} in 1 - rho; more tokens L narrow it)")
    if not step <= STEP_LIMIT:
        size = "beyond float64" if huge else f"= {step:.3g}"
        bad.append(f"eta^2 E|P g|^2 {size} exceeds {STEP_LIMIT} (the expansion in the step size is not small; "
                   "smaller steps eta0 narrow it)")
    d_over_l = float(d) / float(L)
    if not d_over_l <= DIMENSION_LIMIT:
        bad.append(f"d/L = {d_over_l:.3g} exceeds {DIMENSION_LIMIT} (terms of order d/L are dropped; more tokens L "
                   "narrow it)")
    inside = not bad
    msg = ("inside the region where the finite-step expansion is accurate "
           f"(A2/L = {conc:.3g} <= {CONCENTRATION_LIMIT}, eta^2 E|P g|^2 = {step:.3g} <= {STEP_LIMIT}, "
           f"d/L = {d_over_l:.3g} <= {DIMENSION_LIMIT})"
           if inside else "outside the region where the finite-step expansion is accurate: " + "; ".join(bad))
    return Validity(conc, step, d_over_l, inside, msg)
