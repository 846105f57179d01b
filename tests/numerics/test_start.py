"""The one start law ``rho0 = <q0, xi>``, ``q0`` uniform on the sphere (numerics._simulate._start)."""

import numpy as np
import pytest

from sigrec.numerics import initial_rho, spawn_generators, start_law


def test_start_law_quantiles_match_sampling():
    rng = np.random.default_rng(0)
    d = 7
    q = rng.standard_normal((200_000, d))
    rho = q[:, 0] / np.linalg.norm(q, axis=1)
    for level, value in zip((0.05, 0.5, 0.95), start_law(d).quantile(np.asarray([0.05, 0.5, 0.95])), strict=True):
        assert np.mean(rho <= value) == pytest.approx(level, abs=0.004)


@pytest.mark.parametrize("d", [2, 3, 10])
def test_cdf_inverts_quantile_and_is_uniform_at_d3(d):
    law = start_law(d)
    q = np.linspace(0.01, 0.99, 13)
    np.testing.assert_allclose(law.cdf(law.quantile(q)), q, atol=1e-12)
    assert law.cdf(-1.0) == 0.0 and law.cdf(1.0) == 1.0
    if d == 3:
        assert law.cdf(-0.5417) == pytest.approx((1 - 0.5417) / 2, abs=1e-12)


def test_draws_are_the_beta_draws_they_always_were():
    """Same random calls in the same order: one Beta draw of size n, or one scalar draw per stream."""
    d = 9
    shape = (d - 1) / 2
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    np.testing.assert_array_equal(start_law(d).sample(a, 50), 2.0 * b.beta(shape, shape, size=50) - 1.0)
    assert a.random() == b.random()  # the streams stay in step after the draw
    gens, ref = spawn_generators(11, 6), spawn_generators(11, 6)
    np.testing.assert_array_equal(start_law(d).sample_each(gens), [2.0 * g.beta(shape, shape) - 1.0 for g in ref])
    np.testing.assert_array_equal(initial_rho(spawn_generators(11, 6), d), [2.0 * g.beta(shape, shape) - 1.0
                                                                            for g in spawn_generators(11, 6)])


def test_fixed_start_draws_nothing():
    rng, ref = np.random.default_rng(4), np.random.default_rng(4)
    np.testing.assert_array_equal(start_law(5).starts(rng, 3, 0.25), [0.25, 0.25, 0.25])
    assert rng.random() == ref.random()
    np.testing.assert_array_equal(start_law(5).starts(rng, 4), start_law(5).sample(ref, 4))


@pytest.mark.parametrize("d", [1, 0, 2.5, True, "3"])
def test_dimension_is_validated(d):
    with pytest.raises(ValueError, match="`d`"):
        start_law(d)
