"""Any signal prior: parsing, the law, the general derivation, certificates, simulators.

Every family is checked by routes that do not share code: the sympy MGF against
the sampler (Monte Carlo) and the log-sum-exp tilted law; the general derivation
(MGF unspecified, then substituted) against the family's own derivation; the field
against 50-digit quadrature; the ball-arithmetic certificate against the threshold
found by root finding; the reduced simulator against the full one (KS).
"""

from __future__ import annotations

import json
import math
import select
import subprocess
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import sigrec.theory._certify._scalar as certify_module
from sigrec.numerics import Problem, Schedule, SimulationOptions, predict, simulate
from sigrec.theory import (
    Model,
    canonical_prior,
    certify,
    critical_alpha,
    cross_check,
    derive,
    derive_general,
    evaluate,
    evaluate_mp,
    parse_prior,
    stable_forms_agree,
)
from sigrec.theory._certify._conditions import general_criteria, pole_alpha, sparse_threshold_prior
from sigrec.theory._certify._scalar import _general_sign_functions
from sigrec.theory._derivation._lemmas import specialise
from sigrec.verify.strategies import models, priors

#: one member of each family, with the three-point discrete law of the issue
FAMILY = {
    "gaussian": "gaussian(mu=1, tau=0.5)",
    "bernoulli": "bernoulli(p=0.3)",
    "rademacher_biased": "rademacher(p=0.7)",
    "discrete": "discrete(values=[-1, 0, 2], probs=[0.2, 0.3, 0.5])",
}
ALL = ["fixed", "rademacher", *FAMILY.values()]


# ------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    "spec, canonical",
    [
        ("fixed", "fixed"),
        ("rademacher", "rademacher"),
        ("rademacher(0.5)", "rademacher"),
        ("Rademacher( p = 1/2 )", "rademacher"),
        ("rademacher(p=0.7)", "rademacher(p=0.7)"),
        ("bernoulli(3/10)", "bernoulli(p=0.3)"),
        ("gaussian(1, 0.5)", "gaussian(mu=1, tau=0.5)"),
        ("gaussian(tau=1/3, mu=1)", "gaussian(mu=1, tau=1/3)"),
        ("discrete(values=[2, -1, 0], probs=[0.5, 0.2, 0.3])", FAMILY["discrete"]),
        ("discrete([1, 5], [1, 0])", "discrete(values=[1], probs=[1])"),
    ],
)
def test_specs_parse_to_one_canonical_form(spec, canonical):
    assert canonical_prior(spec) == canonical
    assert canonical_prior(canonical) == canonical


@pytest.mark.parametrize(
    "spec, words",
    [
        ("student(3)", "must be one of"),
        ("gaussian(1)", "needs tau"),
        ("gaussian(mu=1, tau=-1)", "tau must be >= 0"),
        ("gaussian(mu=0, tau=0)", "no signal"),
        ("gaussian(mu=nan, tau=1)", "not a finite number"),
        ("gaussian(mu=inf, tau=1)", "not a finite number"),
        ("gaussian(mu=1e400, tau=1)", "exponent"),
        ("gaussian(mu=5000, tau=1)", "magnitude <= 1000"),
        ("bernoulli(p=0)", "(0, 1]"),
        ("rademacher(p=1.5)", "[0, 1]"),
        ("rademacher(p=0.2)", "mean E s >= 0"),
        ("discrete(values=[1, 2], probs=[0.5, 0.6])", "sum to exactly 1"),
        ("discrete(values=[1, 1], probs=[0.5, 0.5])", "distinct"),
        ("discrete(values=[1, 2], probs=[1])", "equal length"),
        ("discrete(values=[0], probs=[1])", "no signal"),
        ("fixed(1)", "no arguments"),
        ("gaussian(mu=1, tau=2, x=3)", "got 'x'"),
        ("gaussian(mu=1, mu=2)", "twice"),
        ("__import__('os').system('true')", "must be one of"),
        ("gaussian(mu=[1, 2], tau=1)", "numbers mu and tau"),
        ("discrete(values=[1, 2, probs=[1, 0])", "unbalanced"),
    ],
)
def test_bad_specs_are_refused_with_the_reason(spec, words):
    with pytest.raises(ValueError) as err:
        parse_prior(spec)
    assert words in str(err.value) and "`prior`" in str(err.value)


