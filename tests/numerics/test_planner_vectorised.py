"""The planner's vectorised evaluations against the scalar routes they replace.

``theory.gradient_second_moment`` on an array of alignments must equal the same function called
at each alignment alone (it is what the planner and the corrected-drift tables now ask for in one
call); the planner's root refinement must find the plateau ``theory.stationary_alignment`` finds
with ``brentq``; its corrected-ODE end must be ``numerics.predict``'s.
"""

from __future__ import annotations

import numpy as np
import pytest

from sigrec.numerics import Problem, Schedule, predict
from sigrec.numerics._planner import _corrected_end
from sigrec.numerics._plateaus import plateaus as _plateaus
from sigrec.theory import Model, effective_drift, gradient_second_moment, stationary_alignment, validity

FIELDS = ("mean_square", "out_of_plane_variance", "in_plane_variance", "out_of_plane_leading",
          "in_plane_leading", "trace", "total")


def _random_model(rng, prior):
    return Model(theta=float(rng.uniform(0.2, 2.5)), alpha=float(rng.uniform(0.02, 0.6)),
                 beta=float(rng.uniform(0.5, 1.6)), sigma2=float(rng.uniform(0.5, 1.8)), prior=prior)


def _assert_vector_equals_scalar(prior, seed):
    rng = np.random.default_rng(seed)
    for _ in range(2):
        m = _random_model(rng, prior)
        assert abs(m.beta - 1) > 1e-3 and abs(m.sigma2 - 1) > 1e-3
        d, L, batch = int(rng.integers(2, 60)), int(rng.integers(200, 20_000)), int(rng.integers(1, 4))
        rho = np.concatenate([rng.uniform(-1, 1, 23), [-1.0, 0.0, 1.0]])
        vec = gradient_second_moment(m, rho, d, L, batch)
        for name in FIELDS:
            scalar = np.array([float(getattr(gradient_second_moment(m, r, d, L, batch), name)) for r in rho])
            np.testing.assert_allclose(getattr(vec, name), scalar, rtol=1e-12, atol=1e-300, err_msg=f"{prior}: {name}")
        # the drift and its noise, which the planner evaluates on arrays, likewise
        eta = float(rng.uniform(1e-3, 0.5))
        e = effective_drift(m, rho, eta, d, L, batch)
        for i in (0, 7, 24):
            one = effective_drift(m, rho[i], eta, d, L, batch)
            assert float(one.drift) == pytest.approx(e.drift[i], rel=1e-12, abs=1e-300)
            assert float(one.noise) == pytest.approx(e.noise[i], rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("prior", ["fixed", "rademacher"])
def test_second_moment_on_an_array_equals_the_scalar_calls(prior):
    _assert_vector_equals_scalar(prior, 11 if prior == "fixed" else 12)


@pytest.mark.slow
@pytest.mark.parametrize("prior", ["rademacher(p=0.8)", "bernoulli(p=0.3)", "gaussian(mu=1, tau=0.5)",
                                   "discrete(values=[-1, 0.5, 2], probs=[0.2, 0.5, 0.3])"])
def test_second_moment_on_an_array_equals_the_scalar_calls_other_priors(prior):
    # each prior derives its own finite-step expressions once (slow on a cold cache)
    _assert_vector_equals_scalar(prior, 13)


def test_validity_is_the_same_for_every_step_and_refuses_bad_sizes():
    m = Model(theta=0.9, alpha=0.1, beta=1.3, sigma2=0.7, prior="rademacher")
    a, b = validity(m, 5, 2000, 0.01, 2), validity(m, 5, 2000, 0.02, 2)
    # the step parameter is eta_max^2 max E|P g|^2: quadratic in eta_max (the cached grid is shared)
    assert b.step == pytest.approx(4 * a.step, rel=1e-12) and a.concentration == b.concentration
    y = gradient_second_moment(m, np.linspace(-1, 1, 81), 5, 2000, 2).total
    assert a.step == pytest.approx(0.01**2 * float(np.max(y)), rel=1e-12)
    with pytest.raises(ValueError, match="`d`"):
        validity(m, 1, 2000, 0.01)
    with pytest.raises(ValueError, match="`L`"):
        validity(m, 5, 0, 0.01)


@pytest.mark.parametrize("problem", [Problem(theta=1.0, R=100, L=600, d=10),
                                     Problem(theta=1.3, R=80, L=600, d=6, beta=0.7, sigma2=1.4,
                                             prior="rademacher", batch=2)], ids=["default", "off-default"])
def test_planner_plateau_and_end_agree_with_the_scalar_routes(problem):
    for eta in (0.02, 0.2):
        (r, spread), *_ = _plateaus(problem, eta)  # the +xi attractor first
        pl = stationary_alignment(problem.model, eta, problem.d, problem.L, problem.batch)
        assert r == pytest.approx(pl.rho, rel=1e-10)
        assert spread == pytest.approx(pl.spread, rel=1e-4)
        # and it is a zero of the drift, with a sign change across it
        f = effective_drift(problem.model, [r - 1e-7, r + 1e-7], eta, problem.d, problem.L, problem.batch).drift
        assert f[0] > 0 > f[1]
    sched = Schedule(eta0=20.0, k0=100.0, power=1.0)
    for r0 in (-0.3, 0.05, 0.6):
        end = _corrected_end(problem, sched, 400, r0)
        ref = abs(float(predict(problem, sched, 400, r0, 10).rho_corrected[-1]))
        assert end == pytest.approx(ref, rel=1e-12)
