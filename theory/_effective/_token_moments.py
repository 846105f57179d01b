r"""Exact expectations of the token features of one finite-``L`` gradient (the control variate of
``finite_size.rate``, docs/design.md section 3).

Claim. In the exact reduced chain (:mod:`sigrec.numerics`, docs/design.md section 2) a token at
alignment ``rho`` is ``c1 = mu + sigma n1``, ``c2 = sigma n2`` (in-plane) and ``n3`` (the
out-of-plane direction), with ``mu = theta s`` (``s`` from the prior) for an informative token and
``mu = 0`` for a nuisance token, ``n1, n2, n3 ~ N(0, 1)`` independent. Its score is
``u = beta (rho c1 + rho_perp c2) = beta rho mu + lam w``, ``lam = beta sigma``,
``w = rho n1 + rho_perp n2 ~ N(0, 1)``. The projected gradient is a smooth function of the token
averages of ``e^u V V^T`` and ``e^{2u} V`` (``V = (1, c1, c2[, n3])``) and of the chi-square
``chi`` (see :mod:`numerics._simulate._reduced`), so these averages, centred, are the features whose linear
span holds its linear influence term.

With the deterministic weights ``e1 = exp(u - k1)``, ``e2 = exp(2u - k2)``,

    k1 = log M(t1) + lam^2 / 2,      k2 = log M(t2) + 2 lam^2,     t_j = j beta rho theta,

(``M`` the prior's moment generating function; ``M = 1`` for nuisance tokens), ``E e1 = E e2 = 1``,
and ``E[e_j phi] = E_j[phi]`` is the expectation under the tilted law: ``s`` from the tilted prior
``P_{t_j}(s) ∝ e^{t_j s} P(s)`` (mean ``mu1(t_j)``, variance ``v(t_j)``), ``w ~ N(j lam, 1)`` and
``(n1, n2) ~ N(j lam (rho, rho_perp), I)`` (Gaussian tilt: the mean moves along
``(rho, rho_perp)``, the covariance stays ``I``), ``n3 ~ N(0, 1)``. Hence, with
``a1 = j beta sigma2 rho``, ``a2 = j beta sigma2 rho_perp``, ``m = theta mu1(t_j)``,
``q = theta^2 (v(t_j) + mu1(t_j)^2)``:

    E_j[c1] = m + a1,            E_j[c2] = a2,           E_j[n3] = 0,
    E_j[c1^2] = q + 2 a1 m + a1^2 + sigma2,   E_j[c1 c2] = (m + a1) a2,   E_j[c2^2] = a2^2 + sigma2,
    E_j[c1 n3] = E_j[c2 n3] = 0,  E_j[n3^2] = 1,

and for nuisance tokens the same with ``m = q = 0``. ``E chi = d - 2``. Every expectation is exact
(closed form through the prior's tilted law, :meth:`theory.Prior.tilted`), per prior family.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.validate import instance, integer, real
from .._model import Model

#: the ``e1``-weighted features (upper triangle of ``V V^T``, ``V = (1, c1, c2, n3)``) and the
#: ``e2``-weighted ones (``V``); without an out-of-plane direction (``d = 2``) those with ``n3`` drop
E1_FEATURES = ("1", "c1", "c2", "n3", "c1^2", "c1 c2", "c1 n3", "c2^2", "c2 n3", "n3^2")
E2_FEATURES = ("1", "c1", "c2", "n3")


@dataclass(frozen=True)
class TokenFeatureMeans:
    """Exact means of the token features at alignment ``rho`` (see the module docstring).

    ``signal`` / ``noise``: the means, in the order of :attr:`names`, of one informative /
    nuisance token's features ``e1 phi`` (``phi`` in :data:`E1_FEATURES`) then ``e2 phi``
    (:data:`E2_FEATURES`); ``log_scale_signal`` / ``log_scale_noise``: ``(k1, k2)``, the
    deterministic log-weights; ``chi_mean``: ``E chi = d - 2``.
    """

    rho: float
    d: int
    names: tuple
    signal: np.ndarray
    noise: np.ndarray
    log_scale_signal: tuple
    log_scale_noise: tuple
    chi_mean: float


def _tilted_means(j, m, q, beta, sigma2, rho, out_of_plane):
    """``E_j[V V^T]`` upper triangle (``j = 1``) or ``E_j[V]`` (``j = 2``) for ``m = E mu``,
    ``q = E mu^2`` under the tilted prior (module docstring)."""
    rho_perp = np.sqrt(max(0.0, 1.0 - rho * rho))
    a1, a2 = j * beta * sigma2 * rho, j * beta * sigma2 * rho_perp
    first = {"1": 1.0, "c1": m + a1, "c2": a2, "n3": 0.0}
    names: tuple[str, ...]
    if j == 2:
        vals = first
        names = E2_FEATURES
    else:
        vals = dict(first, **{"c1^2": q + 2 * a1 * m + a1 * a1 + sigma2, "c1 c2": (m + a1) * a2,
                              "c1 n3": 0.0, "c2^2": a2 * a2 + sigma2, "c2 n3": 0.0, "n3^2": 1.0})
        names = E1_FEATURES
    keep = [n for n in names if out_of_plane or "n3" not in n]
    return keep, [vals[n] for n in keep]


def token_feature_means(model: Model, rho: float, d: int) -> TokenFeatureMeans:
    """Exact means of the token features of the reduced chain at alignment ``rho`` in dimension ``d``.

    Parameters
    ----------
    model : Model
        ``theta``, ``beta``, ``sigma2`` and the prior (``alpha`` does not enter a token's law).
    rho : float
        Alignment in ``[-1, 1]``.
    d : int
        Dimension ``>= 2`` (``d = 2`` has no out-of-plane coordinate ``n3``).

    Returns
    -------
    TokenFeatureMeans
        The means ``E[e_j phi]`` (``= 1`` for ``phi = 1``) per token kind, the log-weights
        ``k_j`` that make them ``O(1)``, and ``E chi = d - 2``.
    """
    instance("model", model, Model)
    rho = real("rho", rho, lower=-1.0, upper=1.0)
    d = integer("d", d, 2)
    theta, beta, sigma2 = float(model.theta), float(model.beta), float(model.sigma2)
    lam2 = beta * beta * sigma2
    out = d > 2
    names, signal, noise, ks, kn = [], [], [], [], []
    for j in (1, 2):
        t = j * beta * rho * theta
        logM, mu1, v = (float(x) for x in model.prior.tilted(np.array(t)))
        m, q = theta * mu1, theta * theta * (v + mu1 * mu1)
        keep, sig = _tilted_means(j, m, q, beta, sigma2, rho, out)
        _, noi = _tilted_means(j, 0.0, 0.0, beta, sigma2, rho, out)
        names += [f"e{j} {n}" if n != "1" else f"e{j}" for n in keep]
        signal += sig
        noise += noi
        ks.append(logM + j * j * lam2 / 2)
        kn.append(j * j * lam2 / 2)
    return TokenFeatureMeans(rho=rho, d=d, names=tuple(names), signal=np.array(signal), noise=np.array(noise),
                             log_scale_signal=tuple(ks), log_scale_noise=tuple(kn), chi_mean=float(d - 2))
