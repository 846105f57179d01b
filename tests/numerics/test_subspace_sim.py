"""Subspace simulators (k signal directions, H heads): gradient and Stiefel helpers, reduced vs
full in law, the k = H = 1 reduction to the scalar chain, recovery of the span by H = k heads."""

import numpy as np
import pytest
from scipy import linalg, stats

import sigrec.numerics._simulate._subspace_reduced as reduced_module
from sigrec.numerics import Problem, Schedule, SimulationOptions, simulate, start_law
from sigrec.numerics._simulate._full import token_gradient
from sigrec.numerics._simulate._stiefel import WishartRoot, haar_overlap, principal_angles, retract
from sigrec.numerics._simulate._subspace_full import heads_objective, riemannian_step
from sigrec.theory import Model

STEP = Schedule(eta0=1.0, k0=1.0, power=0.75)
M0_H1 = np.array([[0.4], [-0.3]])
M0_H2 = np.array([[0.5, 0.1], [0.2, -0.3]])


def _frame(gen, d, H):
    return retract(gen.standard_normal((d, H)))


# ---------------------------------------------------------------- gradient, step, helpers


def test_heads_gradient_matches_central_finite_differences():
    gen = np.random.default_rng(4)
    L, d, H, beta = 9, 6, 3, 1.3
    X, Q = gen.standard_normal((L, d)), _frame(gen, d, H)
    grad = token_gradient(X[None], Q.T, beta)[0].T  # (d, H): column h is the gradient in q_h
    h = 1e-6
    fd = np.zeros((d, H))
    for i in range(d):
        for j in range(H):
            E = np.zeros((d, H))
            E[i, j] = h
            fd[i, j] = (heads_objective(X, Q + E, beta) - heads_objective(X, Q - E, beta)) / (2 * h)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-7 * np.abs(fd).max())


def test_riemannian_step_stays_on_the_stiefel_manifold_and_is_the_scalar_step_for_one_head():
    gen = np.random.default_rng(5)
    Q, G = _frame(gen, 7, 3), gen.standard_normal((7, 3))
    Q1 = riemannian_step(Q, G, 0.4)
    np.testing.assert_allclose(Q1.T @ Q1, np.eye(3), atol=1e-13)
    # first order: the step is eta times the tangent projection of G
    small = riemannian_step(Q, G, 1e-6) - Q
    tangent = G - Q @ (Q.T @ G + G.T @ Q) / 2
    np.testing.assert_allclose(small / 1e-6, tangent, rtol=1e-4, atol=1e-6)
    q, g = Q[:, :1], G[:, :1]
    a = q + 0.4 * (g - q * (q.T @ g))
    np.testing.assert_allclose(riemannian_step(q, g, 0.4), a / np.linalg.norm(a), rtol=1e-13)


def test_haar_overlap_and_wishart_roots_have_their_laws():
    gen = np.random.default_rng(6)
    n, H, draws = 7, 2, 4000
    roots = {m: WishartRoot(m, H) for m in (n, n - H, 1)}
    T = {m: np.zeros((draws, H, H)) for m in roots}
    for m, root in roots.items():
        for i in range(draws):
            root.draw(gen, T[m][i])
        W = np.swapaxes(T[m], 1, 2) @ T[m]
        # E Wishart_H(m, I) = m I; the (0, 1) entry has variance m
        np.testing.assert_allclose(W.mean(axis=0), m * np.eye(H), atol=5 * np.sqrt(2 * m / draws))
    G1 = gen.standard_normal((draws, H, H))
    X = haar_overlap(G1, T[n - H])
    direct = np.array([_frame(gen, n, H)[:H] for _ in range(draws)])  # W_1 = [I; 0]
    for i, j in [(0, 0), (0, 1), (1, 0)]:
        assert stats.ks_2samp(X[:, i, j], direct[:, i, j]).pvalue > 1e-3


