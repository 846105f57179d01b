r"""The projected gradient at finite ``L`` with its centred token features (a control variate).

Claim. For one token collection of the exact reduced chain at alignment ``rho``
(:class:`._reduced.ReducedKernel`, the same draws, the same law), return

* ``x = <P_q g, xi> = rho_perp (rho_perp g1 - rho g2)`` exactly (the ``eta -> 0`` limit of
  ``(rho_1 - rho) / eta``; ``g`` the batch-averaged gradient), whose mean is the finite-size field;
* ``h``, the token features of :func:`theory.token_feature_means` averaged over the informative
  and over the nuisance tokens separately, and ``chi / (d - 2)``, each minus its exact mean, so
  that ``E h = 0`` exactly.

``x`` is a smooth function of these token averages and of ``chi``
(:mod:`._reduced`: ``f1 = A[c1]/A[1]``, ``S = f1^2 + f2^2 + sigma2 chi |a|^2``, ...), so its
first-order (linear influence) term is a linear combination of ``h``: ``x - c.h`` keeps the mean
of ``x`` for every fixed ``c`` and, at the regression ``c``, removes that term's variance. The
weights ``e_j = exp(j u - k_j)`` use the deterministic log-scales of the theory, never the
per-collection maximum (that would change the features' means).
"""

from __future__ import annotations

import numpy as np

from ...theory import token_feature_means
from .._simulate._driver import Problem
from .._simulate._reduced import ReducedKernel


def _group_features(W, u, lo, hi, k1, k2, rows):
    """Averages over tokens ``lo..hi-1`` of ``e1 V V^T`` (upper triangle) and ``e2 V``, shape (runs, K)."""
    V = np.concatenate([np.ones_like(W[:, :1, lo:hi]), W[:, :rows, lo:hi]], axis=1)  # (runs, 1 + rows, n)
    n = hi - lo
    e1 = np.exp(u[:, lo:hi] - k1)
    e2 = e1 * e1 * np.exp(2.0 * k1 - k2)  # exp(2u - k2)
    M = np.matmul(V * e1[:, None, :], np.swapaxes(V, 1, 2)) / n  # (runs, K, K)
    iu = np.triu_indices(V.shape[1])
    first = M[:, iu[0], iu[1]]
    second = np.matmul(V, e2[:, :, None])[:, :, 0] / n
    return np.concatenate([first, second], axis=1)


def gradient_features(problem: Problem, rho: float, generators) -> tuple[np.ndarray, np.ndarray, tuple]:
    """``x`` and the centred features ``h`` of one token collection per generator (module docstring).

    Parameters
    ----------
    problem : Problem
        The finite instance.
    rho : float
        The alignment of ``q``.
    generators : list of numpy Generator
        One per run; each draws its collection in :class:`._reduced.ReducedKernel`'s order.

    Returns
    -------
    x : ndarray, shape (runs,)
        ``<P_q g, xi>``.
    h : ndarray, shape (runs, K)
        The features minus their exact means (``E h = 0``).
    names : tuple of str
        The feature names (``signal:...``, ``noise:...``, ``chi``).
    """
    p = problem
    means = token_feature_means(p.model, rho, p.d)
    kernel = ReducedKernel(p, list(generators), np.full(len(generators), float(rho)))
    rows = kernel.rows
    rho_perp = float(np.sqrt(max(0.0, 1.0 - rho * rho)))
    groups = [(g, lo, hi) for g, lo, hi in (("signal", 0, p.R), ("noise", p.R, p.L)) if hi > lo]
    names = tuple(f"{g}:{n}" for g, _, _ in groups for n in means.names) + (("chi",) if rows == 3 else ())
    runs = len(generators)
    g1, g2, h = np.zeros(runs), np.zeros(runs), np.zeros((runs, len(names)))
    for b in range(p.batch):
        a1, a2, *_ = kernel._member(first=b == 0)
        W = kernel.work
        u = p.beta * (rho * W[:, 0] + rho_perp * W[:, 1])
        parts = []
        for g, lo, hi in groups:
            k1, k2 = means.log_scale_signal if g == "signal" else means.log_scale_noise
            mean = means.signal if g == "signal" else means.noise
            parts.append(_group_features(W, u, lo, hi, k1, k2, rows) - mean)
        if rows == 3:
            parts.append((kernel.chi[:, :1] / means.chi_mean) - 1.0)
        g1, g2, h = g1 + a1, g2 + a2, h + np.concatenate(parts, axis=1)
    B = p.batch
    x = rho_perp * (rho_perp * g1 / B - rho * g2 / B)
    return x, h / B, names
