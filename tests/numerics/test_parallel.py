"""Splitting runs over processes gives bit-identical results (each run keeps its stream)."""

import numpy as np
import pytest

from sigrec.numerics import Problem, Schedule, SimulationOptions, simulate


@pytest.mark.parametrize("simulator", ["reduced", "full"])
@pytest.mark.parametrize("prior", ["fixed", "rademacher"])
def test_workers_do_not_change_the_result(simulator, prior):
    p = Problem(theta=1.0, R=30, L=200, d=5, prior=prior, batch=2)
    s = Schedule(eta0=0.5, k0=10, power=0.75)
    a = simulate(p, s, steps=20, runs=5, seed=11, stride=3, options=SimulationOptions(simulator=simulator))
    b = simulate(p, s, steps=20, runs=5, seed=11, stride=3, options=SimulationOptions(simulator=simulator, workers=2))
    assert np.array_equal(a.rho, b.rho)
    assert np.array_equal(a.noise_mass, b.noise_mass) and np.array_equal(a.objective, b.objective)


def test_workers_need_a_seed():
    with pytest.raises(ValueError, match="`seed`"):
        simulate(Problem(theta=1.0, R=3, L=10, d=3), Schedule(), steps=2, runs=3, options=SimulationOptions(workers=2))
    with pytest.raises(ValueError, match="`workers`"):
        simulate(Problem(theta=1.0, R=3, L=10, d=3), Schedule(), steps=2, runs=3, seed=1,
                 options=SimulationOptions(workers=0))
