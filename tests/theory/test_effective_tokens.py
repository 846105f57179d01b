"""Self-normalised token moments of E|P g|^2 (theory/_effective/_tokens.py).

Three independent routes: the sympy closed forms (which the quadrature must reproduce when
the weights are not self-normalised), a Monte Carlo of the softmax weights alone, and the
exact alignment chain (tests/numerics/test_effective.py)."""

from __future__ import annotations

import numpy as np
import pytest

from sigrec.theory import Model
from sigrec.theory._effective._evaluate import _numpy_functions, _params
from sigrec.theory._effective._tokens import expansion_parameters, token_moments

#: away from beta = sigma2 = 1 and over every prior family
MODELS = [
    Model(0.8, 0.0625, 1.5, 1.0, "fixed"),
    Model(1.3, 0.3, 0.8, 1.4, "rademacher"),
    Model(0.6, 0.2, 1.7, 0.6, "rademacher(p=0.7)"),
    Model(1.1, 0.1, 0.45, 2.2, "bernoulli(p=0.3)"),
    Model(0.9, 0.15, 1.2, 0.8, "gaussian(mu=1, tau=0.5)"),
    Model(0.7, 0.4, 2.5, 0.5, "discrete(values=[-1, 0, 2], probs=[0.2, 0.3, 0.5])"),
]
RHO = np.array([-0.97, -0.4, 0.0, 0.35, 0.93, 0.999])


def _closed(model, rho):
    """The lambdified closed forms of theory.derive_effective: V_o, V_p, A2, <gbar, e_perp>, V_o1, V_o2."""
    lam, _ = _numpy_functions(model.prior)
    return [np.broadcast_to(v, rho.shape).astype(float) for v in lam(rho, *_params(model))]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.prior)
def test_without_self_normalisation_the_quadrature_is_the_closed_form(model):
    V_o, V_p, A2, _, _, _ = _closed(model, RHO)
    t = token_moments(model, RHO, 7, 5000, saturate=False, self_interaction=False)
    np.testing.assert_allclose(t.out_of_plane_variance, V_o, rtol=1e-9)
    np.testing.assert_allclose(t.in_plane_variance, V_p, rtol=1e-9)
    np.testing.assert_allclose(t.weight_square, A2, rtol=1e-9)


@pytest.mark.parametrize("model", MODELS[:3], ids=lambda m: m.prior)
def test_self_interaction_is_the_closed_form_expansion_in_d_over_L(model):
    """Unsaturated weights, large L at fixed eps = (d - 2)/L: V_o + eps V_o1 + eps^2 V_o2 of sympy."""
    L, eps = 1e9, 0.02
    t = token_moments(model, RHO, 2 + eps * L, L, saturate=False)
    V_o, _, _, _, V1, V2 = _closed(model, RHO)
    expected = V_o + eps * V1 + eps**2 * V2
    np.testing.assert_allclose(t.out_of_plane_variance, expected, rtol=1e-7)


def test_self_normalised_weights_match_a_monte_carlo_of_the_softmax():
    """L E sum_i a_i^2 at beta = 1.5: the closed form's E_mix[w^2]/D^2 is 7% high, the
    self-normalised value within the Monte Carlo error (20,000 token collections)."""
    model, R, L, rho = MODELS[0], 200, 3200, 0.93
    rng = np.random.default_rng(3)
    q = np.array([rho, np.sqrt(1 - rho * rho)])
    vals = []
    for _ in range(40):
        x = rng.standard_normal((500, L, 2))
        x[:, :R, 0] += model.theta
        u = model.beta * x @ q
        a = np.exp(u - u.max(axis=1, keepdims=True))
        a /= a.sum(axis=1, keepdims=True)
        vals.append(L * np.sum(a * a, axis=1))
    vals = np.concatenate(vals)
    mc, se = vals.mean(), vals.std() / np.sqrt(vals.size)
    sat = float(token_moments(model, rho, 20, L).weight_square)
    lead = float(token_moments(model, rho, 20, L, saturate=False).weight_square)
    assert abs(sat - mc) <= 4 * se + 0.005 * mc
    assert lead - mc > 8 * se


def test_the_expansion_parameters_say_where_the_closed_forms_fail():
    small = expansion_parameters(Model(0.8, 0.0625, 1.0, 1.0), 0.93, 3200)
    large = expansion_parameters(MODELS[0], 0.93, 3200)
    assert small["saturation_3"] < 0.03 < 1.0 < large["saturation_3"]
    assert large["concentration"] < 0.01  # what remains after self-normalisation is small


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.prior)
def test_moments_are_finite_positive_and_vanish_nowhere(model):
    t = token_moments(model, RHO, 30, 2000)
    assert np.all(np.isfinite(t.out_of_plane_variance)) and np.all(t.out_of_plane_variance > 0)
    assert np.all(np.isfinite(t.in_plane_variance)) and np.all(t.in_plane_variance >= 0)
