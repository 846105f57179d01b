"""The appendix proposition's data (theory.region_proposition): fractions, the undecided
band, and the check of every certified box against the closed-form criterion, which
must be able to fail."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import cache

import numpy as np
import pytest

from sigrec.theory import (
    DEFAULT_REGION,
    ModelBox,
    RegionCertificate,
    certify,
    critical_alpha,
    pole_alpha,
    region_proposition,
)

COARSE = 2.0 ** -6


@cache
def _prop(prior):
    return region_proposition(prior, min_width=COARSE)


@cache
def _cert(prior):
    return certify(ModelBox(DEFAULT_REGION["theta"], DEFAULT_REGION["alpha"], prior=prior), min_width=COARSE)


def test_fixed_prior_agrees_with_alpha_c():
    p = _prop("fixed")
    assert p.agrees and p.certified and p.contradictions == ()
    assert p.domain == {"theta": [0.0, 5.0], "alpha": [1e-4, 1.0], "beta": 1.0, "sigma2": 1.0,
                        "measure": "theta linear, alpha log"}
    assert math.isclose(sum(p.fractions.values()), 1.0, rel_tol=1e-12)
    assert p.area == pytest.approx(20.0) and p.undecided_area == pytest.approx(20.0 * p.fractions["undecided"])
    assert "alpha_c" in p.criterion
    doc = p.as_dict()
    assert doc["agrees"] is True and doc["boxes"] == p.boxes


def test_alpha_c_rises_with_theta_on_the_domain():
    """The fixed-prior check reads alpha_c at a box's theta ends: it needs alpha_c increasing."""
    t = np.linspace(1.0 + 1e-9, 5.0, 2001)
    curve = np.array([critical_alpha(float(x)) for x in t])
    assert np.all(np.diff(curve) > 0) and critical_alpha(1.0) is None


def test_a_flipped_box_is_a_contradiction():
    """The check can fail: one certified box with its status flipped is reported."""
    cert = _cert("fixed")
    i = next(i for i, b in enumerate(cert.boxes) if b.status == "bistable")
    boxes = list(cert.boxes)
    boxes[i] = replace(boxes[i], status="monotone", equilibrium=None, poles=("stable", "unstable"))
    bad = RegionCertificate(cert.region, tuple(boxes), cert.fractions, cert.certified, cert.seconds)
    p = region_proposition("fixed", certificate=bad)
    assert not p.agrees and len(p.contradictions) == 1
    assert p.contradictions[0]["theta"] == list(boxes[i].bounds[0][1:])


def test_rademacher_is_bistable_at_zero_everywhere():
    p = _prop("rademacher")
    assert p.agrees and p.fractions["bistable"] == 1.0 and "E s = 0" in p.criterion


@pytest.mark.parametrize("prior", ["gaussian(1, 0.5)", pytest.param("rademacher(0.7)", marks=pytest.mark.slow)])
def test_general_priors_agree_with_the_pole_criterion(prior):
    p = _prop(prior)
    assert p.agrees and p.fractions["undecided"] < 0.06 and "c* =" in p.criterion
    # the pole roots from mpmath at theta = 3 lie in undecided boxes (the boundary), never inside a
    # certified one (gaussian(1, 0.5): one root; rademacher(0.7): none, bistable at every alpha)
    roots = pole_alpha(prior, 3.0)
    assert len(roots) == (1 if prior.startswith("gaussian") else 0)
    column = [b for b in _cert(prior).boxes if b.bounds[0][1] < 3.0 < b.bounds[0][2]]
    for box in column:
        (_, _, _), (_, a0, a1) = box.bounds
        if any(a0 < r < a1 for r in roots):
            assert box.status == "undecided"
    if not roots:
        assert all(b.status != "monotone" for b in column)


def test_a_flipped_general_box_is_a_contradiction():
    cert = _cert("gaussian(1, 0.5)")
    i = next(i for i, b in enumerate(cert.boxes) if b.status == "monotone" and b.bounds[0][1] > 0.5)
    boxes = list(cert.boxes)
    boxes[i] = replace(boxes[i], status="bistable", poles=("stable", "stable"))
    bad = RegionCertificate(cert.region, tuple(boxes), cert.fractions, cert.certified, cert.seconds)
    assert len(region_proposition("gaussian(1, 0.5)", certificate=bad).contradictions) == 1


def test_a_certificate_of_another_region_is_refused():
    other = certify(ModelBox((0.5, 4.0), (0.01, 0.9)), min_width=0.25)
    with pytest.raises(ValueError, match="certificate"):
        region_proposition("fixed", certificate=other)


@pytest.mark.slow
def test_fixed_default_region_leaves_at_most_half_a_percent_undecided():
    p = region_proposition("fixed")
    assert p.agrees and p.fractions["undecided"] <= 0.005