_PARSER = """
import json, sys
from sigrec.theory import parse_prior
for line in sys.stdin:
    try:
        law = parse_prior(json.loads(line))
        out = {"params": {n: [str(x) for x in v] if isinstance(v, tuple) else str(v) for n, v in law.params}}
    except Exception as exc:
        out = {"error": type(exc).__name__, "message": str(exc)}
    print(json.dumps(out), flush=True)
"""


@pytest.fixture(scope="module")
def parse_within():
    """``parse_prior`` in a child process: ``f(spec)`` is its answer (``params`` or ``error`` and
    ``message``), and a failure if no answer comes within 10 s (a hang: exact arithmetic on a
    huge integer holds the interpreter, so a thread could not time it out)."""
    child = subprocess.Popen([sys.executable, "-c", _PARSER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, bufsize=1)

    def ask(spec, timeout=10.0):
        child.stdin.write(json.dumps(spec) + "\n")
        child.stdin.flush()
        ready, _, _ = select.select([child.stdout], [], [], timeout)
        assert ready, f"parse_prior({spec!r}) still running after {timeout} s"
        return json.loads(child.stdout.readline())

    yield ask
    child.kill()
    child.wait()


@pytest.mark.parametrize(
    "spec, words",
    [
        ("bernoulli(p=1e99999999/3)", "|exponent| <= 30"),
        ("gaussian(mu=1e-99999999/7, tau=1)", "|exponent| <= 30"),
        ("discrete(values=[1, 2], probs=[1e99999999/3, 0])", "|exponent| <= 30"),
        ("bernoulli(p=1e-30/" + "1" + "0" * 40 + ")", "exponent too large"),
        ("bernoulli(p=1/" + "7" * 1900 + ")", "exponent too large"),
        ("bernoulli(p=0." + "0" * 70 + "1)", "exponent too large"),
        ("gaussian(mu=" + "9" * 1900 + "/3, tau=1)", "exponent too large"),
        ("bernoulli(p=1e300/1e-300)", "not a finite number"),
        ("bernoulli(p=(1e200)*(1e200))", "not a finite number"),
        ("bernoulli(p=1e200*1e200)", "not a finite number"),
        ("bernoulli(p=1/3/3)", "not a finite number"),
        ("bernoulli(p=1e99999999/1e99999999)", "not a finite number"),
    ],
)
def test_huge_numbers_in_fractions_are_refused_at_once(parse_within, spec, words):
    out = parse_within(spec)
    assert out.get("error") == "ValueError" and words in out["message"] and "`prior`" in out["message"], out


def test_fractions_within_the_bounds_keep_their_exact_value():
    assert parse_prior("bernoulli(p=1e-30/1000)").params == (("p", Fraction(1, 10**33)),)
    assert parse_prior("bernoulli(p=1e30/" + "9" * 31 + ")").params == (("p", Fraction(10**30, 10**31 - 1)),)
    assert parse_prior("gaussian(mu=2e3/3, tau=0)").params[0] == ("mu", Fraction(2000, 3))


@pytest.mark.parametrize("digits", [1, 199, 250, 1500])
def test_a_long_exact_decimal_keeps_its_value_in_the_canonical_form(digits):
    value = Fraction("0." + "1" * digits)
    law = parse_prior(f"bernoulli(p=0.{'1' * digits})")
    assert dict(law.params)["p"] == value and parse_prior(law.spec) == law
    assert dict(parse_prior(law.spec).params)["p"] == value


@settings(max_examples=300, deadline=None)
@given(
    st.integers(0, 10**6), st.integers(-400, 400), st.integers(1, 10**6),
    st.sampled_from(["", "e0", "e-400", "e400"]), st.sampled_from(["bernoulli(p={})", "gaussian(mu={}, tau=1)"]),
)
def test_random_fractions_give_a_prior_or_a_refusal_never_a_hang(parse_within, mantissa, exponent, den, den_exp,
                                                                 family):
    out = parse_within(family.format(f"{mantissa}e{exponent}/{den}{den_exp}"))
    if "error" in out:
        assert out["error"] == "ValueError" and "`prior`" in out["message"], out
        return
    value = Fraction(out["params"]["p" if family.startswith("b") else "mu"])
    assert not den_exp and abs(exponent) <= 30  # only the grammar's forms within the bounds are read
    assert value == Fraction(mantissa) * Fraction(10) ** exponent / den  # the exact value, another route


@settings(max_examples=60, deadline=None)
@given(priors())
def test_drawn_priors_are_canonical_and_have_nonnegative_mean(spec):
    law = parse_prior(spec)
    assert law.spec == spec and law.mean >= 0
    held = Model(1.0, 0.5, prior=spec).prior
    assert held == law and str(held) == spec and Model(1.0, 0.5, prior=law).prior == law


# ------------------------------------------------------------------ the law, three routes


@pytest.mark.parametrize("spec", ALL)
def test_sampler_moments_match_the_mgf(spec):
    """Monte Carlo moments of the sampler against sympy derivatives of the MGF at 0."""
    law = parse_prior(spec)
    t = sp.Symbol("t")
    M = law.mgf(t)
    m1, m2 = (sp.Rational(sp.diff(M, t, n).subs(t, 0)) for n in (1, 2))
    assert m1 == law.mean and m2 == law.second_moment
    x = law.sample(np.random.default_rng(5), 200_000)
    var = float(m2 - m1**2)
    se = math.sqrt(max(var, 1e-12) / x.size)
    assert abs(x.mean() - float(m1)) < 5 * se + 1e-12
    assert abs((x * x).mean() - float(m2)) < 5 * math.sqrt(np.var(x * x) / x.size) + 1e-12


@pytest.mark.parametrize("spec", ALL)
def test_tilted_law_numpy_mpmath_and_sympy_agree(spec):
    law = parse_prior(spec)
    tt = sp.Symbol("t")
    M = law.mgf(tt)
    for t in (-3.0, -0.4, 0.0, 0.7, 2.5):
        exact = [e.subs(tt, sp.Rational(t)).evalf(40) for e in
                 (sp.log(M), sp.diff(M, tt) / M, sp.diff(M, tt, 2) / M - (sp.diff(M, tt) / M) ** 2)]
        np.testing.assert_allclose(law.tilted(np.array(t)), [float(x) for x in exact], rtol=1e-12, atol=1e-14)
        with mpmath.workdps(40):
            got = law.tilted_mp(mpmath.mpf(sp.Rational(t).p) / sp.Rational(t).q)
            for g, x in zip(got, exact, strict=True):
                assert abs(g - mpmath.mpf(str(x))) < mpmath.mpf(10) ** -30 * max(1, abs(float(x)))


def test_tilted_law_does_not_overflow_where_the_mgf_does():
    law = parse_prior(FAMILY["discrete"])
    log_m, mu1, var = law.tilted(np.array([-2000.0, 2000.0]))
    np.testing.assert_allclose(log_m, [2000 + math.log(0.2), 4000 + math.log(0.5)])
    np.testing.assert_allclose(mu1, [-1, 2]) and np.testing.assert_allclose(var, [0, 0], atol=1e-300)


# ------------------------------------------------------------------ the general derivation


@pytest.mark.parametrize("spec", ALL)
def test_the_general_derivation_specialises_to_each_family(spec):
    """M_s unspecified, then substituted, equals the family's own derivation (finite sums for
    finite laws): the fixed and symmetric results are special cases."""
    general, own, law = derive_general(), derive(spec), parse_prior(spec)
    for name in ("m", "m_prime", "objective", "slope", "noise_mass"):
        diff = sp.simplify((specialise(getattr(general, name), law) - getattr(own, name)).rewrite(sp.exp))
        assert diff == 0, name
    diff = sp.simplify((specialise(general.sparse.slope, law) - own.sparse.slope).rewrite(sp.exp))
    assert diff == 0


@pytest.mark.parametrize("spec", ALL)
def test_stable_forms_agree_for_every_family(spec):
    assert stable_forms_agree(spec)


def test_a_wrong_mgf_breaks_the_specialisation():
    """Substituting a different law's MGF must not reproduce the family's derivation."""
    general, own = derive_general(), derive(FAMILY["gaussian"])
    wrong = specialise(general.m, parse_prior("gaussian(mu=1, tau=0.6)"))
    assert sp.simplify((wrong - own.m).rewrite(sp.exp)) != 0


def test_general_criteria_identities_and_statements():
    crit = general_criteria()  # raises if an identity fails
    assert any("E s = 0" in s for s in crit.statements)
    assert crit.pole_quadratic.free_symbols >= {sp.Symbol("w", real=True)}


@pytest.mark.slow
def test_quadrature_agrees_at_50_digits_for_every_family():
    res = cross_check(n_points=2, dps=50, seed=7, priors=tuple(FAMILY.values()))
    assert res.passed, res.max_rel_diff
    assert {c.prior.spec for c in res.comparisons} == {canonical_prior(s) for s in FAMILY.values()}


def test_quadrature_agrees_for_the_gaussian_prior_one_point():
    """The Gaussian prior by convolution (x1 ~ N(theta mu, sigma2 + theta^2 tau^2)), not the MGF."""
    res = cross_check(n_points=1, dps=50, seed=2, priors=(FAMILY["gaussian"],))
    assert res.passed, res.max_rel_diff


@pytest.mark.parametrize("spec", ALL)
def test_float_field_matches_the_50_digit_derivation(spec):
    rng = np.random.default_rng(3)
    for _ in range(3):
        model = Model(float(rng.uniform(0.2, 3)), float(rng.choice([0.0, rng.uniform(0.01, 1)])),
                      float(rng.uniform(0.3, 2)), float(rng.uniform(0.3, 2)), spec)
        r = np.array([-0.9, -0.3, 0.2, 0.8])
        vals = evaluate(model, r)
        for i, ri in enumerate(r):
            mp = evaluate_mp(model, ri, dps=50)
            for key in ("objective", "slope", "field", "noise_mass"):
                assert float(mp[key]) == pytest.approx(float(getattr(vals, key)[i]), rel=1e-9, abs=1e-12), key


# ------------------------------------------------------------------ certificates


@pytest.mark.parametrize("spec", ["fixed", *FAMILY.values()])
@pytest.mark.parametrize("beta", [1.0, 2.5])
def test_certificate_is_sound_on_both_sides_of_the_sparse_threshold(spec, beta):
    c = sparse_threshold_prior(spec)
    assert 0 < c < math.inf
    below = certify(Model(c * (1 - 1e-6) / beta, 0.0, beta, 1.0, spec))
    above = certify(Model(c * (1 + 1e-6) / beta, 0.0, beta, 1.0, spec))
    assert below.status == "monotone" and below.certified
    assert above.status == "bistable" and above.certified
    (eq,) = above.equilibria
    assert eq.stability == "unstable" and eq.lo <= -1 / (1 + 1e-6) <= eq.hi + 1e-9


def test_sparse_thresholds_of_the_families():
    """c* = 1 for fixed and every bernoulli(p) (g_s = mu1 (1 + t)); below 1 when the
    strength varies (gaussian) or can be negative; 0 for a mean-zero law."""
    assert sparse_threshold_prior("fixed") == pytest.approx(1.0, abs=1e-12)
    for p in ("0.05", "0.3", "1"):
        assert sparse_threshold_prior(f"bernoulli(p={p})") == pytest.approx(1.0, abs=1e-12)
    # gaussian(1, 1/2): the cubic 1 + 3t/2 + t^2/2 + t^3/16 = 0 (sympy, independently)
    t = sp.Symbol("t")
    roots = [r for r in sp.Poly(1 + sp.Rational(3, 2) * t + t**2 / 2 + t**3 / 16, t).nroots() if r.is_real]
    assert sparse_threshold_prior(FAMILY["gaussian"]) == pytest.approx(-max(roots), rel=1e-12)
    assert 0 < sparse_threshold_prior(FAMILY["rademacher_biased"]) < 1
    assert sparse_threshold_prior("rademacher") == 0.0


def test_a_double_root_at_the_pole_is_undecided():
    """bernoulli(p) at beta*theta = 1 exactly: g_s = mu1 (1 + t) vanishes at rho = -1 to
    second order in F; the certificate must not claim a side."""
    cert = certify(Model(1.0, 0.0, 1.0, 1.0, "bernoulli(p=0.3)"))
    assert cert.status == "undecided" and not cert.certified


@pytest.mark.parametrize("spec", ["rademacher", "gaussian(mu=0, tau=1)", "discrete(values=[-2, 1], probs=[1/3, 2/3])"])
def test_mean_zero_laws_have_the_exact_unstable_root_at_zero(spec):
    for theta, alpha in ((0.5, 0.3), (3.0, 0.01), (3.0, 0.0)):
        cert = certify(Model(theta, alpha, 1.0, 1.0, spec))
        assert cert.status == "bistable" and cert.certified
        (eq,) = cert.equilibria
        assert eq.exact and eq.lo == 0.0 and eq.stability == "unstable"


@pytest.mark.parametrize("spec", ["fixed", "rademacher"])
def test_general_sign_function_agrees_with_the_family_specific_one(spec, monkeypatch):
    rng = np.random.default_rng(11)
    models_ = [Model(float(rng.uniform(0.1, 4)), float(rng.choice([0.0, rng.uniform(0.001, 1)])),
                     float(rng.uniform(0.3, 2)), float(rng.uniform(0.3, 2)), spec) for _ in range(12)]
    own = [certify(m) for m in models_]
    monkeypatch.setattr(certify_module, "_sign_functions", _general_sign_functions)
    general = [certify(m) for m in models_]
    for a, b in zip(own, general, strict=True):
        assert a.status == b.status
        assert len(a.equilibria) == len(b.equilibria)
        for x, y in zip(a.equilibria, b.equilibria, strict=True):
            assert x.stability == y.stability and abs(x.midpoint - y.midpoint) < 1e-8


def test_pole_criterion_matches_alpha_c_and_the_certificate():
    assert pole_alpha("fixed", 3.0) == [pytest.approx(critical_alpha(3.0), rel=1e-12)]
    (a_c,) = pole_alpha(FAMILY["gaussian"], 3.0)
    below = certify(Model(3.0, a_c * (1 - 1e-4), 1.0, 1.0, FAMILY["gaussian"]))
    above = certify(Model(3.0, a_c * (1 + 1e-4), 1.0, 1.0, FAMILY["gaussian"]))
    assert below.status == "bistable" and above.status == "monotone"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False), min_size=3, max_size=3),
       st.integers(-30, 30), st.integers(-30, 30))
