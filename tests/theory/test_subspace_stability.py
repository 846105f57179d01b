"""Equilibria of the subspace flow and the mixture/specialisation transition (theory._field._equilibria)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from sigrec.theory import Model, critical_thetas, evaluate_mp, find_subspace_equilibria, mixture_eigenvalues
from sigrec.theory._field._equilibria import classify


@pytest.mark.parametrize("k", [2, 3])
def test_mixture_closed_form_matches_the_derived_hessian(k):
    """The hand-derived tangent and radial eigenvalues against the Jacobian built from the
    sympy gradient and Hessian (mpmath eigenvalues), at random parameters."""
    rng = np.random.default_rng(k)
    for _ in range(2):
        theta, alpha = rng.uniform(0.1, 2.5), rng.uniform(0.02, 0.95)
        beta, sigma2 = rng.uniform(0.3, 2), rng.uniform(0.3, 2)
        sm = Model(theta, alpha, beta=beta, sigma2=sigma2, prior=f"onehot(k={k})")
        with mpmath.workdps(30):
            e = classify(sm, [1 / mpmath.sqrt(k)] * k)
            tangent, radial = mixture_eigenvalues(k, theta, alpha, beta, sigma2)
        assert e.kind == "sphere" and e.label == "mixture+"
        assert len(e.tangent) == k - 1
        for z in e.tangent:  # multiplicity k - 1
            assert abs(z - float(tangent)) <= 1e-12 * (1 + abs(float(tangent)))  # float tangent basis
        assert e.radial == pytest.approx(float(radial), rel=1e-12, abs=1e-15)


def test_mixture_is_an_equilibrium_and_e1_is_not():
    sm = Model(1.5, 0.05, prior="onehot(k=2)")
    assert max(abs(x) for x in evaluate_mp(sm, [2**-0.5] * 2, engine="subspace")["flow"]) < 1e-15
    assert abs(evaluate_mp(sm, [1, 0], engine="subspace")["flow"][1]) > 1e-2


@pytest.mark.parametrize("k,alpha,expected",
                         [(2, 0.05, 0.85566), (2, 0.3, 0.78030), (3, 0.05, 1.04796), (3, 0.3, 0.95567)])
def test_critical_theta(k, alpha, expected):
    (tc,) = critical_thetas(k, alpha, theta_max=5.0)
    assert tc == pytest.approx(expected, abs=1e-5)
    below, _ = mixture_eigenvalues(k, tc - 1e-6, alpha)
    above, _ = mixture_eigenvalues(k, tc + 1e-6, alpha)
    assert below < 0 < above


def sparse_critical_product(k: int):
    """``beta theta`` where the mixture's tangent eigenvalue changes sign as ``alpha -> 0``:
    the positive root of ``c^2 + sqrt(k) c - k = 0``, ``sqrt(k) (sqrt 5 - 1) / 2``."""
    return mpmath.sqrt(k) * (mpmath.sqrt(5) - 1) / 2


@pytest.mark.parametrize("k", [2, 3])
def test_sparse_limit_of_the_critical_product(k):
    (tc,) = critical_thetas(k, 1e-7, theta_max=5.0)
    assert tc == pytest.approx(float(sparse_critical_product(k)), rel=1e-5)
    # sigma2 drops out as alpha -> 0
    (tc2,) = critical_thetas(k, 1e-7, sigma2=2.5, theta_max=5.0)
    assert tc2 == pytest.approx(tc, rel=1e-5)


def test_equilibria_k2_both_sides_of_the_transition():
    weak = find_subspace_equilibria(Model(0.25, 0.05, prior="onehot(k=2)"), n_random=2)
    stable = [e for e in weak if e.stable]
    assert [e.label for e in stable] == ["mixture+"]
    strong = find_subspace_equilibria(Model(1.5, 0.05, prior="onehot(k=2)"), n_random=2)
    stable = sorted((e for e in strong if e.stable), key=lambda e: e.label)
    assert [e.label for e in stable] == ["specialised(1)", "specialised(2)"]
    r = stable[0].r
    assert r[0] > 0.99 and 0.05 < r[1] < 0.2  # near e_1 but not at it
    mix = next(e for e in strong if e.label == "mixture+")
    assert not mix.stable and mix.tangent[0] > 0 > mix.radial
