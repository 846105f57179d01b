"""Derived subspace limit against independent 40-digit quadrature (theory._derivation._subspace_quadrature)."""

from __future__ import annotations

import numpy as np
import pytest

from sigrec.theory import Model, subspace_quadrature
from sigrec.theory._field._subspace import evaluate_subspace_mp

LAWS = ["onehot(k=2)", "onehot(k=3)", "gaussian(k=2, tau=0.6)"]


def _model(rng, law):
    return Model(float(rng.uniform(0.1, 2.5)), float(rng.uniform(0.02, 0.95)), beta=float(rng.uniform(0.3, 2.0)),
                 sigma2=float(rng.uniform(0.3, 2.0)), prior=law)


def _point(rng, k):
    v = rng.normal(size=k)
    return list(v / np.linalg.norm(v) * rng.uniform(0.05, 0.95))


@pytest.mark.parametrize("law", LAWS)
def test_objective_and_gradient_match_quadrature(law):
    rng = np.random.default_rng(sum(map(ord, law)))
    sm = _model(rng, law)
    res = subspace_quadrature(sm, _point(rng, sm.k), dps=40)
    assert res.rel_diff <= 1e-30, res


def test_quadrature_detects_a_wrong_law():
    """The comparison can fail: the derivation of onehot(k=2) against the quadrature of an
    unequal onehot law differs far above the tolerance."""
    from sigrec.theory._derivation._subspace_quadrature import quadrature_objective
    r = [0.3, -0.2]
    good = evaluate_subspace_mp(Model(1.2, 0.4, prior="onehot(k=2)"), r)
    wrong = quadrature_objective(Model(1.2, 0.4, prior="onehot(k=2, probs=[0.4, 0.6])"), r, dps=30)
    assert abs(good["gradient"][0] - wrong[1][0]) > 1e-4


@pytest.mark.slow
@pytest.mark.parametrize("law", [*LAWS, "onehot(k=3, probs=[1/2, 3/10, 1/5])", "gaussian(k=2, tau=0.5, mu=[1, 1/2])",
                                 "rademacher"])
def test_many_random_points(law):
    rng = np.random.default_rng(7 + len(law))
    for _ in range(4):
        sm = _model(rng, law)
        res = subspace_quadrature(sm, _point(rng, sm.k), dps=40)
        assert res.rel_diff <= 1e-30, res
