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

import math
from dataclasses import dataclass

import numpy as np

from ...theory import token_feature_means
from .._cost import add_token_steps
from .._simulate._driver import Problem
from .._simulate._fused import FusedReducedKernel
from .._simulate._reduced import ReducedKernel, StepScalars, step_update
from ._features import group_features


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
    add_token_steps("gradient_features", runs * p.L * B)
    return x, h / B, names


@dataclass(frozen=True)
class StepFeatures:
    """One exact step's gradient and its centred token features, for every step size at once.

    ``c`` (runs,) is the in-plane coefficient of ``P_q g`` (``<P_q g, xi> = rho_perp c``), ``G``
    (runs,) the squared norm of its out-of-plane part: together they fix the exact transition for
    any ``eta`` (:func:`.._simulate._reduced.step_update`), so one set of token collections gives
    the one-step law at every step. ``h`` (runs, K) are the features of :func:`gradient_features`
    minus their exact means (``E h = 0``), ``names`` their names.
    """

    rho: float
    c: np.ndarray
    G: np.ndarray
    h: np.ndarray
    names: tuple

    def increment(self, eta: float) -> np.ndarray:
        """``(rho' - rho) / eta`` of each collection after one step ``eta > 0`` (exact)."""
        rho = self.rho
        rho_perp = math.sqrt(max(0.0, 1.0 - rho * rho))
        new, _ = step_update(rho, rho_perp, self.c, self.G, eta)
        return (new - rho) / eta


#: at d = 2 the features without ``n3`` (of :func:`._features.group_features`'s 14, fed ``n3 = 0``)
_PLANAR = np.array([0, 1, 2, 4, 5, 7, 10, 11, 12])


class _FeatureKernel(FusedReducedKernel):
    """The compiled reduced kernel that also averages each run's token features over its batch
    members (:mod:`._features`), from the draws it leaves in its buffer."""

    def __init__(self, problem, generators, rho: float, means):
        super().__init__(problem, generators, np.full(len(generators), float(rho)))
        self.means = means
        self._scales = (tuple(means.log_scale_signal), tuple(means.log_scale_noise))
        self._groups = [(slice(lo, hi), g) for g, (lo, hi) in enumerate(((0, problem.R), (problem.R, problem.L)))
                        if hi > lo]
        k = len(means.names)
        self.features = np.zeros((len(generators), k * len(self._groups) + (self.n_out >= 1)))
        self._zeros = np.zeros(problem.L)  # n3 at d = 2, and ``add`` where it is not read

    def _run(self, i: int, gen, first: bool, coef) -> StepScalars:
        out = super()._run(i, gen, first, coef)
        tok, row, k = self._tok, self.features[i], len(self.means.names)
        n3 = tok[2] if self.rows == 3 else self._zeros
        score = (self._sigma, *(float(v) for v in coef))
        buf = np.empty(14)
        for j, (cut, g) in enumerate(self._groups):
            add, has_add = (self.last_add, True) if g == 0 and self.problem.theta else (self._zeros, False)
            group_features((tok[0, cut], tok[1, cut], n3[cut]), add, has_add, score, self._scales[g], buf)
            row[j * k:(j + 1) * k] += buf if self.rows == 3 else buf[_PLANAR]
        if self.n_out >= 1:
            row[-1] += out.chi / self.means.chi_mean
        return out


def step_features(problem: Problem, rho: float, generators) -> StepFeatures:
    """One exact step from ``rho`` per generator, with its centred token features (:class:`StepFeatures`).

    The draws are those of :class:`.._simulate._fused.FusedReducedKernel` (the simulator's, in its
    order: one step of :func:`numerics.simulate` from ``rho`` with the same generators is the
    same step, to rounding); the features are those of :func:`gradient_features`, summed in a
    compiled pass (:mod:`._features`).
    """
    p = problem
    means = token_feature_means(p.model, rho, p.d)
    kernel = _FeatureKernel(p, list(generators), rho, means)
    g1, g2, G, _, _ = kernel.gradient()
    rho_perp = float(np.sqrt(max(0.0, 1.0 - rho * rho)))
    c = rho_perp * g1 - rho * g2
    parts = [means.signal if g == 0 else means.noise for _, g in kernel._groups]
    centre = np.concatenate(parts + ([np.ones(1)] if kernel.n_out >= 1 else []))
    h = kernel.features / p.batch - centre
    return StepFeatures(rho=float(rho), c=c, G=G, h=h, names=feature_names(p))


def feature_names(problem: Problem) -> tuple:
    """The names of :func:`step_features`'s features for ``problem``, in their order."""
    names = token_feature_means(problem.model, 0.0, problem.d).names
    kinds = [k for k, n in (("signal", problem.R), ("noise", problem.L - problem.R)) if n > 0]
    return tuple(f"{k}:{n}" for k in kinds for n in names) + (("chi",) if problem.d > 2 else ())
