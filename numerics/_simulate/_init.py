"""Random streams and initial alignments shared by the simulators.

* Streams: run ``i`` draws only from ``Generator(PCG64(SeedSequence(seed).spawn(runs)[i]))``,
  so runs are independent, and the same seed gives bit-identical results.
* Initial alignment: a fixed ``rho0``, or the law of ``<q, xi>`` for ``q`` uniform
  on ``S^{d-1}`` (:func:`numerics.start_law`), drawn first in each run's stream.
"""

from __future__ import annotations

import numpy as np

from ._start import start_law


def spawn_generators(seed, runs: int, lo: int = 0) -> list[np.random.Generator]:
    """One independent generator per run from ``SeedSequence(seed).spawn(runs)``: the generators of
    runs ``lo..runs-1``, each child built from its spawn key directly, so that a block of runs costs
    its own size and not the total count (``seed`` an int or ``None``: a ``None`` draws fresh entropy
    at each call)."""
    root = np.random.SeedSequence(seed)
    return [np.random.default_rng(np.random.SeedSequence(root.entropy, spawn_key=(i,), pool_size=root.pool_size))
            for i in range(lo, runs)]


def initial_rho(generators, d: int, rho0=None) -> np.ndarray:
    """Initial alignments, shape ``(runs,)``: ``rho0`` for every run, else the uniform-sphere law.

    Each run draws its value from its own generator (one Beta draw), first in its stream.
    """
    if rho0 is not None:
        return np.full(len(generators), float(rho0))
    return start_law(d).sample_each(generators)
