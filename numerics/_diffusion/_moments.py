"""Mean and variance of ``X = <P g, xi>`` by one step of the exact reduced chain (Monte Carlo)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.validate import integer, real
from .._schedule import Schedule
from .._simulate._driver import Problem, SimulationOptions, simulate


@dataclass(frozen=True)
class OneStepMoments:
    """Monte Carlo of ``X = <P g, xi>`` at one ``rho`` from the exact reduced chain.

    ``X`` is read as ``(rho' - rho) / eta`` from one step with a tiny constant ``eta``;
    the bias ``-eta rho Y / 2`` of that estimate is ``O(eta d / L)`` in the mean and
    ``O(eta)`` relative in the variance.

    Attributes
    ----------
    rho, eta : float
    runs : int
    mean, variance : float
    variance_se : float
        ``sqrt((m4 - var^2) / runs)`` (delta method for the sample variance).
    """

    rho: float
    eta: float
    runs: int
    mean: float
    variance: float
    variance_se: float


def one_step_moments(problem: Problem, rho: float, *, runs: int = 20_000, eta: float = 1e-4, seed=0,
                     workers: int = 1) -> OneStepMoments:
    """Mean and variance of ``X`` at ``rho`` by one step of the exact reduced chain (``runs`` samples)."""
    rho = real("rho", rho, lower=-1.0, upper=1.0)
    runs = integer("runs", runs, 100)
    sim = simulate(problem, Schedule.constant(eta), steps=1, runs=runs, rho0=rho, seed=seed,
                   options=SimulationOptions(workers=workers))
    m = sample_moments((sim.final_rho - rho) / eta)
    return OneStepMoments(float(rho), float(eta), runs, m.mean, m.variance, m.variance_se)


@dataclass(frozen=True)
class SampleMoments:
    """Mean and (unbiased) variance of a sample, each with its standard error (the variance's
    by the delta method, ``sqrt((m4 - var^2) / n)``)."""

    mean: float
    mean_se: float
    variance: float
    variance_se: float


def sample_moments(x: np.ndarray) -> SampleMoments:
    """The :class:`SampleMoments` of the 1-D sample ``x`` (at least 2 values)."""
    n = x.size
    m = float(x.mean())
    c = x - m
    v = float((c * c).mean())
    return SampleMoments(mean=m, mean_se=math.sqrt(v / (n - 1)), variance=v * n / (n - 1),
                         variance_se=math.sqrt(max(float((c**4).mean()) - v * v, 0.0) / n))
