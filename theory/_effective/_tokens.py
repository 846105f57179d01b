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
``beta = 1`` the same parameters are ``0.005`` and ``0.03``: there the closed forms suffice.

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


@dataclass(frozen=True)
class _Component:
    """One Gaussian component of the token law: its ``kind`` (``"informative"`` or
    ``"nuisance"``), its share ``weight`` of the tokens, and its ``mean`` and ``variance`` along
    ``xi`` (the variance along ``e2`` is ``sigma2`` for every component)."""

    kind: str
    weight: float
    mean: float
    variance: float


def _components(model: Model) -> list[_Component]:
    """The components of the token law that carry tokens (positive weight)."""
    theta, alpha, s2 = model.theta, model.alpha, model.sigma2
    prior = parse_prior(model.prior)
    out = []
    if prior.support is None:  # gaussian(mu, tau)
        out.append(_Component("informative", alpha, theta * float(prior.mu), s2 + theta**2 * float(prior.tau) ** 2))
    else:
        out += [_Component("informative", alpha * float(q), theta * float(v), s2) for v, q in prior.support]
    out.append(_Component("nuisance", 1.0 - alpha, 0.0, s2))
    return [c for c in out if c.weight > 0]


@dataclass(frozen=True)
class _ScoreFrame:
    """A component seen from the query ``q`` at the alignments ``rho`` (exact Gaussian pieces).

    ``mean`` and ``cov`` are ``mu`` and the diagonal of ``Sigma`` on ``(xi, e2)``; the score
    ``y = <q, x>`` has mean ``score_mean = q^T mu`` and variance ``score_var = q^T Sigma q``;
    ``cov_q = Sigma q``; ``log_mean_weight = log E w``; given ``y``, ``x = mu + cov_q (y - score_mean)
    / score_var + residual r`` with ``r ~ N(0, 1)``.
    """

    component: _Component
    mean: np.ndarray
    cov: np.ndarray
    score_mean: np.ndarray
    cov_q: np.ndarray
    score_var: np.ndarray
    log_mean_weight: np.ndarray
    residual: np.ndarray


@dataclass(frozen=True)
class _Nodes:
    """Quadrature of one component under the ``w^k`` tilt: the points ``x`` (..., ny, nr, 2),
    the weights ``a(w)`` there (..., ny, 1) and the quadrature weights of ``E[a^k (.)]`` (..., ny, nr)."""

    x: np.ndarray
    a: np.ndarray
    weights: np.ndarray


@dataclass
class _KindSums:
    """Running sums over the components of one token kind, for its variance of ``a psi``:
    ``second`` of ``weight E[a^2 psi^2]``, ``first`` of ``weight E[a psi]``, and ``weight``."""

    second: np.ndarray | float = 0.0
    first: np.ndarray | float = 0.0
    weight: float = 0.0

    def add(self, weight: float, second: np.ndarray, first: np.ndarray) -> None:
        self.second += weight * second
        self.first += weight * first
        self.weight += weight


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


@dataclass(frozen=True)
class _MeanField:
    """The mean field at the alignments: ``f = E_mix[w x] / D`` and ``M = E_mix[w x x^T] / D``
    (exact tilted Gaussian moments), with ``f2 = |f|^2`` and ``Mf = M f``."""

    f: np.ndarray
    M: np.ndarray
    f2: np.ndarray
    Mf: np.ndarray


def _score_frame(comp: _Component, q: np.ndarray, ep: np.ndarray, beta: float, s2: float) -> _ScoreFrame:
    """The exact Gaussian pieces of ``comp`` seen from ``q``: score law, tilt factor, conditional frame."""
    mu = np.array([comp.mean, 0.0])
    Sig = np.array([comp.variance, s2])
    qm = q @ mu  # (...,)
    Sq = q * Sig  # Sigma q, (..., 2)
    sy2 = np.sum(q * Sq, axis=-1)  # q^T Sigma q
    logw1 = beta * qm + 0.5 * beta**2 * sy2  # log E w
    # x | y = mu + Sq (y - qm) / sy2 + c r, r ~ N(0, 1): the residual covariance
    # Sigma - Sq Sq^T / sy2 annihilates q, so it is lam e e^T with e = e_perp
    eS = ep * Sig
    lam = np.sum(ep * eS, axis=-1) - np.sum(eS * q, axis=-1) ** 2 / sy2
    c = np.sqrt(np.clip(lam, 0.0, None))[..., None] * ep
    return _ScoreFrame(component=comp, mean=mu, cov=Sig, score_mean=qm, cov_q=Sq, score_var=sy2,
                       log_mean_weight=logw1, residual=c)


def _mean_field(parts: list[_ScoreFrame], logD: np.ndarray, beta: float, shape: tuple[int, ...]) -> _MeanField:
    """``f`` and ``M`` as the mixture of the components' tilted Gaussian moments."""
    f = np.zeros((*shape, 2))
    M = np.zeros((*shape, 2, 2))
    for part in parts:
        share = part.component.weight * np.exp(part.log_mean_weight - logD)
        mt = part.mean + beta * part.cov_q
        f += share[..., None] * mt
        M += share[..., None, None] * (np.diag(part.cov) + mt[..., :, None] * mt[..., None, :])
    return _MeanField(f=f, M=M, f2=np.sum(f * f, axis=-1), Mf=np.einsum("...ij,...j->...i", M, f))


