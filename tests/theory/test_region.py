"""Region certificates (theory.certify_region): sound on whole boxes, checked against the
closed-form boundary, the point certificate at random points, and a perturbed field."""

import json
import math
from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigrec.theory import Model, ModelBox, RegionCertificate, certify, critical_alpha, pole_signs

from ._region_signs import assert_box_matches_40_digit_signs

THETA, ALPHA = (0.5, 4.0), (0.01, 0.9)


@cache
def coarse(prior="fixed") -> RegionCertificate:
    return certify(ModelBox(THETA, ALPHA, prior=prior), min_width=2.0 ** -6)


def _certified(cert):
    return [b for b in cert.boxes if b.status != "undecided"]


def _bounds(box):
    return {name: (lo, hi) for name, lo, hi in box.bounds}


def test_leaves_tile_the_box_and_fractions_add_up():
    cert = coarse()
    assert cert.certified
    assert math.isclose(sum(cert.fractions.values()), 1.0, rel_tol=1e-12)
    # independent route: the linear areas of the leaves add up to the box's area
    area = sum((b["theta"][1] - b["theta"][0]) * (b["alpha"][1] - b["alpha"][0]) for b in map(_bounds, cert.boxes))
    assert math.isclose(area, (THETA[1] - THETA[0]) * (ALPHA[1] - ALPHA[0]), rel_tol=1e-12)
    # the log measure recomputed from the leaves
    total = math.log(ALPHA[1] / ALPHA[0]) * (THETA[1] - THETA[0])
    for status in ("monotone", "bistable", "undecided"):
        measure = sum((b["theta"][1] - b["theta"][0]) * math.log(b["alpha"][1] / b["alpha"][0])
                      for b in map(_bounds, (x for x in cert.boxes if x.status == status)))
        assert math.isclose(measure / total, cert.fractions[status], rel_tol=1e-9, abs_tol=1e-15)
    assert cert.region["scale"] == {"theta": "linear", "alpha": "log"}
    assert cert.fractions["monotone"] > 0.1 and cert.fractions["bistable"] > 0.5


@cache
def _alpha_c(theta):
    a = critical_alpha(float(theta))
    return 0.0 if a is None else a


def test_closed_form_boundary_never_crosses_a_certified_box():
    """Monotone: alpha > alpha_c(theta) (or beta theta <= 1) on the whole box; bistable:
    beta theta > 1 and alpha < alpha_c(theta) on the whole box. alpha_c rises with theta
    (checked on a grid), so the box's theta ends decide it."""
    curve = np.array([_alpha_c(t) for t in np.linspace(*THETA, 301)])
    assert np.all((np.diff(curve) > 0) | (curve[1:] == 0))
    for box in _certified(coarse()):
        b = _bounds(box)
        if box.status == "monotone":
            assert _alpha_c(b["theta"][1]) < b["alpha"][0], b
            assert box.poles == ("stable", "unstable") and box.equilibrium is None
        else:
            assert b["theta"][0] > 1.0, b  # beta theta = 1 is left of every bistable box
            assert _alpha_c(b["theta"][0]) > b["alpha"][1], b
            assert box.poles == ("stable", "stable") and box.equilibrium[2] == "unstable"


def test_undecided_boxes_lie_along_the_boundary():
    """The undecided band is where alpha_c(theta) passes: each undecided leaf, widened by
    one min width of each range, meets the curve (nothing is left undecided elsewhere)."""
    w = 2.0 ** -6
    und = [b for b in coarse().boxes if b.status == "undecided"]
    assert und
    for box in und:
        b = _bounds(box)
        t0 = max(THETA[0], b["theta"][0] - w * (THETA[1] - THETA[0]))
        t1 = min(THETA[1], b["theta"][1] + w * (THETA[1] - THETA[0]))
        grow = (ALPHA[1] / ALPHA[0]) ** w
        assert _alpha_c(t0) <= b["alpha"][1] * grow and _alpha_c(t1) >= b["alpha"][0] / grow, b


def test_beta_theta_one_bounds_the_bistable_phase_only_as_alpha_goes_to_0():
    """alpha_c(1/beta) = 0: at alpha >= 0.01 both sides of theta = 1 are monotone, so a
    monotone box may contain theta = 1 (the point certificate agrees on both sides)."""
    straddling = [b for b in _certified(coarse()) if _bounds(b)["theta"][0] < 1.0 < _bounds(b)["theta"][1]]
    assert straddling and all(b.status == "monotone" for b in straddling)
    b = _bounds(straddling[0])
    for theta in (b["theta"][0], 1.0, b["theta"][1]):
        assert certify(Model(theta, b["alpha"][0])).status == "monotone"


def test_sparse_regime_leaves_beta_theta_one_undecided():
    cert = certify(ModelBox((0.5, 4.0), 0.0, beta=1.0), min_width=2.0 ** -10)
    for box in cert.boxes:
        lo, hi = _bounds(box)["theta"]
        if box.status == "undecided":
            assert lo <= 1.0 <= hi
        else:
            assert not lo <= 1.0 <= hi
            assert box.status == ("monotone" if hi < 1.0 else "bistable")
    assert 0 < cert.fractions["undecided"] < 4 * 2.0 ** -10


