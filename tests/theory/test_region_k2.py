"""Region certificates of a k = 2 law (theory.certify_region_k2): the structure proved on each leaf
agrees with the point certificates and the float equilibria at random points, with the certified
mixture transition, and a wrong field is caught."""

import math
from dataclasses import replace
from functools import cache

import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import fmpq

from sigrec.theory import (
    K2RegionCertificate,
    Model,
    ModelBox,
    certify,
    certify_circle,
    certify_disk,
    certify_transition,
    find_subspace_equilibria,
)
from sigrec.theory._derivation._subspace import derive_subspace
from sigrec.theory._region._circle import certify_region_k2
from sigrec.theory._region._circle_taylor import k2_field
from sigrec.theory._region._circle_tiles import ArcTile, audit_circle

PRIOR = "onehot(k=2)"
#: a small box across the mixture transition (theta_c(alpha) is 0.84 at alpha = 0.1)
THETA, ALPHA = (0.7, 1.0), (0.1, 0.15)


@cache
def small() -> K2RegionCertificate:
    return certify(ModelBox(THETA, ALPHA, prior=PRIOR), min_width=2.0 ** -3)


def _bounds(box):
    return {name: (lo, hi) for name, lo, hi in box.bounds}


def _point_counts(theta, alpha):
    """(circle equilibria, stable ones, interior ones) by the point certificates and by the floats."""
    m = Model(theta, alpha, prior=PRIOR)
    circle, disk = certify_circle(m), certify_disk(m)
    assert circle.complete and disk.complete
    cert = (len(circle.equilibria), sum(e.stable for e in circle.equilibria), len(disk.equilibria))
    # 32 starts: next to the mixture transition (now proved up to a thin band) 8 starts miss one of the two
    # stable side zeros of the fork at pi/4, which the point certificate counts
    eq = find_subspace_equilibria(m, n_random=32)
    floats = (sum(e.kind == "sphere" for e in eq), sum(e.kind == "sphere" and e.stable for e in eq),
              sum(e.kind == "interior" for e in eq))
    return cert, floats


def _proved_counts(box):
    circ = [e for e in box.equilibria if e.kind == "circle"]
    return len(circ), sum(e.stable for e in circ), sum(e.kind == "interior" for e in box.equilibria)


def test_audit_rejects_broken_tilings():
    one, half = fmpq(1), fmpq(1, 2)
    good = [ArcTile(-one, -half, "sign", -1), ArcTile(-half, half, "root", 1, -1), ArcTile(half, one, "root", -1, -1)]
    assert audit_circle(good)
    assert not audit_circle(good[:2])  # a gap
    assert not audit_circle([good[0], good[1], ArcTile(half, one, "sign", 1)])  # no root to close the turn
    assert not audit_circle([ArcTile(-one, one, "sign", 1), ArcTile(-half, half, "root", 1, -1)])  # overlap


def test_inputs_are_validated():
    with pytest.raises(ValueError):
        certify(ModelBox(1.0, (0.1, 0.2), prior=PRIOR))
    with pytest.raises(ValueError):
        certify_region_k2(ModelBox((1.0, 1.1), (0.1, 0.2), prior="fixed"))
    with pytest.raises(ValueError):
        certify(ModelBox((1.0, 1.1), (0.1, 1.5), prior=PRIOR))


@pytest.mark.heavy
def test_leaves_tile_the_box_and_fractions_add_up():
    cert = small()
    assert math.isclose(sum(cert.fractions.values()), 1.0, rel_tol=1e-12)
    assert cert.region["scale"] == {"theta": "linear", "alpha": "linear"}
    total = (THETA[1] - THETA[0]) * (ALPHA[1] - ALPHA[0])
    for status, fraction in cert.fractions.items():
        measure = sum((b["theta"][1] - b["theta"][0]) * (b["alpha"][1] - b["alpha"][0])
                      for b in map(_bounds, (x for x in cert.boxes if x.status == status)))
        assert math.isclose(measure / total, fraction, rel_tol=1e-9, abs_tol=1e-15)
    assert cert.fractions.get("mixture", 0) > 0.2 and cert.fractions.get("specialised", 0) > 0.2
    assert cert.fractions["undecided"] < 0.4
    d = cert.as_dict()
    assert d["boxes_count"] == len(cert.boxes) and d["fractions"] == cert.fractions


