"""Simulators: gradient vs finite differences, reduced vs full in law, seeds, recording."""

import numpy as np
import pytest
from scipy import stats

import sigrec.numerics._simulate._reduced as reduced_module
from sigrec.numerics import Problem, Schedule, SimulationOptions, simulate
from sigrec.numerics._simulate._full import draw_tokens, softmax_rows, token_gradient

SCHEDULE = Schedule(eta0=0.5, k0=1.0, power=0.75)


def pooled_objective(X: np.ndarray, q: np.ndarray, beta: float) -> np.ndarray:
    """``||f_q(X)||^2`` for token collections ``X`` (..., L, d) and queries ``q`` (..., d)."""
    a = softmax_rows(beta * np.matmul(X, q[..., :, None])[..., 0])
    f = np.matmul(a[..., None, :], X)[..., 0, :]
    return np.sum(f * f, axis=-1)


# ---------------------------------------------------------------- gradient


@pytest.mark.parametrize(
    "kw",
    [dict(theta=1.0, R=3, L=8, d=4), dict(theta=2.5, R=5, L=12, d=3, beta=0.7, sigma2=2.0),
     dict(theta=1.5, R=4, L=10, d=6, prior="rademacher", beta=1.8, sigma2=0.5),
     dict(theta=0.0, R=0, L=5, d=2, beta=3.0)],
)
def test_gradient_matches_central_finite_differences(kw):
    p = Problem(**kw)
    gen = np.random.default_rng(7)
    for _ in range(3):
        X = np.empty((p.L, p.d))
        draw_tokens(gen, X, p)
        q = gen.standard_normal(p.d)
        q /= np.linalg.norm(q)
        grad, f, a = token_gradient(X, q, p.beta)
        h = 1e-6
        fd = np.array([(pooled_objective(X, q + h * e, p.beta) - pooled_objective(X, q - h * e, p.beta)) / (2 * h)
                       for e in np.eye(p.d)])
        np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-7 * np.abs(fd).max())
        np.testing.assert_allclose(f, X.T @ a)
        assert a.sum() == pytest.approx(1.0)


def test_gradient_is_batched_over_leading_axes():
    gen = np.random.default_rng(3)
    X, q = gen.standard_normal((4, 9, 5)), gen.standard_normal((4, 5))
    grads = token_gradient(X, q, 1.3)[0]
    for i in range(4):
        np.testing.assert_allclose(grads[i], token_gradient(X[i], q[i], 1.3)[0], rtol=1e-13)


def test_softmax_does_not_overflow():
    X = np.zeros((3, 2))
    X[0, 0] = 1e4
    grad, _, a = token_gradient(X, np.array([1.0, 0.0]), 1.0)
    assert np.all(np.isfinite(grad)) and a[0] == 1.0


# ---------------------------------------------------------------- law of the reduced chain


def _both(kw, steps, runs, rho0=0.3, schedule=SCHEDULE):
    p = Problem(**kw)
    red = simulate(p, schedule, steps=steps, runs=runs, rho0=rho0, seed=11,
                   options=SimulationOptions(simulator="reduced"))
    full = simulate(p, schedule, steps=steps, runs=runs, rho0=rho0, seed=12,
                    options=SimulationOptions(simulator="full"))
    return red, full


def _assert_same_law(a, b, alpha=1e-3):
    assert stats.ks_2samp(a, b).pvalue > alpha
    se = np.sqrt(a.var() / a.size + b.var() / b.size)
    assert abs(a.mean() - b.mean()) < 4.5 * se


FAST = [
    dict(theta=1.5, R=5, L=30, d=3, prior="rademacher", beta=2.0, sigma2=0.5, batch=2),
    dict(theta=1.0, R=10, L=40, d=20, beta=1.5, sigma2=2.0),
    dict(theta=1.0, R=10, L=40, d=2),
]


@pytest.mark.parametrize("kw", FAST, ids=lambda kw: f"d{kw['d']}")
def test_reduced_equals_full_in_law(kw):
    red, full = _both(kw, steps=3, runs=2000, schedule=Schedule(eta0=1.0, k0=1.0, power=0.75))
    for k in (1, 3):
        _assert_same_law(red.rho[:, k], full.rho[:, k])
    # the step-0 samples of the pooled output: checks t = Z^T Z a and chi2_{n_out}
    _assert_same_law(red.objective[:, 0], full.objective[:, 0])
    _assert_same_law(red.noise_mass[:, 0], full.noise_mass[:, 0])


def test_the_law_comparison_detects_a_wrong_reduction(monkeypatch):
    """Dropping the out-of-plane chi2_{n_out-1} term must be caught by the same test."""
    monkeypatch.setattr(reduced_module, "_chi2_pair", lambda gen, n_out: (2.0 * gen.standard_gamma(n_out / 2), 0.0))
    red, full = _both(FAST[1], steps=1, runs=2000, schedule=Schedule(eta0=1.0, k0=1.0, power=0.75))
    assert stats.ks_2samp(red.rho[:, 1], full.rho[:, 1]).pvalue < 1e-3


SLOW = [
    dict(theta=1.0, R=10, L=40, d=5),
    dict(theta=0.5, R=20, L=60, d=50, beta=1.0, sigma2=1.5),
    dict(theta=2.0, R=3, L=50, d=10, prior="rademacher", batch=4),
    dict(theta=1.2, R=8, L=30, d=3, beta=0.6, sigma2=0.8, batch=3),
    dict(theta=0.25, R=50, L=200, d=30, beta=2.0),
]


@pytest.mark.slow
@pytest.mark.parametrize("kw", SLOW + FAST,
                         ids=lambda kw: f"d{kw['d']}-{kw.get('prior', 'fixed')}-B{kw.get('batch', 1)}")
