"""H orthonormal heads on the signal subspace: the reduced flow of M = U^T Q (theory._field._heads)."""

from __future__ import annotations

import numpy as np
import pytest

from sigrec.theory import Model, evaluate
from sigrec.theory._field._heads import (
    heads_equilibrium,
    heads_flow,
    heads_jacobian,
    integrate_heads,
    principal_angles,
    random_frame,
)


def _objective(model, Q, U):
    """The summed objective from the one-query evaluator, one head at a time."""
    return sum(evaluate(model.with_heads(1), U.T @ Q[:, h]).objective for h in range(Q.shape[1]))


def _retract(Q):
    q, r = np.linalg.qr(Q)
    return q * np.sign(np.diag(r))


@pytest.mark.parametrize("law,k,n_heads", [("onehot(k=2)", 2, 1), ("onehot(k=2)", 2, 2), ("onehot(k=2)", 2, 3),
                                           ("onehot(k=3, probs=[1/2, 3/10, 1/5])", 3, 2)])
def test_reduced_flow_is_the_riemannian_gradient(law, k, n_heads):
    """Independent route: the Riemannian gradient on the Stiefel manifold is the tangent vector X
    with <X, xi> = d/dt J(retract(Q + t xi)) for every tangent xi; J from the one-query evaluator
    by central differences along a QR retraction. X = G - Q sym(Q^T G) passes, and U^T X is the
    reduced flow at M = U^T Q."""
    rng = np.random.default_rng(k * 10 + n_heads)
    model = Model(1.7, 0.2, beta=0.9, sigma2=1.1, prior=law, heads=n_heads)
    d = k + n_heads + 1
    Q, U = random_frame(k, n_heads, d, rng)
    M = U.T @ Q
    flow = heads_flow(model, M)
    one = model.with_heads(1)  # each head is a query of the one-query model
    G = U @ np.column_stack([evaluate(one, M[:, h]).gradient for h in range(n_heads)])
    X = G - Q @ ((Q.T @ G + G.T @ Q) / 2)
    assert np.allclose(Q.T @ X + X.T @ Q, 0, atol=1e-13)  # tangent
    assert np.allclose(U.T @ X, flow, rtol=1e-12, atol=1e-13)
    h = 1e-5
    for _ in range(4):
        xi = rng.normal(size=Q.shape)
        xi -= Q @ ((Q.T @ xi + xi.T @ Q) / 2)
        fd = (_objective(model, _retract(Q + h * xi), U) - _objective(model, _retract(Q - h * xi), U)) / (2 * h)
        assert fd == pytest.approx(float(np.sum(X * xi)), rel=1e-6, abs=1e-8)


def test_one_head_is_the_single_query_flow():
    model = Model(1.2, 0.3, prior="onehot(k=3)")
    r = np.array([0.3, -0.5, 0.6])
    assert np.allclose(heads_flow(model, r[:, None])[:, 0], evaluate(model, r, engine="subspace").flow,
                       rtol=1e-13, atol=1e-15)


def test_jacobian_against_finite_differences():
    rng = np.random.default_rng(5)
    model = Model(2.0, 0.1, prior="onehot(k=2)", heads=3)
    Q, U = random_frame(2, 3, 6, rng)
    M = U.T @ Q
    J = heads_jacobian(model, M)
    h = 1e-6
    for idx in range(M.size):
        E = np.zeros_like(M)
        E.flat[idx] = h
        col = (heads_flow(model, M + E) - heads_flow(model, M - E)).reshape(-1) / (2 * h)
        assert np.allclose(J[:, idx], col, rtol=1e-6, atol=1e-8)


def test_invalid_overlaps_are_refused():
    model = Model(1.0, 0.3, prior="onehot(k=2)", heads=2)
    with pytest.raises(ValueError, match="singular values"):
        heads_flow(model, np.eye(2) * 1.1)
    with pytest.raises(ValueError, match="k x H"):
        heads_flow(model, np.ones(3))
    with pytest.raises(ValueError, match="the model's heads"):  # M has one column, the model two heads
        heads_flow(model, np.array([[0.3], [0.2]]))


def test_subspace_recovery_two_heads():
    """H = k = 2 at theta = 1.5, alpha = 0.05: from random frames the principal angles between
    span Q and span U go to 0; the end is a stable equilibrium with one head near each xi_j."""
    model = Model(1.5, 0.05, prior="onehot(k=2)", heads=2)
    rng = np.random.default_rng(11)
    for _ in range(2):
        Q, U = random_frame(2, 2, 5, rng)
        assert principal_angles(U.T @ Q).max() > 0.1
        run = integrate_heads(model, U.T @ Q)
        assert run.speed < 1e-9 and run.angles.max() < 1e-6
        eq = heads_equilibrium(model, run.M)
        assert eq.stable and eq.residual < 1e-12
        assert np.allclose(np.sort(np.abs(eq.M), axis=None), [0, 0, 1, 1], atol=1e-4)


