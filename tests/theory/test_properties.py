"""Property-based tests of the limit over wide parameter ranges (hypothesis)."""

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sigrec.theory import Model, evaluate, evaluate_mp

from .strategies import models

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GRID = np.concatenate([[-1.0, -0.999, 0.0, 1e-9, 0.999, 1.0], np.linspace(-1, 1, 41)])


def _scale(model: Model, r: float) -> float:
    """Size of the individual terms of j' (an absolute floor for comparisons)."""
    s = (model.beta * model.sigma2 + model.theta) ** 2 * (1 + model.beta * model.theta)
    if model.sparse:
        s *= np.exp(model.beta * model.theta * abs(r))
    return s


@SETTINGS
@given(models())
@example(Model(0.0, 0.5))
@example(Model(20.0, 1e-6, beta=10.0, sigma2=0.05))
@example(Model(20.0, 0.0, beta=10.0, sigma2=10.0, prior="rademacher"))
@example(Model(3.0, 1.0))
def test_finite_everywhere_and_zero_at_poles(model):
    v = evaluate(model, GRID)
    for arr in (v.objective, v.slope, v.field, v.noise_mass):
        assert np.all(np.isfinite(arr))
    assert v.field[0] == 0 and v.field[5] == 0
    assert np.all((v.noise_mass >= 0) & (v.noise_mass <= 1))


@SETTINGS
@given(models(), st.floats(-1, 1))
@example(Model(20.0, 1e-6, beta=10.0, sigma2=0.05), 1.0)
@example(Model(0.3, 0.0, prior="rademacher"), -1.0)
def test_numpy_and_mpmath_evaluators_agree(model, r):
    v = evaluate(model, [r])
    mp = evaluate_mp(model, r, dps=30)
    for key in ("objective", "slope", "field", "noise_mass"):
        exact = float(mp[key])
        got = float(getattr(v, key)[0])
        assert abs(got - exact) <= 1e-10 * abs(exact) + 1e-13 * _scale(model, r), key


@settings(max_examples=25, deadline=None)
@given(models(theta=st.floats(0.0, 6.0), beta=st.floats(0.05, 3.0)), st.floats(-0.95, 0.95))
@example(Model(1.0, 0.0), 0.0)
@example(Model(2.0, 1e-6, prior="rademacher"), -0.5)
def test_slope_is_the_derivative_of_the_objective_at_40_digits(model, r):
    with mpmath.workdps(40):
        def j(x):
            return evaluate_mp(model, x, dps=mpmath.mp.dps)["objective"]  # diff raises precision

        numeric = mpmath.diff(j, mpmath.mpf(r))
        symbolic = evaluate_mp(model, r, dps=40)["slope"]
        assert abs(numeric - symbolic) <= mpmath.mpf(10) ** -30 * (1 + abs(symbolic) + _scale(model, r))


@SETTINGS
@given(models(prior=st.just("rademacher")), st.floats(0, 1))
@example(Model(5.0, 0.0, prior="rademacher"), 1.0)
def test_rademacher_objective_even_and_field_odd(model, r):
    v = evaluate(model, [r, -r])
    assert v.objective[0] == pytest.approx(v.objective[1], rel=1e-12, abs=1e-300)
    assert v.field[0] == pytest.approx(-v.field[1], rel=1e-12, abs=1e-14 * _scale(model, r))


@SETTINGS
@given(models(prior=st.just("fixed")))
@example(Model(0.0, 0.3))
@example(Model(20.0, 0.5, beta=10.0))
def test_fixed_prior_nuisance_mass_decreases(model):
    nm = evaluate(model, np.linspace(-1, 1, 201)).noise_mass
    assert np.all(np.diff(nm) <= 1e-15)
    if 0 < model.alpha < 1 and model.theta * model.beta > 1e-3:
        # strictly, at high precision
        lo, hi = (evaluate_mp(model, x, dps=30)["noise_mass"] for x in (-0.5, 0.5))
        assert hi < lo


@settings(max_examples=40, deadline=None)
@given(models(theta=st.floats(0.01, 20)), st.floats(0.0, 1.0))
def test_positive_alignment_always_climbs_under_the_fixed_prior(model, r):
    """j' > 0 for rho >= 0 (fixed prior): a symbolic statement, checked numerically."""
    if model.prior.family != "fixed":
        return
    assert evaluate(model, [r]).slope[0] > 0