def test_pole_quadratic_roots_against_numpy(c, scale_a, scale_c):
    """The closed-form roots of a badly scaled quadratic: numpy.roots on the rescaled
    polynomial (another route), and Q(root) = 0 relative to the terms' size."""
    import mpmath

    from sigrec.theory._certify._conditions import _real_roots

    a, b = mpmath.mpf(c[0]) * mpmath.mpf(10) ** scale_a, mpmath.mpf(c[1])
    cc = mpmath.mpf(c[2]) * mpmath.mpf(10) ** scale_c
    roots = _real_roots([a, b, cc])
    for r in roots:
        size = abs(a * r * r) + abs(b * r) + abs(cc)
        assert abs(a * r * r + b * r + cc) <= 1e-12 * size
    if min(abs(c[0]), abs(c[1]) + abs(c[2])) > 1e-6 and abs(scale_a) < 5 and abs(scale_c) < 5:  # numpy's range
        ref = sorted(float(x.real) for x in np.roots([float(a), float(b), float(cc)]) if abs(x.imag) <= 1e-9 * abs(x))
        if len(ref) == 2 and abs(ref[0] - ref[1]) > 1e-6 * max(1.0, abs(ref[0])):  # a clear pair
            assert [float(r) for r in roots] == pytest.approx(ref, rel=1e-9, abs=1e-12)


