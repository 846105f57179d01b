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

from sigrec.numerics import (
    MeasureOptions,
    Problem,
    Schedule,
    diffusion_tables,
    measured_law,
    route_tables,
    simulate,
    simulate_diffusion,
)
from sigrec.numerics._diffusion import DiffusionTables
from sigrec.numerics._diffusion._measured import (
    BATCHES,
    COARSE_POINTS,
    RUN_OVERHEAD,
    MeasuredLaw,
    _within_budget,
    pilot_runs,
    refine_cells,
)
from sigrec.numerics._diffusion._resampled import ResampledTables
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


def test_the_grid_shares_its_random_numbers():
    """Common random numbers: a batch's plain drift at neighbouring points moves together (the
    control variate then removes much of that shared part: what is left is less correlated)."""
    plain = measured_law(INSIDE, ETA, grid=np.linspace(-0.8, 0.8, 5), runs=3000, seed=3,
                         options=MeasureOptions(control=False))
    c = np.corrcoef(plain.batch_means.T)
    assert np.all(np.diag(c, 1) > 0.3), np.diag(c, 1)
    assert plain.batch_means.shape == (BATCHES, plain.grid.size) and not plain.control
    assert np.all(plain.reduction == 1.0)


def _synthetic(drift, se: float, seed: int = 0) -> MeasuredLaw:
    """A law with a known drift on 21 points and batch means spread as ``se`` says."""
    grid = np.linspace(-1, 1, 21)
    drift = np.asarray(drift(grid), float)
    rng = np.random.default_rng(seed)
    batch = drift + se * math.sqrt(BATCHES) * rng.standard_normal((BATCHES, 1))
    batch = batch - batch.mean(axis=0) + drift  # the mean of the batch means is the drift
    zeros = np.zeros(grid.size)
    return MeasuredLaw(problem=INSIDE, eta=ETA, grid=grid, drift=drift, drift_se=np.full(grid.size, se),
                       variance=zeros + 1, variance_se=zeros, runs=np.full(grid.size, BATCHES * 10), seed=0,
                       batch_means=batch)


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


def test_two_steps_from_the_same_draws_describe_a_decaying_schedule():
    grid = np.linspace(-0.7, 0.7, 4)
    law = measured_law(INSIDE, 0.04, eta_low=0.01, grid=grid, runs=1000, seed=2)
    alone = measured_law(INSIDE, 0.01, grid=grid, runs=1000, seed=2)
    # the same streams: the law at the small step is the one measured alone there
    assert np.allclose(law.low.drift, alone.drift, rtol=1e-12, atol=1e-12)
    assert np.allclose(law.low.variance, alone.variance, rtol=1e-12, atol=1e-12)
    tab = law.tables()  # (on a uniform grid of 4001 points: within its interpolation error of the law's grid)
    assert np.allclose(tab.drift(grid, 0.04), law.drift, atol=1e-4)
    assert np.allclose(tab.drift(grid, 0.01), law.low.drift, atol=1e-4)
    # the drag: the exact step's drift falls with eta (B > 0 for rho > 0), as the expansion says
    expansion = diffusion_tables(INSIDE)
    assert np.all(tab.lookup(grid[grid > 0])[:, 1] > 0)
    assert np.allclose(tab.lookup(grid)[:, 1], expansion.lookup(grid)[:, 1], rtol=0.25, atol=0.05)
    with pytest.raises(ValueError, match="`eta_low`"):
        measured_law(INSIDE, 0.01, eta_low=0.02, grid=grid, runs=1000)


def test_the_measured_chain_steps_by_the_exact_draws():
    """At a grid point the resampled step's mean increment is the law's (controlled) drift, and a
    path never leaves [-1, 1] (the exact transition is normalised: no clipping needed)."""
    grid = np.array([-0.5, 0.2, 0.6])
    law = measured_law(INSIDE, 0.05, grid=grid, runs=1500, seed=6)
    tab = law.tables()
    assert isinstance(tab, ResampledTables) and np.array_equal(tab.points, grid)
    rng = np.random.default_rng(0)
    rho = np.repeat(grid[:, None], 40_000, axis=1)
    step = (tab.advance(rho, np.full((3, 1), 0.05), rng) - rho) / 0.05
    se = step.std(axis=1) / np.sqrt(step.shape[1])
    assert np.all(np.abs(step.mean(axis=1) - law.drift) < 4 * se + 0.3 * law.drift_se), (step.mean(axis=1), law.drift)
    far = tab.advance(np.full((1, 1000), 0.999), np.full((1, 1), 0.9), rng)
    assert np.all(np.abs(far) <= 1.0)
    gauss = law.tables(resampled=False)
    assert type(gauss) is DiffusionTables and np.array_equal(gauss.table, tab.table)


