"""``token_feature_means``: the exact means of the control variate's token features.

Independent route: Gauss-Hermite quadrature over the token's normals ``(n1, n2, n3)`` of the
feature itself (``exp(j u - k_j) phi``, with ``u`` formed from ``c1, c2`` and no Gaussian tilt),
summed over the prior's atoms or integrated over a Gaussian prior; the closed form goes through
the tilted law. Every prior family, ``beta`` and ``sigma2`` away from 1, both signs of ``rho``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from sigrec.theory import Model, token_feature_means

PRIORS = ("fixed", "rademacher", "rademacher(p=0.7)", "bernoulli(p=0.3)", "gaussian(mu=1, tau=0.5)",
          "discrete(values=[-1, 0, 2], probs=[0.2, 0.3, 0.5])")
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(48)  # probabilists': weight exp(-x^2/2)
WEIGHTS = WEIGHTS / math.sqrt(2 * math.pi)


def _prior_atoms(model):
    p = model.prior
    if p.family == "gaussian":
        return [(float(p.mu) + float(p.tau) * z, w) for z, w in zip(NODES, WEIGHTS, strict=True)]
    return [(float(v), float(q)) for v, q in p.support]


def _phi(name, c1, c2, n3):
    body = name.split(" ", 1)[1] if " " in name else "1"
    vals = {"1": 1.0, "c1": c1, "c2": c2, "n3": n3, "c1^2": c1 * c1, "c1 c2": c1 * c2, "c1 n3": c1 * n3,
            "c2^2": c2 * c2, "c2 n3": c2 * n3, "n3^2": n3 * n3}
    return vals[body]


def _quadrature(model, rho, names, signal, ks):
    beta, sigma2, theta = model.beta, model.sigma2, model.theta
    sigma, rho_perp = math.sqrt(sigma2), math.sqrt(1 - rho * rho)
    z3, w3 = np.polynomial.hermite_e.hermegauss(6)  # exact for the polynomials of degree <= 2 in n3
    n1, n2, n3 = np.meshgrid(NODES, NODES, z3, indexing="ij")
    w3 = w3 / math.sqrt(2 * math.pi)
    w = WEIGHTS[:, None, None] * WEIGHTS[None, :, None] * w3[None, None, :]
    out = np.zeros(len(names))
    atoms = _prior_atoms(model) if signal else [(0.0, 1.0)]
    for s, q in atoms:
        mu = theta * s if signal else 0.0
        c1, c2 = mu + sigma * n1, sigma * n2
        u = beta * (rho * c1 + rho_perp * c2)
        for i, name in enumerate(names):
            j = int(name[1])
            out[i] += q * np.sum(w * np.exp(j * u - ks[j - 1]) * _phi(name, c1, c2, n3))
    return out


@pytest.mark.parametrize("prior", PRIORS)
def test_means_match_quadrature_of_the_feature(prior):
    for (beta, sigma2, theta), rho in itertools.product([(0.7, 1.6, 1.3), (1.4, 0.6, 0.8)], (-0.55, 0.35)):
        model = Model(theta=theta, alpha=0.3, beta=beta, sigma2=sigma2, prior=prior)
        m = token_feature_means(model, rho, 7)
        for signal, mean, ks in ((True, m.signal, m.log_scale_signal), (False, m.noise, m.log_scale_noise)):
            quad = _quadrature(model, rho, m.names, signal, ks)
            np.testing.assert_allclose(mean, quad, rtol=1e-9, atol=1e-10, err_msg=f"{prior} {beta} {sigma2} {rho}")


def test_plane_only_drops_the_out_of_plane_features():
    model = Model(theta=1.0, alpha=0.3, beta=1.2, sigma2=0.7, prior="rademacher")
    two, three = token_feature_means(model, 0.2, 2), token_feature_means(model, 0.2, 3)
    assert not any("n3" in n for n in two.names) and sum("n3" in n for n in three.names) == 5
    keep = [three.names.index(n) for n in two.names]
    np.testing.assert_array_equal(two.signal, three.signal[keep])
    assert two.chi_mean == 0 and three.chi_mean == 1


def test_inputs_are_validated():
    model = Model(theta=1.0, alpha=0.3)
    with pytest.raises(ValueError, match="rho"):
        token_feature_means(model, 1.5, 3)
    with pytest.raises(ValueError, match="`d`"):
        token_feature_means(model, 0.5, 1)
    with pytest.raises((TypeError, ValueError), match="model"):
        token_feature_means("fixed", 0.5, 3)
