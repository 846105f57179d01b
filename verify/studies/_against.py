"""A simulation set against the limit theory of its model: the one comparison both the
reproduction (a configuration) and a sweep (a cell) make."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...numerics import Simulation, basins, flow_map
from ...theory import Certificate, certify, evaluate


@dataclass(frozen=True)
class AgainstTheory:
    """What the limit theory says about the runs of one simulation.

    Attributes
    ----------
    certificate : Certificate
        The certified landscape of the model.
    flow : ndarray, shape (runs, times)
        The plain ODE from each run's own start, on the recursion's time axis
        (``times`` of :func:`against_theory`).
    limits : ndarray, shape (runs,)
        The ODE limit (a pole or an equilibrium) of each run's start.
    nuisance_final : float
        Measured attention mass on nuisance tokens at the last step, mean over runs.
    nuisance_limit : float
        The limit nuisance mass at each run's final ``rho``, mean over runs.
    """

    certificate: Certificate
    flow: np.ndarray
    limits: np.ndarray
    nuisance_final: float
    nuisance_limit: float

    @property
    def equilibria(self) -> list[float]:
        return list(self.certificate.midpoints)

    def basin_agreement(self, final_rho) -> float:
        """Fraction of runs that end on the side of their start's ODE limit."""
        return float(np.mean(np.sign(final_rho) == np.sign(self.limits)))


def against_theory(sim: Simulation, *, last_only: bool = False) -> AgainstTheory:
    """Compare ``sim`` with the limit theory of ``sim.problem.model``.

    ``last_only``: the ODE flow only at the last recorded time (a sweep cell) instead
    of on every recorded time (the reproduction's curves).
    """
    model = sim.problem.model
    cert = certify(model, engine="scalar")
    eq = list(cert.midpoints)
    times = sim.times[-1:] if last_only else sim.times
    flow = flow_map(model, sim.initial_rho[:, None], times[None, :], equilibria=eq).rho
    limits = basins(model, sim.initial_rho, equilibria=eq).limit
    return AgainstTheory(cert, flow, limits, float(sim.noise_mass[:, -1, 0].mean()),
                         float(evaluate(model, np.clip(sim.final_rho, -1, 1), engine="scalar").noise_mass.mean()))
