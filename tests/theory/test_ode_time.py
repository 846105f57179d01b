"""The certified limit-flow time: its enclosure holds an independent 40-digit quadrature."""

import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import arb, ctx

import sigrec.theory._certify._ode_time as ode_time
from sigrec.theory import Model, certified_basin, certified_time, derive, evaluate_mp
from sigrec.theory._certify._basin import Basin, FlowEnd
from sigrec.theory._certify._field_ball import field_ball, slope_polynomial
from sigrec.theory._derivation._symbols import beta, m, m1, rho, sigma2, theta

#: the paper's weak-signal instance (theta = 0.25, R = 500, L = 10,500; fixed prior, beta = sigma2 = 1)
WEAK = Model.from_counts(0.25, 500, 10_500)


def reference(model, a, b, dps=40, pieces=6):
    """``int_a^b d rho / F`` by mpmath tanh-sinh on the derived expressions (``evaluate_mp``),
    with its error estimate: nothing shared with the ball route but the model."""
    with mpmath.workdps(dps):
        def f(r):
            return 1 / evaluate_mp(model, r, dps)["field"]

        return mpmath.quad(f, mpmath.linspace(mpmath.mpf(a), mpmath.mpf(b), pieces + 1), error=True)


def test_weak_signal_model():
    assert WEAK.theta == 0.25 and WEAK.alpha == 500 / 10_500 and WEAK.prior.spec == "fixed"
    assert WEAK.beta == WEAK.sigma2 == 1.0


@pytest.mark.parametrize("rho0, rho1", [(0.0, 0.99), (-0.5, 0.9), (0.1, 0.999)])
@pytest.mark.parametrize("order", [8, 12])
def test_weak_signal_time_holds_the_40_digit_quadrature(rho0, rho1, order):
    enc = certified_time(WEAK, rho0, rho1, order=order)
    value, err = reference(WEAK, rho0, rho1)
    assert err < 1e-25 * value
    assert enc.contains(value), (enc.lo, value, enc.hi)
    assert 0 < enc.relative_width <= 1e-6 and enc.direction == 1
    assert enc.basin.limit.kind == "pole" and enc.basin.limit.lo == 1.0


def test_midpoint_rule_with_its_remainder_bound_holds_the_quadrature():
    enc = certified_time(WEAK, 0.0, 0.99, rtol=1e-5, order=2)
    value, _ = reference(WEAK, 0.0, 0.99)
    assert enc.contains(value) and enc.relative_width <= 1e-5


def test_a_field_off_by_1e_3_is_not_enclosed(monkeypatch):
    value, _ = reference(WEAK, 0.0, 0.99)
    assert certified_time(WEAK, 0.0, 0.99, rtol=1e-5).contains(value)
    monkeypatch.setattr(ode_time, "field_ball", lambda model, X: field_ball(model, X) * arb("1.001"))
    wrong = certified_time(WEAK, 0.0, 0.99, rtol=1e-5)
    assert wrong.relative_width < 1e-4
    assert not wrong.contains(value)


def test_time_is_additive():
    a, b = certified_time(WEAK, -0.2, 0.4), certified_time(WEAK, 0.4, 0.95)
    whole = certified_time(WEAK, -0.2, 0.95)
    assert a.lo + b.lo <= whole.hi and whole.lo <= a.hi + b.hi


def test_downward_flow_in_the_lower_basin():
    model = Model(3.0, 0.01)  # bistable: an unstable root near -0.345, both poles stable
    enc = certified_time(model, -0.5, -0.95)
    value, _ = reference(model, -0.5, -0.95)
    assert enc.direction == -1 and enc.basin.limit.lo == -1.0 and enc.contains(value)
    assert enc.basin.source.kind == "interior" and enc.basin.source.stability == "unstable"


PRIORS = ["fixed", "rademacher", "bernoulli(0.3)", "gaussian(0.5, 1)",
          "discrete(values=[-1, 0.5, 2], probs=[0.2, 0.5, 0.3])"]


