"""The measured one-step law of the exact chain: drift and variance of ``rho`` at a constant step.

Outside the stated validity of the ``O(eta)`` expansion (large ``beta`` at a few thousand
tokens, large steps) its drift ``A - eta B`` and variance ``Sigma`` are wrong, and the finite
system's answer is the exact reduced chain's own. :func:`measured_law` estimates, at each
alignment of a grid and for the step ``eta`` itself (not a tiny one), the one-step conditional

    drift(rho)    = E[rho' - rho | rho] / eta,
    variance(rho) = Var[rho' - rho | rho] / eta^2,

by Monte Carlo of one step of the exact reduced chain from ``rho`` (``runs`` samples), each with
its standard error (the sample standard deviation over ``sqrt(runs)``; the variance's by the delta
method ``sqrt((m4 - var^2) / runs)``). Every grid point uses the same seed, so the draws are common
random numbers across the grid: neighbouring estimates share their noise, which keeps the drift's
sign changes where the law puts them. These are the coefficients of the diffusion
``rho' = rho + eta drift + eta sqrt(variance) z`` that :mod:`._paths` runs.

:meth:`MeasuredLaw.plateau` is the stable zero of the measured drift (a ``+ -> -`` sign change,
the same search as the expansion's plateau), with an interval from the Monte Carlo errors: the
runs are cut into :data:`BATCHES` batches, a batch holding the same draws at every grid point, and
the bootstrap resamples whole batches, so each draw keeps the grid's common random numbers; the
interval is the 5% and 95% quantiles of the bootstrap zeros. Numerical evidence, not a certificate.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from ...core.validate import instance, integer, real
from .._schedule import Schedule
from .._simulate._driver import simulate
from .._simulate._problem import Problem
from ._moments import sample_moments
from ._tables import GRID, DiffusionTables, stable_zeros

#: the default grid of alignments
POINTS = 25
#: bootstrap draws of the plateau interval
BOOTSTRAP = 400
#: batches of runs whose drift means the bootstrap resamples (rows shared by the grid)
BATCHES = 50
#: runs per point of the pilot that measures the error when a precision is requested
PILOT = 1000
#: the most runs per point a requested precision chooses by default
MAX_RUNS = 400_000


@dataclass(frozen=True)
class Plateau:
    """A stable zero of the measured drift in ``[0, 1)`` and its bootstrap interval.

    ``value`` is the largest stable zero at or above 0 of the measured drift (``nan`` when it has
    none there: the drift carries every start to the pole), ``low`` and ``high`` the 5% and 95%
    quantiles of that zero over the bootstrap draws that have one, ``found`` the fraction of draws
    that have one; ``route`` is ``"measured"``.
    """

    value: float
    low: float
    high: float
    found: float
    route: str = "measured"


@dataclass(frozen=True)
class MeasuredLaw:
    """The one-step law of the exact chain on a grid of alignments (module docstring).

    Attributes
    ----------
    problem : Problem
    eta : float
    grid : ndarray, shape (n,)
    drift, drift_se : ndarray, shape (n,)
        ``E[rho' - rho] / eta`` and its standard error.
    variance, variance_se : ndarray, shape (n,)
        ``Var[rho' - rho] / eta^2`` and its standard error.
    runs : int
        Samples per grid point.
    seed : int
    route : str
        ``"measured"``.
    batch_means : ndarray, shape (BATCHES, n)
        The drift's mean over each batch of runs at each grid point (a batch holds the same
        draws at every point: the bootstrap resamples its rows).
    target_se : float or None
        The requested standard error of the drift (``None`` when ``runs`` was given).
    status : {"ok", "limited"}
        ``limited``: the requested error was not reached within ``max_runs`` (see ``reason``).
    reason : str
    """

    problem: Problem
    eta: float
    grid: np.ndarray = field(repr=False)
    drift: np.ndarray = field(repr=False)
    drift_se: np.ndarray = field(repr=False)
    variance: np.ndarray = field(repr=False)
    variance_se: np.ndarray = field(repr=False)
    runs: int
    seed: int
    route: str = "measured"
    batch_means: np.ndarray = field(default_factory=lambda: np.empty((0, 0)), repr=False)
    target_se: float | None = None
    status: str = "ok"
    reason: str = ""

    def plateau(self, *, draws: int = BOOTSTRAP, seed: int = 0) -> Plateau:
        """The stable zero of the drift in ``[0, 1)`` with its bootstrap interval (:class:`Plateau`)."""
        draws = integer("draws", draws, 10)
        value = _upper_zero(self.grid, self.drift)
        rng = np.random.default_rng(seed)
        b = self.batch_means.shape[0]
        rows = rng.integers(0, b, size=(draws, b))  # batches resampled whole: the grid's common draws kept
        zeros = np.array([_upper_zero(self.grid, self.batch_means[r].mean(axis=0)) for r in rows])
        ok = np.isfinite(zeros)
        low, high = (np.quantile(zeros[ok], [0.05, 0.95]) if ok.any() else (math.nan, math.nan))
        return Plateau(value=value, low=float(low), high=float(high), found=float(ok.mean()))

    def tables(self, *, grid: int = GRID) -> DiffusionTables:
        """The diffusion tables of the measured law, for :func:`simulate_diffusion` at this step:
        ``A`` the measured drift and ``Sigma`` the measured variance, linear between the grid
        points and constant beyond its ends, ``B = 0`` (the drift is already that of ``eta``: the
        tables describe a constant step ``eta`` only)."""
        grid = integer("grid", grid, 101)
        r = np.linspace(-1.0, 1.0, grid)
        table = np.column_stack([np.interp(r, self.grid, self.drift), np.zeros(grid),
                                 np.interp(r, self.grid, self.variance)])
        r.setflags(write=False)
        table.setflags(write=False)
        return DiffusionTables(self.problem, r, table)

    def as_dict(self) -> dict:
        return {"route": self.route, "status": self.status, "reason": self.reason, "target_se": self.target_se,
                "problem": self.problem.as_dict(), "eta": self.eta, "runs": self.runs,
                "seed": self.seed, "grid": self.grid.tolist(), "drift": self.drift.tolist(),
                "drift_se": self.drift_se.tolist(), "variance": self.variance.tolist(),
                "variance_se": self.variance_se.tolist()}


def _upper_zero(grid: np.ndarray, drift: np.ndarray) -> float:
    """The largest stable zero of ``drift`` at or above 0 (``nan`` when none)."""
    z = stable_zeros(grid, drift)
    up = z.zeros[z.zeros >= 0]
    return float(up[-1]) if up.size else math.nan


def measured_law(problem: Problem, eta: float, *, grid=None, runs: int | None = None, drift_se: float | None = None,
                 max_runs: int = MAX_RUNS, seed: int = 0, workers: int = 1) -> MeasuredLaw:
    """The exact chain's one-step drift and variance of ``rho`` at the constant step ``eta``.

    Parameters
    ----------
    problem : Problem
        One query on one signal direction (``k = H = 1``).
    eta : float
        The step, in ``(0, 1]``.
    grid : array_like, optional
        Increasing alignments in ``[-1, 1]``; default :data:`POINTS` points uniform on
        ``[-0.96, 0.96]``.
    runs : int, optional
        One-step samples per grid point (``>= 500``: :data:`BATCHES` batches of at least 10).
    drift_se : float, optional
        The requested standard error of the drift at every grid point, instead of ``runs``: a
        pilot of :data:`PILOT` runs per point measures the error, and the runs are chosen from it
        (``error ~ 1 / sqrt(runs)``), at most ``max_runs``; a result that could not reach the
        request says so (``status = "limited"`` and its ``reason``). Neither given:
        ``drift_se = 0.02``.
    max_runs : int
        The most runs per point ``drift_se`` may choose.
    seed : int
        The seed of every grid point (common random numbers).
    workers : int
        Processes of the simulator (bit-identical for any count).
    """
    instance("problem", problem, Problem)
    problem.model.prior  # noqa: B018 - refuses a k > 1 or H > 1 model, whose state is not rho
    eta = real("eta", eta, lower=0.0, upper=1.0, strict=True)
    seed = integer("seed", seed, 0)
    max_runs = integer("max_runs", max_runs, PILOT)
    g = np.linspace(-0.96, 0.96, POINTS) if grid is None else np.asarray(grid, dtype=float)
    if g.ndim != 1 or g.size < 2 or not np.all(np.isfinite(g)) or np.any(np.abs(g) > 1) or np.any(np.diff(g) <= 0):
        raise ValueError("`grid` must be at least 2 increasing alignments in [-1, 1]")
    if runs is not None:
        if drift_se is not None:
            raise ValueError("give `runs` or `drift_se`, not both")
        return _measure(problem, eta, g, integer("runs", runs, 10 * BATCHES), seed, workers)
    target = real("drift_se", 0.02 if drift_se is None else drift_se, lower=0.0, strict=True)
    pilot = _measure(problem, eta, g, PILOT, seed, workers)
    need = PILOT * (float(np.max(pilot.drift_se)) / target) ** 2
    chosen = min(max(PILOT, BATCHES * math.ceil(need / BATCHES)), max_runs - max_runs % BATCHES)
    law = pilot if chosen == PILOT else _measure(problem, eta, g, chosen, seed, workers)
    reached = float(np.max(law.drift_se))
    if reached <= 1.1 * target:
        return dataclasses.replace(law, target_se=target)
    reason = (f"the requested drift standard error {target:.3g} needs about {need:,.0f} runs per point; "
              f"`max_runs` = {max_runs:,} gives {reached:.3g}")
    return dataclasses.replace(law, target_se=target, status="limited", reason=reason)


def _measure(problem: Problem, eta: float, g: np.ndarray, runs: int, seed: int, workers: int) -> MeasuredLaw:
    """:func:`measured_law` with ``runs`` runs per point of the grid ``g`` (validated)."""
    n = g.size
    drift, drift_se, var, var_se = (np.empty(n) for _ in range(4))
    batch_means = np.empty((BATCHES, n))
    for i, r in enumerate(g):
        sim = simulate(problem, Schedule.constant(eta), steps=1, runs=runs, rho0=float(r), seed=seed,
                       workers=workers)
        dx = (sim.final_rho - r) / eta
        m = sample_moments(dx)
        drift[i], drift_se[i], var[i], var_se[i] = m.mean, m.mean_se, m.variance, m.variance_se
        batch_means[:, i] = dx[: BATCHES * (runs // BATCHES)].reshape(BATCHES, -1).mean(axis=1)
    for a in (g, drift, drift_se, var, var_se, batch_means):
        a.setflags(write=False)
    return MeasuredLaw(problem=problem, eta=float(eta), grid=g, drift=drift, drift_se=drift_se, variance=var,
                       variance_se=var_se, runs=runs, seed=seed, batch_means=batch_means)