@pytest.mark.heavy
def test_random_points_of_proved_leaves_agree_with_point_certificates_and_floats():
    cert = small()
    proved = [b for b in cert.boxes if b.status != "undecided"]
    rng = np.random.default_rng(7)
    # two points in leaves of each status, area-weighted inside the status
    for status in sorted({b.status for b in proved}):
        leaves = [b for b in proved if b.status == status]
        area = np.array([(b.bounds[0][2] - b.bounds[0][1]) * (b.bounds[1][2] - b.bounds[1][1]) for b in leaves])
        for i in rng.choice(len(leaves), size=min(2, len(leaves)), replace=False, p=area / area.sum()):
            (_, t0, t1), (_, a0, a1) = leaves[i].bounds
            theta, alpha = rng.uniform(t0, t1), rng.uniform(a0, a1)
            cert_counts, float_counts = _point_counts(theta, alpha)
            assert cert_counts == _proved_counts(leaves[i]), (status, theta, alpha)
            assert float_counts == _proved_counts(leaves[i]), (status, theta, alpha)


@pytest.mark.heavy
def test_statuses_agree_with_the_certified_transition():
    cert = small()
    checked = 0
    for alpha in (0.11, 0.13, 0.145):
        bracket = certify_transition(2, alpha)
        assert bracket.certified
        for box in cert.boxes:
            b = _bounds(box)
            if not b["alpha"][0] <= alpha <= b["alpha"][1]:
                continue
            # the mixture r* = (1, 1)/sqrt 2 is at phi = pi/4: its stability in the leaf
            # (the narrowest bracket holding pi/4: a fork tile's side zeros have brackets closed at pi/4)
            star = sorted((e for e in box.equilibria if e.kind == "circle" and e.where[0] < math.pi / 4 < e.where[1]),
                          key=lambda e: e.where[1] - e.where[0])
            if box.status == "mixture" or (star and star[0].stable):
                assert b["theta"][1] <= bracket.lo, (alpha, box.bounds)
                checked += 1
            if box.status == "specialised" or (star and not star[0].stable):
                assert b["theta"][0] >= bracket.hi, (alpha, box.bounds)
                checked += 1
    assert checked >= 6


def _shifted(shift):
    """The derived field with ``T`` shifted by a constant on the circle (a wrong field)."""
    f = k2_field(Model(1.0, 0.1, prior=PRIOR).law)

    def jet(*args):
        T, *rest = f.tangent_jet(*args)
        return (T + shift, *rest)

    return replace(f, tangent_jet=jet)


@pytest.mark.heavy
def test_a_wrong_field_is_caught_by_the_point_certificates():
    # the box of small() with T shifted below its minimum on the circle (|T| < 2.5 there, for the reduced
    # field): no zero of T left
    wrong = certify(ModelBox(THETA, ALPHA, prior=PRIOR), min_width=2.0 ** -3, field=_shifted(-3.0))
    caught = 0
    for box in wrong.boxes:
        if box.status == "undecided":
            continue
        (_, t0, t1), (_, a0, a1) = box.bounds
        (counts, _) = _point_counts(0.5 * (t0 + t1), math.sqrt(a0 * a1))
        caught += counts != _proved_counts(box)
    # the wrong field proves structures that the point certificates contradict, or nothing at all
    assert caught > 0 or wrong.fractions["undecided"] == 1.0
    assert wrong.fractions.get("mixture", 0) == 0 and wrong.fractions.get("specialised", 0) == 0


