"""The discrete k-dimensional law discrete(vectors=[...], probs=[...]) (theory/_laws/_vector.py)."""

from fractions import Fraction

import numpy as np
import pytest

from sigrec.theory import Model, evaluate, parse_law, subspace_quadrature


def test_spec_round_trip_and_atoms():
    law = parse_law("discrete(vectors=[[1, 1], [1, -1], [0, 0.5]], probs=[1/2, 0.25, 1/4])")
    assert law.k == 2 and law.family == "discrete"
    assert law.spec == "discrete(vectors=[[1, 1], [1, -1], [0, 1/2]], probs=[1/2, 1/4, 1/4])"
    assert parse_law(law.spec) == law
    assert law.atoms == ((Fraction(1, 2), (1, 1)), (Fraction(1, 4), (1, -1)), (Fraction(1, 4), (0, Fraction(1, 2))))


def test_one_dimensional_vectors_are_the_scalar_discrete_prior():
    law = parse_law("discrete(vectors=[[1], [-1]], probs=[0.7, 0.3])")
    assert law.family == "scalar" and law == parse_law("discrete(values=[1, -1], probs=[0.7, 0.3])")


def test_the_onehot_atoms_give_the_onehot_model():
    a = Model(1.3, 0.2, beta=1.4, sigma2=0.6, prior="discrete(vectors=[[0, 1], [1, 0]], probs=[2/5, 3/5])")
    b = Model(1.3, 0.2, beta=1.4, sigma2=0.6, prior="onehot(k=2, probs=[3/5, 2/5])")
    for r in ([0.6, 0.3], [-0.2, 0.7]):
        va, vb = evaluate(a, r, engine="subspace"), evaluate(b, r, engine="subspace")
        assert va.objective == pytest.approx(vb.objective, rel=1e-13)
        assert np.allclose(va.gradient, vb.gradient, rtol=1e-12) and np.allclose(va.hessian, vb.hessian, rtol=1e-11)


@pytest.mark.parametrize("spec", ["discrete(vectors=[[1, 1], [1, -1], [0, 0.5]], probs=[1/2, 1/4, 1/4])",
                                  pytest.param("discrete(vectors=[[1, 0, 0], [0, 1, 0], [0.5, 0.5, 0.5]], "
                                               "probs=[0.3, 0.3, 0.4])", marks=pytest.mark.slow)])
def test_derivation_agrees_with_the_quadrature(spec):
    """The MGF route (sum_j p_j exp(<t, v_j>) through the sympy derivation) against the tanh-sinh
    quadrature summed over the atoms, at a random point of the ball."""
    rng = np.random.default_rng(3)
    model = Model(1.2, 0.3, beta=0.9, sigma2=1.3, prior=spec)
    k = model.k
    r = rng.normal(size=k)
    r *= 0.8 / np.linalg.norm(r)
    assert subspace_quadrature(model, list(r), dps=30).rel_diff <= 1e-20


def test_the_quadrature_detects_a_wrong_law():
    right = Model(1.2, 0.3, prior="discrete(vectors=[[1, 1], [1, -1]], probs=[1/2, 1/2])")
    wrong = Model(1.2, 0.3, prior="discrete(vectors=[[1, 1], [1, -0.9]], probs=[1/2, 1/2])")
    j_right = subspace_quadrature(right, [0.3, 0.5], dps=20).objective[1]
    assert abs(evaluate(wrong, [0.3, 0.5], engine="subspace").objective - j_right) > 1e-4


@pytest.mark.parametrize("spec", [
    "discrete(vectors=[[1, 0], [0]], probs=[1/2, 1/2])",
    "discrete(vectors=[[1, 0], [0, 1]], probs=[1/2, 1/3])",
    "discrete(vectors=[[1, 0], [0, 1]], probs=[1/2, 1/2], x=1)",
    "discrete(vectors=[[__import__, 0]], probs=[1])",
    "discrete(vectors=[[1, 0], [0, 1]])",
    "discrete(vectors=[[1, 0], [0, 1]], probs=[-1/2, 3/2])",
])
def test_bad_discrete_laws_are_refused(spec):
    with pytest.raises(ValueError, match="`law`"):
        parse_law(spec)
