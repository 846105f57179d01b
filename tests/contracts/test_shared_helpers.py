"""The shared helpers: validators, central difference, equilibrium midpoints, recorded steps."""

from __future__ import annotations

import numpy as np
import pytest

from sigrec.numerics import Problem, Schedule, simulate
from sigrec.theory import Bracket, Certificate, Model, central_difference, certify, evaluate, validate

# ----------------------------------------------------------------- validators


@pytest.mark.parametrize("call, message", [
    (lambda: validate.real("beta", 0, lower=0.0, strict=True), "`beta` must be > 0, got 0.0"),
    (lambda: validate.real("theta", -1, lower=0.0), "`theta` must be >= 0, got -1.0"),
    (lambda: validate.real("alpha", 1.5, lower=0.0, upper=1.0), "`alpha` must lie in [0, 1], got 1.5"),
    (lambda: validate.real("x", 1.0, lower=0.0, upper=1.0, strict=True), "`x` must lie in (0, 1), got 1.0"),
    (lambda: validate.real("x", 3.0, upper=2.0), "`x` must be <= 2, got 3.0"),
    (lambda: validate.real("x", float("inf")), "`x` must be a finite real number, got inf"),
    (lambda: validate.real("x", True), "`x` must be a finite real number, got True"),
    (lambda: validate.integer("steps", 2.5, 1), "`steps` must be an integer, got 2.5"),
    (lambda: validate.integer("steps", 0, 1), "`steps` must be >= 1, got 0"),
    (lambda: validate.integer("k", 7, 0, 5), "`k` must lie in [0, 5], got 7"),
    (lambda: validate.integer("k", 7, None, 5), "`k` must be <= 5, got 7"),
    (lambda: validate.alignments("rho", [0.5, 1.5]), "`rho` must lie in [-1, 1], got [0.5, 1.5]"),
    (lambda: validate.nonnegative("t", [1.0, -1.0]), "`t` must be finite and >= 0, got [1.0, -1.0]"),
    (lambda: validate.choice("prior", "x", ("fixed", "rademacher")),
     "`prior` must be one of ('fixed', 'rademacher'), got 'x'"),
    (lambda: validate.instance("model", 3, Model, "theory.Model"), "`model` must be a theory.Model, got int"),
])
def test_validators_name_the_parameter_and_the_value(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value) == message


def test_validators_return_canonical_values():
    assert validate.real("x", 3) == 3.0 and isinstance(validate.real("x", 3), float)
    assert validate.integer("n", 4.0, 1) == 4 and isinstance(validate.integer("n", np.int64(4), 1), int)
    assert validate.alignments("rho", 0.5).dtype == float
    assert validate.choice("kind", "constant", ("polynomial", "constant")) == "constant"


def test_theory_and_numerics_share_the_validators():
    """Model, Problem and Schedule refuse the same bad value with the same message."""
    messages = set()
    for build in (lambda: Model(theta=1.0, alpha=0.5, beta=0.0),
                  lambda: Problem(theta=1.0, R=1, L=4, d=3, beta=0.0)):
        with pytest.raises(ValueError) as err:
            build()
        messages.add(str(err.value))
    assert messages == {"`beta` must be > 0, got 0.0"}
    with pytest.raises(ValueError) as err:
        Schedule(kind="cosine")
    assert str(err.value) == "`kind` must be one of ('polynomial', 'constant'), got 'cosine'"
    messages = set()
    for build in (lambda: Problem(theta=1.0, R=25, L=20, d=3), lambda: Model.from_counts(1.0, R=25, L=20),
                  lambda: validate.counts(25, 20)):
        with pytest.raises(ValueError) as err:
            build()
        messages.add(str(err.value))
    assert messages == {"`R` must satisfy R <= L = 20, got R = 25"}


def test_problem_holds_its_model():
    """Problem validates through its Model (one check per field) and keeps its attributes."""
    problem = Problem(theta=2, R=10, L=40, d=4, beta=0.5, sigma2=2, prior="rademacher(0.7)", batch=3)
    assert problem.model == Model(theta=2.0, alpha=0.25, beta=0.5, sigma2=2.0, prior="rademacher(p=0.7)")
    assert (problem.theta, problem.beta, problem.sigma2) == (2.0, 0.5, 2.0)
    assert all(type(v) is float for v in (problem.theta, problem.beta, problem.sigma2))
    assert problem.prior is problem.model.prior and str(problem.prior) == "rademacher(p=0.7)"
    assert problem.as_dict() == {"theta": 2.0, "R": 10, "L": 40, "d": 4, "beta": 0.5, "sigma2": 2.0,
                                 "prior": "rademacher(p=0.7)", "k": 1, "heads": 1, "batch": 3}
    assert Problem.from_dict(problem.as_dict()) == problem
    assert Problem(2, 10, 40, 4, 0.5, 2, "rademacher(p=0.7)", 3) == problem
    assert validate.counts(3.0, 4) == (3, 4) and all(type(v) is int for v in validate.counts(3.0, 4))
    with pytest.raises(AttributeError):
        problem.theta = 1.0
    for kwargs, message in [(dict(theta=-1.0), "`theta` must be >= 0, got -1.0"),
                            (dict(d=1), "`d` must be >= 2, got 1"),
                            (dict(batch=0), "`batch` must be >= 1, got 0"),
                            (dict(L=0), "`L` must be >= 1, got 0"),
                            (dict(R=-1), "`R` must be >= 0, got -1")]:
        with pytest.raises(ValueError) as err:
            Problem(**{**dict(theta=1.0, R=1, L=4, d=3), **kwargs})
        assert str(err.value) == message


