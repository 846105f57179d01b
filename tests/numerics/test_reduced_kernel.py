"""The reduced kernel's softmax shift (``numerics/_simulate/_reduced.py``): ``e = exp(u)`` unshifted while
``Z = sum e`` stays in ``[Z_LOW, Z_HIGH]``, else ``exp(u - max u)``. Both are the same step (softmax
is shift invariant): the same tokens give the same chain to rounding, and scores far beyond the
double range give the law of the full simulator (which always subtracts the maximum)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import ks_2samp

from sigrec.numerics import Problem, Schedule, SimulationOptions, simulate, spawn_generators
from sigrec.numerics._simulate._reduced import ReducedKernel

MODELS = [
    dict(theta=2.5, R=40, L=300, d=7, beta=1.7, sigma2=0.6, batch=2),
    dict(theta=0.8, R=20, L=300, d=2, beta=1.3, sigma2=0.7),
    dict(theta=1.5, R=60, L=240, d=6, beta=0.8, sigma2=1.3, prior="gaussian(mu=1, tau=0.5)"),
    dict(theta=1.0, R=0, L=50, d=4),
    dict(theta=1.0, R=50, L=50, d=5, prior="rademacher"),
]


@pytest.mark.parametrize("kw", MODELS, ids=["bistable-batch2", "d2", "gaussian", "R0", "RL"])
def test_the_shifted_step_is_the_unshifted_step(kw):
    """Forcing the shift ``max u`` on every run (``Z_HIGH = -inf``) changes the 25-step chain from
    the same seed by rounding only."""
    p = Problem(**kw)
    runs = 6
    rho0 = np.linspace(-0.95, 0.95, runs)
    plain = ReducedKernel(p, spawn_generators(5, runs), rho0)
    shifted = ReducedKernel(p, spawn_generators(5, runs), rho0)
    shifted.Z_HIGH = -np.inf
    for _ in range(25):
        a, b = plain.step(0.2), shifted.step(0.2)
        np.testing.assert_allclose(plain.rho, shifted.rho, rtol=0, atol=1e-12)
        np.testing.assert_allclose(a[0], b[0], rtol=1e-11, atol=1e-300)  # nuisance mass
        np.testing.assert_allclose(a[1], b[1], rtol=1e-11)  # objective
    assert not np.array_equal(plain.rho, rho0)


def test_scores_beyond_the_double_range_keep_the_law_of_the_full_chain():
    """``beta theta = 750`` from uniform starts: ``Z`` exceeds ``Z_HIGH`` on the 42% of runs with
    ``rho > 0.1`` (the shifted path), and ``exp(u)`` overflows outright on the few (1% after one
    step) with ``rho > 0.95``; no warning escapes, every value is finite, and rho after 1 and 3
    steps and the first objective have the full simulator's law (two-sample KS, independent seeds)."""
    p = Problem(theta=250.0, R=4, L=40, d=5, beta=3.0)
    sched = Schedule(eta0=1e-5, k0=1.0, power=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        red = simulate(p, sched, steps=3, runs=1500, options=SimulationOptions(simulator="reduced"), seed=21)
    full = simulate(p, sched, steps=3, runs=1500, options=SimulationOptions(simulator="full"), seed=22)
    for k in (1, 3):
        assert ks_2samp(red.rho[:, k], full.rho[:, k]).pvalue > 1e-3
    assert np.all(np.isfinite(red.noise_mass)) and np.all(np.isfinite(red.objective))
    assert ks_2samp(red.objective[:, 0], full.objective[:, 0]).pvalue > 1e-3
    assert np.isfinite(red.rho).all() and np.abs(red.rho).max() <= 1.0
