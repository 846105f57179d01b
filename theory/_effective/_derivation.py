r"""Effective dynamics at finite step size: the renormalisation drag, derived by sympy.

This module composes the derivation (:func:`derive_effective`); the tilting lemmas are in
:mod:`theory._effective._lemmas`, the float evaluators (drift, plateau) in
:mod:`theory._effective._evaluate` and the quadrature cross-check in
:mod:`theory._effective._quadrature`.

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
axis ``t_k = sum eta_j``; they are not part of the one-step drift and are small for
the paper's weak-signal instance (``theta = 0.25``, ``R = 500``, ``L = 10500``,
``d = 100``, ``eta = 0.05``; see :func:`effective_drift`): the modified-equation term
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
*second-order tilting*, ``E exp(2 beta <q, x>) x1^a x2^b``, done by sympy
integration of the one-dimensional Gaussian lemmas (:mod:`theory._effective._lemmas`).
Hence, for a mini-batch of ``B``,

    E |P g|^2 = F^2 / (1 - rho^2) + ((d - 2) V_o^eff(rho) + V_p(rho)) / (L B) + ...

*Self-interaction (next order in d/L).* The delta method is exact to ``O(1/L)`` at
fixed ``d``, but ``E |P g|^2`` at ``d/L = 0.01`` and ``beta = 1`` is about 6% above
it: out of plane, ``<x_i, f>`` contains ``<x_i^o, f_o>`` (``x_i^o`` the out-of-plane
part of token ``i``) whose mean is
``a_i (d - 2) sigma2`` (token ``i`` sees itself in ``f_o``) and ``|f|^2`` contains
``|f_o|^2 ~ (d - 2) sigma2 |a|^2``. Keeping these mean shifts, the coefficient of
``x_i^o`` becomes ``a_i (h_i + sigma2 + eps sigma2 (w_i / D - A2))`` with
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
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import sympy as sp

from .._derivation._scalar import derive
from .._derivation._symbols import B_batch, L_tok, X_inc, Y_inc, beta, dim, eta, rho, rho_perp, sigma2, x1, x2
from .._laws import Prior, parse_prior
from ._lemmas import KIND_WEIGHTS, centred_tilted_moment, mixture, tilted_expectation

#: placeholders of the polynomial layer of the influence function
_f1, _f2, _D = sp.symbols("f1 f2 D", real=True)
_M11, _M12, _M22 = sp.symbols("M11 M12 M22", real=True)


@dataclass(frozen=True)
class EffectiveDerivation:
    """Every object of the finite-step derivation for one prior (sympy).

    Expressions are in ``rho, theta, alpha, beta, sigma2`` and, where stated,
    ``eta, d, L, B`` (all in :mod:`theory._derivation._symbols`). ``rho_perp`` stands for
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

    prior: Prior
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


def step_expansion():
    """``rho'`` to ``O(eta^3)`` and the one-step drift ``X - eta rho Y / 2`` (checked)."""
    rho_next = (rho + eta * X_inc) / sp.sqrt(1 + eta**2 * Y_inc)
    series = sp.series(rho_next, eta, 0, 3).removeO()
    drift = sp.expand((series - rho) / eta)
    if sp.simplify(drift - (X_inc - eta * rho * Y_inc / 2)) != 0:  # what the module docstring states
        raise AssertionError(f"unexpected step expansion: {drift}")
    return series, drift


def influence_polynomial():
    """In-plane ``psi / (2 beta w / D)`` with placeholders, and its ``e_perp`` component."""
    xv = sp.Matrix([x1, x2])
    fv = sp.Matrix([_f1, _f2])
    M = sp.Matrix([[_M11, _M12], [_M12, _M22]])
    xf = (xv.T * fv)[0]
    f2n = (fv.T * fv)[0]
    psi = xv * xf - M * fv + (M - f2n * sp.eye(2)) * (xv - fv) - 2 * (fv.T * (xv - fv))[0] * fv
    psi = sp.Matrix([sp.expand(c) for c in psi])
    perp = sp.expand(psi[0] * rho_perp - psi[1] * rho)  # e_perp = (rho_perp, -rho) on (xi, e2)
    return tuple(psi), perp


def _close_rho_perp(expr):
    """Substitute ``rho_perp = sqrt(1 - rho^2)``."""
    return expr.subs(rho_perp, sp.sqrt(1 - rho**2))


def derive_effective(prior: Prior | str) -> EffectiveDerivation:
    """Run the finite-step derivation for the prior ``prior``, a :class:`Prior` or a spec
    (cached per prior; seconds the first time)."""
    return _derive_effective(parse_prior(prior))


