"""Limiting ODE: tail rate F'(1), float vs mpmath path, Lyapunov, equilibria, basins, times."""

import math

import numpy as np
import pytest

from sigrec.numerics import basins, flow_map, integrate, time_to_alignment
from sigrec.numerics._ode import find_equilibria
from sigrec.theory import Model, evaluate, pole_exponents

from ._mp_reference import integrate_mp

BISTABLE = Model(theta=3.0, alpha=0.01)  # fixed prior, interior unstable equilibrium rho* < 0
MONOTONE = Model(theta=0.8, alpha=0.3, beta=1.2, sigma2=0.7)  # beta*theta <= 1
RADEMACHER = Model(theta=1.0, alpha=0.3, prior="rademacher")
SPARSE = Model(theta=1.0, alpha=0.0)
MODELS = [BISTABLE, MONOTONE, RADEMACHER, SPARSE, Model(theta=0.5, alpha=0.2, beta=2.0, sigma2=0.5)]


@pytest.mark.parametrize("model", [MONOTONE, RADEMACHER, SPARSE, BISTABLE], ids=repr)
def test_tail_rate_is_closed_form_F_prime_at_one(model):
    plus, _ = pole_exponents(model)
    t = np.linspace(0.0, 60.0 / abs(plus), 400)
    sol = integrate(model, 0.5, t)
    assert sol.success
    late = slice(200, None)  # deep in the tail: 1 - rho far below float eps
    assert sol.one_minus_rho[-1] < 1e-20
    slope = np.polyfit(t[late], np.log(sol.one_minus_rho[late]), 1)[0]
    assert slope == pytest.approx(plus, rel=1e-7)


@pytest.mark.parametrize("model", MODELS, ids=repr)
def test_float_flow_matches_mpmath_reference(model):
    horizons = [0.3, 1.5]
    for r0 in ("-0.6", "0.25"):
        ref = integrate_mp(model, r0, horizons, dps=30)
        assert ref.error_estimate < 1e-22
        got = flow_map(model, float(r0), horizons)
        np.testing.assert_allclose(got.rho, [float(v) for v in ref.rho], rtol=0, atol=2e-11)


def test_mpmath_reference_is_converged_across_precisions():
    a = integrate_mp(RADEMACHER, "0.3", [0.5], dps=20).rho[0]
    b = integrate_mp(RADEMACHER, "0.3", [0.5], dps=40).rho[0]
    assert abs(a - b) < 1e-16


@pytest.mark.parametrize("model", MODELS, ids=repr)
def test_objective_is_a_lyapunov_function(model):
    t = np.linspace(0.0, 20.0, 300)
    for r0 in (-0.9, -0.2, 0.1, 0.7):
        sol = integrate(model, r0, t)
        j = evaluate(model, sol.rho).objective
        assert np.all(np.diff(j) >= -1e-12 * max(1.0, np.max(np.abs(j))))


def test_equilibria_of_known_regimes():
    eq = find_equilibria(BISTABLE)
    assert len(eq.points) == 1 and -1 < eq.points[0] < 0 and eq.stable == (False,)
    assert not eq.certified
    assert find_equilibria(MONOTONE).points == ()
    rad = find_equilibria(RADEMACHER)
    assert rad.points == pytest.approx((0.0,), abs=1e-14) and rad.stable == (False,)
    assert abs(float(evaluate(BISTABLE, eq.points[0]).slope)) < 1e-14


def test_start_at_interior_equilibrium_stays_and_neighbours_leave():
    star = find_equilibria(BISTABLE).points[0]
    fm = flow_map(BISTABLE, [star, star - 1e-3, star + 1e-3], 500.0)
    assert fm.rho[0] == star
    assert fm.rho[1] < star - 0.1 and fm.rho[2] > star + 0.1
    # rademacher: rho = 0 is an exact zero of j' and stays even without the list
    assert integrate(RADEMACHER, 0.0, [0.0, 50.0]).rho[-1] == 0.0
    assert flow_map(RADEMACHER, 0.0, 50.0, equilibria=[0.0]).rho == 0.0


def test_poles_are_fixed():
    fm = flow_map(BISTABLE, [-1.0, 1.0], [5.0, 5.0])
    np.testing.assert_array_equal(fm.rho, [-1.0, 1.0])


def test_flow_map_broadcasts_starts_and_horizons():
    r0 = np.array([-0.5, 0.0, 0.4])[:, None]
    h = np.array([0.0, 0.7, 2.0])[None, :]
    fm = flow_map(MONOTONE, r0, h)
    assert fm.rho.shape == (3, 3)
    np.testing.assert_array_equal(fm.rho[:, 0], r0[:, 0])
    for i in range(3):
        single = integrate(MONOTONE, float(r0[i, 0]), h[0])
        np.testing.assert_allclose(fm.rho[i], single.rho, atol=1e-11)