def test_principal_angles_match_scipy():
    gen = np.random.default_rng(8)
    for k, H in [(2, 2), (3, 1), (1, 3), (2, 3)]:
        Q = _frame(gen, 9, H)
        P = Q[k:]
        ours = principal_angles(P.T @ P, k)
        ref = np.sort(linalg.subspace_angles(Q, np.eye(9)[:, :k]))
        np.testing.assert_allclose(ours, ref, atol=1e-10)


# ---------------------------------------------------------------- reduced vs full in law


def _problem(law, heads=1, **kw) -> Problem:
    return Problem(prior=law, **kw).with_heads(heads)


def _both(kw, heads, M0, steps, runs, schedule=STEP):
    p = _problem(heads=heads, **kw)
    red = simulate(p, schedule, steps=steps, runs=runs, options=SimulationOptions(M0=M0), seed=11)
    full = simulate(p, schedule, steps=steps, runs=runs, options=SimulationOptions(M0=M0, simulator="full"), seed=12)
    return red, full


def _same_law(a, b, alpha=1e-3):
    p = stats.ks_2samp(a, b).pvalue
    se = np.sqrt(a.var() / a.size + b.var() / b.size)
    assert p > alpha and abs(a.mean() - b.mean()) < 4.5 * se, (p, (a.mean() - b.mean()) / se)
    return p


def _compare(red, full, t):
    """KS p-values of every entry of M_t, every principal angle, and the step-0 samples."""
    k, H = red.overlaps.shape[2:]
    ps = [_same_law(red.overlaps[:, t, i, j], full.overlaps[:, t, i, j]) for i in range(k) for j in range(H)]
    ang_r, ang_f = red.principal_angles(), full.principal_angles()
    ps += [_same_law(ang_r[:, t, i], ang_f[:, t, i]) for i in range(min(k, H))]
    ps.append(_same_law(red.objective[:, 0], full.objective[:, 0]))
    ps.append(_same_law(red.noise_mass[:, 0, -1], full.noise_mass[:, 0, -1]))
    return ps


BASE = dict(theta=1.5, R=10, L=40, d=30, beta=1.5, sigma2=0.8)
ONE_STEP = [
    (dict(BASE, law="onehot(k=2)"), 1, M0_H1),
    (dict(BASE, law="onehot(k=2)", batch=2), 2, M0_H2),
    (dict(BASE, law="gaussian(k=2, tau=1/2)"), 1, M0_H1),
    (dict(BASE, law="gaussian(k=2, tau=1/2)"), 2, M0_H2),
    # nearly one-hot attention, both heads often on one token (a Cholesky of A^T A failed here)
    (dict(BASE, law="onehot(k=2)", theta=2.0, beta=20.0), 2, M0_H2),
]


def _id(case):
    kw, heads, _ = case
    return f"{kw['law'].split('(')[0]}-H{heads}-B{kw.get('batch', 1)}-beta{kw['beta']:g}"


@pytest.mark.parametrize("case", ONE_STEP, ids=_id)
def test_reduced_equals_full_in_law_one_step(case):
    kw, heads, M0 = case
    red, full = _both(kw, heads, M0, steps=1, runs=2000)
    _compare(red, full, 1)


MANY = [
    (dict(BASE, law="onehot(k=2)", batch=2), 2, None),
    (dict(BASE, law="gaussian(k=2, tau=1/2)", sigma2=1.0), 1, M0_H1),
]


@pytest.mark.parametrize("case", MANY, ids=_id)
def test_reduced_equals_full_in_law_twenty_steps(case):
    kw, heads, M0 = case
    red, full = _both(kw, heads, M0, steps=20, runs=800, schedule=Schedule(eta0=0.8, k0=2.0, power=0.6))
    for t in (5, 20):
        _compare(red, full, t)


@pytest.mark.slow
@pytest.mark.parametrize("case", [*ONE_STEP, (dict(BASE, law="onehot(k=3, probs=[1/2, 3/10, 1/5])", d=12,
                                                   batch=3), 3, None)], ids=_id)