@pytest.mark.heavy
def test_with_large_steps_the_measured_chain_passes_when_the_exact_chain_does():
    """theta 1, beta 2, L 1000, eta_k = 0.5 / (k + 10)^0.75 from rho0 = 0.3 (eta^2 E|P g|^2 ~ 2):
    a Gaussian diffusion with the measured drift and variance passes 0.99 within 400 steps on most
    paths, the exact chain on fewer than one in seven; the resampled exact step agrees with the
    chain within the binomial errors."""
    p = Problem(theta=1.0, R=100, L=1000, d=10, beta=2.0)
    sch = Schedule(0.5, 10, 0.75)
    K = 400
    law = route_tables(p, sch, 3000, method="measured").law
    etas = sch.eta(np.arange(K))

    def passed(tab) -> float:
        return float(np.mean(simulate_diffusion(tab, etas, np.full(4000, 0.3), seed=1).first_passage[0] >= 0))

    chain = simulate(p, sch, steps=K, runs=300, rho0=0.3, seed=3, stride=1)
    c = float(np.mean((np.abs(chain.rho) >= 0.99).any(axis=1)))
    se = math.sqrt(max(c * (1 - c), 0.01) / 300)
    resampled, gaussian = passed(law.tables()), passed(law.tables(resampled=False))
    assert c < 1 / 7, c
    assert abs(resampled - c) < 4 * se, (resampled, c, se)
    assert gaussian > 0.5, gaussian  # the Gaussian increments reach the pole by their kicks


def test_the_grid_is_refined_where_the_drift_bends():
    grid = np.linspace(-0.96, 0.96, COARSE_POINTS)
    assert refine_cells(grid, 0.3 - 0.8 * grid, 1e-6).size == 0  # a line: interpolation is exact
    new = refine_cells(grid, np.tanh(12 * (grid - 0.3)), 0.01)
    assert new.size >= 2 and np.all(np.abs(new - 0.3) < 0.4), new  # only around the bend
    assert refine_cells(np.array([0.0, 0.01, 0.02]), np.array([0.0, 1.0, 0.0]), 1e-9).size == 0  # MIN_CELL


def test_the_runs_are_chosen_from_the_requested_error():
    grid = np.linspace(-0.5, 0.5, 3)
    n0 = pilot_runs(INSIDE)
    pilot = measured_law(INSIDE, ETA, grid=grid, runs=n0, seed=4)
    target = float(np.max(pilot.drift_se)) / 2  # about four times the pilot's runs where it is hardest
    law = measured_law(INSIDE, ETA, grid=grid, drift_se=target, seed=4)
    assert law.status == "ok" and law.reason == "" and law.target_se == target
    assert np.all(law.runs >= n0) and np.all(law.runs % BATCHES == 0)
    hardest = int(np.argmax(pilot.drift_se))
    assert 3 * n0 <= law.runs[hardest] <= 6 * n0, law.runs
    assert np.max(law.drift_se) <= 1.1 * target
    # the pilot's runs are the first runs of the larger sample: the same streams, kept
    assert np.all(law.runs > n0) or np.array_equal(law.drift[law.runs == n0], pilot.drift[law.runs == n0])
    capped = measured_law(INSIDE, ETA, grid=grid, drift_se=target / 10, seed=4, options=MeasureOptions(max_runs=2 * n0))
    assert capped.status == "limited" and np.max(capped.runs) == 2 * n0
    assert f"`max_runs` = {2 * n0:,}" in capped.reason and f"{target / 10:.3g}" in capped.reason


def test_the_work_after_the_pilot_is_bounded():
    grid = np.linspace(-0.5, 0.5, 3)
    n0 = pilot_runs(INSIDE)
    budget = 4 * n0 * (INSIDE.L + RUN_OVERHEAD)  # four pilots' worth of runs in all, where 3 points want far more
    law = measured_law(INSIDE, ETA, grid=grid, drift_se=1e-7, seed=4, options=MeasureOptions(max_work=budget))
    assert law.status == "limited" and "`max_work`" in law.reason, law.reason
    assert 3 * n0 < law.runs.sum() <= 3 * n0 + 4 * n0 and np.all(law.runs % BATCHES == 0), law.runs
    runs = np.array([500, 1000, 1000])
    chosen, cut = _within_budget(runs, np.array([600, 5000, 1000]), 1e9)
    assert not cut and np.array_equal(chosen, [600, 5000, 1000])
    chosen, cut = _within_budget(runs, np.array([10_500, 21_000, 1000]), 3000)  # wanted 10,000 and 20,000 more
    assert cut and np.array_equal(chosen, [500 + 1000, 1000 + 2000, 1000])  # shared 1:2, whole batches of 50


def test_the_default_error_is_relative_to_the_drifts_scale():
    """theta = 50 moves a thousand times faster than theta = 0.05: the default error scales with the
    drift (0.02 of its largest value on the pilot grid), where an absolute 0.02 would ask for ~1e11 runs."""
    fast = Problem(theta=50, sigma2=10, prior="rademacher", R=1, L=4, d=4)
    law = measured_law(fast, 1e-3, grid=np.array([-0.2, 0.0, 0.2]), seed=1, options=MeasureOptions(max_work=0))
    scale = np.max(np.abs(law.drift))
    assert scale > 100 and law.target_se == pytest.approx(0.02 * scale)
    slow = measured_law(INSIDE, ETA, grid=np.array([-0.5, 0.0, 0.5]), seed=1, options=MeasureOptions(max_work=0))
    assert np.max(np.abs(slow.drift)) < 1 and slow.target_se == 0.02


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
