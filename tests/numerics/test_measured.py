"""The measured one-step law of the exact chain (numerics._diffusion._measured).

Independent routes: inside the expansion's stated validity the measured drift and variance are
the derived ``A - eta B`` and ``Sigma`` (sympy, then float64) within the Monte Carlo error and the
expansion's own small error; outside it (the issue's example, beta = 2 at L = 4000) the diffusion
fed the measured law sits where the exact chain does at stationarity, and the expansion does not.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sigrec.numerics import Problem, Schedule, diffusion_tables, measured_law, simulate, simulate_diffusion
from sigrec.numerics._diffusion._measured import BATCHES, PILOT, MeasuredLaw
from sigrec.theory import validity

#: a model away from every default (prior, beta, sigma2, theta, d), inside the expansion's validity
INSIDE = Problem(theta=1.5, beta=0.6, sigma2=1.2, prior="rademacher", R=150, L=1500, d=8)
ETA = 0.005


@pytest.fixture(scope="module")
def inside_law():
    return measured_law(INSIDE, ETA, grid=np.linspace(-0.8, 0.8, 5), runs=3000, seed=3)


def test_inside_validity_the_measured_law_is_the_expansion(inside_law):
    v = validity(INSIDE.model, INSIDE.d, INSIDE.L, ETA)
    assert v.inside, v.message
    tab = diffusion_tables(INSIDE)
    g = inside_law.grid
    drift, sigma = tab.drift(g, ETA), tab.variance(g)
    # Monte Carlo error (4 standard errors) plus the expansion's own O(eta^2, 1/L^2) error (3%)
    assert np.all(np.abs(inside_law.drift - drift) <= 4 * inside_law.drift_se + 0.03 * np.abs(drift)), \
        (inside_law.drift, drift, inside_law.drift_se)
    assert np.all(np.abs(inside_law.variance - sigma) <= 4 * inside_law.variance_se + 0.03 * sigma), \
        (inside_law.variance, sigma, inside_law.variance_se)
    # not vacuous: the errors are small against the quantities compared
    assert np.all(inside_law.variance_se < 0.1 * sigma)
    assert np.max(inside_law.drift_se) < 0.1 * np.max(np.abs(drift))


def test_the_grid_shares_its_random_numbers(inside_law):
    """Common random numbers: a batch's drift at neighbouring points moves together."""
    c = np.corrcoef(inside_law.batch_means.T)
    assert np.all(np.diag(c, 1) > 0.3), np.diag(c, 1)
    assert inside_law.batch_means.shape == (BATCHES, inside_law.grid.size)


def _synthetic(drift, se: float, seed: int = 0) -> MeasuredLaw:
    """A law with a known drift on 21 points and batch means spread as ``se`` says."""
    grid = np.linspace(-1, 1, 21)
    drift = np.asarray(drift(grid), float)
    rng = np.random.default_rng(seed)
    batch = drift + se * math.sqrt(BATCHES) * rng.standard_normal((BATCHES, 1))
    batch = batch - batch.mean(axis=0) + drift  # the mean of the batch means is the drift
    zeros = np.zeros(grid.size)
    return MeasuredLaw(problem=INSIDE, eta=ETA, grid=grid, drift=drift, drift_se=np.full(grid.size, se),
                       variance=zeros + 1, variance_se=zeros, runs=BATCHES * 10, seed=0, batch_means=batch)


def test_the_plateau_and_its_interval():
    law = _synthetic(lambda r: 0.3 - r, 0.01)
    p = law.plateau()
    assert p.value == pytest.approx(0.3, abs=1e-12) and p.route == "measured" and p.found == 1.0
    # a common shift of the drift by +-se moves the zero by +-se (slope -1): a 90% interval ~ +-1.645 se
    assert p.low < 0.3 < p.high and 0.01 < p.high - p.low < 0.06
    # a drift that carries every start to the pole has no plateau
    none = _synthetic(lambda r: 1.0 + 0 * r, 0.01).plateau()
    assert math.isnan(none.value) and none.found == 0.0 and math.isnan(none.low)


