"""The named records of theory's laws, field and effective drift: fields by name, same numbers."""

from __future__ import annotations

import numpy as np
import pytest
from flint import arb

from sigrec.theory import Model, effective_drift, evaluate_mp, parse_prior
from sigrec.theory._effective._evaluate import DriftOptions
from sigrec.theory._laws._tilted import GridMoments, TiltedBall, finite_range, grid_law


@pytest.mark.parametrize("spec", ["fixed", "rademacher", "bernoulli(p=0.4)", "gaussian(mu=1, tau=0.5)",
                                  "discrete(values=[0, 1, 2], probs=[1/4, 1/4, 1/2])"])
def test_the_tilted_ball_is_named_and_unpacks_as_before(spec):
    law = parse_prior(spec)
    ball = law.tilted_ball(arb("0.7 +/- 0.01"))
    assert isinstance(ball, TiltedBall)
    log_m, mu1, var, k3 = ball
    assert (ball.log_m, ball.mu1, ball.var, ball.k3) == (log_m, mu1, var, k3)
    point = law.tilted(np.array(0.7))
    assert ball.log_m.overlaps(arb(float(point[0]))) and ball.mu1.overlaps(arb(float(point[1])))


def test_the_grid_law_names_its_five_moments():
    support = parse_prior("discrete(values=[0, 1, 2], probs=[1/4, 1/4, 1/2])").support
    grid = grid_law(tuple(support), 128)
    at = grid.at(arb("0.3"))
    assert isinstance(at, GridMoments) and at.tilted == TiltedBall(*at[:4])
    wide = finite_range(support, arb("0.5 +/- 0.4"))
    assert isinstance(wide, TiltedBall)
    assert wide.mu1.contains(at.mu1) and wide.var.contains(at.var)


def test_drift_options_select_the_variants():
    """The default options are the derived drift; each option changes the term it names."""
    model = Model(1.0, 0.05)
    r = np.linspace(-0.9, 0.9, 7)
    base = effective_drift(model, r, 0.05, 20, 2000)
    same = effective_drift(model, r, 0.05, 20, 2000, options=DriftOptions())
    np.testing.assert_array_equal(base.drift, same.drift)
    np.testing.assert_array_equal(base.euler, 0.0)
    double = effective_drift(model, r, 0.05, 20, 2000, options=DriftOptions(drag_scale=2.0))
    np.testing.assert_allclose(double.drag, 2 * base.drag, rtol=1e-15)
    euler = effective_drift(model, r, 0.05, 20, 2000, options=DriftOptions(euler=True))
    assert np.any(euler.euler != 0) and np.allclose(euler.drift, base.drift + euler.euler, rtol=1e-14, atol=0)
    closed = effective_drift(model, r, 0.05, 20, 2000, options=DriftOptions(self_normalised=False))
    assert not np.array_equal(closed.drag, base.drag)
    with pytest.raises(ValueError, match="options"):
        effective_drift(model, r, 0.05, 20, 2000, options={"euler": True})


def test_the_mpmath_field_keeps_its_keys():
    assert list(evaluate_mp(Model(2.0, 0.05), 0.3)) == ["objective", "slope", "field", "noise_mass"]
    assert list(evaluate_mp(Model(2.0, 0.0), 0.3)) == ["objective", "slope", "field", "noise_mass"]