def test_reduced_equals_full_in_law_twenty_steps_slow(case):
    kw, heads, M0 = case
    red, full = _both(kw, heads, M0, steps=20, runs=3000, schedule=Schedule(eta0=0.8, k0=2.0, power=0.6))
    for t in (1, 5, 20):
        _compare(red, full, t)


def test_the_law_comparison_detects_a_wrong_reduction(monkeypatch):
    """Dropping the out-of-plane complement (the Wishart root of n_out - H degrees of freedom)
    must be caught by the same one-step comparison."""
    draw = reduced_module.SubspaceReducedKernel._draw

    def wrong(self, first):
        draw(self, first)
        self.Tb[:] = 0.0

    monkeypatch.setattr(reduced_module.SubspaceReducedKernel, "_draw", wrong)
    kw, heads, M0 = ONE_STEP[3]
    red, full = _both(kw, heads, M0, steps=1, runs=2000)
    assert stats.ks_2samp(red.principal_angles()[:, 1, 1], full.principal_angles()[:, 1, 1]).pvalue < 1e-3


# ---------------------------------------------------------------- k = H = 1 is the scalar chain


@pytest.mark.parametrize("prior, batch", [("fixed", 1), ("rademacher", 2)])
def test_full_with_one_direction_and_one_head_is_the_scalar_full_chain(prior, batch):
    """Same seed, same draws in the same order: the paths agree to rounding."""
    kw = dict(theta=1.5, R=6, L=20, d=8, beta=1.2, sigma2=0.7, batch=batch)
    scalar = simulate(Problem(prior=prior, **kw), STEP, steps=12, runs=5, rho0=0.2, seed=3,
                      options=SimulationOptions(simulator="full"))
    sub = simulate(Problem(prior=prior, **kw), STEP, steps=12, runs=5, seed=3,
                   options=SimulationOptions(simulator="full", M0=[[0.2]], engine="subspace"))
    np.testing.assert_allclose(sub.overlaps[:, :, 0, 0], scalar.rho, rtol=0, atol=1e-10)
    np.testing.assert_allclose(sub.objective, scalar.objective, rtol=1e-10)
    np.testing.assert_allclose(sub.noise_mass, scalar.noise_mass, rtol=1e-10)
    np.testing.assert_allclose(sub.out_gram[:, :, 0, 0], 1 - scalar.rho**2, atol=1e-10)


@pytest.mark.parametrize("law", ["rademacher", "onehot(k=1)"])
def test_reduced_with_one_direction_and_one_head_has_the_scalar_reduced_law(law):
    kw = dict(theta=1.5, R=10, L=40, d=20, beta=1.5, sigma2=0.8, batch=2)
    prior = "rademacher" if law == "rademacher" else "fixed"
    schedule = Schedule(eta0=0.8, k0=2.0, power=0.6)
    scalar = simulate(Problem(prior=prior, **kw), schedule, steps=10, runs=2000, rho0=-0.2, seed=21)
    sub = simulate(Problem(prior=law, **kw), schedule, steps=10, runs=2000, seed=22,
                   options=SimulationOptions(M0=[[-0.2]], engine="subspace"))
    for t in (1, 10):
        _same_law(sub.overlaps[:, t, 0, 0], scalar.rho[:, t])
    _same_law(sub.objective[:, 0], scalar.objective[:, 0])


def test_uniform_starts_have_the_sphere_law_and_are_shared_between_simulators():
    d = 7
    one = simulate(Problem(1.0, 2, 6, d, prior="fixed"), STEP, steps=1, runs=3000, seed=5,
                   options=SimulationOptions(engine="subspace"))
    assert stats.kstest(one.overlaps[:, 0, 0, 0], start_law(d).cdf).pvalue > 1e-3
    p = Problem(1.0, 2, 6, d, prior="onehot(k=2)").with_heads(2)
    red = simulate(p, STEP, steps=1, runs=20, seed=5)
    full = simulate(p, STEP, steps=1, runs=20, seed=5, options=SimulationOptions(simulator="full"))
    np.testing.assert_allclose(red.overlaps[:, 0], full.overlaps[:, 0], atol=1e-12)
    M = red.overlaps[:, 0]
    np.testing.assert_allclose(red.out_gram[:, 0] + np.swapaxes(M, 1, 2) @ M, np.broadcast_to(np.eye(2), (20, 2, 2)),
                               atol=1e-12)


