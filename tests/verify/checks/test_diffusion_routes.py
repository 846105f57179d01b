"""The diffusion checks' routes (``CheckContext.method``, ``sigrec verify --method``).

Outside the expansion's stated validity the checks ``sga.fluctuations``, ``sga.hitting_time`` and
``sga.splitting`` were left out; with ``auto`` (the default) or ``measured`` they predict from the
exact chain's measured one-step law instead, and they must still be able to fail.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sigrec.verify.checks import REGISTRY, Case
from sigrec.verify.checks import _diffusion as diffusion
from sigrec.verify.checks import _diffusion_band as band_checks
from sigrec.verify.checks._context import CheckContext
from sigrec.verify.checks._diffusion import Budget, route_for
from sigrec.verify.checks._diffusion_band import fluctuations, hitting_time
from sigrec.verify.checks._splitting import splitting

#: A2/L = 0.0165 > 0.005: outside the expansion's validity on the token count alone
OUTSIDE = Case("outside", 0.6, 200 / 4000, beta=2.0, R=200, L=4000, d=20)
INSIDE = Case.from_counts("inside", 0.5, 100, 800, 5)
#: bistable, A2/L = 0.041: outside; the measured route's band, passage and splitting are decided here
BISTABLE = Case("bistable-outside", 2.0, 100 / 2100, beta=1.6, R=100, L=2100, d=10)


@pytest.mark.parametrize("check", ["sga.fluctuations", "sga.hitting_time"])
def test_validity_gates_the_diffusion_checks_only_under_the_expansion(check):
    c = REGISTRY[check]
    expansion, auto, measured = (CheckContext(method=m) for m in ("expansion", "auto", "measured"))
    reason = c.reason(OUTSIDE, expansion)
    assert reason is not None and "A2/L" in reason
    assert c.reason(OUTSIDE, auto) is None and c.reason(OUTSIDE, measured) is None
    assert c.applies(OUTSIDE, auto) and not c.applies(OUTSIDE, expansion)
    assert c.reason(INSIDE, expansion) is None and c.reason(INSIDE, auto) is None


def test_checks_without_a_measured_route_stay_gated():
    """sga.tracking and sga.filtering compare with the limit flow and mass: no measured law enters them."""
    for cid in ("sga.tracking", "sga.filtering"):
        assert REGISTRY[cid].reason(OUTSIDE, CheckContext(method="auto")) is not None
        assert not REGISTRY[cid].routes


def test_auto_takes_the_expansion_inside_and_the_measured_law_outside():
    ctx = CheckContext(seed=3)
    out = route_for(OUTSIDE, ctx, diffusion.diffusion_expansion)
    assert out.measured and "A2/L = 0.0165" in out.reason
    assert out.drift_se == diffusion.DRIFT_SE
    inside = route_for(INSIDE, ctx, diffusion.diffusion_expansion)
    assert inside.name == "expansion" and inside.reason.startswith("auto: the expansion is inside")
    # the expansion route is one cache key, whatever its reason (the gate's schedule design is shared)
    assert inside == diffusion.EXPANSION and hash(inside) == hash(diffusion.EXPANSION)
    asked = route_for(INSIDE, CheckContext(method="measured", drift_se=0.01), diffusion.diffusion_expansion)
    assert asked.measured and asked.drift_se == 0.01
    assert route_for(OUTSIDE, CheckContext(method="expansion"), diffusion.diffusion_expansion) == diffusion.EXPANSION


def test_context_refuses_an_unknown_method_and_a_bad_drift_error():
    with pytest.raises(ValueError, match="`method` must be one of"):
        CheckContext(method="exact")
    with pytest.raises(ValueError, match="`drift_se`"):
        CheckContext(drift_se=0.0)


def _weaker_law(factor):
    """The measured law with every in-plane draw scaled by ``factor``: a wrong law, to be caught."""
    true_law = diffusion._law

    def law(problem, seed, drift_se):
        good = true_law(problem, seed, drift_se)
        c, G, counts = good.samples
        return dataclasses.replace(good, samples=(c * factor, G, counts))

    return law


def _clear_caches():
    for f in (diffusion._prediction, diffusion.schedule_for, diffusion._exact):
        f.cache_clear()


def test_the_measured_route_decides_band_and_passage_outside_the_validity_and_catches_a_wrong_law(monkeypatch):
    """theta 2, beta 1.6, R 100, L 2,100, d 10: outside (A2/L = 0.041), so under ``expansion`` these
    checks would not run. The measured law's paths agree with the exact chain (band coverage and the
    median first passage with its KS test); the same law with its in-plane draws scaled by 0.7 (a
    drift about 30% too weak) fails both."""
    ctx, budget = CheckContext(seed=11), Budget(100, 4000, 400)
    _clear_caches()
    band = fluctuations(BISTABLE, ctx, budget_=budget)[0]
    hit = hitting_time(BISTABLE, ctx, budget_=budget)[0]
    for rec in (band, hit):
        assert rec.details["route"] == "measured" and "A2/L" in rec.details["route_reason"], rec.details
        assert rec.message.startswith("measured one-step law: ")
        assert rec.status == "pass", rec.message
    assert hit.details["predicted_median_law_se"] > 0 and hit.threshold > diffusion.HIT_TOL
    assert band.details["coverage_law_se"] > 0
    weaker = _weaker_law(0.7)
    monkeypatch.setattr(diffusion, "_law", weaker)  # the prediction's tables
    monkeypatch.setattr(band_checks, "_law", weaker)  # the law's spread and summary
    _clear_caches()
    try:
        bad_band = fluctuations(BISTABLE, ctx, budget_=budget)[0]
        bad_hit = hitting_time(BISTABLE, ctx, budget_=budget)[0]
    finally:
        _clear_caches()
    assert bad_band.status == "fail", bad_band.message
    assert bad_hit.status == "fail", bad_hit.message


def test_the_measured_route_predicts_the_splitting_fraction_outside_the_validity():
    ctx = CheckContext(seed=11)
    rec = splitting(BISTABLE, ctx, budget_=Budget(100, 4000, 400))[0]
    assert rec.details["route"] == "measured", rec.details
    assert rec.status == "pass", rec.message
    assert 0 < rec.details["predicted_plus_se"] < 0.05 and "measured one-step law" in rec.message
    # the prediction comes from the law's paths, not the scale function
    assert rec.threshold == rec.details["predicted_plus"]
    assert np.isfinite(rec.details["interval99"]).all()


def test_the_measured_route_on_a_prior_and_noise_away_from_the_defaults():
    """gaussian(mu=1, tau=0.3) signal strengths, sigma2 = 0.8, beta = 1.6 (A2/L = 0.085: far outside the
    expansion's validity): band, passage and splitting of the exact chain agree with the measured law."""
    case = Case("gaussian-outside", 2.0, 100 / 2100, beta=1.6, sigma2=0.8, prior="gaussian(mu=1, tau=0.3)",
                R=100, L=2100, d=10)
    ctx, budget = CheckContext(seed=13), Budget(100, 4000, 400)
    _clear_caches()
    records = [*fluctuations(case, ctx, budget_=budget), *hitting_time(case, ctx, budget_=budget),
               *splitting(case, ctx, budget_=budget)]
    for rec in records:
        assert rec.details["route"] == "measured", (rec.id, rec.details)
        assert rec.status == "pass", (rec.id, rec.message)
