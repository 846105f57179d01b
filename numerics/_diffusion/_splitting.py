r"""The splitting probability ``P(+xi | rho0)`` from the scale function (no simulation)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import cumulative_trapezoid

from ...core.validate import instance, real
from .._ode import find_equilibria
from .._schedule import Schedule
from .._simulate._driver import Problem
from ._tables import DiffusionTables, diffusion_tables

#: largest ``eta F'(rho*)`` at which the scale function predicts a constant-step chain: one step
#: multiplies ``rho - rho*`` by ``1 + eta F'`` where the diffusion has ``exp(eta F')``, a difference
#: below 0.5% here (at ``eta F' = 0.48`` a chain went to ``+xi`` in 0.876 of runs, 99% interval
#: [0.843, 0.903], against the scale function's 0.841; at 0.12 and 0.24 they agreed)
SPLIT_GROWTH = 0.1


@dataclass(frozen=True)
class Splitting:
    """Probability of ending at ``+xi`` from the scale function of the diffusion.

    Attributes
    ----------
    rho0 : float
    probability : float
        ``P(+xi | rho0)``.
    unstable : float
        The interior unstable equilibrium ``rho*`` of ``F`` used as the reference point.
    rate : float
        ``lambda = F'(rho*) > 0``.
    eta_effective : float
        The constant step used in the scale function (see :func:`splitting_probability`).
    a, b : float
        Absorbing levels of the boundary-value problem.
    gaussian : float
        The linearised value ``Phi((rho0 - rho*) sqrt(2 lambda / (eta Sigma(rho*))))``.
    """

    rho0: float
    probability: float
    unstable: float
    rate: float
    eta_effective: float
    a: float
    b: float
    gaussian: float


def effective_step(schedule: Schedule, rate: float) -> float:
    """``eta_eff = 2 lambda int_0^inf exp(-2 lambda t) eta(t) dt`` on the ODE time axis.

    Near an unstable equilibrium ``y = rho - rho*`` obeys ``dy = lambda y dt +
    sqrt(eta(t) Sigma) dW``; ``y e^{-lambda t}`` tends to a Gaussian with mean ``y0`` and
    variance ``Sigma int_0^inf e^{-2 lambda t} eta(t) dt``, which equals the constant-step
    value ``eta Sigma / (2 lambda)`` with ``eta = eta_eff``. Here ``eta(t)`` is the
    schedule read on ``t_k`` (``eta(t) = eta0 / (k(t) + k0)^p`` with ``k(t)`` the
    continuous inverse of ``t_k``).
    """
    if schedule.power == 0.0:
        return schedule.eta0
    horizon = 40.0 / (2 * rate)
    # enough steps to cover the horizon on the ODE time axis
    n = 1000
    while schedule.times(n)[-1] < horizon and n < 10_000_000:
        n *= 4
    t = schedule.times(n)
    eta = schedule.eta(np.arange(n + 1))
    w = np.exp(-2 * rate * t)
    return float(2 * rate * np.trapezoid(w * eta, t))


def splitting_probability(problem: Problem, schedule: Schedule, rho0: float, *, variance_scale: float = 1.0,
                          tables: DiffusionTables | None = None, points: int = 20_001) -> Splitting:
    r"""``P(+xi | rho0) = int_a^rho0 s / int_a^b s``, ``s = exp(-int 2 F_eta / (eta Sigma))``.

    The scale function of docs/design.md section 1.1 at the constant step
    ``eta_eff`` of :func:`effective_step` (exact for a constant step; for a decaying
    schedule it is the step that gives the same escape law from the linearised
    equilibrium, where the sign is decided). The absorbing levels are the midpoints
    between ``rho*`` and the poles, ``a = (rho* - 1)/2``, ``b = (rho* + 1)/2``; the
    integrand ``s`` is negligible there (the barrier ``int 2 F/(eta Sigma)`` is many
    units), so the result does not depend on them.

    ``ValueError`` if ``F`` has no unstable interior equilibrium (the model is monotone).
    """
    instance("schedule", schedule, Schedule)
    rho0 = real("rho0", rho0, lower=-1.0, upper=1.0)
    eq = find_equilibria(problem.model)
    unstable = [float(p) for p, stable in zip(eq.points, eq.stable, strict=True) if not stable and abs(p) < 1]
    if not unstable:
        raise ValueError("the model has no unstable interior equilibrium: every start ends at +xi "
                         "(splitting applies to bistable models)")
    rs = min(unstable, key=lambda p: abs(p - rho0))
    tab = tables or diffusion_tables(problem, variance_scale=variance_scale)
    h = 1e-5
    rate = float((tab.lookup(np.array(rs + h))[0] - tab.lookup(np.array(rs - h))[0]) / (2 * h))
    if rate <= 0:
        raise ValueError(f"the interior equilibrium rho* = {rs:.6g} is not unstable (F' = {rate:.3g})")
    eta_eff = effective_step(schedule, rate)
    a, b = (rs - 1) / 2, (rs + 1) / 2
    if not a < rho0 < b:
        return Splitting(rho0, float(rho0 >= b), rs, rate, eta_eff, a, b, float(rho0 >= b))
    r = np.linspace(a, b, points)
    ratio = 2 * tab.drift(r, eta_eff) / (eta_eff * tab.variance(r))
    phi = cumulative_trapezoid(ratio, r, initial=0.0)
    phi -= np.interp(rs, r, phi)
    logs = -phi
    s = np.exp(logs - logs.max())
    cum = cumulative_trapezoid(s, r, initial=0.0)
    prob = float(np.interp(rho0, r, cum) / cum[-1])
    sig = float(tab.variance(np.array(rs)))
    z = (rho0 - rs) * math.sqrt(2 * rate / (eta_eff * sig))
    gauss = 0.5 * math.erfc(-z / math.sqrt(2))
    return Splitting(rho0, prob, rs, rate, eta_eff, a, b, gauss)
