"""The symbolic derivation against independent routes: textbook facts, mpmath
differentiation, small-alpha limits, Monte Carlo of the pooled output."""

import mpmath
import numpy as np
import pytest
import sympy as sp

from sigrec.theory import (
    Model,
    critical_alpha,
    derive,
    evaluate,
    evaluate_mp,
    monotone_analysis,
    pole_exponents,
    sparse_threshold,
    stable_forms_agree,
    symbols,
)

alpha, beta, rho, sigma2, theta = symbols.alpha, symbols.beta, symbols.rho, symbols.sigma2, symbols.theta

PRIORS = ["fixed", "rademacher"]


def test_gaussian_mgf_and_stein_are_the_textbook_ones():
    d = derive("fixed")
    M, T = d.lemmas[0].rhs, d.lemmas[1].rhs[1]
    assert sp.simplify(M - sp.exp(beta**2 * sigma2 / 2)) == 0
    assert sp.simplify(T - beta * sigma2 * M) == 0  # Stein: E[y g(y)] = sigma2 E[g'(y)]


@pytest.mark.parametrize("prior", PRIORS)
def test_endpoints_vanish_symbolically(prior):
    d = derive(prior)
    assert d.endpoints == (0, 0) and d.sparse.endpoints == (0, 0)


@pytest.mark.parametrize("prior", PRIORS)
def test_stable_numeric_forms_are_the_derived_ones(prior):
    assert stable_forms_agree(prior)


@pytest.mark.parametrize("prior", PRIORS)
def test_pole_exponents_are_derivatives_of_the_field(prior):
    rng = np.random.default_rng(1)
    for _ in range(3):
        model = Model(theta=rng.uniform(0.1, 4), alpha=rng.uniform(0.01, 0.99), beta=rng.uniform(0.2, 3),
                      sigma2=rng.uniform(0.2, 3), prior=prior)
        plus, minus = pole_exponents(model)
        with mpmath.workdps(30):
            def F(r, model=model):
                return evaluate_mp(model, r, dps=mpmath.mp.dps)["field"]  # diff raises precision

            # one-sided derivatives at the poles by mpmath (rho stays inside [-1, 1])
            d_plus = mpmath.diff(F, 1, direction=-1)
            d_minus = mpmath.diff(F, -1, direction=1)
        assert float(d_plus) == pytest.approx(plus, rel=1e-10)
        assert float(d_minus) == pytest.approx(minus, rel=1e-10)


@pytest.mark.parametrize("prior", PRIORS)
def test_sparse_limit_is_the_small_alpha_limit_of_F_over_alpha(prior):
    with mpmath.workdps(40):
        for r in (-0.9, -0.3, 0.2, 0.8):
            sparse = evaluate_mp(Model(theta=1.7, alpha=0, beta=1.1, sigma2=0.7, prior=prior), r, dps=40)
            tiny = 1e-15
            prop = evaluate_mp(Model(theta=1.7, alpha=tiny, beta=1.1, sigma2=0.7, prior=prior), r, dps=40)
            assert float(prop["field"] / tiny) == pytest.approx(float(sparse["field"]), rel=1e-12)
            assert float((prop["objective"] - (mpmath.mpf(1.1) * mpmath.mpf(0.7)) ** 2) / tiny) == pytest.approx(
                float(sparse["objective"]), rel=1e-12)


@pytest.mark.parametrize("prior", PRIORS)
def test_pooled_output_matches_monte_carlo(prior):
    """Draw L tokens in d = 4 and pool them: f concentrates on beta sigma2 q + theta m xi."""
    rng = np.random.default_rng(7)
    th, al, be, s2, r = 1.3, 0.3, 0.8, 1.5, 0.4
    d, L = 4, 400_000
    xi = np.array([1.0, 0, 0, 0])
    q = np.array([r, np.sqrt(1 - r * r), 0, 0])
    R = int(al * L)
    s = np.ones(R) if prior == "fixed" else rng.choice([-1.0, 1.0], R)
    X = rng.normal(0, np.sqrt(s2), (L, d))
    X[:R] += th * s[:, None] * xi
    u = be * X @ q
    a = np.exp(u - u.max())
    a /= a.sum()
    f = a @ X
    dd = derive(prior)
    c_xi = float(dd.pooled[0].subs({rho: r, theta: th, alpha: al, beta: be, sigma2: s2}))
    c_q = float(dd.pooled[1].subs({beta: be, sigma2: s2}))
    f_lim = c_xi * xi + c_q * q
    # fluctuations are O(1/sqrt(L)) with an O(1) constant
    assert np.max(np.abs(f - f_lim)) < 10 / np.sqrt(L)
    nuis = a[R:].sum()
    nm = evaluate(Model(th, al, be, s2, prior), [r]).noise_mass[0]
    assert abs(nuis - nm) < 10 / np.sqrt(L)


def test_sparse_threshold_and_critical_alpha_match_the_pole_exponent_sign():
    """The closed forms say where F'(-1) changes sign: check on both sides numerically."""
    for th, be, s2 in [(3.0, 1.0, 1.0), (1.5, 2.0, 0.5), (5.0, 0.4, 3.0), (2.0, 1.0, 1.0)]:
        a_c = critical_alpha(th, be, s2)
        assert 0 < a_c < 1
        below = pole_exponents(Model(th, a_c * (1 - 1e-6), be, s2))[1]
        above = pole_exponents(Model(th, min(1.0, a_c * (1 + 1e-6)), be, s2))[1]
        assert below < 0 < above
    assert critical_alpha(0.9, 1.0, 1.0) is None  # beta*theta <= 1: no critical alpha
    t_star = sparse_threshold(1.3)
    assert pole_exponents(Model(t_star * 0.99, 0, beta=1.3))[1] > 0
    assert pole_exponents(Model(t_star * 1.01, 0, beta=1.3))[1] < 0


def test_sparse_equilibrium_is_minus_one_over_beta_theta():
    ma = monotone_analysis("fixed")
    assert sp.simplify(ma.sparse_equilibrium + 1 / (beta * theta)) == 0
    # and the sparse field vanishes there, independently evaluated
    model = Model(theta=2.5, alpha=0, beta=1.2, sigma2=0.6)
    with mpmath.workdps(30):
        r_star = -1 / (mpmath.mpf(2.5) * mpmath.mpf(1.2))
    val = evaluate_mp(model, r_star, dps=30)["field"]
    assert abs(float(val)) < 1e-25


def test_monotone_factorisation_reproduces_the_slope():
    ma = monotone_analysis("fixed")
    d = derive("fixed")
    rebuilt = (ma.positive_factor * ma.sign_factor).subs(symbols.m, d.m)
    diff = (rebuilt - d.slope).subs({rho: 0.37, theta: 1.9, alpha: 0.21, beta: 0.7, sigma2: 1.3})
    assert abs(float(diff)) < 1e-12


def test_rademacher_informative_coefficient_is_odd():
    assert monotone_analysis("rademacher").odd
