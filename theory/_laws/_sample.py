"""The sampler of a prior: draws of ``s`` from a numpy generator (the simulators' signs)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ._tilted import finite_arrays


def sample(prior, gen: np.random.Generator, size: int) -> np.ndarray:
    """``size`` draws of ``s`` from ``gen`` (float array); the stream each family consumes is
    part of the simulators' reproducibility (seeded runs repeat bit for bit)."""
    if prior.family == "fixed":
        return np.ones(size)
    if prior.family == "rademacher" and prior.p == Fraction(1, 2):
        return 2.0 * gen.integers(0, 2, size=size) - 1.0
    if prior.family == "gaussian":
        return float(prior.mu) + float(prior.tau) * gen.standard_normal(size)
    values, logp = finite_arrays(prior)
    cdf = np.cumsum(np.exp(logp))
    idx = np.searchsorted(cdf[:-1], gen.random(size), side="right")
    return values[idx]