def test_the_diffusion_tables_of_the_law(inside_law):
    tab = inside_law.tables()
    assert np.allclose(tab.drift(inside_law.grid, 0.7), inside_law.drift)  # B = 0: the drift of eta itself
    assert np.allclose(tab.variance(inside_law.grid), inside_law.variance)


def test_the_runs_are_chosen_from_the_requested_error():
    grid = np.linspace(-0.5, 0.5, 3)
    pilot = measured_law(INSIDE, ETA, grid=grid, runs=PILOT, seed=4)
    target = float(np.max(pilot.drift_se)) / 2  # about four times the pilot's runs
    law = measured_law(INSIDE, ETA, grid=grid, drift_se=target, seed=4)
    assert law.status == "ok" and law.reason == "" and law.target_se == target
    assert 3 * PILOT <= law.runs <= 6 * PILOT and law.runs % BATCHES == 0
    assert np.max(law.drift_se) <= 1.1 * target
    capped = measured_law(INSIDE, ETA, grid=grid, drift_se=target / 10, max_runs=2 * PILOT, seed=4)
    assert capped.status == "limited" and capped.runs == 2 * PILOT
    assert "`max_runs` = 2,000" in capped.reason and f"{target / 10:.3g}" in capped.reason


@pytest.mark.parametrize("kw, word", [({"eta": 0.0}, "`eta`"), ({"eta": 2.0}, "`eta`"), ({"runs": 10}, "`runs`"),
                                      ({"grid": [0.5, 0.2]}, "`grid`"), ({"grid": [0.0, 1.5]}, "`grid`"),
                                      ({"seed": -1}, "`seed`"), ({"runs": 1000, "drift_se": 0.1}, "not both"),
                                      ({"drift_se": 0.0}, "`drift_se`")])
def test_bad_input_is_refused(kw, word):
    args = {"eta": ETA, **kw}
    with pytest.raises(ValueError, match=word):
        measured_law(INSIDE, args.pop("eta"), **args)


def test_a_model_whose_state_is_not_rho_is_refused():
    with pytest.raises(ValueError, match="heads"):
        measured_law(INSIDE.with_heads(2), ETA)


@pytest.mark.heavy
def test_outside_validity_the_measured_law_finds_the_chain():
    """The issue's example: theta 0.6, beta 2, R 200, L 4000, d 20, constant eta 0.02. The
    expansion (outside its validity) puts the stationary median near 0.11; the exact chain sits
    higher; the diffusion fed the measured law agrees with the chain within the errors."""
    p = Problem(theta=0.6, beta=2.0, R=200, L=4000, d=20)
    eta = 0.02
    assert not validity(p.model, p.d, p.L, eta).inside
    law = measured_law(p, eta, grid=np.linspace(-0.4, 0.8, 7), runs=40000, seed=11)
    plateau = law.plateau()
    measured = simulate_diffusion(law.tables(), np.full(2000, eta), np.full(4000, 0.2), seed=1, stride=100)
    expansion = simulate_diffusion(diffusion_tables(p), np.full(2000, eta), np.full(4000, 0.2), seed=1, stride=100)
    chain = simulate(p, Schedule.constant(eta), steps=2000, runs=64, rho0=0.2, seed=5, stride=100)
    m_med = float(np.median(measured.rho[0][:, 5:]))
    e_med = float(np.median(expansion.rho[0][:, 5:]))
    c = chain.rho[:, 5:].ravel()  # 1024 samples 100 steps apart (the chain relaxes in ~60 steps)
    c_med = float(np.median(c))
    c_se = 1.2533 * float(np.std(c)) / math.sqrt(c.size)
    # the measured route: within its plateau's interval half-width and the chain's 3 standard errors
    assert abs(m_med - c_med) <= (plateau.high - plateau.low) / 2 + 3 * c_se, (m_med, c_med, plateau, c_se)
    # the expansion misses the chain by more than that
    assert abs(e_med - c_med) > abs(m_med - c_med) + 2 * c_se, (e_med, m_med, c_med)
