"""Mean and 10–90% band of ``rho_k`` under the diffusion (``sigrec predict``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.validate import instance, integer, real
from .._schedule import Schedule
from .._simulate._driver import Problem
from .._simulate._start import start_law
from ._paths import simulate_diffusion
from ._route import RoutedTables, routed
from ._tables import DiffusionTables, diffusion_tables

#: bootstrap replicates of a measured law behind a band's median range
REPLICATES = 8


@dataclass(frozen=True)
class Band:
    """Mean and 10/50/90% quantiles of ``rho_k`` under the diffusion, at recorded steps.

    Attributes
    ----------
    step : ndarray of int
    mean, q10, q50, q90 : ndarray
    runs : int
    method : str
    route : {"expansion", "measured"}
        Which law the diffusion ran on (:func:`numerics.route_tables`).
    median_range : (float, float) or None
        The measured route's Monte Carlo uncertainty: the lowest and highest last-step median over
        :data:`REPLICATES` bootstrap replicates of the measured law, on the same paths.
    """

    step: np.ndarray
    mean: np.ndarray
    q10: np.ndarray
    q50: np.ndarray
    q90: np.ndarray
    runs: int
    method: str
    route: str = "expansion"
    median_range: tuple[float, float] | None = None

    def as_dict(self) -> dict:
        return {"step": self.step.tolist(), "mean": self.mean.tolist(), "q10": self.q10.tolist(),
                "q50": self.q50.tolist(), "q90": self.q90.tolist(), "runs": self.runs, "method": self.method,
                "route": self.route, **({} if self.median_range is None else {"median_range": list(self.median_range)})}


def band(problem: Problem, schedule: Schedule, steps: int, rho0, *, stride: int = 1, runs: int = 2000,
         seed=0, route: RoutedTables | DiffusionTables | None = None) -> Band:
    """Mean and 10–90% band of ``rho_k`` from ``runs`` diffusion paths (``rho0`` fixed or ``None`` = uniform)
    on the tables of ``route`` (:func:`._route.routed`: default :func:`numerics.diffusion_tables`), with the
    measured route's median range."""
    instance("schedule", schedule, Schedule)
    steps = integer("steps", steps, 1)
    runs = integer("runs", runs, 10)
    stride = integer("stride", stride, 1)
    tab, route = routed(route, lambda: diffusion_tables(problem))
    start = None if rho0 is None else real("rho0", rho0, lower=-1.0, upper=1.0)
    etas = schedule.eta(np.arange(steps))

    def paths(t: DiffusionTables):
        rng = np.random.default_rng(seed)  # the same starts and normals for every table
        return simulate_diffusion(t, etas, start_law(problem.d).starts(rng, runs, start), stride=stride, seed=rng)

    run = paths(tab)
    x = run.rho[0]
    q = np.quantile(x, [0.1, 0.5, 0.9], axis=0)
    spread = None
    if route is not None and route.law is not None:
        medians = [float(np.median(paths(t).rho[0][:, -1])) for t in route.replicates(REPLICATES, seed)]
        spread = (min(medians), max(medians))
    return Band(run.record_steps, x.mean(axis=0), q[0], q[1], q[2], runs,
                "diffusion on the step grid (Euler-Maruyama, dt = eta_k), docs/design.md section 1.1",
                "expansion" if route is None else route.route, spread)