def test_pole_criterion_at_a_vanishing_signal_does_not_fail():
    """Fuzz finding: ``phase --prior rademacher --theta-max 1e-6`` failed in Poly.nroots
    (coefficients 1e-30, 3e-31 and 2e-6); the roots there lie far outside (0, 1)."""
    assert pole_alpha("rademacher", 1e-6) == []
    assert pole_alpha(FAMILY["gaussian"], 1e-6) == []


@settings(max_examples=25, deadline=None)
@given(models(prior="any", theta=(0.0, 4.0), beta=(0.2, 3.0)))
def test_positive_mean_laws_have_no_equilibrium_at_nonnegative_rho(model):
    """Proved for E s > 0 (the tilted mean increases): every certified equilibrium is at rho < 0."""
    cert = certify(model)
    if parse_prior(model.prior).mean > 0:
        assert all(e.hi < 0 for e in cert.equilibria)
    else:
        assert cert.status in ("bistable", "degenerate")


# ------------------------------------------------------------------ simulators


@pytest.mark.parametrize("spec", list(FAMILY.values()))
def test_reduced_equals_full_in_law_for_each_family(spec):
    p = Problem(theta=1.5, R=8, L=30, d=5, prior=spec, beta=1.5)
    sch = Schedule(eta0=1.0, k0=1.0, power=0.75)
    red = simulate(p, sch, steps=3, runs=1500, options=SimulationOptions(simulator="reduced"), rho0=0.2, seed=21)
    full = simulate(p, sch, steps=3, runs=1500, options=SimulationOptions(simulator="full"), rho0=0.2, seed=22)
    for k in (1, 3):
        assert stats.ks_2samp(red.rho[:, k], full.rho[:, k]).pvalue > 1e-3
    assert stats.ks_2samp(red.objective[:, 0], full.objective[:, 0]).pvalue > 1e-3


