r"""Effective dynamics at finite step size: the renormalisation drag (issue 6).

Step expansion
--------------
One step of the projected recursion from a unit ``q`` with ``rho = <q, xi>`` is
``q' = (q + eta P g) / |q + eta P g|`` with ``P = I - q q^T``. Since ``P g`` is
orthogonal to ``q``, ``|q + eta P g|^2 = 1 + eta^2 |P g|^2`` exactly, so

    rho' = (rho + eta X) / sqrt(1 + eta^2 Y),   X = <P g, xi>,  Y = |P g|^2,

and sympy's series in ``eta`` (:attr:`EffectiveDerivation.step_series`) gives
``rho' = rho + eta X - (eta^2 / 2) rho Y + O(eta^3)``. Per unit of ODE time
(``dt = eta``) the conditional mean drift is therefore

    F_eta(rho) = E X - (eta / 2) rho E|P g|^2 + O(eta^2).

No other ``O(eta)`` term appears in the *one-step* drift: ``E X`` carries no
``eta``. ``E X`` is exactly ``(1 - rho^2) J_L'(rho)``, the Riemannian gradient of
the finite-``L`` objective ``J_L(rho) = E |f_q(X)|^2`` (gradient and expectation
commute, and ``J_L`` depends on ``q`` only through ``rho``); it differs from ``F``
by ``O(1/L)``, not by ``O(eta)`` (:attr:`finite_L_field`). Two further ``O(eta)``
effects enter when the *mean of the iterates* is compared with an ODE on the time
axis ``t_k = sum eta_j``; they are not part of the one-step drift and are small in
the regime of the issue (see :func:`effective_drift`): the modified-equation term
of the Euler map, ``-(eta / 2) F F'``, and the spread of the iterates acting
through the curvature, ``(1/2) F'' Var(rho)`` with ``Var(rho) = O(eta / L)``.

Large-``L`` asymptotics of ``E |P g|^2``
-----------------------------------------
With weights ``w_i = exp(beta <q, x_i>)`` and token averages
``D^ = (1/L) sum w_i``, ``N^ = (1/L) sum w_i x_i``, ``Q^ = (1/L) sum w_i x_i x_i^T``,
the per-sample gradient is

    g = 2 beta sum_i a_i (x_i - f) <x_i, f> = 2 beta (Q^ / D^ - |f|^2 I) f,   f = N^ / D^,

a smooth function of three token averages. The delta method gives
``g = gbar + (1/L) sum_i psi(x_i) + o(L^{-1/2})`` with the influence function

    psi(x) = 2 beta (w / D) [ x <x, f> - M f + (M - |f|^2 I)(x - f) - 2 <f, x - f> f ],

``D = E_mix w``, ``M = E_mix[w x x^T] / D`` (``E_mix`` is the token mixture with
weight ``alpha`` on informative tokens), and ``gbar = 2 beta (M - |f|^2 I) f``, whose
component along ``e_perp = (xi - rho q) / sqrt(1 - rho^2)`` is ``F / sqrt(1 - rho^2)``.
Orthogonal to ``q`` there are the in-plane direction ``e_perp`` and ``d - 2``
out-of-plane directions. Out of plane ``M = sigma2 I`` and ``f = 0``, so

    psi_k = 2 beta (w / D) x_k (<x, f> + sigma2 - |f|^2),
    V_o  = 4 beta^2 sigma2 E_mix[w^2 (<x, f> + sigma2 - |f|^2)^2] / D^2,

and in plane ``V_p = sum_kinds weight Var_kind(<psi, e_perp>)`` (the composition
``R, N`` is fixed, so each kind is centred on its own mean). Both need
*second-order tilting*, ``E exp(2 beta <q, x>) x1^a x2^b``, done here by sympy
integration of the one-dimensional Gaussian lemmas. Hence, for a mini-batch of ``B``,

    E |P g|^2 = F^2 / (1 - rho^2) + ((d - 2) V_o^eff(rho) + V_p(rho)) / (L B) + ...

*Self-interaction (next order in d/L).* The delta method is exact to ``O(1/L)`` at
fixed ``d``, but ``E |P g|^2`` at ``d/L = 0.01`` and ``beta = 1`` is about 6% above
it: out of plane, ``<x_i, f>`` contains ``<w_i, f_o>`` whose mean is
``a_i (d - 2) sigma2`` (token ``i`` sees itself in ``f_o``) and ``|f|^2`` contains
``|f_o|^2 ~ (d - 2) sigma2 |a|^2``. Keeping these mean shifts, the coefficient of
``w_i`` becomes ``a_i (h_i + sigma2 + eps sigma2 (w_i / D - A2))`` with
``h = <x, f> - |f|^2``, ``eps = (d - 2) / L``, hence

    V_o^eff = V_o + eps V_o1 + eps^2 V_o2,
    V_o1 = 8 beta^2 sigma2^2 (E_mix[w^3 h'] / D^3 - A2 E_mix[w^2 h'] / D^2),  h' = h + sigma2,
    V_o2 = 4 beta^2 sigma2^3 E_mix[w^2 (w / D - A2)^2] / D^2,

which needs third- and fourth-order tilting; the weight ``w^3`` makes the constant
large (``~ exp(3 beta^2 sigma2)``). Fluctuation terms of the same order in
``1/L`` but without the factor ``d`` are neglected.

The trace is *not* ``(d - 1) V`` with one function ``V``: the in-plane variance
``V_p`` differs from ``V_o``; only ``d - 2`` directions share ``V_o``.

Finite-``L`` mean
-----------------
``J_L = j + J_1 / L + O(L^-2)`` with ``J_1 = (d - 2) sigma2 A2 + T_in + 2 <f, b>``:
``A2 = E_mix w^2 / D^2`` (``E |a|^2 ~ A2 / L``; the out-of-plane part
``E |f_o|^2 = (d - 2) sigma2 E |a|^2`` is exact), ``T_in`` the in-plane trace of
the covariance of ``f`` and ``b`` the second-order delta-method bias of ``N^ / D^``.

Noise floor and spread (constant step)
--------------------------------------
The constant-step plateau is the stable zero ``rho_eta`` of ``F_eta``; near
``rho = 1`` the field vanishes while the drag does not, so ``rho_eta < 1``. The only
``O(eta)`` noise in ``rho`` is ``eta X`` with ``Var X = (1 - rho^2) V_p / (L B)``;
linearising, ``Var_stat(rho) = eta Var X / (2 |F_eta'(rho_eta)|)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp
from scipy.optimize import brentq

from ._derivation import derive
from ._evaluate import evaluate
from ._lemmas import PRIOR_LAWS, Lemma
from ._model import PRIORS, Model, alignments
from ._symbols import alpha, beta, rho, s, sigma2, theta

#: step size, dimension, token count and mini-batch size
eta = sp.Symbol("eta", positive=True)
dim = sp.Symbol("d", positive=True)
L_tok = sp.Symbol("L", positive=True)
batch = sp.Symbol("B", positive=True)
#: the in-plane orthonormal coordinates of a token: along ``xi`` and along ``e2``
x1, x2 = sp.symbols("x1 x2", real=True)
#: ``sqrt(1 - rho^2)`` as a positive symbol while composing
sq = sp.Symbol("s_q", positive=True)
_c, _x = sp.Symbol("c", real=True), sp.Symbol("x", real=True)
#: placeholders of the polynomial layer of the influence function
_f1, _f2, _D = sp.symbols("f1 f2 D", real=True)
_M11, _M12, _M22 = sp.symbols("M11 M12 M22", real=True)
#: increments of one step: ``X = <P g, xi>`` and ``Y = |P g|^2``
X_inc, Y_inc = sp.symbols("X Y", real=True)

_ARGS = (rho, theta, alpha, beta, sigma2)


# ----------------------------------------------------------------- lemmas


@lru_cache(maxsize=None)
def centred_tilted_moment(n: int) -> Lemma:
    """``int y^n exp(c y) phi_sigma2(y) dy``, by sympy integration (any real ``c``)."""
    dens = sp.exp(-(_x**2) / (2 * sigma2)) / sp.sqrt(2 * sp.pi * sigma2)
    integral = sp.Integral(_x**n * sp.exp(_c * _x) * dens, (_x, -sp.oo, sp.oo))
    rhs = sp.factor(sp.simplify(integral.doit(conds="none")))
    return Lemma(f"tilted_moment[{n}]", f"E y^{n} exp(c y), y ~ N(0, sigma2)", integral, rhs)


def _tilted_1d(n: int, c, mu):
    """``E x^n exp(c x)`` for ``x ~ N(mu, sigma2)``: shift ``x = mu + y`` and use the lemmas."""
    poly = sp.Poly(sp.expand((mu + _x) ** n), _x)
    out = sum(coef * centred_tilted_moment(k).rhs.subs(_c, c) for (k,), coef in poly.terms())
    return sp.exp(c * mu) * out


def tilted_expectation(poly, k: int, kind: str, prior: str):
    """``E_kind[exp(k beta <q, x>) P(x1, x2)]`` for a polynomial ``P`` of the in-plane coordinates.

    ``<q, x> = rho x1 + s_q x2`` with ``x1 ~ N(theta s, sigma2)`` (informative;
    nuisance: mean 0) and ``x2 ~ N(0, sigma2)`` independent; the prior on ``s`` is
    averaged by a finite sum. ``k = 2`` is the second-order tilting.
    """
    P = sp.Poly(sp.expand(poly), x1, x2)
    total = 0
    for (a, b), coef in P.terms():
        total += coef * _tilted_1d(a, k * beta * rho, theta * s) * _tilted_1d(b, k * beta * sq, 0)
    if kind == "nuisance":
        return total.subs(s, 0)
    return sum(p * total.subs(s, v) for v, p in PRIOR_LAWS[prior].items())


def _mixture(poly, k: int, prior: str):
    return alpha * tilted_expectation(poly, k, "informative", prior) + (1 - alpha) * tilted_expectation(
        poly, k, "nuisance", prior
    )


def _kind_weights():
    return (("informative", alpha), ("nuisance", 1 - alpha))


# ----------------------------------------------------------------- derivation


@dataclass(frozen=True)
class EffectiveDerivation:
    """Every object of the finite-step derivation for one prior (sympy).

    Expressions are in ``rho, theta, alpha, beta, sigma2`` (:mod:`theory._symbols`)
    and, where stated, ``eta, d, L, B`` (this module). ``s_q`` stands for
    ``sqrt(1 - rho^2)`` in the polynomial layer and is substituted in the results.

    Attributes
    ----------
    step_series : sp.Expr
        ``(rho + eta X)/sqrt(1 + eta^2 Y)`` expanded to ``O(eta^3)``.
    step_drift : sp.Expr
        ``(E rho' - rho) / eta`` to ``O(eta)`` in ``X, Y``: ``X - eta rho Y / 2``.
    lemmas : tuple of Lemma
        The 1-D tilted Gaussian moments ``n = 0..4`` used for all tilting.
    denominator, pooled, second_moment_matrix :
        ``D``, in-plane ``f = (f1, f2)`` and ``M`` (2x2) on ``(xi, e2)``.
    influence : tuple
        In-plane ``psi`` divided by ``2 beta w / D`` as polynomials in ``x1, x2``
        with placeholders ``f1, f2, M11, M12, M22`` (the polynomial layer).
    mean_perp : sp.Expr
        ``<gbar, e_perp>``; equals ``F / sqrt(1 - rho^2)``.
    out_of_plane_variance, in_plane_variance : sp.Expr
        ``V_o``, ``V_p`` (times ``L``: variance of one coordinate of ``P g`` is ``V / L``).
    self_interaction : tuple
        ``(V_o1, V_o2)``: the out-of-plane variance at finite ``d/L`` is
        ``V_o + eps V_o1 + eps^2 V_o2`` with ``eps = (d - 2) / L`` (module docstring).
    weight_square : sp.Expr
        ``A2 = E_mix w^2 / D^2``.
    finite_L_objective : sp.Expr
        ``J_1`` (contains ``d``), ``J_L = j + J_1 / L``.
    finite_L_field : sp.Expr
        ``(1 - rho^2) dJ_1/drho``, the ``1/L`` coefficient of ``E <P g, xi>``.
    gradient_second_moment : sp.Expr
        ``F^2/(1 - rho^2) + ((d - 2) V_o^eff + V_p) / (L B)``,
        ``V_o^eff = V_o + eps V_o1 + eps^2 V_o2``, ``eps = (d - 2) / L``.
    effective_drift : sp.Expr
        ``F + finite_L_field / L - (eta/2) rho gradient_second_moment``.
    euler_term : sp.Expr
        ``-(eta/2) F F'`` (modified equation of the Euler map on the ``t_k`` axis).
    alignment_noise : sp.Expr
        ``Var <P g, xi> = (1 - rho^2) V_p / (L B)``.
    """

    prior: str
    step_series: sp.Expr
    step_drift: sp.Expr
    lemmas: tuple
    denominator: sp.Expr
    pooled: tuple
    second_moment_matrix: tuple
    influence: tuple
    mean_perp: sp.Expr
    out_of_plane_variance: sp.Expr
    in_plane_variance: sp.Expr
    self_interaction: tuple
    weight_square: sp.Expr
    finite_L_objective: sp.Expr
    finite_L_field: sp.Expr
    gradient_second_moment: sp.Expr
    effective_drift: sp.Expr
    euler_term: sp.Expr
    alignment_noise: sp.Expr


def _step_expansion():
    rho_next = (rho + eta * X_inc) / sp.sqrt(1 + eta**2 * Y_inc)
    series = sp.series(rho_next, eta, 0, 3).removeO()
    drift = sp.expand((series - rho) / eta)
    if sp.simplify(drift - (X_inc - eta * rho * Y_inc / 2)) != 0:  # what the module docstring states
        raise AssertionError(f"unexpected step expansion: {drift}")
    return series, drift


def _influence_polynomial():
    """In-plane ``psi / (2 beta w / D)`` with placeholders, and its ``e_perp`` component."""
    xv = sp.Matrix([x1, x2])
    fv = sp.Matrix([_f1, _f2])
    M = sp.Matrix([[_M11, _M12], [_M12, _M22]])
    xf = (xv.T * fv)[0]
    f2n = (fv.T * fv)[0]
    psi = xv * xf - M * fv + (M - f2n * sp.eye(2)) * (xv - fv) - 2 * (fv.T * (xv - fv))[0] * fv
    psi = sp.Matrix([sp.expand(c) for c in psi])
    perp = sp.expand(psi[0] * sq - psi[1] * rho)  # e_perp = (s_q, -rho) on (xi, e2)
    return tuple(psi), perp


def _subs_sq(expr):
    return expr.subs(sq, sp.sqrt(1 - rho**2))


@lru_cache(maxsize=None)
def derive_effective(prior: str) -> EffectiveDerivation:
    """Run the finite-step derivation for ``prior`` (cached; about 15 s the first time)."""
    if prior not in PRIORS:
        raise ValueError(f"`prior` must be one of {PRIORS}, got {prior!r}")
    series, drift = _step_expansion()
    lemmas = tuple(centred_tilted_moment(n) for n in range(5))

    # first-order tilting: D, f, M in the orthonormal in-plane frame (xi, e2)
    D = _mixture(1, 1, prior)
    f1 = _mixture(x1, 1, prior) / D
    f2 = _mixture(x2, 1, prior) / D
    M11, M12, M22 = (_mixture(p, 1, prior) / D for p in (x1**2, x1 * x2, x2**2))
    values = {_f1: f1, _f2: f2, _M11: M11, _M12: M12, _M22: M22, _D: D}

    psi, perp = _influence_polynomial()
    f_norm2 = _f1**2 + _f2**2
    mean_perp = 2 * beta * ((_M11 - f_norm2) * _f1 + _M12 * _f2) * sq - 2 * beta * (_M12 * _f1 + (_M22 - f_norm2) * _f2) * rho

    # second-order tilting: out-of-plane and in-plane variances of the influence function
    xf = x1 * _f1 + x2 * _f2
    V_o = 4 * beta**2 * sigma2 * _mixture(sp.expand((xf + sigma2 - f_norm2) ** 2), 2, prior) / _D**2
    V_p = 0
    for kind, wt in _kind_weights():
        second = tilted_expectation(sp.expand(perp**2), 2, kind, prior)
        first = tilted_expectation(perp, 1, kind, prior)
        V_p += wt * 4 * beta**2 * (second - first**2) / _D**2
    A2 = _mixture(1, 2, prior) / _D**2
    # self-interaction (next order in d/L): <w_i, f_o> has mean a_i (d-2) sigma2 and
    # |f_o|^2 has mean (d-2) sigma2 |a|^2, so the out-of-plane coefficient of token i
    # is a_i (h_i + sigma2 + eps (w_i/D - A2)), eps = (d-2) sigma2 / L (third- and
    # fourth-order tilting)
    hs = sp.expand(xf - f_norm2 + sigma2)
    A2_ph = sp.Symbol("A2", positive=True)
    V_o1 = 8 * beta**2 * sigma2**2 * (_mixture(hs, 3, prior) / _D**3 - A2_ph * _mixture(hs, 2, prior) / _D**2)
    V_o2 = 4 * beta**2 * sigma2**3 * (
        _mixture(1, 4, prior) / _D**4 - 2 * A2_ph * _mixture(1, 3, prior) / _D**3 + A2_ph**2 * _mixture(1, 2, prior) / _D**2
    )

    # finite-L objective: in-plane covariance trace of f and delta-method bias of N^/D^
    T_in, bias1, bias2 = 0, 0, 0
    for kind, wt in _kind_weights():
        ex1, ex2 = x1 - _f1, x2 - _f2
        sec = tilted_expectation(sp.expand(ex1**2 + ex2**2), 2, kind, prior)
        m1 = tilted_expectation(ex1, 1, kind, prior)
        m2 = tilted_expectation(ex2, 1, kind, prior)
        T_in += wt * (sec - m1**2 - m2**2) / _D**2
        w1 = tilted_expectation(0 * x1 + 1, 1, kind, prior)
        bias1 += -wt * (tilted_expectation(ex1, 2, kind, prior) - w1 * m1) / _D**2
        bias2 += -wt * (tilted_expectation(ex2, 2, kind, prior) - w1 * m2) / _D**2
    J1 = (dim - 2) * sigma2 * A2 + T_in + 2 * (_f1 * bias1 + _f2 * bias2)

    def close(expr):
        return _subs_sq(expr.subs(values))

    der = derive(prior)
    # (1 - rho^2) dJ1/drho by the chain rule through s_q = sqrt(1 - rho^2),
    # d s_q / d rho = -rho / s_q, so that no 1/s_q appears (finite at rho = +-1)
    J1_sq = J1.subs(values)
    finite_field = _subs_sq(sq**2 * sp.diff(J1_sq, rho) - rho * sq * sp.diff(J1_sq, sq))
    V_o, V_p, A2, J1, mean_perp = (close(e) for e in (V_o, V_p, A2, J1, mean_perp))
    V_o1, V_o2 = (close(e).subs(A2_ph, A2) for e in (V_o1, V_o2))
    F = der.field
    eps = (dim - 2) / L_tok
    V_eff = V_o + eps * V_o1 + eps**2 * V_o2
    G = F**2 / (1 - rho**2) + ((dim - 2) * V_eff + V_p) / (L_tok * batch)
    return EffectiveDerivation(
        prior=prior,
        step_series=series,
        step_drift=drift,
        lemmas=lemmas,
        denominator=_subs_sq(D),
        pooled=(_subs_sq(f1), _subs_sq(f2)),
        second_moment_matrix=tuple(_subs_sq(e) for e in (M11, M12, M22)),
        influence=psi,
        mean_perp=mean_perp,
        out_of_plane_variance=V_o,
        self_interaction=(V_o1, V_o2),
        in_plane_variance=V_p,
        weight_square=A2,
        finite_L_objective=J1,
        finite_L_field=finite_field,
        gradient_second_moment=G,
        effective_drift=F + finite_field / L_tok - eta / 2 * rho * G,
        euler_term=-eta / 2 * F * sp.diff(F, rho),
        alignment_noise=(1 - rho**2) * V_p / (L_tok * batch),
    )


# ----------------------------------------------------------------- float evaluators


@lru_cache(maxsize=None)
def _numpy_functions(prior: str):
    e = derive_effective(prior)
    exprs = (e.out_of_plane_variance, e.in_plane_variance, e.weight_square, e.mean_perp, *e.self_interaction)
    j1 = (e.finite_L_objective, e.finite_L_field)
    lam = sp.lambdify(_ARGS, exprs, modules="numpy", cse=True)
    lam_j = sp.lambdify((*_ARGS, dim), j1, modules="numpy", cse=True)
    return lam, lam_j


def _check_model(model) -> Model:
    if not isinstance(model, Model):
        raise ValueError(f"`model` must be a theory.Model, got {type(model).__name__}")
    if model.sparse:
        raise ValueError("the finite-step correction needs alpha = R/L > 0 (at least one informative token)")
    return model


def _check_sizes(d, L, batch_size):
    for name, value, low in (("d", d, 2), ("L", L, 1), ("batch", batch_size, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer, float)) or not math.isfinite(value) or value < low:
            raise ValueError(f"`{name}` must be a number >= {low}, got {value!r}")


@dataclass(frozen=True)
class GradientSecondMoment:
    """Large-``L`` asymptotics of ``E |P g|^2`` at alignments ``rho`` (arrays).

    Attributes
    ----------
    rho : ndarray
    mean_square : ndarray
        ``|E P g|^2 = F^2 / (1 - rho^2)``.
    out_of_plane_variance, in_plane_variance : ndarray
        ``V_o``, ``V_p`` (per ``1/L``), leading order.
    out_of_plane_effective : ndarray
        ``V_o + eps V_o1 + eps^2 V_o2`` (equal to ``V_o`` without self-interaction).
    trace : ndarray
        ``((d - 2) V_o^eff + V_p) / (L B)``.
    total : ndarray
        ``mean_square + trace``.
    d, L, batch : float
    """

    rho: np.ndarray
    mean_square: np.ndarray
    out_of_plane_variance: np.ndarray
    out_of_plane_effective: np.ndarray
    in_plane_variance: np.ndarray
    trace: np.ndarray
    total: np.ndarray
    d: float
    L: float
    batch: float


def gradient_second_moment(model: Model, rho_values, d, L, batch: int = 1, *,
                           self_interaction: bool = True) -> GradientSecondMoment:
    """``E |P g|^2`` to leading order in ``1/L`` (float64).

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
        Include the next-order (in ``d/L``) self-interaction terms of ``V_o``;
        without them ``E |P g|^2`` is about 6% low at ``d/L = 0.01``, ``beta = 1``.
    """
    _check_model(model)
    _check_sizes(d, L, batch)
    r = alignments("rho", rho_values)
    lam, _ = _numpy_functions(model.prior)
    V_o, V_p, _, _, V1, V2 = (np.broadcast_to(v, r.shape).astype(float)
                              for v in lam(r, model.theta, model.alpha, model.beta, model.sigma2))
    F = evaluate(model, r).field
    one = 1.0 - r * r
    mean_sq = np.divide(F * F, one, out=np.zeros_like(r), where=one > 0)
    eps = (d - 2) / L
    V_eff = V_o + eps * V1 + eps * eps * V2 if self_interaction else V_o
    trace = ((d - 2) * V_eff + V_p) / (L * batch)
    return GradientSecondMoment(r, mean_sq, V_o, V_eff, V_p, trace, mean_sq + trace, float(d), float(L), float(batch))


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
        ``Var <P g, xi> = (1 - rho^2) V_p / (L B)`` (per step, divided by ``eta^2``).
    """

    rho: np.ndarray
    field: np.ndarray
    finite_L: np.ndarray
    drag: np.ndarray
    euler: np.ndarray
    drift: np.ndarray
    noise: np.ndarray


def effective_drift(model: Model, rho_values, eta_value, d, L, batch: int = 1, *, finite_L: bool = True,
                    euler: bool = False, drag_scale: float = 1.0) -> EffectiveDrift:
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
    euler : bool
        Include the Euler modified-equation term ``-(eta/2) F F'``.
    drag_scale : float
        Multiplies the drag; 1 is the derived value (other values exist to test that
        checks fail on a wrong correction).
    """
    r = alignments("rho", rho_values)
    e = np.asarray(eta_value, dtype=float)
    if not np.all(np.isfinite(e)) or np.any(e < 0):
        raise ValueError(f"`eta` must be finite and >= 0, got {eta_value!r}")
    r, e = np.broadcast_arrays(r, e)
    G = gradient_second_moment(model, r, d, L, batch)
    F = evaluate(model, r).field
    if finite_L:
        _, lam_j = _numpy_functions(model.prior)
        fl = np.broadcast_to(lam_j(r, model.theta, model.alpha, model.beta, model.sigma2, d)[1], r.shape) / L
    else:
        fl = np.zeros_like(r)
    drag = drag_scale * 0.5 * e * r * G.total
    if euler:
        h = 1e-6
        Fp = (evaluate(model, np.clip(r + h, -1, 1)).field - evaluate(model, np.clip(r - h, -1, 1)).field) / (
            np.clip(r + h, -1, 1) - np.clip(r - h, -1, 1))
        eu = -0.5 * e * F * Fp
    else:
        eu = np.zeros_like(r)
    noise = (1 - r * r) * G.in_plane_variance / (L * batch)
    return EffectiveDrift(r, F, fl, drag, eu, F + fl - drag + eu, noise)


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
                         drag_scale: float = 1.0) -> Plateau:
    """The constant-step plateau ``F_eta(rho_eta) = 0`` and its linearised spread.

    The root is the largest zero of ``F_eta`` in ``(0, 1)`` (``F_eta(1) < 0``);
    ``ValueError`` if ``F_eta`` has no sign change on ``(0, 1)``.
    """
    if not (isinstance(eta_value, (int, float)) and eta_value > 0 and math.isfinite(eta_value)):
        raise ValueError(f"`eta` must be a finite number > 0, got {eta_value!r}")

    def drift(r):
        return float(effective_drift(model, r, eta_value, d, L, batch, finite_L=finite_L, drag_scale=drag_scale).drift)

    grid = np.linspace(0.0, 1.0, 401)
    vals = effective_drift(model, grid, eta_value, d, L, batch, finite_L=finite_L, drag_scale=drag_scale).drift
    idx = np.flatnonzero((vals[:-1] > 0) & (vals[1:] <= 0))
    if idx.size == 0:
        raise ValueError("the effective drift has no stable zero in (0, 1) for these parameters")
    i = idx[-1]
    root = brentq(drift, grid[i], grid[i + 1], xtol=1e-14)
    h = 1e-6
    slope = (drift(min(root + h, 1.0)) - drift(root - h)) / (min(root + h, 1.0) - root + h)
    noise = float(effective_drift(model, root, eta_value, d, L, batch).noise)
    spread = math.sqrt(eta_value * noise / (2 * abs(slope))) if slope < 0 else math.inf
    return Plateau(root, slope, spread, 1.0 - root, float(eta_value), float(d), float(L), float(batch))


# ----------------------------------------------------------------- quadrature cross-check


@dataclass(frozen=True)
class EffectiveQuadrature:
    """``V_o``, ``V_p``, ``A2`` and ``<gbar, e_perp>`` at one point: sympy vs quadrature."""

    params: dict
    symbolic: tuple
    quadrature: tuple
    max_rel_diff: float


def hermite_rule(n: int):
    """Gauss–Hermite nodes and weights for ``N(0, 1)`` at the working precision (Golub–Welsch).

    Exact for polynomials of degree ``<= 2n - 1``; weights sum to 1.
    """
    J = mpmath.zeros(n, n)
    for k in range(1, n):
        J[k, k - 1] = J[k - 1, k] = mpmath.sqrt(k)
    nodes, vecs = mpmath.eigsy(J)
    return [nodes[i] for i in range(n)], [vecs[0, i] ** 2 for i in range(n)]


def effective_quadrature(prior: str, p: dict, dps: int = 50, nodes: int = 8) -> EffectiveQuadrature:
    """Cross-check ``V_o, V_p, A2, <gbar, e_perp>`` by product quadrature at ``dps`` digits.

    Independent of the symbolic route: no 1-D lemma and no polynomial expansion.
    Each ``E_kind[w^k h(x1, x2)]`` is computed by completing the square
    (``exp(c y) phi(y - mu) = exp(c mu + c^2 s2 / 2) phi(y - mu - c s2)``) and a
    tensor Gauss–Hermite rule on the shifted standard normals; the influence
    function is evaluated as a vector expression at the nodes. The integrands are
    polynomials of degree <= 4 after the shift, so ``nodes >= 3`` is exact and the
    difference measures only the working precision.
    """
    with mpmath.workdps(dps + 10):
        r, t, a, b, s2 = (mpmath.mpf(p[k]) for k in ("rho", "theta", "alpha", "beta", "sigma2"))
        sqr = mpmath.sqrt(1 - r * r)
        sig = mpmath.sqrt(s2)
        law = {int(v): mpmath.mpf(pr) for v, pr in PRIOR_LAWS[prior].items()}
        un, uw = hermite_rule(nodes)

        def expect(fn, k, kind):
            """``E_kind[w^k fn(x1, x2)]``."""
            signs = law if kind == "informative" else {0: mpmath.mpf(1)}
            total = 0
            for sv, pr in signs.items():
                mu = t * sv
                c1, c2 = k * b * r, k * b * sqr
                scale = mpmath.exp(c1 * mu + (c1 * c1 + c2 * c2) * s2 / 2)
                acc = 0
                for u, wu in zip(un, uw):
                    for v, wv in zip(un, uw):
                        acc += wu * wv * fn(mu + c1 * s2 + sig * u, c2 * s2 + sig * v)
                total += pr * scale * acc
            return total

        def mix(fn, k):
            return a * expect(fn, k, "informative") + (1 - a) * expect(fn, k, "nuisance")

        D = mix(lambda y1, y2: 1, 1)
        f = [mix(lambda y1, y2: y1, 1) / D, mix(lambda y1, y2: y2, 1) / D]
        m12 = mix(lambda y1, y2: y1 * y2, 1) / D
        M = [[mix(lambda y1, y2: y1 * y1, 1) / D, m12], [m12, mix(lambda y1, y2: y2 * y2, 1) / D]]
        fn2 = f[0] ** 2 + f[1] ** 2
        e_perp = (sqr, -r)

        def psi_perp(y1, y2):
            x = (y1, y2)
            xf = y1 * f[0] + y2 * f[1]
            dx = (y1 - f[0], y2 - f[1])
            fdx = f[0] * dx[0] + f[1] * dx[1]
            comp = []
            for i in range(2):
                Mf = M[i][0] * f[0] + M[i][1] * f[1]
                Mdx = M[i][0] * dx[0] + M[i][1] * dx[1]
                comp.append(x[i] * xf - Mf + Mdx - fn2 * dx[i] - 2 * fdx * f[i])
            return 2 * b * (comp[0] * e_perp[0] + comp[1] * e_perp[1])

        V_o = 4 * b * b * s2 * mix(lambda y1, y2: (y1 * f[0] + y2 * f[1] + s2 - fn2) ** 2, 2) / D**2
        V_p = 0
        for kind, wt in (("informative", a), ("nuisance", 1 - a)):
            V_p += wt * (expect(lambda y1, y2: psi_perp(y1, y2) ** 2, 2, kind) - expect(psi_perp, 1, kind) ** 2) / D**2
        A2 = mix(lambda y1, y2: 1, 2) / D**2
        gbar = [2 * b * sum((M[i][j] - (fn2 if i == j else 0)) * f[j] for j in range(2)) for i in range(2)]
        mean_perp = gbar[0] * e_perp[0] + gbar[1] * e_perp[1]
        quad = (V_o, V_p, A2, mean_perp)
        sym = _lam_mp(prior)(r, t, a, b, s2)[:4]
        rel = max(abs(x - y) / max(abs(y), mpmath.mpf(10) ** (-dps)) for x, y in zip(sym, quad))
        return EffectiveQuadrature(dict(p), tuple(float(x) for x in sym), tuple(float(x) for x in quad), float(rel))


@lru_cache(maxsize=None)
def _lam_mp(prior: str):
    e = derive_effective(prior)
    return sp.lambdify(_ARGS, (e.out_of_plane_variance, e.in_plane_variance, e.weight_square, e.mean_perp), modules="mpmath")
