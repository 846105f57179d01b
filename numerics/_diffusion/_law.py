"""The measured one-step law as a record: :class:`MeasuredLaw`, its plateau, replicates and tables.

:meth:`MeasuredLaw.plateau` is the stable zero of the measured drift (a ``+ -> -`` sign change,
the same search as the expansion's plateau), with an interval from the Monte Carlo errors: the
controlled draws are cut into ``BATCHES`` batches (:mod:`._measured`), batch ``b`` holding the runs
``i = b mod BATCHES`` at every grid point (the same runs wherever two points drew them), and the
bootstrap resamples whole batches, so each draw keeps the grid's common random numbers; the interval is the
5% and 95% quantiles of the bootstrap zeros. Numerical evidence, not a certificate.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from ...core.validate import integer
from .._simulate._problem import Problem
from ._resampled import ResampledTables
from ._tables import GRID, DiffusionTables, stable_zeros

#: bootstrap draws of the plateau interval
BOOTSTRAP = 400


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
    """The one-step law of the exact chain on a grid of alignments (:mod:`._measured`).

    Attributes
    ----------
    problem : Problem
    eta : float
    grid : ndarray, shape (n,)
    drift, drift_se : ndarray, shape (n,)
        ``E[rho' - rho] / eta`` and its standard error.
    variance, variance_se : ndarray, shape (n,)
        ``Var[rho' - rho] / eta^2`` and its standard error.
    runs : ndarray of int, shape (n,)
        Samples at each grid point (runs ``0..runs[i]-1`` of the shared streams).
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
    reduction : ndarray, shape (n,)
        The plain variance of the increment over its controlled variance at each point (1 where
        the control variate is off).
    control : bool
        Whether the control variate was used.
    low : MeasuredLaw or None
        The law at ``eta_low`` from the same draws, when it was asked for.
    plain_drift : ndarray, shape (n,)
        The plain mean of the increments at each point.
    samples : tuple
        ``(c, G, counts)``: the exact step's draws at each point, padded to shape ``(n, max runs)``
        (what :class:`._resampled.ResampledTables` steps by).
    """

    problem: Problem
    eta: float
    grid: np.ndarray = field(repr=False)
    drift: np.ndarray = field(repr=False)
    drift_se: np.ndarray = field(repr=False)
    variance: np.ndarray = field(repr=False)
    variance_se: np.ndarray = field(repr=False)
    runs: np.ndarray = field(repr=False)
    seed: int
    route: str = "measured"
    batch_means: np.ndarray = field(default_factory=lambda: np.empty((0, 0)), repr=False)
    target_se: float | None = None
    status: str = "ok"
    reason: str = ""
    reduction: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    control: bool = False
    low: MeasuredLaw | None = field(default=None, repr=False)
    plain_drift: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    samples: tuple = field(default=(), repr=False)

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

    def resample(self, rng: np.random.Generator, rows: np.ndarray | None = None) -> MeasuredLaw:
        """A bootstrap replicate: the batches of runs resampled whole (the same batches at every
        grid point and, for :attr:`low`, at both steps), the drift their mean; the variance kept."""
        b = self.batch_means.shape[0]
        pick = np.asarray(rng.integers(0, b, size=b) if rows is None else rows)
        drift = self.batch_means[pick].mean(axis=0)
        low = None if self.low is None else self.low.resample(rng, pick)
        return dataclasses.replace(self, drift=drift, batch_means=self.batch_means[pick], low=low)

    def tables(self, *, grid: int = GRID, resampled: bool = True) -> DiffusionTables:
        """The diffusion tables of the measured law, for :func:`simulate_diffusion`.

        The lookup columns, linear between the grid points and constant beyond its ends: with one
        step, ``A`` is the measured drift, ``B = 0`` and ``Sigma`` the measured variance; with
        :attr:`low`, the drift ``A - eta B`` is the line through the drifts measured at ``eta_low``
        and ``eta`` (exact at both; between them the law's curvature in ``eta`` is left out) and
        ``Sigma`` the mean of the two variances. With ``resampled`` (the default) the paths step
        by the exact step's own draws at every step size (:class:`._resampled.ResampledTables`);
        else by the Gaussian diffusion of these columns."""
        grid = integer("grid", grid, 101)
        r = np.linspace(-1.0, 1.0, grid)
        drift, var = np.interp(r, self.grid, self.drift), np.interp(r, self.grid, self.variance)
        B = np.zeros(grid)
        if self.low is not None:
            low = np.interp(r, self.grid, self.low.drift)
            B = (low - drift) / (self.eta - self.low.eta)
            drift, var = drift + self.eta * B, 0.5 * (var + np.interp(r, self.grid, self.low.variance))
        table = np.column_stack([drift, B, var])
        r.setflags(write=False)
        table.setflags(write=False)
        if not resampled or not self.samples:
            return DiffusionTables(self.problem, r, table)
        base = self if self.low is None else self.low  # the shift of c corrects the mean of X: the smallest step
        shift = (base.drift - base.plain_drift) / np.sqrt(np.maximum(1.0 - self.grid**2, 1e-12))
        c, G, counts = self.samples
        return ResampledTables(self.problem, r, table, points=self.grid, c=c, G=G, counts=counts, shift=shift)

    def summary(self) -> dict:
        """What a prediction records of the law behind it: its step(s), grid points, draws, largest
        drift error, status, reason and seed (``eta_low`` and ``target_se`` only where they apply)."""
        out = {"eta": self.eta, "points": int(self.grid.size), "draws": int(self.runs.sum()),
               "max_drift_se": float(np.max(self.drift_se)), "status": self.status, "reason": self.reason,
               "seed": self.seed}
        if self.low is not None:
            out["eta_low"] = self.low.eta
        if self.target_se is not None:
            out["target_se"] = self.target_se
        return out

    def as_dict(self) -> dict:
        return {"route": self.route, "status": self.status, "reason": self.reason, "target_se": self.target_se,
                "problem": self.problem.as_dict(), "eta": self.eta, "runs": self.runs.tolist(),
                "seed": self.seed, "grid": self.grid.tolist(), "drift": self.drift.tolist(),
                "drift_se": self.drift_se.tolist(), "variance": self.variance.tolist(),
                "variance_se": self.variance_se.tolist(), "control": self.control,
                "reduction": self.reduction.tolist(), "low": None if self.low is None else self.low.as_dict()}


def _upper_zero(grid: np.ndarray, drift: np.ndarray) -> float:
    """The largest stable zero of ``drift`` at or above 0 (``nan`` when none)."""
    z = stable_zeros(grid, drift)
    up = z.zeros[z.zeros >= 0]
    return float(up[-1]) if up.size else math.nan
