"""The symmetric one-hot law of k = 2 (theory._region._circle_symmetric): the two facts its region
proofs rest on, checked by independent routes (40-digit mpmath roots of the original field from a
grid of starts; float values of T), and leaves across each of its three phase boundaries, away from
beta = sigma2 = 1, agreeing with the 40-digit count of test_region_k2; so do leaves proved from where
a neighbour's proof cut the circle, in a corner of narrow leaves."""

import math

import mpmath
import numpy as np
import pytest

from sigrec.numerics import certify_region_tasks
from sigrec.theory import Model, ModelBox, RegionOptions, certify
from sigrec.theory._region import _circle, _circle_leaf, _circle_tiles
from sigrec.theory._region._circle_taylor import k2_field, symmetric_onehot

from .test_region_k2 import _independent_counts, _proved_counts, disk_roots

SYMMETRIC = "onehot(k=2)"


def test_the_symmetric_law_is_recognised_by_its_mgf_not_its_name():
    law = lambda spec: Model(1.0, 0.1, prior=spec).law  # noqa: E731
    assert symmetric_onehot(law(SYMMETRIC))
    assert symmetric_onehot(law("onehot(k=2, probs=[1/2, 1/2])"))
    assert symmetric_onehot(law("discrete(vectors=[[1, 0], [0, 1]], probs=[1/2, 1/2])"))
    assert not symmetric_onehot(law("onehot(k=2, probs=[0.55, 0.45])"))
    assert not symmetric_onehot(law("discrete(vectors=[[1, 0], [0, -1]], probs=[1/2, 1/2])"))
    assert not symmetric_onehot(law("gaussian(k=2, tau=1)"))
    assert not symmetric_onehot(law("fixed"))


def _zeros_in_disk(spec, theta, alpha, beta, sigma2):
    """The zeros of g in the open disk (40 digits) that findroot reaches from a grid of starts."""
    return [(x, y) for x, y in disk_roots(spec, theta, alpha, beta, sigma2) if x * x + y * y < 1]


@pytest.mark.heavy
def test_every_zero_of_g_lies_on_the_diagonal_for_equal_probabilities_only():
    rng = np.random.default_rng(7)
    on, off = 0, 0
    for _ in range(6):
        theta, alpha = rng.uniform(1.2, 4.0), 10 ** rng.uniform(-3, -0.5)
        beta, sigma2 = rng.uniform(0.6, 1.6), rng.uniform(0.5, 2.0)
        for x, y in _zeros_in_disk(SYMMETRIC, theta, alpha, beta, sigma2):
            assert abs(x - y) < mpmath.mpf(10) ** -20, (theta, alpha, beta, sigma2, x, y)
            on += 1
        # the same check fails for unequal probabilities: the zeros leave the diagonal
        off += sum(abs(x - y) > 1e-6 for x, y in _zeros_in_disk("onehot(k=2, probs=[0.6, 0.4])", theta, alpha,
                                                                 beta, sigma2))
    assert on >= 3 and off >= 3


@pytest.mark.heavy
def test_T_is_odd_about_the_points_of_symmetry_in_floats():
    f = k2_field(Model(1.0, 0.1, prior=SYMMETRIC).law)
    rng = np.random.default_rng(3)
    for _ in range(20):
        theta, alpha = rng.uniform(0, 5), 10 ** rng.uniform(-4, 0)
        beta, sigma2 = rng.uniform(0.5, 2), rng.uniform(0.5, 2)
        x = rng.uniform(0, math.pi / 2)
        for c in (math.pi / 4, -3 * math.pi / 4):
            (T_plus, T1_plus, lam_plus), (T_minus, T1_minus, lam_minus) = (
                f.floats(math.cos(c + s * x), math.sin(c + s * x), theta, alpha, beta, sigma2) for s in (1, -1))
            scale = 1 + abs(T_plus) + abs(T1_plus) + abs(lam_plus)
            assert abs(T_plus + T_minus) < 1e-12 * scale
            assert abs(T1_plus - T1_minus) < 1e-12 * scale and abs(lam_plus - lam_minus) < 1e-12 * scale
        at = f.floats(math.cos(math.pi / 4), math.sin(math.pi / 4), theta, alpha, beta, sigma2)
        assert abs(at[0]) < 1e-12 * scale


#: boxes across each phase boundary at beta 1.3, sigma2 0.8 (the float structures on either side)
BOUNDARIES = {
    "mixture -> specialised (T'(pi/4) = 0)": ((0.55, 0.8), (0.004, 0.02), {(2, 1, 0), (4, 2, 0)}),
    "a zero of g enters at -3 pi/4 (lam = 0)": ((0.95, 1.25), (0.004, 0.02), {(4, 2, 0), (4, 2, 1)}),
    "the fork at -3 pi/4 (T'(-3 pi/4) = 0)": ((1.6, 1.95), (0.004, 0.02), {(4, 2, 1), (6, 3, 1)}),
}


