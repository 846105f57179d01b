"""Soundness of the interval certification (the priority: never claim what is not proved)."""

import mpmath
import numpy as np
import pytest
from flint import ctx
from hypothesis import given, settings
from hypothesis import strategies as st

from sigrec.theory import Model, certify, critical_alpha, evaluate_mp


def test_precision_is_restored():
    before = ctx.prec
    certify(Model(2.0, 0.05), prec=200)
    assert ctx.prec == before


@pytest.mark.parametrize("factor, expect", [(0.98, "monotone"), (1.02, "bistable")])
def test_both_sides_of_the_sparse_threshold(factor, expect):
    beta = 1.3
    c = certify(Model(factor / beta, 0.0, beta=beta))
    assert c.status == expect and c.certified
    if expect == "bistable":
        (e,) = c.equilibria
        assert e.lo <= -1 / factor <= e.hi and e.stability == "unstable"


def test_sparse_threshold_itself_touches_the_pole_and_is_not_certified():
    c = certify(Model(1.0, 0.0))  # root of 1 + rho at rho = -1 exactly
    assert c.status == "undecided" and not c.certified


@pytest.mark.parametrize("alpha", [0.3, 0.0])
def test_rademacher_root_at_zero_is_exact(alpha):
    c = certify(Model(1.5, alpha, beta=0.7, prior="rademacher"))
    assert c.status == "bistable" and c.certified
    (e,) = c.equilibria
    assert e.exact and e.lo == e.hi == 0.0 and e.stability == "unstable"


def test_both_sides_of_the_critical_alpha():
    a_c = critical_alpha(3.0, 1.0, 1.0)
    below, above = certify(Model(3.0, a_c * 0.99)), certify(Model(3.0, a_c * 1.01))
    assert below.status == "bistable" and above.status == "monotone"
    assert below.certified and above.certified


def test_degenerate_theta_zero():
    c = certify(Model(0.0, 0.3))
    assert c.status == "degenerate" and not c.monotone


def _mp_field(model, x):
    return evaluate_mp(model, x, dps=40)["field"]


@settings(max_examples=30, deadline=None)
@given(st.floats(0.05, 12.0), st.floats(1e-4, 0.999), st.floats(0.2, 3.0), st.floats(0.2, 3.0),
       st.sampled_from(["fixed", "rademacher"]))
def test_brackets_contain_a_sign_change_of_the_mpmath_field(theta, alpha, beta, sigma2, prior):
    model = Model(theta, alpha, beta, sigma2, prior)
    c = certify(model)
    assert c.status in ("monotone", "bistable")
    with mpmath.workdps(40):
        for e in c.equilibria:
            assert e.hi - e.lo <= 1e-10
            if e.exact:
                assert abs(_mp_field(model, e.lo)) < mpmath.mpf(10) ** -30
                continue
            fa, fb = _mp_field(model, e.lo), _mp_field(model, e.hi)
            assert fa * fb < 0
            # stability: an upward crossing of F is unstable
            assert (fb > 0) == (e.stability == "unstable")
        if c.status == "monotone":
            xs = np.linspace(-0.999, 0.999, 57)
            assert all(_mp_field(model, x) > 0 for x in xs)


@settings(max_examples=15, deadline=None)
@given(st.floats(0.05, 3.0), st.floats(1e-3, 1.0), st.floats(0.3, 2.0), st.sampled_from([0.0, 1.0]))
def test_certified_monotone_means_every_start_reaches_plus_xi(theta, alpha, beta, sparse):
    """If the certificate says monotone, the ODE from any start in (-1, 1] converges to +1."""
    from sigrec.numerics import basins, flow_map, time_to_alignment

    model = Model(theta, 0.0 if sparse else alpha, beta)
    c = certify(model)
    if c.status != "monotone":
        return
    starts = np.array([-0.985, -0.9, -0.5, -0.1, 0.0, 0.3, 0.9, 1.0])  # |rho0| < 0.99 but the pole
    assert np.all(basins(model, starts, equilibria=[]).limit == 1.0)
    # the level 0.99 is reached in finite time (escape from -1 may be slow: F'(-1) can be
    # tiny near the boundary beta*theta = 1), at the + pole, and the flow confirms it
    hit = time_to_alignment(model, starts, 0.99, equilibria=[])
    assert np.all(np.isfinite(hit.time)) and np.all(hit.sign == 1)
    end = flow_map(model, starts, hit.time * 1.01 + 1e-9, equilibria=[]).rho
    assert np.all(end >= 0.99 - 1e-9)
