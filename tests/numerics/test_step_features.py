"""One exact step with its token features (numerics._gradient._influence.step_features).

Independent routes: the step is the simulator's own (numerics.simulate from the same streams,
the numpy and the compiled kernel); the features are the numpy ones of gradient_features, summed
here by a compiled pass; the control variate built on them keeps the plain mean of many more runs.
"""

from __future__ import annotations

import numpy as np
import pytest

from sigrec.numerics import (
    MeasureOptions,
    Problem,
    Schedule,
    gradient_features,
    measured_law,
    simulate,
    spawn_generators,
)
from sigrec.numerics._diffusion._measured import usable_features
from sigrec.numerics._gradient._influence import feature_names, step_features

#: away from every default: prior, beta, sigma2, d (also d = 2, no out-of-plane part), batch
MODELS = [
    Problem(theta=1.2, R=30, L=300, d=10, beta=1.3, sigma2=0.8, prior="rademacher", batch=3),
    Problem(theta=0.6, R=10, L=100, d=2, beta=2.0, sigma2=1.1),
    Problem(theta=1.0, R=40, L=800, d=7, beta=0.7, sigma2=1.6, prior="gaussian(0.5,0.3)"),
]


@pytest.mark.parametrize("problem", MODELS, ids=lambda p: f"{p.prior}-d{p.d}-B{p.batch}")
def test_the_step_and_the_features_are_the_chains(problem):
    rho, eta = -0.35, 0.07
    f = step_features(problem, rho, spawn_generators(5, 24))
    x, h, names = gradient_features(problem, rho, spawn_generators(5, 24))  # numpy kernel, numpy features
    assert f.names == names == feature_names(problem)
    rho_perp = np.sqrt(1 - rho * rho)
    assert np.allclose(rho_perp * f.c, x, rtol=1e-12, atol=1e-12)
    assert np.allclose(f.h, h, rtol=1e-11, atol=1e-11)
    sim = simulate(problem, Schedule.constant(eta), steps=1, runs=24, seed=5, rho0=rho)
    assert np.allclose(rho + eta * f.increment(eta), sim.final_rho, rtol=0, atol=1e-14)
    assert np.all(f.G >= 0) and (problem.d > 2 or np.all(f.G == 0))


def _random_problems(n: int, seed: int = 20261203):
    """Random models across the supported space (every prior family, beta, sigma2, d, batch)."""
    rng = np.random.default_rng(seed)
    priors = ["fixed", "rademacher", "rademacher(0.7)", "gaussian(0.4,0.5)", "discrete([-1, 0.5, 2], [0.2, 0.5, 0.3])",
              "bernoulli(0.6)"]
    out = []
    for i in range(n):
        beta = float(rng.uniform(0.3, 2.2))
        sigma2 = float(rng.uniform(0.5, 1.8))
        L = int(rng.choice([200, 400, 700]))
        R = max(1, int(rng.uniform(0.03, 0.4) * L))
        out.append(Problem(theta=float(rng.uniform(0.3, 2.0)), R=R, L=L, d=int(rng.choice([2, 3, 9])), beta=beta,
                           sigma2=sigma2, prior=priors[i % len(priors)], batch=int(rng.choice([1, 1, 2]))))
    return out


@pytest.mark.parametrize("problem", _random_problems(6), ids=lambda p: f"{p.prior}-b{p.beta:.2f}")
def test_the_control_variate_keeps_the_plain_mean(problem):
    """The controlled drift of 1,200 runs against the plain mean of 16,000 other runs: within four
    standard errors of their difference, drift and variance, at three alignments."""
    grid = np.array([-0.6, 0.1, 0.7])
    eta = 0.03
    cv = measured_law(problem, eta, grid=grid, runs=1200, seed=1)
    plain = measured_law(problem, eta, grid=grid, runs=16000, seed=2, options=MeasureOptions(control=False))
    assert cv.control and not plain.control
    z = (cv.drift - plain.drift) / np.hypot(cv.drift_se, plain.drift_se)
    assert np.all(np.abs(z) < 4), (z, cv.drift, plain.drift)
    zv = (cv.variance - plain.variance) / np.hypot(cv.variance_se, plain.variance_se)
    assert np.all(np.abs(zv) < 4), (zv, cv.variance, plain.variance)
    if usable_features(problem, feature_names(problem), 1200).any():
        assert np.max(cv.reduction) > 1.5, cv.reduction  # the control variate does something
    else:  # every feature too heavy-tailed for 1,200 runs to see its variance: the plain mean is kept
        assert np.all(cv.reduction == 1.0), cv.reduction


def test_heavy_tailed_features_are_left_out():
    heavy = Problem(theta=0.6, beta=2.0, R=500, L=10_000, d=20)
    names = feature_names(heavy)
    keep = dict(zip(names, usable_features(heavy, names, 1200), strict=True))
    assert keep["chi"] and keep["noise:e1"] and keep["noise:e1 c1^2"] and keep["signal:e1 c2"]
    assert not keep["noise:e2"] and not keep["signal:e2 c1"]  # exp(16) - 1 against 1.1e5 tokens drawn
    mild = Problem(theta=0.6, beta=0.6, R=500, L=10_000, d=20)
    assert usable_features(mild, feature_names(mild), 1200).all()
