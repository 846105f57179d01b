"""Where the limit describes a finite system (verify/studies/_limit_map.py), against independent
numbers: the leading-order finite-size theory, a plain Monte Carlo mean, and the search's own rules."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sigrec.numerics import Problem
from sigrec.theory import Model, effective_drift, evaluate
from sigrec.verify.checks import one_step_increments
from sigrec.verify.studies import finite_field, limit_distance, limit_map, tokens_needed


def _signed_error(model: Model, L: int, d: int, rho: float, se: float):
    """``(err * L, se * L, theory C)`` at ``rho``, relative to max|F|: the measured bias times ``L``
    and the leading-order theory's ``C = F_1`` (``E x = F + C / L``)."""
    res = limit_distance(model, L, d, rho_grid=(rho,), se=se, seed=3)
    ff = res.finite
    C = float(effective_drift(res.problem.model, rho, 1e-12, d, L).finite_L) * L
    return float(ff.mean[0] - ff.limit[0]) * L / ff.scale, float(ff.se[0]) * L / ff.scale, C / ff.scale, res


def test_at_small_beta_the_distance_is_small_and_shrinks_like_one_over_L():
    model = Model(1.0, 0.1, 0.5, 1.0)  # beta = 0.5: A2 / L small at these sizes
    e1, s1, C1, _ = _signed_error(model, 200, 6, -0.6, 0.0015)
    e2, s2, C2, r2 = _signed_error(model, 800, 6, -0.6, 0.0015)
    assert r2.distance < 0.01 and r2.status == "ok"
    # the bias is resolved (else the rate below would be vacuous) and has the theory's sign
    assert abs(e1) > 3 * s1 and np.sign(e1) == np.sign(C1)
    # err * L is the same at both sizes (a constant bias would give four times the product at 800)
    assert abs(e1 - e2) < 3 * math.hypot(s1, s2) + 0.2 * abs(C2)
    for e, s, C in ((e1, s1, C1), (e2, s2, C2)):  # and the leading-order theory's C, within 3 se + 30%
        assert abs(e - C) < 3 * s + 0.3 * abs(C)


@pytest.mark.heavy
@pytest.mark.parametrize("prior", ["rademacher", "gaussian(0.5,0.3)"])
def test_finite_field_is_the_plain_mean_of_one_step_increments(prior):
    rng = np.random.default_rng(11 if prior == "rademacher" else 12)
    theta, beta, sigma2 = rng.uniform(0.8, 1.6), rng.uniform(1.2, 1.6), rng.uniform(0.5, 0.8)
    problem = Problem(theta, 12, 60, 5, beta=beta, sigma2=sigma2, prior=prior)
    grid = (-0.5, 0.4)
    ff = finite_field(problem, grid, se=0.02, seed=5)
    assert ff.status == "ok" and np.all(ff.draws >= 1200)
    for i, rho in enumerate(grid):
        x, _ = one_step_increments(problem, rho, 20_000, seed=99)  # independent draws, no control variate
        plain, plain_se = float(np.mean(x)), float(np.std(x, ddof=1) / math.sqrt(x.size))
        assert abs(ff.mean[i] - plain) < 4 * math.hypot(ff.se[i], plain_se), (rho, ff.mean[i], plain)
        assert ff.limit[i] == pytest.approx(float(evaluate(problem.model, rho).field))


def test_a_cap_that_stops_the_request_says_limited():
    problem = Problem(1.0, 5, 50, 4, beta=1.5)
    ff = finite_field(problem, (0.5,), se=1e-4, max_normals=3 * 50 * 300)
    assert ff.status == "limited" and "not reached" in ff.reason and ff.draws[0] == 300
    assert ff.se[0] / ff.scale > 1e-4


@pytest.mark.heavy
def test_tokens_needed_is_monotone_in_tol_and_its_ladder_supports_the_answer():
    model = Model(1.0, 0.5, 1.5, 1.0)
    kw = dict(d=4, se=0.03, L_max=160, rho_grid=(-0.5, 0.0, 0.5))
    results = [tokens_needed(model, tol, **kw) for tol in (0.1, 0.25)]
    found = [r.L if r.status != "beyond" else math.inf for r in results]
    assert found[1] <= found[0]
    for r in results:
        assert r.evidence == "numerical" and r.criterion == "limit"
        rows = {row["L"]: row for row in r.ladder}
        if r.status == "beyond":
            assert r.L is None and all(not row["below"] for row in r.ladder if row["stage"] == "ladder")
            continue
        assert rows[r.L]["below"] and rows[r.L]["distance"] < r.tol
        smaller = [L for L, row in rows.items() if L < r.L]
        # the size below the answer that was tried last is above the tolerance (else it would be the answer)
        assert not smaller or not rows[max(smaller)]["below"]


def test_a_tolerance_below_the_noise_is_refused_and_beyond_says_why():
    model = Model(1.0, 0.5, 1.0, 1.0)
    with pytest.raises(ValueError, match="`tol`"):
        tokens_needed(model, 0.02, d=4, se=0.01)
    with pytest.raises(ValueError, match="`alpha`"):
        tokens_needed(Model(1.0, 0.0), 0.05, d=4)
    r = tokens_needed(Model(1.0, 0.5, 2.5, 1.0), 0.06, d=4, se=0.02, L_max=20, rho_grid=(0.5,))
    assert r.status == "beyond" and r.L is None and "L = 20" in r.reason


def test_limit_map_holds_the_distances_of_limit_distance():
    model = Model(1.0, 0.5, 1.0, 1.0)
    lmap = limit_map(model, [0.5, 1.0], [20, 40], d=4, se=0.05, rho_grid=(0.5,))
    one = limit_distance(Model(1.0, 0.5, 0.5, 1.0), 40, 4, se=0.05, rho_grid=(0.5,))
    assert lmap.distance[0, 1] == one.distance and lmap.distance_se[0, 1] == one.distance_se
    ds = lmap.dataset()
    assert ds["distance"].dims == ("beta", "L") and list(ds["R"].values) == [10, 20]
    tokens = lmap.crossing(1.0)  # every cell below: the smallest size, an upper bound
    assert list(tokens) == [20.0, 20.0]
    assert np.isnan(lmap.crossing(1e-6)).all()