def _finite_L_objective(prior: Prior, A2: sp.Expr) -> sp.Expr:
    """The ``1/L`` term of the finite-``L`` objective, in the placeholders ``_f1, _f2, _D``: the
    out-of-plane ``(d - 2) sigma2 A2``, the in-plane covariance trace of ``f`` and the
    delta-method bias of ``N^/D^``."""
    T_in, bias1, bias2 = 0, 0, 0
    for kind, weight in KIND_WEIGHTS:
        ex1, ex2 = x1 - _f1, x2 - _f2
        sec = tilted_expectation(sp.expand(ex1**2 + ex2**2), 2, kind, prior)
        mean1 = tilted_expectation(ex1, 1, kind, prior)
        mean2 = tilted_expectation(ex2, 1, kind, prior)
        T_in += weight * (sec - mean1**2 - mean2**2) / _D**2
        w_mean = tilted_expectation(0 * x1 + 1, 1, kind, prior)
        bias1 += -weight * (tilted_expectation(ex1, 2, kind, prior) - w_mean * mean1) / _D**2
        bias2 += -weight * (tilted_expectation(ex2, 2, kind, prior) - w_mean * mean2) / _D**2
    return (dim - 2) * sigma2 * A2 + T_in + 2 * (_f1 * bias1 + _f2 * bias2)


@cache
def _derive_effective(prior: Prior) -> EffectiveDerivation:
    series, drift = step_expansion()
    lemmas = tuple(centred_tilted_moment(n) for n in range(5))

    # first-order tilting: D, f, M in the orthonormal in-plane frame (xi, e2)
    D = mixture(1, 1, prior)
    f1 = mixture(x1, 1, prior) / D
    f2 = mixture(x2, 1, prior) / D
    M11, M12, M22 = (mixture(p, 1, prior) / D for p in (x1**2, x1 * x2, x2**2))
    values = {_f1: f1, _f2: f2, _M11: M11, _M12: M12, _M22: M22, _D: D}

    psi, perp = influence_polynomial()
    f_norm2 = _f1**2 + _f2**2
    mean_perp = (2 * beta * ((_M11 - f_norm2) * _f1 + _M12 * _f2) * rho_perp
                 - 2 * beta * (_M12 * _f1 + (_M22 - f_norm2) * _f2) * rho)

    # second-order tilting: out-of-plane and in-plane variances of the influence function
    xf = x1 * _f1 + x2 * _f2
    V_o = 4 * beta**2 * sigma2 * mixture(sp.expand((xf + sigma2 - f_norm2) ** 2), 2, prior) / _D**2
    V_p = 0
    for kind, weight in KIND_WEIGHTS:
        second = tilted_expectation(sp.expand(perp**2), 2, kind, prior)
        first = tilted_expectation(perp, 1, kind, prior)
        V_p += weight * 4 * beta**2 * (second - first**2) / _D**2
    A2 = mixture(1, 2, prior) / _D**2
    # self-interaction (next order in d/L): <x_i^o, f_o> has mean a_i (d-2) sigma2 and
    # |f_o|^2 has mean (d-2) sigma2 |a|^2, so the out-of-plane coefficient of token i
    # is a_i (h_i + sigma2 + eps sigma2 (w_i/D - A2)), eps = (d-2) / L (third- and
    # fourth-order tilting)
    hs = sp.expand(xf - f_norm2 + sigma2)
    A2_ph = sp.Symbol("A2", positive=True)
    V_o1 = 8 * beta**2 * sigma2**2 * (mixture(hs, 3, prior) / _D**3 - A2_ph * mixture(hs, 2, prior) / _D**2)
    V_o2 = 4 * beta**2 * sigma2**3 * (
        mixture(1, 4, prior) / _D**4 - 2 * A2_ph * mixture(1, 3, prior) / _D**3
        + A2_ph**2 * mixture(1, 2, prior) / _D**2
    )

    J1 = _finite_L_objective(prior, A2)

    def close(expr):
        return _close_rho_perp(expr.subs(values))

    der = derive(prior)
    # (1 - rho^2) dJ1/drho by the chain rule through rho_perp = sqrt(1 - rho^2),
    # d rho_perp / d rho = -rho / rho_perp, so that no 1/rho_perp appears (finite at rho = +-1)
    J1_open = J1.subs(values)
    finite_field = _close_rho_perp(rho_perp**2 * sp.diff(J1_open, rho) - rho * rho_perp * sp.diff(J1_open, rho_perp))
    V_o, V_p, A2, J1, mean_perp = (close(e) for e in (V_o, V_p, A2, J1, mean_perp))
    V_o1, V_o2 = (close(e).subs(A2_ph, A2) for e in (V_o1, V_o2))
    F = der.field
    eps = (dim - 2) / L_tok
    V_eff = V_o + eps * V_o1 + eps**2 * V_o2
    G = F**2 / (1 - rho**2) + ((dim - 2) * V_eff + V_p) / (L_tok * B_batch)
    return EffectiveDerivation(
        prior=prior,
        step_series=series,
        step_drift=drift,
        lemmas=lemmas,
        denominator=_close_rho_perp(D),
        pooled=(_close_rho_perp(f1), _close_rho_perp(f2)),
        second_moment_matrix=tuple(_close_rho_perp(e) for e in (M11, M12, M22)),
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
        alignment_noise=(1 - rho**2) * V_p / (L_tok * B_batch),
    )
