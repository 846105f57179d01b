r"""Self-normalised token moments of ``E |P g|^2`` (float64, Gauss–Hermite quadrature).

Why the closed forms are not enough
-----------------------------------
To first order in ``1/L``, ``E |P g|^2 - |E P g|^2`` is a sum over tokens of the square of
each token's influence (:mod:`theory._effective._derivation`, "Large-``L`` asymptotics").
The closed forms there give token ``i`` the softmax weight ``a_i = w_i / (L D)``: the
normaliser ``sum_j w_j`` is replaced by its mean. That is the leading order of

    a_i = w_i / (w_i + S_{-i}),   S_{-i} = sum_{j != i} w_j,

only while ``w_i << L D`` for the tokens that carry the moment. But the second moment
weights a token by ``w^2`` (its score is tilted by ``2 beta sigma2``) and the
self-interaction terms by ``w^3`` and ``w^4``. With log-normal weights the next term of the
expansion of ``E sum_i a_i^k`` has the relative size ``k E_mix[w^{k+1}] / (L D E_mix[w^k])``,
``~ k exp(k beta^2 sigma2) / L`` for nuisance tokens: at ``beta = 1.5``, ``sigma2 = 1``,
``L = 3200`` it is ``0.09`` for ``k = 2`` and ``1.7`` for ``k = 3``. There the closed forms put
``E |P g|^2`` at 20.4 where the exact chain gives 13.0 ± 0.6 (``theta = 0.8``, ``R = 200``,
``d = 20``, ``rho = 0.93``), and the constant-step plateau at 0.888 instead of 0.928. At
``beta = 1`` the same parameters are ``0.005`` and ``0.03``, which is why the error was not
seen there.

What is computed here
---------------------
A token keeps its own weight in its normaliser; only the rest of the sum is replaced by its
mean, ``S_{-i} -> L D`` (its relative fluctuation ``sqrt(A2 / L)`` is the small parameter
that remains, :func:`expansion_parameters`):

    a(w) = w / (w + L D).

The coefficient of token ``i`` in the gradient is taken exactly as the sum
``g = 2 beta sum_i a_i (x_i - f) <x_i, f>`` gives it, with the out-of-plane coordinates
``z_i`` (``m = d - 2`` of them) entering through ``<z_i, f_o> = a_i |z_i|^2 + <z_i, f_{o,-i}>``
and ``|f_o|^2 ~ m sigma2 A2``, ``A2 = sum_j a_j^2``:

* out of plane, ``g_o = 2 beta sum_i a_i c_i z_i`` with
  ``c_i = <x_i, f> - |f|^2 + sigma2 + m sigma2 (a_i - A2)`` (the ``sigma2`` is the mean
  field of the cross terms ``sum_j a_j <z_i, z_j>``), so one out-of-plane coordinate has
  variance ``V_o / L`` with ``V_o = 4 beta^2 sigma2 L^2 E_mix[a(w)^2 c^2]``;
* in plane (along ``e_perp``), the delta-method influence ``psi_perp`` of the closed forms
  (:func:`theory._effective._derivation.influence_polynomial`, evaluated with the mean field
  ``f``, ``M``) gains the self term ``m sigma2 a_i <x_i - f, e_perp>`` and the independent
  noise ``<z_i, f_{o,-i}> <x_i - f, e_perp>`` of variance ``sigma2 |f_o|^2``; with the
  composition ``R, N`` fixed each kind is centred on its own mean:
  ``V_p = 4 beta^2 L^2 sum_kinds W_k (Var_k(a psi_perp) + m sigma2^2 A2 E_k[a^2 u^2])``.

For ``L -> inf`` at fixed ``d`` these reduce to the closed forms ``V_o``, ``V_p`` of the
derivation (tested). Each expectation is over the token law of one kind: informative
tokens ``x = theta s xi + z`` with ``s`` from the prior (a finite law: one Gaussian
component per atom; ``gaussian(mu, tau)``: one Gaussian with variance ``sigma2 + theta^2
tau^2`` along ``xi``), nuisance tokens ``x = z``. Each component is integrated in the
score direction ``y = <q, x>`` by Gauss–Hermite quadrature under the Gaussian tilted by
``w^k`` (``k = 1`` or ``2``), which is where the integrand lives, and exactly (4 nodes) in
the orthogonal direction, in which the integrands are polynomials of degree at most 4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from .._laws import parse_prior
from .._model import Model

#: Gauss–Hermite nodes along the score direction (the saturation ``a(w)`` is a logistic
#: step of width ``1/beta`` there) and along the orthogonal direction (exact for degree <= 7)
_NODES_SCORE = 96
_NODES_ORTH = 4


@cache
def _hermite(n: int) -> tuple[np.ndarray, np.ndarray]:
    z, w = np.polynomial.hermite_e.hermegauss(n)
    return z, w / w.sum()


def _components(model: Model):
    """``(kind, weight, mean along xi, variance along xi)`` of the token law; variance
    ``sigma2`` along ``e2`` for every component."""
    theta, alpha, s2 = model.theta, model.alpha, model.sigma2
    prior = parse_prior(model.prior)
    out = []
    if prior.support is None:  # gaussian(mu, tau)
        out.append(("informative", alpha, theta * float(prior.mu), s2 + theta**2 * float(prior.tau) ** 2))
    else:
        out += [("informative", alpha * float(q), theta * float(v), s2) for v, q in prior.support]
    out.append(("nuisance", 1.0 - alpha, 0.0, s2))
    return [c for c in out if c[1] > 0]


@dataclass(frozen=True)
class TokenMoments:
    """Self-normalised token moments at alignments ``rho`` (arrays, broadcast).

    Attributes
    ----------
    rho : ndarray
    out_of_plane_variance : ndarray
        ``V_o`` (times ``L``: one out-of-plane coordinate of ``P g`` has variance ``V_o / L``),
        with the self-interaction.
    in_plane_variance : ndarray
        ``V_p`` (times ``L``): ``Var <P g, e_perp> = V_p / L``.
    weight_square : ndarray
        ``L E sum_i a_i^2`` (``A2`` of the closed forms times the saturation).
    pooled : ndarray, shape (..., 2)
        The mean field ``f`` on ``(xi, e2)``.
    """

    rho: np.ndarray
    out_of_plane_variance: np.ndarray
    in_plane_variance: np.ndarray
    weight_square: np.ndarray
    pooled: np.ndarray


def token_moments(model: Model, rho, d, L, *, saturate: bool = True, self_interaction: bool = True) -> TokenMoments:
    """``V_o``, ``V_p`` and ``A2`` with self-normalised weights (module docstring).

    Parameters
    ----------
    model : Model
        ``alpha > 0``.
    rho : array_like
        Alignments in ``[-1, 1]``.
    d, L : number
        Dimension (``m = d - 2`` out-of-plane coordinates) and token count.
    saturate : bool
        Keep a token's own weight in its normaliser; ``False`` gives ``a(w) = w / (L D)``,
        the closed forms' weights.
    self_interaction : bool
        Keep the terms in ``m = d - 2`` (``False``: ``m = 0`` in the coefficients, the closed
        forms' leading order). With both false this is the leading order ``V_o``, ``V_p`` of
        :func:`theory.derive_effective`; with ``saturate=False`` alone it is
        ``V_o + eps V_o1 + eps^2 V_o2`` (tested).
    """
    rho = np.asarray(rho, dtype=float)
    beta, s2 = model.beta, model.sigma2
    m = float(d) - 2.0 if self_interaction else 0.0
    L = float(L)
    rp = np.sqrt(np.clip(1.0 - rho * rho, 0.0, None))
    q = np.stack([rho, rp], axis=-1)  # (..., 2)
    ep = np.stack([rp, -rho], axis=-1)
    comps = _components(model)

    # exact Gaussian pieces of each component: score law, tilt factors, conditional frame
    zy, wy = _hermite(_NODES_SCORE)
    zr, wr = _hermite(_NODES_ORTH)
    parts = []
    logD_terms = []
    for kind, weight, mu1, v1 in comps:
        mu = np.array([mu1, 0.0])
        Sig = np.array([v1, s2])
        qm = q @ mu  # (...,)
        Sq = q * Sig  # Sigma q, (..., 2)
        sy2 = np.sum(q * Sq, axis=-1)  # q^T Sigma q
        logw1 = beta * qm + 0.5 * beta**2 * sy2  # log E w
        logD_terms.append(math.log(weight) + logw1)
        # x | y = mu + Sq (y - qm) / sy2 + c r, r ~ N(0, 1): the residual covariance
        # Sigma - Sq Sq^T / sy2 annihilates q, so it is lam e e^T with e = e_perp
        eS = ep * Sig
        lam = np.sum(ep * eS, axis=-1) - np.sum(eS * q, axis=-1) ** 2 / sy2
        c = np.sqrt(np.clip(lam, 0.0, None))[..., None] * ep
        parts.append((kind, weight, mu, Sig, qm, Sq, sy2, logw1, c))
    logD = np.logaddexp.reduce(np.stack(logD_terms), axis=0)
    D = np.exp(logD)
    log_LD = math.log(L) + logD

    # mean field: f = E_mix[w x] / D, M = E_mix[w x x^T] / D (exact: tilted Gaussian moments)
    f = np.zeros(rho.shape + (2,))
    M = np.zeros(rho.shape + (2, 2))
    for kind, weight, mu, Sig, qm, Sq, sy2, logw1, c in parts:
        share = weight * np.exp(logw1 - logD)
        mt = mu + beta * Sq
        f += share[..., None] * mt
        M += share[..., None, None] * (np.diag(Sig) + mt[..., :, None] * mt[..., None, :])
    f2 = np.sum(f * f, axis=-1)
    Mf = np.einsum("...ij,...j->...i", M, f)

    def nodes(part, k):
        """Points ``x`` (..., ny, nr, 2), ``a(w)`` there and the weights of ``E[a^k (.)]``."""
        kind, weight, mu, Sig, qm, Sq, sy2, logw1, c = part
        sy = np.sqrt(sy2)
        # under the w^k tilt, y ~ N(qm + k beta sy2, sy2)
        y = (qm + k * beta * sy2)[..., None] + sy[..., None] * zy  # (..., ny)
        base = mu + (Sq / sy2[..., None])[..., None, :] * (y - qm[..., None])[..., None]  # (..., ny, 2)
        x = base[..., :, None, :] + c[..., None, None, :] * zr[:, None]  # (..., ny, nr, 2)
        u = beta * y
        if saturate:
            log_a = u - np.logaddexp(u, log_LD[..., None])
        else:
            log_a = u - log_LD[..., None]
        a = np.exp(log_a)
        # E[a^k P] = E[w^k] E_tilt[(a / w)^k P]; log E[w^k] = k beta qm + k^2 beta^2 sy2 / 2
        logwk = k * beta * qm + 0.5 * k * k * beta**2 * sy2
        om = np.exp(logwk[..., None] + k * (log_a - u))  # (..., ny)
        wts = (om * wy)[..., :, None] * wr  # (..., ny, nr)
        return x, a[..., None], wts

    A2 = np.zeros(rho.shape)
    cache = []
    for part in parts:
        x2, a2, w2 = nodes(part, 2)
        x1, a1, w1 = nodes(part, 1)
        A2 += part[1] * np.sum(w2, axis=(-2, -1))
        cache.append((part, x2, a2, w2, x1, a1, w1))
    A2_sum = L * A2  # E sum_j a_j^2 = L E_mix[a^2]
    A2 = L * A2_sum  # the closed forms' A2 = E_mix[w^2] / D^2 is L E sum_j a_j^2 at leading order

    def perp(x):
        """``psi_perp / (2 beta w / D)`` at the mean field (the delta-method influence)."""
        xf = np.sum(x * f[..., None, None, :], axis=-1)
        dx = x - f[..., None, None, :]
        psi = (x * xf[..., None] - Mf[..., None, None, :]
               + np.einsum("...ij,...abj->...abi", M, dx) - f2[..., None, None, None] * dx
               - 2.0 * np.sum(f[..., None, None, :] * dx, axis=-1)[..., None] * f[..., None, None, :])
        return np.sum(psi * ep[..., None, None, :], axis=-1)

    Vo = np.zeros(rho.shape)
    Vp = np.zeros(rho.shape)
    kinds = {}
    for part, x2, a2, w2, x1, a1, w1 in cache:
        kind, weight = part[0], part[1]
        # out of plane
        h = np.sum(x2 * f[..., None, None, :], axis=-1) - f2[..., None, None]
        co = h + s2 + m * s2 * (a2 - A2_sum[..., None, None])
        Vo += weight * np.sum(w2 * co * co, axis=(-2, -1))
        # in plane
        u2 = np.sum((x2 - f[..., None, None, :]) * ep[..., None, None, :], axis=-1)
        p2 = perp(x2) + m * s2 * a2 * u2
        u1 = np.sum((x1 - f[..., None, None, :]) * ep[..., None, None, :], axis=-1)
        p1 = perp(x1) + m * s2 * a1 * u1
        second = np.sum(w2 * (p2 * p2 + m * s2 * s2 * A2_sum[..., None, None] * u2 * u2), axis=(-2, -1))
        first = np.sum(w1 * p1, axis=(-2, -1))
        acc = kinds.setdefault(kind, [0.0, 0.0, 0.0])
        acc[0] += weight * second
        acc[1] += weight * first
        acc[2] += weight
    for second, first, weight in kinds.values():
        # weight * Var_kind(a psi): E_kind = (sum over the kind's components) / weight
        Vp = Vp + (second - first * first / weight)
    Vo = 4.0 * beta**2 * s2 * L * L * Vo
    Vp = 4.0 * beta**2 * L * L * Vp
    return TokenMoments(rho, Vo, Vp, A2, f)


def expansion_parameters(model: Model, rho, L) -> dict:
    """The small parameters of the large-``L`` expansion at ``rho`` (float arrays).

    ``concentration``: ``A2 / L = E_mix[w^2] / (L D^2)``, the relative variance of the
    normaliser; the self-normalised moments are accurate while it is small.
    ``saturation_k`` (``k = 2, 3``): ``k E_mix[w^{k+1}] / (L D E_mix[w^k])``, the first
    neglected relative term of ``E sum a^k`` in the closed forms (what the self-normalised
    weights correct).
    """
    rho = np.asarray(rho, dtype=float)
    comps = _components(model)
    beta = model.beta
    rp = np.sqrt(np.clip(1.0 - rho * rho, 0.0, None))

    def log_moment(k):
        terms = []
        for _, weight, mu1, v1 in comps:
            qm = rho * mu1
            sy2 = rho * rho * v1 + rp * rp * model.sigma2
            terms.append(math.log(weight) + k * beta * qm + 0.5 * k * k * beta**2 * sy2)
        return np.logaddexp.reduce(np.stack(terms), axis=0)

    lm = {k: log_moment(k) for k in range(1, 5)}
    out = {"concentration": np.exp(lm[2] - 2 * lm[1]) / L}
    for k in (2, 3):
        out[f"saturation_{k}"] = k * np.exp(lm[k + 1] - lm[k] - lm[1]) / L
    return out