@pytest.mark.heavy
@pytest.mark.parametrize("name", list(BOUNDARIES))
def test_leaves_across_a_boundary_are_resolved_and_agree_with_a_40_digit_count(name):
    theta, alpha, structures = BOUNDARIES[name]
    beta, sigma2 = 1.3, 0.8
    cert = certify(ModelBox(theta, alpha, beta, sigma2, prior=SYMMETRIC), min_width=2.0 ** -2)
    proved = [b for b in cert.boxes if b.status != "undecided"]
    # both sides of the boundary are proved, and only a thin band along it is left
    assert {_proved_counts(b) for b in proved} == structures, name
    assert cert.fractions["undecided"] < 0.03, cert.fractions
    # the proved leaves nearest the band (the narrowest ones) and a few others, at random points
    rng = np.random.default_rng(len(name))
    narrow = sorted(proved, key=lambda b: (b.bounds[0][2] - b.bounds[0][1]) * (b.bounds[1][2] - b.bounds[1][1]))
    picks = narrow[:4] + [proved[i] for i in rng.choice(len(proved), size=3, replace=False)]
    for box in picks:
        (_, t0, t1), (_, a0, a1) = box.bounds
        th, al = rng.uniform(t0, t1), rng.uniform(a0, a1)
        assert _independent_counts(SYMMETRIC, th, al, beta, sigma2) == _proved_counts(box), (name, box.bounds, th, al)


@pytest.mark.heavy
def test_leaves_proved_from_a_neighbours_cuts_agree_with_a_40_digit_count_and_with_the_subtrees(monkeypatch):
    # a corner of many narrow leaves (beta 1.1, sigma2 0.9): below 2^-2 of the box (the walk's 2^-4 at a
    # cost a test can afford), each proof starts from where a neighbour's proof cut the circle and the
    # diagonal (theory._region._circle_leaf._Hints)
    args = ((4.0, 4.6), (0.45, 0.75), 1.1, 0.9)
    monkeypatch.setattr(_circle, "_HINT_SCOPE", 2.0 ** -2)
    hinted = []
    prove = _circle_leaf._prove_symmetric

    def recording(f, leaf, state, width, last, hints):
        start = hints.cuts if width >= 0.75 * hints.width else ()
        proof, after = prove(f, leaf, state, width, last, hints)
        if proof is not None and start:
            hinted.append(leaf.floats[0])
        return proof, after

    monkeypatch.setattr(_circle_leaf, "_prove_symmetric", recording)
    serial = certify(ModelBox(*args, prior=SYMMETRIC), min_width=2.0 ** -5)
    assert len(hinted) >= 10, len(hinted)
    assert serial.fractions["undecided"] < 0.01, serial.fractions
    # a subtree walked alone from a box at most 2 log2(1 / scope) splits deep (MAX_DEPTH at the walk's
    # scope) starts its hints as the whole walk does
    parallel = certify_region_tasks(ModelBox(*args, prior=SYMMETRIC), RegionOptions(min_width=2.0 ** -5), depth=4)
    assert parallel.boxes == serial.boxes
    rng = np.random.default_rng(11)
    for i in rng.choice(len(hinted), size=6, replace=False):
        t0, t1, a0, a1 = hinted[i]
        th, al = rng.uniform(t0, t1), rng.uniform(a0, a1)
        box = next(b for b in serial.boxes
                   if b.bounds[0][1] <= th <= b.bounds[0][2] and b.bounds[1][1] <= al <= b.bounds[1][2])
        assert box.status != "undecided", (th, al)
        assert _independent_counts(SYMMETRIC, th, al, *args[2:]) == _proved_counts(box), (box.bounds, th, al)


def test_resolve_joins_undecided_halves_and_keeps_every_certified_sign():
    """The sub-boxes of a leaf across the mixture's boundary (``T'(pi/4) = 0``, beta 1.3, sigma2 0.8):
    they tile the leaf; each decided one has the signs ``condition_signs`` certifies on it again; two
    halves both left undecided come back as one box, so some undecided box is wider than the fine width
    (11,494 undecided sub-boxes of the CLI's default region were 2,970 boxes once joined)."""
    from flint import fmpq

    from sigrec.theory._region._circle_symmetric import FINE_BITS, condition_signs, resolve

    beta, sigma2, law = 1.3, 0.8, Model(1.0, 0.1, prior=SYMMETRIC).law
    f = k2_field(law)
    (t_lo, t_hi), (a_lo, a_hi) = (0.55, 0.8), (0.004, 0.02)

    def widths(b):
        (_, t0, t1), (_, a0, a1) = b
        return [(t1 - t0) / (t_hi - t_lo), math.log(a1 / a0) / math.log(a_hi / a_lo)]

    def make(b):
        (_, t0, t1), (_, a0, a1) = b
        return _circle_tiles._Leaf.of(t0, t1, a0, a1, beta, sigma2)

    keys = (("Tp", fmpq(1, 4)),)
    min_width = 2.0 ** -2
    parts = resolve(f, keys, (("theta", t_lo, t_hi), ("alpha", a_lo, a_hi)), make, widths, min_width, True)
    area = sum(math.prod(widths(b)) for b, _ in parts)
    assert abs(area - 1) < 1e-12, area
    decided = [(b, s) for b, s in parts if s is not None]
    undecided = [b for b, s in parts if s is None]
    assert {s[keys[0]] for _, s in decided} == {-1, 1}  # both sides of the boundary
    for b, s in decided:
        assert condition_signs(f, make(b), keys)[0] == s
    fine = min_width / 2 ** FINE_BITS
    assert undecided and any(max(widths(b)) > fine * (1 + 1e-9) for b in undecided)
    assert sum(math.prod(widths(b)) for b in undecided) < 0.1