def test_flow_map_is_a_semigroup():
    a = flow_map(BISTABLE, 0.1, 1.3).rho
    b = flow_map(BISTABLE, float(flow_map(BISTABLE, 0.1, 0.6).rho), 0.7).rho
    assert a == pytest.approx(b, abs=1e-11)


def test_basins_follow_the_flow():
    starts = np.array([-0.9, -0.5, -0.3, 0.0, 0.8])
    b = basins(BISTABLE, starts)
    star = b.equilibria[0]
    np.testing.assert_array_equal(b.limit, np.where(starts < star, -1.0, 1.0))
    far = flow_map(BISTABLE, starts, 2000.0).rho
    np.testing.assert_array_equal(np.sign(far), b.limit)
    assert basins(BISTABLE, star).limit == star
    np.testing.assert_array_equal(basins(MONOTONE, starts).limit, 1.0)
    # a supplied list of equilibria is used as given
    assert basins(BISTABLE, -0.3, equilibria=[-0.2]).limit == -1.0


def test_time_to_alignment_hits_the_level():
    starts = np.array([-0.95, -0.6, 0.2, 0.995])
    res = time_to_alignment(BISTABLE, starts, 0.99)
    assert res.time[-1] == 0.0
    finite = np.isfinite(res.time)
    assert finite.all()
    hit = flow_map(BISTABLE, starts, res.time).rho
    np.testing.assert_allclose(np.abs(hit[:-1]), 0.99, atol=1e-9)
    np.testing.assert_array_equal(np.sign(hit), res.sign)
    star = find_equilibria(BISTABLE).points[0]
    assert time_to_alignment(BISTABLE, star, 0.99).time == math.inf


@pytest.mark.parametrize("prior, gap", [("fixed", 1e-9), ("rademacher(p=0.5)", 1e-20), ("rademacher(p=0.5)", 1e-300),
                                        pytest.param("gaussian(mu=1, tau=0.3)", 1e-9, marks=pytest.mark.slow)])
def test_time_to_alignment_from_next_to_an_unstable_equilibrium_matches_40_digit_quadrature(prior, gap):
    # away from every default (beta 1.3, sigma2 0.8); the start sits `gap` above the interior
    # equilibrium, where the integrand 1/j' has its pole next to the start (for the symmetric
    # prior the equilibrium is 0 and j' there is below the float evaluator's rounding: the old
    # quadrature stopped with a warning and a time 20% to 3x too small). Reference: the root and
    # the integral at 40 digits with mpmath on the derived expressions (evaluate_mp)
    import mpmath

    from sigrec.theory import Model, evaluate_mp

    model = Model(theta=2.0, alpha=0.03, beta=1.3, sigma2=0.8, prior=prior)
    star = find_equilibria(model).points[0]
    res = time_to_alignment(model, star + gap, 0.9)
    assert res.sign == 1.0 and math.isfinite(float(res.time))
    with mpmath.workdps(40):
        root = mpmath.findroot(lambda r: evaluate_mp(model, r, dps=40)["slope"], mpmath.mpf(star))
        y0 = mpmath.atanh(mpmath.mpf(star) + mpmath.mpf(gap))
        yr, yt = mpmath.atanh(root), mpmath.atanh(mpmath.mpf("0.9"))
        # in s = log(y - y_root) the integrand is bounded
        ref = mpmath.quad(lambda s: mpmath.exp(s) / evaluate_mp(model, mpmath.tanh(yr + mpmath.exp(s)),
                                                                 dps=40)["slope"],
                          [mpmath.log(y0 - yr), mpmath.log(yt - yr) - 3, mpmath.log(yt - yr)])
    # the float root of find_equilibria is off by ~1e-16 |root| (0 for the symmetric prior, whose
    # root 0 is exact), which moves log(gap) by up to that over gap
    assert float(res.time) == pytest.approx(float(ref), rel=1e-6 + 4e-16 * abs(star) / gap)


@pytest.mark.parametrize(
    "call, name",
    [(lambda: flow_map(MONOTONE, 1.5, 1.0), "rho0"), (lambda: flow_map(MONOTONE, 0.1, -1.0), "h"),
     (lambda: integrate(MONOTONE, 0.1, [1.0], rtol=1e-6), "rtol"),
     (lambda: time_to_alignment(MONOTONE, 0.1, 1.0), "level"),
     (lambda: integrate_mp(MONOTONE, "1", [1.0]), "rho0")],
)
def test_bad_inputs_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=f"`{name}`"):
        call()
