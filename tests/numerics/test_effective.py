"""Finite-step effective dynamics: sympy vs quadrature vs Monte Carlo, and the corrected ODE."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from sigrec.numerics import Correction, Problem, Schedule, SimulationOptions, complexity, predict, simulate
from sigrec.numerics._simulate._full import token_gradient
from sigrec.theory import (
    Model,
    derive,
    derive_effective,
    effective_drift,
    effective_quadrature,
    evaluate,
    gradient_second_moment,
    stationary_alignment,
    symbols,
)

X_inc, Y_inc, eta, rho = symbols.X_inc, symbols.Y_inc, symbols.eta, symbols.rho
alpha, beta, sigma2, theta = symbols.alpha, symbols.beta, symbols.sigma2, symbols.theta


def test_step_expansion_is_drift_minus_half_eta_rho_Y():
    e = derive_effective("fixed")
    assert sp.simplify(e.step_drift - (X_inc - eta * rho * Y_inc / 2)) == 0


@pytest.mark.parametrize("prior, point", [
    ("fixed", dict(rho=0.37, theta=1.3, alpha=0.3, beta=0.8, sigma2=1.4)),
    ("rademacher", dict(rho=-0.7, theta=0.6, alpha=0.6, beta=1.8, sigma2=0.5)),
])
def test_second_order_tilting_matches_quadrature(prior, point):
    q = effective_quadrature(prior, point, dps=50)
    assert q.max_rel_diff < 1e-40


@pytest.mark.parametrize("prior", ["fixed", "rademacher"])
def test_mean_gradient_component_is_the_field(prior):
    """<gbar, e_perp> = F / sqrt(1 - rho^2): the influence route reproduces the lead's derivation."""
    e = derive_effective(prior)
    f = sp.lambdify((rho, theta, alpha, beta, sigma2), (e.mean_perp, derive(prior).field / sp.sqrt(1 - rho**2)))
    for p in [(0.3, 1.1, 0.4, 0.7, 1.2), (-0.8, 0.5, 0.8, 1.5, 0.6)]:
        a, b = f(*p)
        assert a == pytest.approx(b, rel=1e-10)


