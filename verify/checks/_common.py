"""Numerical helpers shared by the stochastic checks: one-step samples, rescaled
instances, log-log fits. Nothing here judges; the checks do."""

from __future__ import annotations

import math

import numpy as np

from ...numerics import Problem, Schedule, simulate
from ._context import derive_seed

#: normals per simulate() call in one-step sampling (memory bound of a chunk)
_CHUNK_NORMALS = 3_000_000


def loglog_fit(x, y, w=None) -> tuple[float, float, float]:
    """Weighted least squares of ``log y = a + p log x``; returns ``(p, se_p, a)``.

    ``w`` are weights (inverse variances of ``log y``); without them the standard
    error is the usual OLS one (``nan`` for two points).
    """
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    n = lx.size
    w = np.ones(n) if w is None else np.asarray(w, float)
    A = np.stack([np.ones(n), lx], axis=1)
    W = np.diag(w)
    cov = np.linalg.inv(A.T @ W @ A)
    a, p = cov @ A.T @ W @ ly
    if n > 2:
        resid = ly - a - p * lx
        scale = float(resid @ W @ resid) / (n - 2)
        se = math.sqrt(cov[1, 1] * scale) if w is None or np.all(w == 1) else math.sqrt(cov[1, 1] * max(scale, 1.0))
    else:
        se = math.sqrt(cov[1, 1]) if w is not None else float("nan")
    return float(p), float(se), float(a)


def order_se(x, q: float) -> float:
    """Standard error of the ``q``-quantile of ``x`` from the order statistics one binomial
    standard deviation either side of ``n q`` (half the width of that interval)."""
    srt = np.sort(np.asarray(x, float))
    n = srt.size
    half = math.sqrt(n * q * (1.0 - q))
    lo, hi = (int(np.clip(math.floor(n * q + s * half), 0, n - 1)) for s in (-1, 1))
    return float(srt[hi] - srt[lo]) / 2.0


def one_step(cfg: Problem, rho: float, n: int, seed: int, eta: float):
    """``n`` single steps of the exact reduced chain from alignment ``rho`` with step ``eta``.

    The token draws depend on ``(seed, n, cfg)`` only, not on ``eta``: two calls with
    the same seed and different steps see the same token collections (common random
    numbers), which is what the drag estimate and the increments share.

    Returns
    -------
    rho1 : ndarray, shape (n,)
        Alignment after the step.
    noise_mass : ndarray, shape (n,)
        Nuisance attention mass of the same token collections.
    """
    rho1, mass = [], []
    chunk = int(max(1, min(n, _CHUNK_NORMALS // (3 * cfg.L))))
    for i, lo in enumerate(range(0, n, chunk)):
        sim = simulate(cfg, Schedule.constant(eta), steps=1, runs=min(chunk, n - lo), rho0=rho,
                       seed=derive_seed(seed, "one-step", i))
        rho1.append(sim.rho[:, 1])
        mass.append(sim.noise_mass[:, 0, 0])
    return np.concatenate(rho1), np.concatenate(mass)


def one_step_increments(cfg: Problem, rho: float, n: int, seed: int, eta: float = 1e-7):
    """Samples of the projected stochastic gradient along ``xi`` at alignment ``rho``.

    One step with a tiny constant step ``eta`` (:func:`one_step`):
    ``rho_1 = (rho + eta X) / sqrt(1 + eta^2 |P g|^2)`` with ``X = <P_q g, xi>``, so
    ``(rho_1 - rho) / eta = X + O(eta |P g|^2)`` (``eta = 1e-7`` makes the remainder and
    the rounding ``~1e-9 / eta`` negligible against the effects measured).

    Returns ``(x, noise_mass)``, each of shape ``(n,)``; the mean of ``x`` tends to ``F(rho)``.
    """
    rho1, mass = one_step(cfg, rho, n, seed, eta)
    return (rho1 - rho) / eta, mass


def drag_second_moment(cfg: Problem, rho: float, n: int, seed: int) -> float:
    """Monte Carlo ``E|P g|^2`` at ``rho`` from the same draws as :func:`one_step_increments`.

    With ``X`` from a tiny step and ``rho_1`` from a unit step on the same token
    collections, ``rho_1 = (rho + X) / sqrt(1 + |P g|^2)`` gives
    ``|P g|^2 = ((rho + X) / rho_1)^2 - 1``.
    """
    x, _ = one_step_increments(cfg, rho, n, seed)
    rho1, _ = one_step(cfg, rho, n, seed, 1.0)
    return float(np.mean(((rho + x) / rho1) ** 2 - 1.0))


def scaled_problem(cfg: Problem, L: int, d: int | None = None) -> Problem:
    """``cfg`` with ``L`` tokens at (as nearly as integers allow) the same ``alpha``."""
    R = max(1, round(cfg.R * L / cfg.L)) if cfg.R else 0
    return Problem(theta=cfg.theta, R=min(R, L), L=L, d=cfg.d if d is None else d, beta=cfg.beta,
                   sigma2=cfg.sigma2, prior=cfg.prior, batch=cfg.batch)