def test_reduced_equals_full_in_law_many_steps(kw):
    red, full = _both(kw, steps=10, runs=5000, rho0=-0.2, schedule=Schedule(eta0=0.8, k0=2.0, power=0.6))
    for k in (1, 4, 10):
        _assert_same_law(red.rho[:, k], full.rho[:, k])
    _assert_same_law(red.objective[:, 0], full.objective[:, 0])


# ---------------------------------------------------------------- seeds, start, recording


@pytest.mark.parametrize("simulator", ["reduced", "full"])
def test_same_seed_same_bits(simulator):
    p = Problem(theta=1.0, R=4, L=20, d=6, prior="rademacher", batch=2)
    a = simulate(p, SCHEDULE, steps=5, runs=7, options=SimulationOptions(simulator=simulator), seed=123)
    b = simulate(p, SCHEDULE, steps=5, runs=7, options=SimulationOptions(simulator=simulator), seed=123)
    c = simulate(p, SCHEDULE, steps=5, runs=7, options=SimulationOptions(simulator=simulator), seed=124)
    np.testing.assert_array_equal(a.rho, b.rho)
    np.testing.assert_array_equal(a.objective, b.objective)
    assert not np.array_equal(a.rho, c.rho)
    assert len(set(a.final_rho)) == 7  # runs have independent streams


def test_uniform_start_law_and_shared_between_simulators():
    d = 5
    p = Problem(theta=1.0, R=2, L=6, d=d)
    sim = simulate(p, SCHEDULE, steps=1, runs=4000, seed=5)
    u = (sim.initial_rho + 1) / 2
    assert stats.kstest(u, stats.beta((d - 1) / 2, (d - 1) / 2).cdf).pvalue > 1e-3
    full = simulate(p, SCHEDULE, steps=1, runs=20, options=SimulationOptions(simulator="full"), seed=5)
    np.testing.assert_array_equal(full.initial_rho, sim.initial_rho[:20])


def test_recording_with_stride():
    p = Problem(theta=1.0, R=2, L=6, d=4)
    sim = simulate(p, SCHEDULE, steps=10, runs=3, seed=0, stride=4)
    np.testing.assert_array_equal(sim.record_steps, [0, 4, 8, 10])
    np.testing.assert_array_equal(sim.sample_steps, [0, 4, 8])
    np.testing.assert_allclose(sim.times, SCHEDULE.times(10)[[0, 4, 8, 10]])
    every = simulate(p, SCHEDULE, steps=10, runs=3, seed=0)
    np.testing.assert_array_equal(sim.rho, every.rho[:, [0, 4, 8, 10]])
    assert np.all((sim.noise_mass > 0) & (sim.noise_mass < 1))
    assert np.all(np.abs(sim.rho) <= 1)


def test_strong_signal_aligns_and_the_noise_floor_shrinks_with_L():
    """The ODE reaches rho = 1 by t_300; the finite-L fluctuation floor shrinks as L grows."""
    gaps = []
    for L in (400, 4000):
        p = Problem(theta=3.0, R=L // 2, L=L, d=100)
        sim = simulate(p, Schedule(eta0=0.5, k0=10.0, power=0.75), steps=300, runs=20, rho0=0.0, seed=1)
        gaps.append(1.0 - sim.final_rho.mean())
    assert 0 < gaps[1] < 0.01 and gaps[1] < gaps[0] / 3


def test_fraction_aligned_counts_the_runs_that_end_aligned():
    p = Problem(theta=1.0, R=2, L=6, d=4)
    sim = simulate(p, SCHEDULE, steps=4, runs=9, seed=0)
    final = np.abs(sim.final_rho)
    cut = float(np.sort(final)[4])
    assert sim.fraction_aligned(cut) == 5 / 9
    assert sim.fraction_aligned(0.0) == 1.0 and sim.fraction_aligned(1.01) == 0.0


def test_save_roundtrip(tmp_path):
    p = Problem(theta=1.0, R=2, L=6, d=4)
    sim = simulate(p, SCHEDULE, steps=4, runs=2, seed=0)
    sim.save(tmp_path / "t.npz")
    with np.load(tmp_path / "t.npz") as z:
        np.testing.assert_array_equal(z["rho"], sim.rho)
        assert z["problem_d"] == 4 and str(z["simulator"]) == "reduced"


@pytest.mark.parametrize(
    "kwargs, name",
    [(dict(R=5, L=3), "R"), (dict(d=1), "d"), (dict(batch=0), "batch"), (dict(theta=-1.0), "theta"),
     (dict(beta=0.0), "beta"), (dict(sigma2=-2.0), "sigma2"), (dict(prior="gauss"), "prior"), (dict(L=2.5), "L")],
)
def test_bad_problem_names_the_parameter(kwargs, name):
    base = dict(theta=1.0, R=1, L=4, d=3)
    with pytest.raises(ValueError, match=f"`{name}`"):
        Problem(**{**base, **kwargs})


@pytest.mark.parametrize(
    "kwargs, name",
    [(dict(steps=0), "steps"), (dict(runs=0), "runs"), (dict(rho0=1.2), "rho0"), (dict(stride=0), "stride"),
     (dict(options=SimulationOptions(simulator="mid")), "simulator"), (dict(seed=-1), "seed")],
)
def test_bad_simulation_arguments(kwargs, name):
    base = dict(steps=2, runs=2)
    with pytest.raises(ValueError, match=f"`{name}`"):
        simulate(Problem(theta=1.0, R=1, L=4, d=3), SCHEDULE, **{**base, **kwargs})
