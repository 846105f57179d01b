r"""Second-order (diffusion) description of the alignment chain: the one-step variance.

The finite-step drift (:mod:`theory._effective._derivation`) is the first moment of the
one-step increment. The diffusion approximation (docs/design.md section 1.1) also needs
its second moment. From the step expansion

    rho' = rho + eta X - (eta^2 / 2) rho Y + O(eta^3),   X = <P g, xi>,  Y = |P g|^2,

the increment has conditional variance ``eta^2 Var(X | rho) + O(eta^3)``: ``Y`` enters
only at ``eta^2`` in the mean and contributes ``O(eta^3)`` to the variance.

Var(X | rho) to leading order in 1/L
------------------------------------
``P g`` has component ``<P g, xi> = <g, xi - rho q> = sqrt(1 - rho^2) <g, e_perp>``
along ``xi`` (``e_perp = (xi - rho q)/sqrt(1 - rho^2)``). By the delta method
``g = gbar + (1/L) sum_i psi(x_i) + o(L^{-1/2})`` with the influence function ``psi``
of the effective derivation, so, for a mini-batch of ``B`` token collections,

    Sigma(rho) := Var(X | rho) = (1 - rho^2) V_p(rho) / (L B) + o(1/L),
    V_p = sum_kinds weight Var_kind(<psi, e_perp>),

the *in-plane* variance obtained by the same second-order tilting
(``E exp(2 beta <q, x>) x1^a x2^b``) as ``E |P g|^2``. The composition ``R, N`` is fixed,
so each token kind is centred on its own mean. ``X`` does not involve the ``d - 2``
out-of-plane directions at this order: the out-of-plane noise enters ``X`` only through
``<x_i^o, f_o>``, whose fluctuating part contributes ``O(d / L^2)`` (relative ``d/L``,
about 1% at the paper's ``d = 100``, ``L = 10,500``), neglected here. ``Sigma`` vanishes
like ``1 - rho^2`` at the poles.

This module exposes the sympy objects (:func:`derive_diffusion`), the float evaluator
(:func:`alignment_variance`) and an independent 40-plus-digit quadrature cross-check
(:func:`variance_quadrature`, tensor Gauss–Hermite, neither the 1-D lemmas nor the
polynomial layer of ``psi``). The Monte Carlo cross-check against the exact reduced
chain lives in ``numerics`` (:func:`numerics.one_step_moments`).

Splitting probability (scale function)
--------------------------------------
For ``d rho = F(rho) dt + sqrt(eta Sigma(rho)) dW`` with a constant ``eta``, the
probability ``u(rho0)`` of reaching ``b`` before ``a`` (``a < rho0 < b``) solves
``F u' + (eta Sigma / 2) u'' = 0``, ``u(a) = 0``, ``u(b) = 1``, so

    u(rho0) = int_a^rho0 s(r) dr / int_a^b s(r) dr,
    s(r) = exp(-int_c^r 2 F(u) / (eta Sigma(u)) du)          (the scale density).

:attr:`DiffusionDerivation.splitting` holds this formula and
:attr:`DiffusionDerivation.splitting_verified` records that sympy verified it solves the
boundary-value problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import sympy as sp

from ...core.validate import alignments, instance, integer, real, representable
from .._codegen._cache import cached_lambdify
from .._derivation._symbols import ARGS, B_batch, L_tok, eta, rho
from .._field._scalar import scales
from .._laws import Prior, parse_prior
from .._model import Model
from ._derivation import derive_effective
from ._quadrature import effective_quadrature
from ._tokens import token_moments

#: symbols and functions of the splitting formula (printing and verification only)
_a, _b, _c, _r, _u, _rho0 = sp.symbols("a b c r v rho_0", real=True)
_F = sp.Function("F")
_Sigma = sp.Function("Sigma")


@dataclass(frozen=True)
class DiffusionDerivation:
    """The sympy objects of the diffusion approximation for one prior.

    Attributes
    ----------
    prior : Prior
    in_plane_variance : sp.Expr
        ``V_p(rho)`` (in ``rho`` and the model parameters).
    variance : sp.Expr
        ``Sigma(rho) = Var(X | rho) = (1 - rho^2) V_p / (L B)``.
    increment_variance : sp.Expr
        ``Var(rho' - rho | rho) = eta^2 Sigma`` to leading order.
    scale_density : sp.Expr
        ``s(r) = exp(-int_c^r 2 F(u) / (eta Sigma(u)) du)`` (unevaluated integral).
    splitting : sp.Expr
        ``u(rho0) = int_a^rho0 s / int_a^b s``.
    splitting_verified : bool
        sympy checked ``F u' + (eta Sigma / 2) u'' = 0``, ``u(a) = 0``, ``u(b) = 1``.
    """

    prior: Prior
    in_plane_variance: sp.Expr
    variance: sp.Expr
    increment_variance: sp.Expr
    scale_density: sp.Expr
    splitting: sp.Expr
    splitting_verified: bool


def _splitting_formula():
    """Scale density, splitting probability and sympy's verification of the ODE."""
    s = sp.exp(-sp.Integral(2 * _F(_u) / (eta * _Sigma(_u)), (_u, _c, _r)))
    split = sp.Integral(s, (_r, _a, _rho0)) / sp.Integral(s, (_r, _a, _b))
    # verify the boundary-value problem with the integrals left unevaluated
    u1 = sp.diff(split, _rho0)
    u2 = sp.diff(u1, _rho0)
    residual = sp.simplify((_F(_rho0) * u1 + eta * _Sigma(_rho0) / 2 * u2).doit())
    ok = residual == 0 and sp.simplify(split.subs(_rho0, _a)) == 0 and sp.simplify(split.subs(_rho0, _b) - 1) == 0
    return s, split, bool(ok)


def derive_diffusion(prior: Prior | str) -> DiffusionDerivation:
    """The diffusion objects for the prior ``prior``, a :class:`Prior` or a spec (cached;
    reuses :func:`derive_effective`)."""
    return _derive_diffusion(parse_prior(prior))


@cache
def _derive_diffusion(prior: Prior) -> DiffusionDerivation:
    e = derive_effective(prior)
    var = (1 - rho**2) * e.in_plane_variance / (L_tok * B_batch)
    if sp.simplify(var - e.alignment_noise) != 0:  # one definition, two routes to it
        raise AssertionError("Var X disagrees with the effective derivation's alignment noise")
    s, split, ok = _splitting_formula()
    if not ok:
        raise AssertionError("the splitting formula does not solve the scale-function boundary-value problem")
    return DiffusionDerivation(prior=prior, in_plane_variance=e.in_plane_variance, variance=var,
                               increment_variance=eta**2 * var, scale_density=s, splitting=split, splitting_verified=ok)


@cache
def _lam(prior: Prior):
    return cached_lambdify(f"in-plane-variance|{prior.spec}",
                           lambda: (ARGS, _derive_diffusion(prior).in_plane_variance, {"cse": True}))


@dataclass(frozen=True)
class AlignmentVariance:
    """``Var(X | rho)`` at alignments ``rho`` (arrays).

    Attributes
    ----------
    rho : ndarray
    in_plane_variance : ndarray
        ``V_p(rho)`` (per ``1/L``), self-normalised and with the self-interaction
        (:func:`theory._effective._tokens.token_moments`).
    in_plane_leading : ndarray
        The closed form ``V_p`` of :func:`derive_diffusion` (its ``L -> inf`` limit).
    variance : ndarray
        ``Sigma(rho) = (1 - rho^2) V_p / (L B)`` (times ``variance_scale``).
    d, L, batch, variance_scale : float
    """

    rho: np.ndarray
    in_plane_variance: np.ndarray
    in_plane_leading: np.ndarray
    variance: np.ndarray
    d: float
    L: float
    batch: float
    variance_scale: float


def alignment_variance(model: Model, rho_values, L, batch: int = 1, *, d,
                       variance_scale: float = 1.0) -> AlignmentVariance:
    """``Sigma(rho) = Var(<P g, xi> | rho) = (1 - rho^2) V_p(rho) / (L B)`` (float64).

    Parameters
    ----------
    model : Model
        ``alpha > 0`` (a finite instance has informative tokens).
    rho_values : array_like
        Alignments in ``[-1, 1]``.
    L : number
        Number of tokens ``>= 1``.
    batch : int
        Mini-batch size ``B >= 1``.
    d : number
        Dimension ``>= 2`` (the ``d - 2`` out-of-plane coordinates enter ``V_p`` through the
        self-interaction).
    variance_scale : float
        Multiplies ``Sigma``; 1 is the derived value (other values exist to show that
        the checks fail on a wrong variance).
    """
    instance("model", model, Model, "theory.Model")
    if model.sparse:
        raise ValueError("the one-step variance needs alpha = R/L > 0 (at least one informative token)")
    L = real("L", L, lower=1.0)
    d = real("d", d, lower=2.0)
    batch = integer("batch", batch, 1)
    variance_scale = real("variance_scale", variance_scale, lower=0.0)
    r = alignments("rho", rho_values)
    params = (np.float64(v) for v in (model.theta, model.alpha, model.beta, model.sigma2))
    with np.errstate(all="ignore"):  # an overflow gives inf (refused), never OverflowError
        lead = np.broadcast_to(_lam(model.prior)(r, *params), r.shape).astype(float)
        vp = token_moments(model, r, d, L).in_plane_variance
    vp = representable("in-plane variance V_p", vp, r, scales(model))
    return AlignmentVariance(rho=r, in_plane_variance=vp, in_plane_leading=lead,
                             variance=variance_scale * (1 - r * r) * vp / (L * batch), d=float(d), L=float(L),
                             batch=float(batch), variance_scale=float(variance_scale))


@dataclass(frozen=True)
class VarianceQuadrature:
    """``(1 - rho^2) V_p = L B Sigma`` at one point: sympy vs tensor Gauss–Hermite quadrature.

    Attributes
    ----------
    params : dict
    symbolic, quadrature : float
        ``(1 - rho^2) V_p`` by the two routes (rounded to float for display).
    rel_diff : float
        Relative difference, computed at ``dps`` digits (before rounding).
    dps : int
    """

    params: dict
    symbolic: float
    quadrature: float
    rel_diff: float
    dps: int


def variance_quadrature(prior: Prior | str, params: dict, dps: int = 40) -> VarianceQuadrature:
    """Cross-check ``(1 - rho^2) V_p`` by quadrature at ``dps >= 40`` digits.

    The quadrature route (:func:`theory.effective_quadrature`) evaluates ``psi`` as a
    vector expression at tensor Gauss–Hermite nodes of the shifted normals (completing
    the square of the tilt), with neither the 1-D tilting lemmas nor the polynomial
    layer; the integrands are polynomials of degree <= 4 after the shift, so the rule is
    exact and the difference measures the working precision only. The factor
    ``1 - rho^2`` is exact, so the relative difference of ``Sigma`` is that of ``V_p``;
    the reported ``rel_diff`` is the route's maximum over ``V_o, V_p, A2, <gbar, e_perp>``
    computed at ``dps`` digits (an upper bound for ``V_p``).
    """
    prior = parse_prior(prior)
    dps = integer("dps", dps, 40)
    q = effective_quadrature(prior, params, dps=dps)
    factor = 1.0 - float(params["rho"]) ** 2
    return VarianceQuadrature(dict(params), factor * q.symbolic[1], factor * q.quadrature[1], q.max_rel_diff, dps)