@pytest.mark.parametrize("simulator", ["reduced", "full"])
def test_same_seed_same_bits(simulator):
    p = Problem(1.0, 4, 20, 9, batch=2, prior="gaussian(k=2, tau=1)").with_heads(2)
    a, b, c = (simulate(p, STEP, steps=4, runs=5, seed=s,
                        options=SimulationOptions(simulator=simulator)) for s in (1, 1, 2))
    np.testing.assert_array_equal(a.overlaps, b.overlaps)
    np.testing.assert_array_equal(a.objective, b.objective)
    assert not np.array_equal(a.overlaps, c.overlaps)


# ---------------------------------------------------------------- H = k heads recover the span

#: strong signal: onehot(k=2), theta = 3, alpha = 1/2, beta = sigma2 = 1, L = 1000, d = 50
STRONG = dict(law="onehot(k=2)", theta=3.0, R=500, L=1000, d=50)
DECAY = Schedule(eta0=0.5, k0=10.0, power=0.75)
RM = Schedule(eta0=1.0, k0=20.0, power=1.0)


def test_two_heads_recover_the_subspace():
    """With eta_t = 1/(t + 20) the fluctuation floor shrinks like sqrt(eta_t): the angles go to 0."""
    sim = simulate(_problem(heads=2, **STRONG), RM, steps=800, runs=6, seed=7, stride=200,
                   options=SimulationOptions(M0=0.2 * np.eye(2)))
    ang = sim.principal_angles()  # (runs, 5, 2): steps 0, 200, .., 800
    largest = np.median(ang[:, :, 1], axis=0)
    assert largest[0] > 1.3 and np.all(np.diff(largest[1:]) < 0) and largest[-1] < 0.7 * largest[1]
    assert np.all(ang[:, -1] < 0.15)
    # each head specialises on its own direction
    M = sim.final_overlaps
    assert np.all(np.abs(M[:, 0, 0]) > 0.98) and np.all(np.abs(M[:, 1, 1]) > 0.98)


def test_two_heads_can_stay_collapsed_on_one_direction():
    """The collapsed state (q_1, q_2) = (u +- e)/sqrt 2, u in span(U) near xi_2 and e outside it,
    is a stable equilibrium of the two-head limit flow at this model (docs/subspace-simulation.md):
    started there, the chain stays with one principal angle near pi/2."""
    M0 = np.array([[-0.1048, -0.1048], [0.6993, 0.6993]])
    M0 /= np.linalg.norm(M0, 2)
    sim = simulate(_problem(heads=2, **STRONG), DECAY, steps=300, runs=6, seed=9, stride=300,
                   options=SimulationOptions(M0=M0))
    ang = sim.principal_angles()[:, -1]
    assert np.all(ang[:, 1] > 1.2) and np.all(ang[:, 0] < 0.3)


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize("heads, kwargs, name", [
    (1, dict(options=SimulationOptions(M0=[[2.0], [0.0]])), "M0"), (2, dict(options=SimulationOptions()), "d"),
    (1, dict(options=SimulationOptions(M0=[1.0, 2.0, 3.0])), "M0"), (1, dict(rho0=0.3), "rho0"),
    (1, dict(options=SimulationOptions(stop_outside=(-0.9, 0.9))), "stop_outside"), (1, dict(steps=0), "steps"),
    (1, dict(options=SimulationOptions(simulator="mid")), "simulator"),
    (1, dict(options=SimulationOptions(engine="scalar")), "engine"), (1, dict(options="full"), "options"),
])
def test_bad_simulation_arguments_name_the_parameter(heads, kwargs, name):
    p = Problem(1.0, 2, 8, 5, prior="onehot(k=2)").with_heads(heads)
    with pytest.raises(ValueError, match=f"`{name}`"):
        simulate(p, STEP, **{**dict(steps=1, runs=2), **kwargs})