def _mc_second_moment(problem: Problem, r: float, draws: int, seed: int):
    """E|P g|^2 and E<P g, xi> from the full d-dimensional token gradient."""
    rng = np.random.default_rng(seed)
    d, L = problem.d, problem.L
    q = np.zeros(d)
    q[0], q[1] = r, np.sqrt(1 - r * r)
    Y, X = [], []
    for _ in range(draws // 100):
        T = rng.standard_normal((100, L, d)) * np.sqrt(problem.sigma2)
        T[:, : problem.R, 0] += problem.theta
        g, _, _ = token_gradient(T, np.broadcast_to(q, (100, d)).copy(), problem.beta)
        Pg = g - (g @ q)[:, None] * q
        Y.append(np.sum(Pg * Pg, axis=1))
        X.append(Pg[:, 0])
    Y, X = np.concatenate(Y), np.concatenate(X)
    return Y.mean(), Y.std() / np.sqrt(Y.size), X.mean(), X.std() / np.sqrt(X.size)


@pytest.mark.parametrize("r", [0.2, 0.7])
def test_gradient_second_moment_matches_monte_carlo(r):
    problem = Problem(theta=1.0, R=300, L=1500, d=12, beta=0.8)
    Y, eY, X, eX = _mc_second_moment(problem, r, 4000, seed=11)
    G = gradient_second_moment(problem.model, r, problem.d, problem.L)
    # O(1/L) fluctuation terms without the factor d are not modelled: allow 2% on top of MC error
    assert abs(Y - float(G.total)) <= 4 * eY + 0.02 * Y
    assert abs(X - float(evaluate(problem.model, r).field)) <= 4 * eX + 0.002


@pytest.mark.slow
def test_self_interaction_term_is_needed_at_the_paper_size():
    """At d/L ~ 0.01 the leading-order trace is ~6% low; the self-interaction term closes the gap."""
    problem = Problem(theta=0.25, R=500, L=10500, d=100)
    Y, eY, _, _ = _mc_second_moment(problem, 0.6, 2000, seed=3)
    lead = gradient_second_moment(problem.model, 0.6, 100, 10500, self_interaction=False).total
    full = gradient_second_moment(problem.model, 0.6, 100, 10500).total
    assert abs(Y - full) <= 4 * eY + 0.005 * Y
    assert Y - lead > 8 * eY


def test_correction_vanishes_linearly_as_eta_goes_to_zero():
    model = Model.from_counts(0.25, 500, 10500)
    r = np.linspace(-0.95, 0.95, 7)
    base = effective_drift(model, r, 0.0, 100, 10500, finite_L=False)
    np.testing.assert_allclose(base.drift, evaluate(model, r).field, rtol=0, atol=1e-15)
    d1 = effective_drift(model, r, 1e-2, 100, 10500, finite_L=False).drift - base.drift
    d2 = effective_drift(model, r, 1e-4, 100, 10500, finite_L=False).drift - base.drift
    np.testing.assert_allclose(d2, d1 / 100, rtol=1e-9, atol=1e-18)


def test_plateau_is_a_stable_zero_below_one():
    model = Model.from_counts(0.25, 500, 10500)
    pl = stationary_alignment(model, 0.05, 100, 10500)
    assert 0.7 < pl.rho < 0.9 and pl.slope < 0 and 0 < pl.spread < 0.1
    assert abs(float(effective_drift(model, pl.rho, 0.05, 100, 10500).drift)) < 1e-12
    smaller = stationary_alignment(model, 0.005, 100, 10500)
    assert smaller.deficit < pl.deficit / 5


def test_corrected_prediction_tracks_simulation_better_than_plain():
    problem = Problem(theta=1.0, R=150, L=1000, d=30)
    sch = Schedule.constant(0.1)
    sim = simulate(problem, sch, steps=600, runs=30, rho0=0.05, seed=4, stride=20)
    pred = predict(problem, sch, 600, 0.05, 20)
    np.testing.assert_array_equal(pred.step, sim.record_steps)
    np.testing.assert_allclose(pred.time, sim.times)
    mean = sim.rho.mean(axis=0)
    e_plain = np.max(np.abs(mean - pred.rho_plain))
    e_corr = np.max(np.abs(mean - pred.rho_corrected))
    assert e_corr < e_plain / 3 and e_corr < 0.03


def test_predict_decaying_schedule_approaches_plain_when_eta_small():
    problem = Problem(theta=1.0, R=150, L=1000, d=30)
    pred = predict(problem, Schedule(eta0=1e-3, k0=10.0, power=0.6), 2000, 0.1, 100,
                   correction=Correction(finite_L=False))
    assert np.max(np.abs(pred.rho_corrected - pred.rho_plain)) < 1e-3
    assert pred.rho_corrected[0] == pytest.approx(0.1) and pred.rho_plain[0] == pytest.approx(0.1)


def test_predict_validates_inputs():
    problem = Problem(theta=1.0, R=150, L=1000, d=30)
    with pytest.raises(ValueError, match="rho0"):
        predict(problem, Schedule.constant(0.1), 10, 1.5)
    with pytest.raises(ValueError, match="steps"):
        predict(problem, Schedule.constant(0.1), 0, 0.1)
    with pytest.raises(ValueError, match="informative"):
        predict(Problem(theta=1.0, R=0, L=100, d=5), Schedule.constant(0.1), 10, 0.1)


def test_predict_non_stiff_is_the_explicit_solve_bit_for_bit():
    # the stiffness switch (numerics/_ode/_corrected.py) leaves ordinary problems on DOP853
    from scipy.integrate import solve_ivp

    from sigrec.numerics import corrected_drift
    from sigrec.numerics._ode._corrected import integrate_corrected

    problem, sch = Problem(theta=1.0, R=150, L=1000, d=30), Schedule.constant(0.1)
    drift = corrected_drift(problem)
    t = sch.times(600)[::20]
    y, ok, _ = integrate_corrected(drift, sch, 600, 0.05, t)
    # the same right-hand side (the drift's plain-Python form), so the same solve, bit for bit
    f = drift.scalar()
    ref = solve_ivp(lambda _t, u: [f(min(max(float(u[0]), -1.0), 1.0), 0.1)], (0.0, t[-1]), [0.05],
                    method="DOP853", t_eval=t, rtol=1e-9, atol=1e-12, max_step=t[-1] / 200)
    assert ok and np.array_equal(y, ref.y[0])
    # ... and through scipy's spline evaluation, the same solution to the solver's tolerance
    spline = solve_ivp(lambda _t, u: [float(drift(min(max(u[0], -1.0), 1.0), 0.1))], (0.0, t[-1]), [0.05],
                       method="DOP853", t_eval=t, rtol=1e-9, atol=1e-12, max_step=t[-1] / 200)
    np.testing.assert_allclose(y, spline.y[0], rtol=0, atol=1e-9)


@pytest.mark.parametrize("methods", [("LSODA",), ("Radau",)])
def test_stiff_solvers_agree_with_the_explicit_one(monkeypatch, methods):
    import sigrec.numerics._ode._corrected as corrected

    problem = Problem(theta=1.0, R=1, L=4, d=2, beta=2.0)  # Lip x horizon ~ 8e3: DOP853 still copes
    sch = Schedule(eta0=0.5, k0=10.0, power=0.75)
    explicit = predict(problem, sch, 20, 0.3, 2).rho_corrected
    monkeypatch.setattr(corrected, "STIFF", 0.0)
    monkeypatch.setattr(corrected, "STIFF_METHODS", methods)
    implicit = predict(problem, sch, 20, 0.3, 2).rho_corrected
    np.testing.assert_allclose(implicit, explicit, rtol=0, atol=1e-8)


def test_corrected_ode_work_is_bounded(monkeypatch):
    import sigrec.numerics._ode._corrected as corrected

    monkeypatch.setattr(corrected, "MAX_EVALUATIONS", 100)
    pred = predict(Problem(theta=1.0, R=150, L=1000, d=30), Schedule.constant(0.1), 600, 0.05, 20)
    assert not pred.success and "more than 100 drift evaluations" in pred.message
    assert np.all(np.isnan(pred.rho_corrected))


def test_check_fails_on_a_wrong_drag(tmp_path):
    from sigrec.verify.checks import REGISTRY, CheckContext

    wrong = REGISTRY["sga.effective_drift"].run(None, CheckContext(seed=1), runs=20, drag_scale=0.3)[0]
    assert wrong.id == "sga.effective_drift" and wrong.kind == "consistency"
    assert wrong.status == "fail"


@pytest.mark.slow
def test_check_passes_and_draws_figure(tmp_path):
    from sigrec.verify.checks import REGISTRY, CheckContext

    path = tmp_path / "effective_drift.png"
    from sigrec.verify.render import figures

    rec = REGISTRY["sga.effective_drift"].run(None, CheckContext(seed=1, figure_dir=tmp_path))[0]
    assert rec.status == "pass", rec.message
    figures.draw_records([rec])
    assert path.stat().st_size > 10_000


def test_plateau_away_from_beta_one_matches_the_exact_chain():
    """theta = 0.8, R = 200, N = 3,000, d = 20, beta = 1.5, eta = 0.02 from rho0 = 0.95.

    The closed forms (a token's weight w / (L D)) put the plateau at 0.888; the exact chain
    sits at about 0.929. Tolerance: 4 standard errors of the run means plus 5% of 1 - rho
    (the O(1/L) terms still neglected, theory/_effective/_tokens.py)."""
    p = Problem(theta=0.8, R=200, L=3200, d=20, beta=1.5)
    s = Schedule(eta0=0.02, k0=1.0, power=0.0)
    sim = simulate(p, s, steps=1500, runs=48, seed=1, rho0=0.95, stride=50, options=SimulationOptions(workers=2))
    late = sim.rho[:, sim.record_steps >= 700].mean(axis=1)
    mean, se = late.mean(), late.std(ddof=1) / np.sqrt(late.size)
    tol = 4 * se + 0.05 * (1 - mean)
    pred = predict(p, s, 1500, 0.95).rho_corrected[-1]
    assert abs(pred - mean) <= tol
    assert stationary_alignment(p.model, 0.02, p.d, p.L).rho == pytest.approx(pred, abs=1e-4)
    old = stationary_alignment(p.model, 0.02, p.d, p.L, self_normalised=False).rho
    assert abs(old - mean) > tol


@pytest.mark.slow
def test_complexity_away_from_beta_one_matches_the_exact_chain():
    """``sigrec complexity --theta 0.8 --R 200 --L 3200 --d 20 --beta 1.5 --eta0 2 --k0 20 --power 1``:
    the closed forms predicted a median of 1,532 steps; the exact chain needs about 845."""
    p = Problem(theta=0.8, R=200, L=3200, d=20, beta=1.5)
    s = Schedule(eta0=2.0, k0=20.0, power=1.0)
    sim = simulate(p, s, steps=3000, runs=300, seed=5, stride=1, options=SimulationOptions(workers=2))
    hit = np.abs(sim.rho) >= 0.99
    steps = np.where(hit.any(axis=1), hit.argmax(axis=1), 10**6)
    c = complexity(p, s, runs=2000, seed=1)
    lo, hi = np.quantile(steps, [0.42, 0.58])  # ~ a 95% interval of the median with 300 runs
    assert lo * 0.95 <= c.median_steps <= hi * 1.05, (lo, np.median(steps), hi, c.median_steps)