def test_the_prior_reaches_the_simulator():
    """A wrong law (fixed instead of bernoulli(0.3)) is told apart by the same KS test."""
    sch = Schedule(eta0=1.0, k0=1.0, power=0.75)
    right = simulate(Problem(1.5, 8, 30, 5, prior="bernoulli(p=0.3)", beta=1.5), sch, steps=1, runs=1500, rho0=0.2,
                     seed=21, options=SimulationOptions(simulator="full"))
    wrong = simulate(Problem(1.5, 8, 30, 5, prior="fixed", beta=1.5), sch, steps=1, runs=1500, rho0=0.2, seed=22,
                     options=SimulationOptions(simulator="reduced"))
    assert stats.ks_2samp(right.objective[:, 0], wrong.objective[:, 0]).pvalue < 1e-3


@pytest.mark.parametrize("spec, eta, steps", [(FAMILY["gaussian"], 0.1, 600), (FAMILY["bernoulli"], 0.03, 2000)])
def test_predict_tracks_the_simulated_mean(spec, eta, steps):
    """The corrected ODE with the prior's moments, at a practical constant step. (bernoulli(0.3)
    drifts about 4x slower than the fixed prior at the same theta, so its step is smaller:
    at eta = 0.1 the early mean departs from the ODE by about 0.04, 4 standard errors, a
    fluctuation effect the mean equation does not carry.)"""
    problem = Problem(theta=1.0, R=150, L=1000, d=30, prior=spec)
    sch = Schedule.constant(eta)
    stride = steps // 30
    sim = simulate(problem, sch, steps=steps, runs=40, rho0=0.2, seed=4, stride=stride)
    pred = predict(problem, sch, steps, 0.2, stride)
    mean = sim.rho.mean(axis=0)
    e_corr = float(np.max(np.abs(mean - pred.rho_corrected)))
    e_plain = float(np.max(np.abs(mean - pred.rho_plain)))
    assert e_corr <= 0.03 and e_corr < e_plain / 2
