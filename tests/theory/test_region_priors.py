"""Prior parameters as ranges in region certificates: parsing, sound enclosures of the
tilted law over a parameter box, and certified boxes checked against point certificates."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from flint import arb
from hypothesis import given, settings
from hypothesis import strategies as st

from sigrec.theory import Model, ModelBox, Prior, RangedPrior, certify, parse_prior, parse_ranged_prior


def test_a_spec_with_ranges_is_a_ranged_prior_and_round_trips():
    rp = parse_ranged_prior("gaussian(mu=0.5:1, tau=0.2)")
    assert isinstance(rp, RangedPrior) and rp.ranges == {"mu": (0.5, 1.0)}
    assert rp.spec == "gaussian(mu=0.5:1, tau=0.2)" and parse_ranged_prior(rp.spec) == rp
    assert parse_ranged_prior("rademacher(1/2:3/4)").ranges == {"p": (0.5, 0.75)}
    assert rp.at(mu=0.75) == parse_prior("gaussian(0.75, 0.2)")
    # no range: the point prior, as parse_prior gives it
    assert parse_ranged_prior("gaussian(1, 0.5)") == parse_prior("gaussian(1, 0.5)")
    assert isinstance(parse_ranged_prior("fixed"), Prior)


@pytest.mark.parametrize("spec, words", [
    ("gaussian(mu=1:0.5, tau=1)", "LO < HI"),
    ("gaussian(mu=0:1, tau=0:1)", "corner mu=0, tau=0"),
    ("rademacher(p=0.3:0.7)", "corner p=0.3"),
    ("bernoulli(p=0:0.5)", "corner p=0"),
    ("bernoulli(p=0.5:1.5)", "corner p=1.5"),
    ("discrete(values=[0:1, 2], probs=[0.5, 0.5])", "not a finite number"),
    ("gaussian(mu=0.5:1:2, tau=1)", "LO:HI"),
    ("gaussian(mu=0.5:x, tau=1)", "not a finite number"),
])
def test_bad_ranges_are_one_message(spec, words):
    with pytest.raises(ValueError, match="prior") as err:
        parse_ranged_prior(spec)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_point_spec_still_refuses_a_range():
    with pytest.raises(ValueError, match="not a finite number"):
        parse_prior("gaussian(mu=0.5:1, tau=0.2)")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["gaussian(mu=0.5:1, tau=0.1:0.4)", "rademacher(p=0.5:0.9)", "bernoulli(p=0.2:1)",
                        "gaussian(mu=0, tau=0.3:2)"]),
       st.floats(0, 1), st.floats(0, 1), st.floats(-6, 6), st.floats(0, 0.5))
def test_the_box_law_encloses_every_law_of_the_box(spec, u, v, t0, width):
    """The ball tilted law of a box holds the tilted law (mpmath, 30 digits) of points of the
    box at points of the t-ball: an independent route (mpmath, not balls)."""
    rp = parse_ranged_prior(spec)
    names = list(rp.ranges)
    point = {k: lo + (hi - lo) * x for (k, (lo, hi)), x in zip(rp.ranges.items(), (u, v), strict=False)}
    law = rp.ball(rp.ranges)
    t_ball = arb(t0).union(arb(t0 + width))
    ball = law.tilted_ball(t_ball)
    prior = rp.at(**{k: Fraction(point[k]).limit_denominator(10**6) for k in names})
    with mpmath.workdps(30):
        for t in (t0, t0 + width / 3, t0 + width):
            exact = prior.tilted_mp(mpmath.mpf(t))
            for b, x in zip(ball[:3], exact, strict=True):
                lo, hi = float(b.lower()), float(b.upper())
                assert lo - 1e-12 <= float(x) <= hi + 1e-12, (spec, point, t, b, x)


def test_two_point_laws_in_logistic_form_match_the_float_law():
    for spec in ("bernoulli(0.3)", "rademacher(0.7)", "discrete(values=[0.5, 2], probs=[0.25, 0.75])"):
        prior = parse_prior(spec)
        for t in (-40.0, -1.3, 0.0, 0.7, 25.0):
            ball = prior.tilted_ball(arb(t))
            ref = prior.tilted(t)
            for b, x in zip(ball[:3], ref, strict=True):
                assert math.isclose(float(b.mid()), float(x), rel_tol=1e-12, abs_tol=1e-14), (spec, t)
            # k3 = dv/dt, checked by a central difference of the float variance
            h = 1e-5
            dv = (prior.tilted(t + h)[2] - prior.tilted(t - h)[2]) / (2 * h)
            assert math.isclose(float(ball[3].mid()), float(dv), rel_tol=1e-5, abs_tol=1e-9), (spec, t)


@pytest.mark.parametrize("spec, theta, alpha", [
    ("gaussian(mu=0.5:1, tau=0.2)", (1.0, 3.0), 0.05),
    ("rademacher(p=0.5:0.8)", (1.0, 3.0), 0.2),
    ("bernoulli(p=0.4:0.6)", 2.5, (0.01, 0.9)),
])
def test_certified_boxes_agree_with_the_point_certificate(spec, theta, alpha):
    cert = certify(ModelBox(theta, alpha, prior=spec), min_width=2.0 ** -4)
    assert cert.certified and cert.fractions["monotone"] + cert.fractions["bistable"] > 0.3
    rp = parse_ranged_prior(spec)
    (name,) = rp.ranges
    decided = [b for b in cert.boxes if b.status != "undecided"]
    for box in decided[:: max(1, len(decided) // 8)]:
        b = {k: (lo, hi) for k, lo, hi in box.bounds}
        for corner in (0, 1):
            point = {k: v[corner] for k, v in b.items()}
            prior = rp.at(**{name: Fraction(point.pop(name))})
            model = Model(point.get("theta", theta), point.get("alpha", alpha), prior=prior)
            assert certify(model).status == box.status, (box, model)


def test_a_rademacher_range_through_one_half_is_bistable_with_a_root_near_zero():
    """p = 1/2 (exact root rho = 0) and p > 1/2 (a root moved off 0) in one box: the root tile
    covers both; the point certificate agrees at both ends."""
    cert = certify(ModelBox(2.0, 0.3, prior="rademacher(p=0.5:0.52)"), min_width=0.25)
    assert cert.fractions["bistable"] == 1.0
    for box in cert.boxes:
        lo, hi, stability, exact = box.equilibrium
        assert lo <= 0.0 <= hi and stability == "unstable" and not exact
    for p in ("0.5", "0.52"):
        (e,) = certify(Model(2.0, 0.3, prior=f"rademacher({p})")).equilibria
        assert cert.boxes[0].equilibrium[0] <= e.lo <= e.hi <= cert.boxes[-1].equilibrium[1]