def _point(box, u):
    """The point of ``box`` at relative coordinates ``u`` (alpha in log when scaled so)."""
    b = _bounds(box)
    th = b["theta"][0] + u[0] * (b["theta"][1] - b["theta"][0])
    lo, hi = b["alpha"]
    al = min(hi, max(lo, lo * (hi / lo) ** u[1]))
    return th, al


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_random_points_of_certified_boxes_agree_with_the_point_certificate(data):
    boxes = _certified(coarse())
    box = boxes[data.draw(st.integers(0, len(boxes) - 1))]
    corners = st.sampled_from([0.0, 1.0])
    u = [data.draw(st.one_of(corners, st.floats(0, 1))) for _ in range(2)]
    model = Model(*_point(box, u))
    point = certify(model)
    assert point.certified and point.status == box.status
    labels = {-1: "stable", 1: "unstable", 0: "?"}
    assert tuple(labels[s] for s in pole_signs(model)) == box.poles
    if box.status == "bistable":
        (e,) = point.equilibria
        lo, hi, stability, _ = box.equilibrium
        assert lo <= e.lo <= e.hi <= hi and e.stability == stability


def test_rademacher_region_is_bistable_at_zero_everywhere():
    cert = coarse("rademacher")
    assert cert.fractions["bistable"] == 1.0 and cert.certified
    for box in cert.boxes:
        assert box.equilibrium == (0.0, 0.0, "unstable", True) and box.poles == ("stable", "stable")


# ----------------------------------------------------------------------------------
# the region code proves from the field it is given


def _perturbed(factor):
    """Sign functions of the field with the noise term scaled by ``factor`` (sigma2 -> factor sigma2)."""
    from sigrec.theory._certify._scalar import _sign_functions

    return lambda bm: _sign_functions(replace(bm, sigma2=bm.sigma2 * factor))