def _tilted_nodes(part: _ScoreFrame, k: int, beta: float, log_LD: np.ndarray, saturate: bool) -> _Nodes:
    """The quadrature of ``part`` under the ``w^k`` tilt (``log_LD = log(L D)``)."""
    zy, wy = _hermite(_NODES_SCORE)
    zr, wr = _hermite(_NODES_ORTH)
    mu, qm, Sq, sy2, c = part.mean, part.score_mean, part.cov_q, part.score_var, part.residual
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
    return _Nodes(x=x, a=a[..., None], weights=wts)


def _perp(x: np.ndarray, mf: _MeanField, ep: np.ndarray) -> np.ndarray:
    """``psi_perp / (2 beta w / D)`` at the mean field (the delta-method influence) at the points ``x``."""
    f, M, f2, Mf = mf.f, mf.M, mf.f2, mf.Mf
    xf = np.sum(x * f[..., None, None, :], axis=-1)
    dx = x - f[..., None, None, :]
    psi = (x * xf[..., None] - Mf[..., None, None, :]
           + np.einsum("...ij,...abj->...abi", M, dx) - f2[..., None, None, None] * dx
           - 2.0 * np.sum(f[..., None, None, :] * dx, axis=-1)[..., None] * f[..., None, None, :])
    return np.sum(psi * ep[..., None, None, :], axis=-1)


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
    parts = [_score_frame(comp, q, ep, beta, s2) for comp in _components(model)]
    logD = np.logaddexp.reduce(np.stack([math.log(p.component.weight) + p.log_mean_weight for p in parts]), axis=0)
    log_LD = math.log(L) + logD
    mf = _mean_field(parts, logD, beta, rho.shape)
    f = mf.f

    mean_a2 = np.zeros(rho.shape)  # E_mix[a^2]
    tilted = []  # (part, its nodes under the w^2 tilt, under the w tilt)
    for part in parts:
        t2, t1 = _tilted_nodes(part, 2, beta, log_LD, saturate), _tilted_nodes(part, 1, beta, log_LD, saturate)
        mean_a2 += part.component.weight * np.sum(t2.weights, axis=(-2, -1))
        tilted.append((part, t2, t1))
    sum_a2 = L * mean_a2  # E sum_j a_j^2 = L E_mix[a^2]
    weight_square = L * sum_a2  # the closed forms' A2 = E_mix[w^2] / D^2 is L E sum_j a_j^2 at leading order

    Vo = np.zeros(rho.shape)
    Vp = np.zeros(rho.shape)
    kinds: dict[str, _KindSums] = {}
    for part, t2, t1 in tilted:
        weight = part.component.weight
        # out of plane
        h = np.sum(t2.x * f[..., None, None, :], axis=-1) - mf.f2[..., None, None]
        co = h + s2 + m * s2 * (t2.a - sum_a2[..., None, None])
        Vo += weight * np.sum(t2.weights * co * co, axis=(-2, -1))
        # in plane
        u2 = np.sum((t2.x - f[..., None, None, :]) * ep[..., None, None, :], axis=-1)
        p2 = _perp(t2.x, mf, ep) + m * s2 * t2.a * u2
        u1 = np.sum((t1.x - f[..., None, None, :]) * ep[..., None, None, :], axis=-1)
        p1 = _perp(t1.x, mf, ep) + m * s2 * t1.a * u1
        second = np.sum(t2.weights * (p2 * p2 + m * s2 * s2 * sum_a2[..., None, None] * u2 * u2), axis=(-2, -1))
        first = np.sum(t1.weights * p1, axis=(-2, -1))
        kinds.setdefault(part.component.kind, _KindSums()).add(weight, second, first)
    for sums in kinds.values():
        # weight * Var_kind(a psi): E_kind = (sum over the kind's components) / weight
        Vp = Vp + (sums.second - sums.first * sums.first / sums.weight)
    Vo = 4.0 * beta**2 * s2 * L * L * Vo
    Vp = 4.0 * beta**2 * L * L * Vp
    return TokenMoments(rho=rho, out_of_plane_variance=Vo, in_plane_variance=Vp, weight_square=weight_square, pooled=f)


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
        for comp in comps:
            qm = rho * comp.mean
            sy2 = rho * rho * comp.variance + rp * rp * model.sigma2
            terms.append(math.log(comp.weight) + k * beta * qm + 0.5 * k * k * beta**2 * sy2)
        return np.logaddexp.reduce(np.stack(terms), axis=0)

    lm = {k: log_moment(k) for k in range(1, 5)}
    out = {"concentration": np.exp(lm[2] - 2 * lm[1]) / L}
    for k in (2, 3):
        out[f"saturation_{k}"] = k * np.exp(lm[k + 1] - lm[k] - lm[1]) / L
    return out

