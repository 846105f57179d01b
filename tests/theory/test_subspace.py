"""The k-dimensional signal subspace, one query (theory._derivation._subspace*, docs/subspace.md)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from sigrec.theory import Model, derive, evaluate, integrate_subspace_flow, parse_law, symbols
from sigrec.theory._field._subspace import evaluate_subspace

SCALAR = [("fixed", "fixed"), ("onehot(k=1)", "fixed"), ("rademacher", "rademacher"),
          ("gaussian(mu=1, tau=1/2)", "gaussian(1, 1/2)"),
          ("gaussian(k=1, tau=1/2, mu=[1])", "gaussian(1, 1/2)"),
          ("gaussian(k=1, tau=0.7)", "gaussian(0, 0.7)")]
POINTS = [(0.25, 0.05, 1.0, 1.0), (0.8, 0.3, 1.2, 0.7), (2.0, 0.6, 0.5, 1.5), (1.3, 1.0, 1.0, 0.4)]


@pytest.mark.parametrize("law,prior", SCALAR)
def test_k1_is_the_scalar_theory(law, prior):
    for theta, alpha, beta, sigma2 in POINTS:
        sm = Model(theta, alpha, beta=beta, sigma2=sigma2, prior=law)
        ref = evaluate(Model(theta, alpha, beta, sigma2, prior), [-0.9, -0.3, 0.0, 0.45, 0.99])
        for i, rho in enumerate(ref.rho):
            v = evaluate(sm, [rho], engine="subspace")
            assert v.objective == pytest.approx(ref.objective[i], rel=1e-12, abs=1e-14)
            assert v.gradient[0] == pytest.approx(ref.slope[i], rel=1e-11, abs=1e-13)
            assert v.flow[0] == pytest.approx(ref.field[i], rel=1e-11, abs=1e-13)


def test_k1_fixed_objective_is_symbolically_the_scalar_one():
    d1, ds = derive("fixed"), derive("fixed", engine="subspace")
    assert sp.simplify(ds.objective.subs(ds.r[0], sp.Symbol("rho", real=True)) - d1.objective) == 0


def test_pooled_q_coefficient_and_onehot_coefficients():
    d = derive("onehot(k=2)", engine="subspace")
    alpha, beta, sigma2, theta = symbols.alpha, symbols.beta, symbols.sigma2, symbols.theta
    assert sp.simplify(d.pooled[0] - beta * sigma2) == 0
    e1, e2 = (sp.exp(beta * theta * ri) for ri in d.r)
    m1 = alpha * e1 / 2 / (alpha * (e1 + e2) / 2 + 1 - alpha)
    assert sp.simplify(d.pooled[1][0] - m1) == 0


@pytest.mark.parametrize("law", ["onehot(k=2)", "onehot(k=3, probs=[1/2, 3/10, 1/5])", "gaussian(k=2, tau=0.6)"])
def test_flow_is_the_sphere_flow_of_q_projected_on_the_overlaps(law):
    """Independent of the derivation's algebra: the Riemannian gradient of J(q) = j(U^T q)
    on S^{d-1} by finite differences in R^d, mapped by U^T, against g - <r, g> r; and
    q_perp moves by -<r, g> q_perp."""
    rng = np.random.default_rng(3)
    sm = Model(1.1, 0.2, beta=0.9, sigma2=1.3, prior=law)
    k, d = sm.k, sm.k + 3
    U, _ = np.linalg.qr(rng.normal(size=(d, k)))
    q = rng.normal(size=d)
    q /= np.linalg.norm(q)

    def J(x):
        return evaluate_subspace(sm, U.T @ x / max(1.0, np.linalg.norm(U.T @ x))).objective

    h = 1e-6
    grad = np.array([(J(q + h * e) - J(q - h * e)) / (2 * h) for e in np.eye(d)])
    dq = grad - (q @ grad) * q
    v = evaluate(sm, U.T @ q, engine="subspace")
    np.testing.assert_allclose(U.T @ dq, v.flow, rtol=1e-7, atol=1e-9)
    perp = q - U @ (U.T @ q)
    np.testing.assert_allclose(dq - U @ (U.T @ dq), -(v.r @ v.gradient) * perp, rtol=1e-7, atol=1e-9)
    # the Hessian is the derivative of the gradient
    r = v.r
    H = np.array([(evaluate(sm, r + h * e, engine="subspace").gradient
                   - evaluate(sm, r - h * e, engine="subspace").gradient) / (2 * h)
                  for e in np.eye(k)]).T
    np.testing.assert_allclose(H, v.hessian, rtol=1e-6, atol=1e-8)


def test_isotropic_gaussian_law_is_radial():
    sm = Model(0.9, 0.3, beta=1.0, sigma2=1.0, prior="gaussian(k=2, tau=1)")
    a, b = evaluate(sm, [0.6, 0.0], engine="subspace"), evaluate(sm, [0.6 / np.sqrt(2)] * 2, engine="subspace")
    assert a.objective == pytest.approx(b.objective, rel=1e-13)
    # the sphere is neutral
    np.testing.assert_allclose(evaluate(sm, [0.8, 0.6], engine="subspace").flow, 0.0, atol=1e-13)


def test_law_specs():
    assert str(parse_law(" onehot( k = 2 ) ")) == "onehot(k=2)"
    assert str(parse_law("onehot(k=2, probs=[0.25, 0.75])")) == "onehot(k=2, probs=[1/4, 3/4])"
    assert str(parse_law("gaussian(k=2, tau=0.5)")) == "gaussian(k=2, tau=1/2)"
    assert parse_law("gaussian(1, 1/2)").family == "scalar"
    for bad, word in [("onehot(k=0)", "integer k"), ("onehot(k=2, probs=[1/2, 1/3])", "summing"),
                      ("onehot(2)", "named"), ("gaussian(k=2)", "tau"), ("onehot(k=2, tau=1)", "takes"),
                      ("gaussian(k=2, tau=1, mu=[1])", "mu")]:
        with pytest.raises(ValueError, match=word):
            parse_law(bad)
    with pytest.raises(ValueError, match="`alpha`"):
        Model(1.0, 0.0, prior="onehot(k=2)")
    with pytest.raises(ValueError, match="unit ball"):
        evaluate_subspace(Model(1.0, 0.5, prior="onehot(k=2)"), [0.9, 0.9])


def test_flow_settles_where_the_classification_says():
    # weak signal: the symmetric mixture; strong signal: one direction (not exactly e_j)
    weak = Model(0.25, 0.05, prior="onehot(k=2)")
    flow = integrate_subspace_flow(weak, [0.9, 0.1], t_max=2000)
    end, speed = flow.r, flow.speed
    assert speed < 1e-8 and np.allclose(end, [2**-0.5] * 2, atol=1e-6)
    strong = Model(1.5, 0.05, prior="onehot(k=2)")
    flow = integrate_subspace_flow(strong, [0.6, 0.5], t_max=400)
    end, speed = flow.r, flow.speed
    assert speed < 1e-8 and end[0] > 0.99 and 0.05 < end[1] < 0.2
