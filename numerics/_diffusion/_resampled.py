"""The measured chain: paths that step by the exact step's own draws, not by a Gaussian.

Outside the expansion's validity a step can move ``rho`` by a large, skewed amount
(``eta^2 E|P g|^2`` of 1 or more): a diffusion with the right drift and variance then still has
the wrong law of increments, and it reaches ``|rho| >= 0.99`` by Gaussian kicks the normalised
step cannot make (``theta = 1``, ``beta = 2``, ``L = 1000``, ``eta_k = 0.5 / (k + 10)^0.75`` from
``rho0 = 0.3``: a median passage of 45 steps where fewer than 10% of the exact chain's runs pass
within 400).

:class:`ResampledTables` keeps, at each alignment ``r_i`` of a measured law's grid, the draws
``(c, G)`` of the exact step (:class:`numerics._gradient._influence.StepFeatures`: the in-plane
coefficient and the out-of-plane norm of ``P_q g``, which fix the transition for *any* step).
A path at ``rho`` in ``[r_i, r_{i+1}]`` takes the draws of ``r_{i+1}`` with probability
``(rho - r_i) / (r_{i+1} - r_i)`` and of ``r_i`` otherwise (so every moment of the increment is
interpolated linearly between the grid points, as the tables interpolate the drift), picks one
draw uniformly, and moves by the exact transition :func:`numerics._simulate._reduced.step_update`
from its own ``rho`` at its own step ``eta_k``: no Gaussian, no expansion in ``eta``, a decaying
schedule included. Beyond the grid's ends the end point's draws are used. At each point the
draws' ``c`` is shifted by ``(drift - plain drift) / rho_perp`` so that the mean increment is the
control-variate estimate of the law (:mod:`._measured`) rather than the plain mean of the draws
(first order in the shift; exact for the step's linear part).

The lookup columns (``A``, ``B``, ``Sigma``) are those of the measured law's moments
(:meth:`MeasuredLaw.tables`), for what reads the drift rather than stepping (the plateau, the
refusals, the splitting probability's scale function).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._simulate._reduced import step_update
from ._tables import DiffusionTables


@dataclass(frozen=True)
class ResampledTables(DiffusionTables):
    """Diffusion tables whose paths step by resampled exact draws (module docstring).

    Attributes
    ----------
    points : ndarray, shape (n,)
        The measured law's grid.
    c, G : ndarray, shape (n, m)
        The draws at each point, padded to the largest count ``m``.
    counts : ndarray of int, shape (n,)
    shift : ndarray, shape (n,)
        Added to ``c`` at each point (the control variate's correction of the mean).
    """

    points: np.ndarray = field(default_factory=lambda: np.zeros(2), repr=False)
    c: np.ndarray = field(default_factory=lambda: np.zeros((2, 1)), repr=False)
    G: np.ndarray = field(default_factory=lambda: np.zeros((2, 1)), repr=False)
    counts: np.ndarray = field(default_factory=lambda: np.ones(2, dtype=np.int64), repr=False)
    shift: np.ndarray = field(default_factory=lambda: np.zeros(2), repr=False)

    def advance(self, rho: np.ndarray, eta: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One exact step of the paths ``rho`` (shape ``(S, runs)``) at the steps ``eta``
        (``(S, 1)``), by a resampled draw of the neighbouring grid points (module docstring)."""
        p = self.points
        i = np.clip(np.searchsorted(p, rho, side="right") - 1, 0, p.size - 2)
        w = np.clip((rho - p[i]) / (p[i + 1] - p[i]), 0.0, 1.0)
        at = i + (rng.random(rho.shape) < w)
        j = (rng.random(rho.shape) * self.counts[at]).astype(np.int64)
        rho_perp = np.sqrt(np.maximum(0.0, 1.0 - rho * rho))
        new, _ = step_update(rho, rho_perp, self.c[at, j] + self.shift[at], self.G[at, j], eta)
        return new
