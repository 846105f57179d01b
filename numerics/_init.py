"""Random streams and initial alignments shared by the simulators.

* Streams: run ``i`` draws only from ``Generator(PCG64(SeedSequence(seed).spawn(runs)[i]))``,
  so runs are independent, and the same seed gives bit-identical results.
* Initial alignment: a fixed ``rho0``, or the law of ``<q, xi>`` for ``q`` uniform
  on ``S^{d-1}``. The first coordinate ``u_1`` of a uniform unit vector has density
  proportional to ``(1 - u^2)^((d-3)/2)`` on ``[-1, 1]``, i.e.
  ``(1 + u_1) / 2 ~ Beta((d-1)/2, (d-1)/2)``: ``rho0 = 2 Beta((d-1)/2, (d-1)/2) - 1``.
  For ``d = 2`` this is the arcsine law of ``cos(phi)``, ``phi`` uniform.
"""

from __future__ import annotations

import numpy as np


def spawn_generators(seed, runs: int) -> list[np.random.Generator]:
    """One independent generator per run from ``SeedSequence(seed).spawn(runs)``."""
    return [np.random.default_rng(child) for child in np.random.SeedSequence(seed).spawn(runs)]


def initial_rho(generators, d: int, rho0=None) -> np.ndarray:
    """Initial alignments, shape ``(runs,)``: ``rho0`` for every run, else the uniform-sphere law.

    Each run draws its value from its own generator (one Beta draw), first in its stream.
    """
    if rho0 is not None:
        return np.full(len(generators), float(rho0))
    shape = (d - 1) / 2
    return np.array([2.0 * g.beta(shape, shape) - 1.0 for g in generators])
