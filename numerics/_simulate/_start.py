"""The start law: ``rho0 = <q0, xi>`` for ``q0`` uniform on the sphere ``S^{d-1}``.

The first coordinate ``u_1`` of a uniform unit vector has density proportional to
``(1 - u^2)^((d-3)/2)`` on ``[-1, 1]``, i.e. ``(1 + u_1) / 2 ~ Beta((d-1)/2, (d-1)/2)``:
``rho0 = 2 Beta((d-1)/2, (d-1)/2) - 1``. For ``d = 2`` this is the arcsine law of
``cos(phi)``, ``phi`` uniform; for ``d = 3`` it is uniform on ``[-1, 1]``.

Every sampler of uniform starts (the simulators' per-run streams, the diffusion paths,
the planner's check) and every use of its distribution function (the planner's
starts, the basin measure ``P(rho0 < rho*) = I_{(1+rho*)/2}((d-1)/2, (d-1)/2)``) goes
through :func:`start_law`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import beta as beta_law

from ...core.validate import integer


@dataclass(frozen=True)
class StartLaw:
    """The law of ``rho0 = <q0, xi>``, ``q0`` uniform on ``S^{d-1}``.

    Attributes
    ----------
    d : int
        Dimension (``>= 2``).
    shape : float
        ``(d - 1) / 2``, both parameters of the Beta law of ``(1 + rho0) / 2``.
    """

    d: int
    shape: float

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` starts from one generator (one Beta draw of size ``n``)."""
        return 2.0 * rng.beta(self.shape, self.shape, size=n) - 1.0

    def sample_each(self, generators) -> np.ndarray:
        """One start per generator, each the first (scalar) Beta draw of its own stream."""
        return np.array([2.0 * g.beta(self.shape, self.shape) - 1.0 for g in generators])

    def starts(self, rng: np.random.Generator, n: int, rho0=None) -> np.ndarray:
        """``n`` starts: ``rho0`` for every one (no draw), else :meth:`sample`."""
        return self.sample(rng, n) if rho0 is None else np.full(n, float(rho0))

    def cdf(self, rho):
        """``P(rho0 <= rho) = I_{(1+rho)/2}((d-1)/2, (d-1)/2)`` (the basin measure of
        ``rho0 < rho*`` at an interior equilibrium ``rho*``)."""
        return beta_law.cdf((1 + rho) / 2, self.shape, self.shape)

    def quantile(self, q):
        """The inverse of :meth:`cdf`: ``2 I^{-1}_q((d-1)/2, (d-1)/2) - 1``."""
        return 2.0 * beta_law.ppf(q, self.shape, self.shape) - 1.0


def start_law(d: int) -> StartLaw:
    """The law of ``<q0, xi>`` for ``q0`` uniform on ``S^{d-1}`` (``d >= 2``)."""
    d = integer("d", d, 2)
    return StartLaw(d, (d - 1) / 2)