# ----------------------------------------------------------------- central difference


def test_central_difference_is_exact_on_quadratics_and_vectorised():
    assert central_difference(lambda x: 3 * x * x - x, 0.4, 1e-3) == pytest.approx(1.4, rel=1e-10)
    assert isinstance(central_difference(lambda x: x * x, 0.4, 1e-3), float)
    x = np.array([-0.5, 0.0, 0.5])
    np.testing.assert_allclose(central_difference(lambda u: u**3, x, 1e-4), 3 * x**2, atol=1e-7)


def test_central_difference_clips_to_the_domain():
    # at the upper end the stencil becomes one-sided: (f(1) - f(0.9)) / 0.1
    assert central_difference(lambda x: x * x, 1.0, 0.1, hi=1.0) == pytest.approx(1.9, rel=1e-12)
    assert central_difference(lambda x: x * x, -1.0, 0.1, lo=-1.0, hi=1.0) == pytest.approx(-1.9, rel=1e-12)
    # on arrays: the point at the bound uses the one-sided stencil [1 - h, 1]
    r = np.array([0.2, 1.0])
    slope = central_difference(lambda u: np.sqrt(np.maximum(1 - u * u, 0.0)), r, 1e-6, lo=-1.0, hi=1.0)
    assert np.all(np.isfinite(slope)) and slope[0] == pytest.approx(-0.2 / np.sqrt(0.96), rel=1e-6)


@pytest.mark.parametrize("h", [0.0, -1e-3, float("nan")])
def test_central_difference_refuses_a_bad_step(h):
    with pytest.raises(ValueError, match="`h`"):
        central_difference(lambda x: x, 0.0, h)


def test_central_difference_matches_the_field_slope():
    model = Model(theta=1.0, alpha=0.3, beta=1.2)
    rho = np.array([-0.4, 0.1, 0.6])
    # F = (1 - rho^2) j'  so  F' = -2 rho j' + (1 - rho^2) j''; compare with a finer difference of j'
    jpp = central_difference(lambda u: evaluate(model, u).slope, rho, 1e-5)
    expected = -2 * rho * evaluate(model, rho).slope + (1 - rho**2) * jpp
    got = central_difference(lambda u: evaluate(model, u).field, rho, 1e-6, lo=-1.0, hi=1.0)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


# ----------------------------------------------------------------- equilibrium midpoints


def test_bracket_midpoint():
    assert Bracket(0.2, 0.4, "stable").midpoint == pytest.approx(0.3)
    assert Bracket(0.0, 0.0, "unstable", exact=True).midpoint == 0.0
    cert = Certificate("bistable", False, True, equilibria=(Bracket(-0.6, -0.5, "unstable"),
                                                          Bracket(0.0, 0.0, "unstable", exact=True)))
    assert cert.midpoints == (pytest.approx(-0.55), 0.0)
    assert all(type(x) is float for x in cert.midpoints)
    assert Certificate("monotone", True, True).midpoints == ()


def test_certificate_midpoints_are_the_equilibria():
    assert certify(Model(theta=1.0, alpha=0.5, prior="rademacher")).midpoints == (0.0,)
    cert = certify(Model(theta=3.0, alpha=0.01, beta=1.0))
    assert cert.status == "bistable" and len(cert.midpoints) == len(cert.equilibria) >= 1
    for e, mid in zip(cert.equilibria, cert.midpoints, strict=True):
        assert e.lo <= mid <= e.hi
        assert abs(float(evaluate(Model(theta=3.0, alpha=0.01, beta=1.0), mid).slope)) < 1e-6


# ----------------------------------------------------------------- recorded steps


@pytest.fixture(scope="module")
def sim():
    return simulate(Problem(theta=1.0, R=5, L=20, d=4), Schedule(), steps=10, runs=3, seed=2, stride=4)


def test_rho_at_reads_recorded_steps(sim):
    np.testing.assert_array_equal(sim.record_steps, [0, 4, 8, 10])
    np.testing.assert_array_equal(sim.rho_at(4), sim.rho[:, 1])
    np.testing.assert_array_equal(sim.rho_at(10), sim.final_rho)
    np.testing.assert_array_equal(sim.rho_at([0, 8, 10]), sim.rho[:, [0, 2, 3]])
    assert sim.rho_at(np.array([[0, 4], [8, 10]])).shape == (3, 2, 2)


@pytest.mark.parametrize("steps", [5, [4, 7], -1, 11, 4.5])
def test_rho_at_refuses_unrecorded_steps(sim, steps):
    with pytest.raises(ValueError, match="unrecorded"):
        sim.rho_at(steps)


def test_sampled_rho_is_rho_at_the_sample_steps(sim):
    np.testing.assert_array_equal(sim.sample_steps, [0, 4, 8])
    assert sim.sampled_rho.shape == sim.noise_mass.shape[:2] and sim.noise_mass.shape[2] == 1  # one head
    np.testing.assert_array_equal(sim.sampled_rho, sim.rho[:, :3])