@pytest.mark.parametrize("kwargs, name", [(dict(R=0), "R"), (dict(d=2), "d"), (dict(law="onehot(k=9)"), "law"),
                                          (dict(batch=0), "batch"), (dict(theta=-1.0), "theta"),
                                          (dict(heads=5), "d"), (dict(heads=65, d=80), "heads")])
def test_bad_problem_names_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=f"`{name}`"):
        _problem(**{**dict(law="onehot(k=2)", theta=1.0, R=2, L=8, d=6), **kwargs})


def test_problem_from_model():
    p = Problem.from_model(Model(2.0, 0.25, prior="onehot(k=2)", heads=3), L=40, d=10)
    assert (p.R, p.L, p.k, p.heads, p.theta) == (10, 40, 2, 3, 2.0)
    assert p.model == Model(2.0, 0.25, prior="onehot(k=2)", heads=3)
    with pytest.raises(ValueError, match="`L`"):
        Problem.from_model(Model(2.0, 0.3, prior="onehot(k=2)"), L=41, d=10)


# ---------------------------------------------------------------- bench rows


def test_subspace_bench_rows_and_their_report_lines():
    from sigrec.numerics._bench import BenchReport, subspace_bench
    from sigrec.verify.cli._bench import format_report

    sub = subspace_bench(runs=2, d=4, d_large=30, R=3, L=40, full_steps=1, reduced_steps=2, repeats=1)
    assert (sub["d"], sub["d_large"], sub["heads"]) == (6, 30, 2)  # d raised to k + 2H
    assert set(sub["rates"]) == {"full_d", "full_d_large", "reduced_d", "reduced_d_large"}
    assert all(v > 0 for v in sub["rates"].values())
    r = sub["rates"]
    assert sub["ratios"]["reduced_over_full_d_large"] == pytest.approx(r["reduced_d_large"] / r["full_d_large"])
    rates = {"full_d": 70.0, "rng_bound_full": 80.0, "reduced_d": 2401.0, "rng_bound_reduced": 2900.0}
    config = {"d": 100, "d_large": 1000, "R": 500, "L": 10500, "runs": 30, "unit": "run-steps per second"}
    lines = format_report(BenchReport(config, rates, {}, [], 1.0, subspace=sub)).splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("  subspace (onehot(k=2), 2 heads"))
    shown = {ln.split()[0]: float(ln.split()[1]) for ln in lines[start + 1 : start + 8]}
    assert shown == pytest.approx({**sub["rates"], **sub["ratios"]}, rel=1e-3, abs=0.1)


# ---------------------------------------------------------------- one head follows the limit flow


@pytest.mark.slow
def test_one_head_follows_the_limit_flow_of_theory():
    """H = 1, k = 2: at L = 10,000 and a small constant step the mean overlaps follow
    ``theory.integrate_subspace_flow`` (the limit ``L -> inf``, ``eta -> 0``)."""
    from sigrec.theory import integrate_subspace_flow

    p = Problem(1.5, 3000, 10000, 10, prior="onehot(k=2)")
    r0 = [0.3, 0.1]
    sim = simulate(p, Schedule.constant(0.02), steps=150, runs=16, seed=1, stride=50,
                   options=SimulationOptions(M0=np.array([r0]).T))
    for t_index, t in [(1, 1.0), (3, 3.0)]:
        limit = integrate_subspace_flow(p.model, r0, t_max=t).r
        M = sim.overlaps[:, t_index, :, 0]
        assert sim.times[t_index] == pytest.approx(t)
        np.testing.assert_allclose(M.mean(axis=0), limit, atol=0.01 + 4 * M.std(axis=0).max() / 4)