def test_a_field_perturbed_by_1e_3_is_caught():
    """sigma2 -> (1 + 1e-3) sigma2 moves alpha_c(2) up by 2e-4; between the two boundaries
    the true field is monotone and the perturbed one bistable. The region certificate must
    follow its input (else the two agree) and the point certificate refutes the perturbed
    claims."""
    a, b = critical_alpha(2.0), critical_alpha(2.0, 1.0, 1.0 + 1e-3)
    assert 1e-4 < b - a < 1e-3
    band = (a + 0.3 * (b - a), a + 0.7 * (b - a))
    true = certify(ModelBox(2.0, band), min_width=2.0 ** -8)
    fake = certify(ModelBox(2.0, band), min_width=2.0 ** -8, sign_functions=_perturbed(1.0 + 1e-3))
    assert true.fractions["monotone"] > 0.9 and fake.fractions["bistable"] > 0.9
    claimed = [box for box in fake.boxes if box.status == "bistable"]
    for box in claimed[:: max(1, len(claimed) // 5)]:
        lo, hi = _bounds(box)["alpha"]
        assert certify(Model(2.0, 0.5 * (lo + hi))).status == "monotone"  # refuted


def test_a_hook_that_lies_is_what_gets_certified():
    """A constant-positive sign function is certified monotone everywhere: the statuses come
    from the hook, so the point-agreement test above is what guards the real field."""
    fake = certify(ModelBox((2.0, 3.0), (0.01, 0.1)), min_width=0.5,
                   sign_functions=lambda bm: ((lambda X: 1 + 0 * X), None, "1", False))
    assert fake.fractions["monotone"] == 1.0
    assert certify(Model(2.5, 0.05)).status == "bistable"


# ----------------------------------------------------------------------------------
# inputs and output


@pytest.mark.parametrize("kwargs, name", [
    ({"theta": (2.0, 1.0), "alpha": 0.5}, "theta"),
    ({"theta": 1.0, "alpha": (0.1, math.inf)}, "alpha"),
    ({"theta": 1.0, "alpha": (0.0, 0.5)}, "alpha"),
    ({"theta": 1.0, "alpha": (0.5, 1.0 + 1e-9)}, "alpha"),
    ({"theta": (-0.5, 1.0), "alpha": 0.5}, "theta"),
    ({"theta": 1.0, "alpha": 0.5, "beta": (-1.0, 2.0)}, "beta"),
    ({"theta": 1.0, "alpha": 0.5, "sigma2": (1.0, 1.0)}, "sigma2"),
    ({"theta": 1.0, "alpha": 0.5, "sigma2": (1.0, 2.0, 3.0)}, "sigma2"),
    ({"theta": 1.0, "alpha": 0.5}, "range"),
    ({"theta": (1.0, 2.0), "alpha": 1.5}, "alpha"),
    ({"theta": (1.0, 2.0), "alpha": 0.5, "min_width": 0.0}, "min_width"),
])
def test_bad_inputs_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        _certify_box(**kwargs)


def _certify_box(**kwargs):
    """:func:`theory.certify` of the ModelBox of the model keywords, with the rest as options."""
    model = {k: kwargs.pop(k) for k in ("theta", "alpha", "beta", "sigma2", "prior") if k in kwargs}
    return certify(ModelBox(**model), **kwargs)


@pytest.mark.parametrize("kwargs, word", [
    ({"theta": (0.0, 1e308), "alpha": 0.5}, r"`theta` range must end at most at 1e\+06"),  # was an OverflowError
    ({"theta": 1.0, "alpha": 0.5, "beta": (1.0, 1e4)}, "`beta` range must end at most at 1000"),
    ({"theta": 1.0, "alpha": 0.5, "sigma2": (0.5, 1.5e6)}, "`sigma2` range must end at most at 1e\\+06"),
])
def test_unbounded_ranges_are_refused_up_front_with_their_limit(kwargs, word):
    with pytest.raises(ValueError, match=word):
        _certify_box(**kwargs, max_boxes=1)


def test_a_box_near_the_largest_float_splits_without_overflow():
    from sigrec.theory._region._certify import _split_point

    assert 1e308 < _split_point(1e308, 1.7e308, False) < 1.7e308


def test_the_shared_bisection_covers_in_order_and_gives_up_at_its_budget_or_width():
    """``bisect`` (the rho-tiles of a box and the diagonal of a k = 2 leaf): its pieces tile the interval
    left to right, split where the end sign is certified, and it returns None past its budget or when an
    undecided piece is narrower than its width."""
    import itertools

    from flint import fmpq

    from sigrec.theory._region._proof import bisect

    def decide(a, b):
        return (a, b) if b - a <= fmpq(1, 4) else None

    out = bisect([(fmpq(-1), fmpq(1))], decide, lambda p: 1, fmpq(1, 100), 100)
    assert out[0][0] == -1 and out[-1][1] == 1 and all(x[1] == y[0] for x, y in itertools.pairwise(out))
    assert bisect([(fmpq(-1), fmpq(1))], decide, lambda p: 1, fmpq(1, 100), 3) is None
    assert bisect([(fmpq(-1), fmpq(1))], lambda a, b: None, lambda p: 1, fmpq(1, 4), 100) is None


def test_as_dict_is_json_with_the_ranged_parameters_as_box_keys():
    cert = certify(ModelBox(2.0, (0.05, 0.9), sigma2=(0.5, 2.0)), min_width=2.0 ** -3)
    doc = json.loads(json.dumps(cert.as_dict()))
    assert set(doc) == {"region", "boxes", "fractions", "certified", "boxes_count", "seconds"}
    assert doc["boxes_count"] == len(doc["boxes"]) == cert.boxes_count
    assert doc["region"]["ranges"] == {"alpha": [0.05, 0.9], "sigma2": [0.5, 2.0]}
    assert doc["region"]["fixed"] == {"theta": 2.0, "beta": 1.0}
    assert doc["region"]["scale"] == {"alpha": "log", "sigma2": "linear"}
    for box in doc["boxes"]:
        assert {"alpha", "sigma2", "status"} <= set(box) and "theta" not in box
    assert set(doc["fractions"]) == {"monotone", "bistable", "undecided"}


def test_linear_alpha_scale_on_request():
    cert = certify(ModelBox(2.0, (0.01, 0.9)), log_alpha=False, min_width=2.0 ** -6)
    assert cert.region["scale"] == {"alpha": "linear"}
    measure = sum(b.bounds[0][2] - b.bounds[0][1] for b in cert.boxes if b.status == "monotone") / 0.89
    assert math.isclose(measure, cert.fractions["monotone"], rel_tol=1e-9)
    # on one line theta = 2 the undecided part is the cell at alpha_c(2) (width <= 2^-6)
    und = [b.bounds[0][1:] for b in cert.boxes if b.status == "undecided"]
    assert und and all(lo - 0.89 * 2.0 ** -5 <= critical_alpha(2.0) <= hi + 0.89 * 2.0 ** -5 for lo, hi in und)


@pytest.mark.slow
def test_full_region_certifies_99_percent():
    cert = certify(ModelBox(THETA, ALPHA))
    assert cert.certified and cert.fractions["undecided"] < 0.01
    for box in _certified(cert):
        b = _bounds(box)
        if box.status == "monotone":
            assert _alpha_c(b["theta"][1]) < b["alpha"][0], b
        else:
            assert b["theta"][0] > 1.0 and _alpha_c(b["theta"][0]) > b["alpha"][1], b


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_random_points_of_certified_boxes_agree_with_a_40_digit_root_count(data):
    """An independent route: count the sign changes of j' on (-1, 1) at 40 digits, on a grid that
    also holds points just outside the box's certified equilibrium interval."""
    boxes = _certified(coarse())
    box = boxes[data.draw(st.integers(0, len(boxes) - 1))]
    u = [data.draw(st.floats(0, 1)) for _ in range(2)]
    model = Model(*_point(box, u))
    assert_box_matches_40_digit_signs(box, model)