def test_shared_direction_state_blocks_recovery():
    """theta = 3, alpha = 0.3: two heads can share one direction of the span (equal columns of M,
    |m_h|^2 = 1/2, g(m) parallel to m) and that state is stable, so recovery is not universal at
    strong signal; span Q then holds one direction of span U and misses the other."""
    model = Model(3.0, 0.3, prior="onehot(k=2)", heads=2)
    run = integrate_heads(model, np.array([[-0.05, -0.05], [0.70, 0.70]]))
    eq = heads_equilibrium(model, run.M)
    assert eq.stable and eq.residual < 1e-12
    assert np.allclose(eq.M[:, 0], eq.M[:, 1], atol=1e-8)
    assert np.linalg.norm(eq.M[:, 0]) ** 2 == pytest.approx(0.5, abs=1e-10)
    assert eq.angles == pytest.approx([0, np.pi / 2], abs=1e-6)
    recovered = heads_equilibrium(model, np.array([[0.0, 1.0], [1.0, 0.0]]))
    assert recovered.stable and recovered.objective > eq.objective  # the recovered state is better


def test_three_heads_two_directions():
    """H = 3 > k = 2 (theta = 1.5, alpha = 0.05): span U is recovered inside span Q (M M^T = I);
    two heads specialise and the extra one keeps a small overlap along the mixture direction."""
    model = Model(1.5, 0.05, prior="onehot(k=2)", heads=3)
    Q, U = random_frame(2, 3, 6, np.random.default_rng(2))
    run = integrate_heads(model, U.T @ Q)
    eq = heads_equilibrium(model, run.M)
    assert eq.stable and run.angles.max() < 1e-6
    assert np.allclose(eq.M @ eq.M.T, np.eye(2), atol=1e-9)
    norms = np.sort(np.linalg.norm(eq.M, axis=0))
    assert norms[0] == pytest.approx(0.1887, abs=1e-3) and norms[1] > 0.99
    extra = eq.M[:, np.argmin(np.linalg.norm(eq.M, axis=0))]
    assert extra[0] == pytest.approx(extra[1], abs=1e-9)


def test_a_restart_where_a_run_stopped_returns_it_and_does_not_raise():
    """theta 1.5, alpha 0.05, k = H = 2 (issue 38's loose end): a run that stopped at the settling speed,
    integrated again, raised scipy's brentq "f(a) and f(b) must have different signs" from the stopping
    event (its sign is round-off there). A settled start is now returned as it is; a moving one still
    integrates to the same attractor."""
    import numpy as np

    from sigrec.theory import Model
    from sigrec.theory._field._heads import integrate_heads

    m = Model(1.5, 0.05, prior="onehot(k=2)", heads=2)
    rng = np.random.default_rng(1)
    for _ in range(9):  # the ninth start of this stream is the one that raised
        Q, _r = np.linalg.qr(rng.standard_normal((10, 2)))
    first = integrate_heads(m, integrate_heads(m, Q[:2, :], t_max=1.0).M)
    assert first.speed <= 2e-13  # settled: the speed at which a run stops
    again = integrate_heads(m, first.M)
    assert np.array_equal(again.M, first.M) and again.speed == first.speed
    assert np.allclose(np.abs(first.M), np.eye(2), atol=1e-6) or np.allclose(np.abs(first.M), np.eye(2)[::-1],
                                                                                  atol=1e-6)


def test_evaluate_takes_the_heads_like_every_other_model():
    """``evaluate(model)`` of a model with ``H > 1`` heads dispatches to the reduced flow: the same
    objective and flow as ``heads_objective`` / ``heads_flow`` to the bit, the principal angles, a
    batch of frames along a leading axis, and the mpmath evaluator agreeing to rounding; naming the
    one-query engine is refused, and ``H = 1`` keeps the one-query result."""
    from sigrec.theory import evaluate_mp, heads_objective
    from sigrec.theory._field._heads import HeadsValues

    model = Model(1.2, 0.3, beta=1.4, sigma2=0.7, prior="onehot(k=2)", heads=2)
    M = np.array([[0.6, 0.1], [0.3, 0.2]])
    v = evaluate(model, M)
    assert isinstance(v, HeadsValues)
    assert v.objective == heads_objective(model, M)
    np.testing.assert_array_equal(v.flow, heads_flow(model, M))
    np.testing.assert_array_equal(v.angles, principal_angles(M))
    batch = evaluate(model, np.stack([M, 0.5 * M]))
    assert batch.flow.shape == (2, 2, 2) and batch.objective.shape == (2,)
    np.testing.assert_array_equal(batch.flow[1], heads_flow(model, 0.5 * M))
    mp = evaluate_mp(model, M, dps=30)
    np.testing.assert_allclose(np.array(mp["flow"].tolist(), dtype=float), v.flow, rtol=1e-13, atol=1e-15)
    assert abs(float(mp["objective"]) - v.objective) <= 1e-13 * abs(v.objective)
    with pytest.raises(ValueError, match="give engine 'auto'"):
        evaluate(model, M, engine="subspace")
    with pytest.raises(ValueError, match="singular values"):
        evaluate(model, 2 * M)
    assert evaluate(model.with_heads(1), M[:, 0]).flow.shape == (2,)
