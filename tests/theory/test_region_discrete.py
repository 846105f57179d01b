"""Region certificates of discrete laws of three or more atoms: the tight enclosure of the
tilted law over a wide ball of ``t`` (theory._laws._tilted.finite_range) checked against
40-digit mpmath moments, and the default region certified, with its boxes checked against
the closed-form pole criterion, a 40-digit sign count of ``j'`` and the point certificate."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import mpmath
import numpy as np
import pytest
from flint import arb
from hypothesis import given, settings
from hypothesis import strategies as st

from sigrec.theory import DEFAULT_REGION, Model, ModelBox, certify, parse_prior, pole_signs, region_proposition
from sigrec.theory._certify._roots import precision
from sigrec.theory._laws._ranged import WidePrior, region_law
from sigrec.theory._laws._tilted import finite_ball, finite_range

from ._region_signs import assert_box_matches_40_digit_signs

THREE = "discrete(values=[-1, 0, 2], probs=[0.2, 0.3, 0.5])"
FOUR = "discrete(values=[-1, 0, 1, 3], probs=[0.1, 0.2, 0.3, 0.4])"


# ----------------------------------------------------------------------------------
# the enclosure of the tilted law over a ball of t


def _moments_mp(support, t):
    """``log M``, ``mu1``, ``v``, ``k3`` at the mpmath number ``t``, straight from the
    definitions (the weights ``q e^{v t}``, central moments about their mean)."""
    atoms = [(mpmath.mpf(v.numerator) / v.denominator, mpmath.mpf(q.numerator) / q.denominator) for v, q in support]
    top = max(v for v, _ in atoms)
    e = [q * mpmath.exp((v - top) * t) for v, q in atoms]
    total = mpmath.fsum(e)
    mean = mpmath.fsum(x * v for x, (v, _) in zip(e, atoms, strict=True)) / total
    central = [mpmath.fsum(x * (v - mean) ** k for x, (v, _) in zip(e, atoms, strict=True)) / total for k in (2, 3)]
    return top * t + mpmath.log(total), mean, central[0], central[1]


def _random_support(rng):
    """Three to five atoms in [-3, 3] (quarters) with random rational probabilities."""
    while True:
        values = sorted({Fraction(int(x), 4) for x in rng.integers(-12, 13, rng.integers(3, 6))})
        if len(values) >= 3:
            break
    weights = rng.integers(1, 10, len(values))
    return tuple((v, Fraction(int(w), int(weights.sum()))) for v, w in zip(values, weights, strict=True))


def _ends(ball):
    return mpmath.mpf(ball.lower()._mpf_), mpmath.mpf(ball.upper()._mpf_)


def _samples(support, t, count):
    """The 40-digit moments at both ends of the ball ``t`` and ``count`` points spread inside it."""
    lo, hi = _ends(t)
    return [_moments_mp(support, lo + (hi - lo) * mpmath.mpf(k) / count) for k in range(count + 1)]


def _contains(enclosure, exact) -> bool:
    lo, hi = _ends(enclosure)
    return bool(lo <= exact <= hi)


@pytest.mark.parametrize("seed", range(6))
def test_the_enclosure_holds_the_40_digit_moments_at_random_points_of_the_ball(seed):
    rng = np.random.default_rng(seed)
    with precision(128), mpmath.workdps(40):
        for _ in range(8):
            support = _random_support(rng)
            centre, width = rng.uniform(-8, 8), 10.0 ** rng.uniform(-6, 1)
            t = arb(centre).union(arb(centre + width))
            enclosure = finite_range(support, t)
            lo, hi = _ends(t)
            points = [lo, hi] + [lo + (hi - lo) * mpmath.mpf(float(u)) for u in rng.uniform(0, 1, 25)]
            for x in points:
                exact = _moments_mp(support, x)
                for name, ball, value in zip(("log M", "mu1", "v", "k3"), enclosure, exact, strict=True):
                    assert _contains(ball, value), (support, centre, width, name, ball, value)


def test_the_check_catches_a_ball_that_misses_the_ends():
    """The containment check has teeth: the point formulas at the centre of a ball do not hold
    the moments at its ends."""
    support = parse_prior(THREE).support
    with precision(128), mpmath.workdps(40):
        t = arb(1).union(arb(1.5))
        at_centre = finite_ball([(v, arb(q.numerator) / q.denominator) for v, q in support], t.mid())
        lo, hi = _ends(t)
        assert not _contains(at_centre[1], _moments_mp(support, lo)[1])
        assert not _contains(at_centre[1], _moments_mp(support, hi)[1])


@pytest.mark.parametrize("seed", range(3))
def test_on_a_narrow_ball_the_enclosure_is_the_range_within_ten_percent(seed):
    """Width of each enclosure <= 1.1 x the range of 200 samples at 40 digits (a lower bound
    of the true range), on balls of width 1e-4 to 1e-2."""
    rng = np.random.default_rng(100 + seed)
    with precision(128), mpmath.workdps(40):
        for _ in range(5):
            support = _random_support(rng)
            centre, width = rng.uniform(-6, 6), 10.0 ** rng.uniform(-4, -2)
            t = arb(centre).union(arb(centre + width))
            enclosure = finite_range(support, t)
            samples = _samples(support, t, 200)
            for i, ball in enumerate(enclosure):
                column = [s[i] for s in samples]
                lo, hi = _ends(ball)
                assert hi - lo <= 1.1 * (max(column) - min(column)) + mpmath.mpf(10) ** -30, (support, centre, i)


def test_on_a_wide_ball_the_enclosure_is_the_range_where_the_point_formulas_are_not():
    """t in [-5, 5] (the default region's rho = +-1 at theta <= 5): the new enclosure is within
    15% of the sampled range; the point formulas on the same ball are more than twice as wide."""
    support = parse_prior(THREE).support
    with precision(128), mpmath.workdps(40):
        t = arb(-5).union(arb(5))
        tight = finite_range(support, t)
        loose = finite_ball([(v, arb(q.numerator) / q.denominator) for v, q in support], t)
        samples = _samples(support, t, 2000)
        for i in range(4):
            column = [s[i] for s in samples]
            spread = max(column) - min(column)
            lo, hi = _ends(tight[i])
            assert hi - lo <= 1.15 * spread, i
            lo, hi = _ends(loose[i])
            assert not hi - lo <= 2 * spread, i


def test_the_region_reads_discrete_laws_through_the_wide_enclosure_and_the_others_as_before():
    law = parse_prior(THREE)
    wide = region_law(law)
    assert isinstance(wide, WidePrior) and wide.spec == law.spec and wide.mean == law.mean
    assert wide.family == "discrete" and str(wide) == str(law)
    two_point = "discrete(values=[0.5, 2], probs=[0.25, 0.75])"
    for spec in ("fixed", "rademacher", "bernoulli(0.3)", "gaussian(1, 0.5)", two_point):
        prior = parse_prior(spec)
        assert region_law(prior) is prior
    with precision(128), mpmath.workdps(40):
        t = arb(0.5).union(arb(2.5))
        enclosure = wide.tilted_ball(t)
        for exact in _samples(law.support, t, 40):
            assert all(_contains(b, x) for b, x in zip(enclosure, exact, strict=True))


# ----------------------------------------------------------------------------------
# the default region


@cache
def _region(spec, min_width=2.0 ** -10):
    return certify(ModelBox(DEFAULT_REGION["theta"], DEFAULT_REGION["alpha"], prior=spec), min_width=min_width)


def _check_default_region(spec):
    cert = _region(spec)
    assert cert.certified and cert.fractions["undecided"] <= 0.01, cert.fractions
    assert cert.fractions["monotone"] > 0.01 and cert.fractions["bistable"] > 0.5
    # the closed-form criterion (the sign of F'(-1) from pole_alpha and the sparse threshold)
    # holds on every certified box: an independent route
    prop = region_proposition(spec, certificate=cert)
    assert prop.agrees and prop.contradictions == ()


@pytest.mark.heavy
def test_a_three_atom_law_certifies_the_default_region():
    _check_default_region(THREE)


@pytest.mark.heavy
def test_a_four_atom_law_certifies_the_default_region():
    _check_default_region(FOUR)


@pytest.mark.heavy
def test_a_three_atom_law_away_from_beta_sigma2_one_agrees_with_the_criterion_and_the_point_certificates():
    """beta 1.3, sigma2 0.8: the default region with <= 1% undecided, every certified box agrees
    with the closed-form pole criterion, and the point certificate at each box's centre has the
    box's status (a route without the wide-ball enclosures)."""
    theta, alpha = DEFAULT_REGION["theta"], DEFAULT_REGION["alpha"]
    cert = certify(ModelBox(theta, alpha, 1.3, 0.8, prior=THREE), min_width=2.0 ** -10)
    assert cert.certified and cert.fractions["undecided"] <= 0.01, cert.fractions
    prop = region_proposition(THREE, certificate=cert, beta=1.3, sigma2=0.8)
    assert prop.agrees and prop.contradictions == ()
    rng = np.random.default_rng(3)
    decided = [b for b in cert.boxes if b.status != "undecided"]
    for i in rng.choice(len(decided), 30, replace=False):
        box = decided[i]
        b = {name: (lo, hi) for name, lo, hi in box.bounds}
        centre = (0.5 * sum(b["theta"]), float(np.sqrt(b["alpha"][0] * b["alpha"][1])))
        assert certify(Model(*centre, 1.3, 0.8, prior=THREE)).status == box.status, box


def test_a_mean_zero_three_atom_law_is_bistable_at_zero_everywhere():
    cert = _region("discrete(values=[-1, 0, 1], probs=[0.25, 0.5, 0.25])", 2.0 ** -6)
    assert cert.certified and cert.fractions["bistable"] == 1.0
    assert all(b.equilibrium == (0.0, 0.0, "unstable", True) and b.poles == ("stable", "stable") for b in cert.boxes)


def test_coarse_boxes_agree_with_the_point_certificate_at_their_corners():
    """A coarse walk (min width 2^-5) of the three-atom law: most of the region decided, and the
    point certificate (point formulas at exact parameters, no wide balls) at the corners of a
    spread of its certified boxes (theta > 0) gives each box's status."""
    cert = _region(THREE, 2.0 ** -5)
    assert cert.certified and cert.fractions["undecided"] < 0.05
    decided = [b for b in cert.boxes if b.status != "undecided"]
    for box in decided[:: max(1, len(decided) // 12)]:
        (_, t0, t1), (_, a0, a1) = box.bounds
        for theta, alpha in ((t0, a0), (t0, a1), (t1, a0), (t1, a1)):
            if theta > 0:
                assert certify(Model(theta, alpha, prior=THREE)).status == box.status, (box, theta, alpha)


def _point(box, u):
    """The point of ``box`` at relative coordinates ``u`` (theta linear, alpha log), theta > 0."""
    b = {name: (lo, hi) for name, lo, hi in box.bounds}
    theta = b["theta"][0] + u[0] * (b["theta"][1] - b["theta"][0])
    lo, hi = b["alpha"]
    return max(theta, 1e-3 * b["theta"][1]), min(hi, max(lo, lo * (hi / lo) ** u[1]))


@pytest.mark.heavy
@settings(max_examples=20, deadline=None)
@given(st.data())
def test_random_points_of_certified_boxes_agree_with_a_40_digit_sign_count(data):
    """The derived j' (sympy, at 40 digits: not the balls) on 79 interior points and just
    outside the box's equilibrium interval: no sign change (monotone, j' > 0) or one, from
    - to +, inside the interval (bistable); the poles and the point certificate agree. The
    boxes of a coarse walk (min width 2^-5: the largest boxes, the hardest claims)."""
    boxes = [b for b in _region(THREE, 2.0 ** -5).boxes if b.status != "undecided"]
    box = boxes[data.draw(st.integers(0, len(boxes) - 1))]
    model = Model(*_point(box, [data.draw(st.floats(0, 1)) for _ in range(2)]), prior=THREE)
    assert_box_matches_40_digit_signs(box, model)
    labels = {-1: "stable", 1: "unstable", 0: "?"}
    assert tuple(labels[s] for s in pole_signs(model)) == box.poles
    assert certify(model).status == box.status