@pytest.mark.heavy
def test_leaves_away_from_beta_sigma2_one_agree_with_the_point_certificates():
    """beta 1.2, sigma2 0.9 and unequal probabilities: at the centre of every proved leaf the point
    certificates (circle and disk, at one parameter) count the leaf's equilibria and stable ones."""
    law = "onehot(k=2, probs=[0.55, 0.45])"
    cert = certify(ModelBox((0.6, 0.9), (0.1, 0.15), 1.2, 0.9, prior=law), min_width=2.0 ** -3)
    proved = [b for b in cert.boxes if b.status != "undecided"]
    assert proved
    for box in proved:
        b = _bounds(box)
        m = Model(0.5 * sum(b["theta"]), 0.5 * sum(b["alpha"]), 1.2, 0.9, prior=law)
        circle, disk = certify_circle(m), certify_disk(m)
        assert circle.complete and disk.complete
        counts = (len(circle.equilibria), sum(e.stable for e in circle.equilibria), len(disk.equilibria))
        assert counts == _proved_counts(box), (box.bounds, counts, _proved_counts(box))


# ----------------------------------------------------------------------------------
# an independent count: the original field g (not the reduced one the leaves are proved on) in
# mpmath at 40 digits, from the derivation's own expressions


@cache
def _mp_field(law_spec):
    d = derive_subspace(law_spec)
    names = {s.name: s for s in d.gradient[0].free_symbols | d.gradient[1].free_symbols}
    args = (*d.r, *(names.get(n, sp.Symbol(n)) for n in ("theta", "alpha", "beta", "sigma2")))
    return sp.lambdify(args, d.gradient, "mpmath"), sp.lambdify(args, d.gradient, "numpy")


def _independent_counts(law_spec, theta, alpha, beta=1.0, sigma2=1.0):
    """(circle zeros, stable ones, interior zeros) of the original field: sign changes of the
    tangential field on 3600 angles (stable: T decreasing through 0 and <r, g> > 0 there), and the
    distinct zeros of g inside the disk that mpmath's 40-digit findroot reaches from a grid of starts."""
    _, np_g = _mp_field(law_spec)
    phi = np.linspace(-np.pi, np.pi, 3600, endpoint=False) + 0.000321
    c, s = np.cos(phi), np.sin(phi)
    g1, g2 = np_g(c, s, theta, alpha, beta, sigma2)
    T, lam = -s * g1 + c * g2, c * g1 + s * g2
    after = np.roll(T, -1)
    idx = np.nonzero(np.sign(T) != np.sign(after))[0]
    stable = sum(1 for i in idx if after[i] < 0 and lam[i] > 0)
    roots: list = []
    for zx, zy in disk_roots(law_spec, theta, alpha, beta, sigma2):
        x, y = float(zx), float(zy)
        if x * x + y * y < 1 - 1e-9 and all(math.hypot(x - u, y - v) > 1e-8 for u, v in roots):
            roots.append((x, y))
    return len(idx), stable, len(roots)


def disk_roots(law_spec, theta, alpha, beta=1.0, sigma2=1.0) -> list:
    """The zeros of g (40-digit mpf pairs, with repeats) that mpmath's findroot reaches from a grid of
    starts inside the disk."""
    mp_g, _ = _mp_field(law_spec)
    out = []
    with mpmath.workdps(40):
        for x0 in np.linspace(-0.9, 0.9, 7):
            for y0 in np.linspace(-0.9, 0.9, 7):
                if x0 * x0 + y0 * y0 >= 0.95:
                    continue
                try:
                    z = mpmath.findroot(lambda x, y: mp_g(x, y, theta, alpha, beta, sigma2), (x0, y0))
                except (ValueError, ZeroDivisionError):
                    continue
                out.append((z[0], z[1]))
    return out


