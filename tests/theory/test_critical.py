"""``theory.thresholds``: the landscape's thresholds along ``alpha`` from the certificate, against
the fixed prior's closed form and the pole quadratic (independent routes), and token counts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sigrec.theory import Model, certify, critical_alpha, pole_alpha, thresholds


def _status(theta, alpha, beta=1.0, sigma2=1.0, prior="fixed"):
    c = certify(Model(theta=theta, alpha=alpha, beta=beta, sigma2=sigma2, prior=prior))
    return c.status if c.certified else "undecided"


@pytest.mark.parametrize("seed", range(6))
def test_the_fixed_priors_closed_form_lies_in_the_certified_bracket(seed):
    """Random (theta, beta, sigma2) with beta theta > 1: one transition, bistable below and
    monotone above, and the closed form alpha_c (sympy's critical m) inside the bracket."""
    rng = np.random.default_rng(seed)
    beta = rng.uniform(0.4, 2.5)
    theta = rng.uniform(1.05, 4.0) / beta
    sigma2 = rng.uniform(0.3, 3.0)
    th = thresholds(theta, beta, sigma2)
    (t,) = th.transitions
    assert (t.below, t.above) == ("bistable", "monotone")
    assert t.lo <= critical_alpha(theta, beta, sigma2) <= t.hi
    assert t.hi - t.lo <= 1e-8 * t.hi and th.certified
    assert th.sparse_threshold == pytest.approx(1 / beta)


def test_below_the_sparse_threshold_no_informative_fraction_is_needed():
    th = thresholds(0.9, 1.0)
    assert th.monotone_everywhere and th.alpha_c is None and not th.transitions
    assert th.smallest_R(1000)["R"] == 1 and not th.largest_N(5)["exists"]


@pytest.mark.parametrize("prior", ["gaussian(mu=1, tau=0.5)", "discrete(values=[0.5, 1, 2], probs=[0.3, 0.4, 0.3])"])
def test_any_prior_agrees_with_the_pole_quadratic(prior):
    """For positive priors the transition into monotone is where F'(-1) changes sign: the
    root of the pole quadratic (mpmath, an independent route) lies in the certified bracket."""
    th = thresholds(2.2, 0.9, 1.3, prior)
    assert th.alpha_c is not None
    t = th.transitions[-1]
    assert any(t.lo <= a <= t.hi for a in pole_alpha(prior, 2.2, 0.9, 1.3)), (t, th.pole_alphas)


def test_a_symmetric_prior_is_never_monotone():
    th = thresholds(2.0, prior="rademacher")
    assert th.monotone_nowhere and th.alpha_c is None
    assert not th.smallest_R(100)["exists"] and "no token count" in th.smallest_R(100)["reason"]


@pytest.mark.parametrize("N", [7, 3000])
def test_the_smallest_R_and_largest_N_are_certified_at_the_count_and_its_neighbour(N):
    theta, beta = 2.5, 0.8
    th = thresholds(theta, beta)
    r = th.smallest_R(N)
    R = r["R"]
    assert r["certified"] and _status(theta, R / (R + N), beta) == "monotone"
    assert _status(theta, (R - 1) / (R - 1 + N), beta) == "bistable"
    ac = critical_alpha(theta, beta)
    assert (R - 1) / (R - 1 + N) < ac <= R / (R + N)
    n = th.largest_N(R)
    assert n["certified"] and n["N"] >= N
    assert _status(theta, R / (R + n["N"]), beta) == "monotone"
    assert _status(theta, R / (R + n["N"] + 1), beta) == "bistable"
    assert math.isclose(n["alpha"], R / (R + n["N"]))