def random_case(seed):
    """A seeded random model (any prior, proportional or sparse) with a start whose basin is
    certified and a target part of the way to its limit, both clear of the equilibria."""
    rng = np.random.default_rng(seed)
    while True:
        th, be, s2 = rng.uniform(0.2, 4), rng.uniform(0.3, 3), rng.uniform(0.3, 3)
        al = 0.0 if rng.random() < 0.25 else float(10 ** rng.uniform(-3, 0))
        model = Model(th, al, beta=be, sigma2=s2, prior=PRIORS[seed % len(PRIORS)])
        rho0, frac = rng.uniform(-0.95, 0.95), rng.uniform(0.2, 0.9)
        try:
            basin = certified_basin(model, rho0)
        except ValueError:  # a start at a root or a model on a phase boundary: draw again
            continue
        end = max(-0.99, min(0.99, basin.limit.point))
        if basin.direction and abs(rho0 - basin.source.point) > 0.05 and abs(end - rho0) > 0.05:
            return model, rho0, rho0 + frac * (end - rho0)


@pytest.mark.parametrize("seed", range(6))
def test_random_models_hold_the_quadrature(seed):
    model, rho0, rho1 = random_case(seed)
    enc = certified_time(model, rho0, rho1)
    value, err = reference(model, rho0, rho1, pieces=2)
    assert err < 1e-25 * abs(value)
    assert enc.contains(value), (model, rho0, rho1, enc.lo, value, enc.hi)
    assert enc.relative_width <= 1e-6


@pytest.mark.parametrize("model, rho0, rho1, words", [
    (Model(3.0, 0.01), 0.0, -0.5, "unstable equilibrium rho\\* in \\[-0.345.*lies between them"),
    (Model(1.5, 0.5, prior="rademacher"), -0.3, 0.3, "unstable equilibrium rho = 0 lies between them"),
    (Model(2.0, 0.0, beta=1.3), 0.2, -0.9, "unstable equilibrium rho\\* in \\[-0.38"),
    (Model(1.5, 0.5, prior="rademacher"), 0.0, 0.3, "rho0 = 0.0 is an equilibrium"),
    (WEAK, 0.5, 0.2, "moves up, toward the stable pole rho = 1, and never reaches rho1 = 0.2"),
    (Model(0.0, 0.5), 0.1, 0.2, "theta = 0"),
])
def test_refused_across_an_equilibrium_or_against_the_flow(model, rho0, rho1, words):
    with pytest.raises(ValueError, match=words):
        certified_time(model, rho0, rho1)


def test_refused_beyond_or_inside_an_interior_limit():
    stable = FlowEnd("interior", 0.4, 0.41, "stable")
    basin = Basin(0.0, 1, stable, FlowEnd("pole", -1.0, -1.0, "unstable"))
    with pytest.raises(ValueError, match=r"never reaches rho1 = 0\.6 beyond it"):
        ode_time._check_reached(basin, 0.0, 0.6)
    with pytest.raises(ValueError, match=r"whose bracket holds rho1 = 0\.405"):
        ode_time._check_reached(basin, 0.0, 0.405)
    ode_time._check_reached(basin, 0.0, 0.39)


@pytest.mark.parametrize("kwargs, name", [
    ({"rho1": 1.0}, "rho1"), ({"rho0": float("nan")}, "rho0"), ({"rho0": -1.0}, "rho0"), ({"rho1": True}, "rho1"),
    ({"rtol": 0.0}, "rtol"), ({"rtol": 0.5}, "rtol"), ({"order": 3}, "order"), ({"order": 26}, "order"),
    ({"prec": 10}, "prec"), ({"prec": 100.5}, "prec"),
])
def test_bad_input_is_refused_naming_the_parameter(kwargs, name):
    args = {"rho0": 0.0, "rho1": 0.5, **kwargs}
    with pytest.raises(ValueError, match=f"`{name}`"):
        certified_time(WEAK, **args)


def test_zero_time_and_restored_context():
    prec, cap = ctx.prec, ctx.cap
    enc = certified_time(WEAK, 0.3, 0.3)
    assert enc.lo == enc.hi == 0.0 and enc.pieces == 0
    certified_time(WEAK, 0.0, 0.5, order=16, prec=200)
    assert (ctx.prec, ctx.cap) == (prec, cap)


def test_a_piece_reads_no_coefficient_past_the_series_cap():
    """flint truncates series at ``ctx.cap`` (10 terms by default): a remainder coefficient read
    past it is a silent 0 and the 'enclosure' a wrong point (78.66 instead of 79.99 here)."""
    from sigrec.theory._certify._roots import precision

    with precision(128), pytest.raises(RuntimeError, match="truncated"):
        ode_time._piece(WEAK, arb(0), arb("0.5"), 1, 12)


def test_slope_polynomial_is_the_derivations():
    d = derive("fixed")
    mine = slope_polynomial(rho, m, m1, theta, beta, sigma2)
    assert sp.expand(d.slope_poly - mine) == 0
