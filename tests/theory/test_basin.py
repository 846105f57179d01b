"""The certified basin: the limit (and the source) of the flow from a start."""

import pytest

from sigrec.theory import Model, certified_basin, certify, evaluate_mp


def test_bistable_fixed_prior_splits_at_its_unstable_root():
    model = Model(3.0, 0.01)
    (root,) = certify(model).equilibria
    assert root.stability == "unstable"
    for rho0, pole in ((-0.99, -1.0), (root.lo - 1e-6, -1.0), (root.hi + 1e-6, 1.0), (0.0, 1.0), (0.9, 1.0)):
        basin = certified_basin(model, rho0)
        assert basin.limit.kind == "pole" and basin.limit.lo == pole and basin.limit.stability == "stable"
        assert basin.direction == pole
        assert (basin.source.lo, basin.source.hi) == (root.lo, root.hi)
        # the certified direction is the sign of an independent 40-digit value of F
        assert basin.direction * evaluate_mp(model, rho0, 40)["field"] > 0


def test_sparse_bistable_root_at_minus_one_over_beta_theta():
    model = Model(2.0, 0.0, beta=1.3)
    below, above = certified_basin(model, -0.5), certified_basin(model, -0.2)
    assert (below.limit.lo, above.limit.lo) == (-1.0, 1.0)
    for basin in (below, above):
        assert basin.source.lo <= -1 / 2.6 <= basin.source.hi


def test_rademacher_zero_is_an_exact_fixed_point():
    model = Model(1.5, 0.5, prior="rademacher")
    fixed = certified_basin(model, 0.0)
    assert fixed.direction == 0 and fixed.limit.kind == "fixed" and fixed.limit.stability == "unstable"
    up, down = certified_basin(model, 1e-9), certified_basin(model, -1e-9)
    assert (up.limit.lo, down.limit.lo) == (1.0, -1.0)
    assert up.source.lo == up.source.hi == 0.0 == down.source.lo


def test_monotone_field_has_one_basin():
    model = Model(0.25, 500 / 10_500)
    for rho0 in (-0.999, -0.3, 0.0, 0.7):
        basin = certified_basin(model, rho0)
        assert basin.limit.lo == 1.0 and basin.source.kind == "pole" and basin.source.lo == -1.0
        assert basin.source.stability == "unstable"


def test_poles_are_fixed_and_theta_zero_is_refused():
    assert certified_basin(Model(3.0, 0.01), 1.0).limit.kind == "fixed"
    with pytest.raises(ValueError, match="theta = 0"):
        certified_basin(Model(0.0, 0.5), 0.2)
    with pytest.raises(ValueError, match="`rho0`"):
        certified_basin(Model(1.0, 0.5), 1.5)


def test_gaps_of_the_certificate_are_refused():
    # sparse fixed prior at beta theta = 1: the root sits at the pole, a box there stays undecided
    with pytest.raises(ValueError, match="undecided"):
        certified_basin(Model(1.0, 0.0), 0.2)
    # a start at the exact root of a mean-zero law, off by less than the working precision
    with pytest.raises(ValueError, match="not decided"):
        certified_basin(Model(1.5, 0.5, prior="rademacher"), 1e-60)


def test_a_certificate_at_hand_is_used_and_checked():
    model = Model(3.0, 0.01)
    cert = certify(model, prec=128)
    assert certified_basin(model, 0.0, certificate=cert) == certified_basin(model, 0.0)
    with pytest.raises(ValueError, match="`certificate`"):
        certified_basin(model, 0.0, prec=200, certificate=cert)
    with pytest.raises(ValueError, match="`certificate`"):
        certified_basin(model, 0.0, certificate="monotone")