def _check_random_points(cert, law_spec, n, seed, beta=1.0, sigma2=1.0):
    proved = [b for b in cert.boxes if b.status != "undecided"]
    assert proved
    rng = np.random.default_rng(seed)
    for i in rng.choice(len(proved), size=min(n, len(proved)), replace=False):
        (_, t0, t1), (_, a0, a1) = proved[i].bounds
        theta, alpha = rng.uniform(max(t0, 1e-3), t1), rng.uniform(a0, a1)
        assert _independent_counts(law_spec, theta, alpha, beta, sigma2) == _proved_counts(proved[i]), \
            (proved[i].bounds, theta, alpha)


@pytest.mark.heavy
def test_random_points_of_proved_leaves_agree_with_a_40_digit_count():
    _check_random_points(small(), PRIOR, 6, 11)


@pytest.mark.heavy
def test_leaves_touching_theta_zero_are_proved_and_agree_with_the_40_digit_count():
    """The walk proves the field divided by theta alpha, so leaves at theta = 0 are decided (for theta > 0)."""
    cert = certify(ModelBox((0.0, 0.6), (0.01, 1.0), prior=PRIOR), min_width=2.0 ** -3)
    at_zero = [b for b in cert.boxes if b.bounds[0][1] == 0.0 and b.status != "undecided"]
    # two on the circle, one of them stable, none inside: the mixture (its label also asks for the stable
    # one's bracket inside the first quadrant, which a wide root tile may overhang)
    assert at_zero and all(_proved_counts(b) == (2, 1, 0) for b in at_zero)
    _check_random_points(cert, PRIOR, 4, 3)


@pytest.mark.heavy
def test_away_from_beta_sigma2_one_random_points_agree_with_a_40_digit_count():
    law = "onehot(k=2, probs=[0.55, 0.45])"
    cert = certify(ModelBox((0.6, 0.9), (0.1, 0.15), 1.2, 0.9, prior=law), min_width=2.0 ** -3)
    _check_random_points(cert, law, 4, 5, 1.2, 0.9)


@pytest.mark.heavy
def test_the_independent_count_sees_the_phases():
    """The check itself: the 40-digit count tells the mixture (2 on the circle) from the specialised
    phase (4) and the phase with an interior saddle, so agreeing with it is not vacuous."""
    assert _independent_counts(PRIOR, 0.5, 0.05) == (2, 1, 0)
    assert _independent_counts(PRIOR, 1.2, 0.05) == (4, 2, 0)
    assert _independent_counts(PRIOR, 2.0, 0.05)[0::2] == (4, 1)


@pytest.mark.heavy
def test_a_leaf_with_an_interior_zero_is_proved_and_agrees_with_the_40_digit_count():
    """The disk covering splits squares off the float path of the interior zero, so the Krawczyk operator
    proves it on a whole leaf (before, the squares around the path were cut down to the smallest width)."""
    cert = certify(ModelBox((1.6, 1.7), (0.01, 0.0115), prior=PRIOR), min_width=0.5, max_boxes=3)
    proved = [b for b in cert.boxes if b.status != "undecided"]
    assert proved and all(_proved_counts(b) == (4, 2, 1) for b in proved)
    # the inertia of H there: both eigenvalues positive in floats at the zero, so (0, 2), not stable
    x, y = -1 / 1.65, -1 / 1.65  # the zero of g near alpha = 0: r_i = -1 / (beta theta)
    _, _, h11, h12, h22 = k2_field(Model(1.0, 0.1, prior=PRIOR).law).disk_floats(x, y, 1.65, 0.0107, 1.0, 1.0)
    assert np.all(np.linalg.eigvalsh([[h11, h12], [h12, h22]]) > 0)
    inside = [e for b in proved for e in b.equilibria if e.kind == "interior"]
    assert inside and all(e.inertia == (0, 2) and not e.stable for e in inside)
    (_, t0, t1), (_, a0, a1) = proved[0].bounds
    assert _independent_counts(PRIOR, 0.5 * (t0 + t1), 0.5 * (a0 + a1)) == (4, 2, 1)
