"""Interval certificates of the subspace flow (theory._certify._subspace, _subspace_balls, _subspace_transition)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from flint import arb

from sigrec.theory import (
    Model,
    certify,
    certify_transition,
    critical_thetas,
    evaluate,
    find_subspace_equilibria,
    mixture_eigenvalues,
    pole_signs,
)
from sigrec.theory._certify._roots import precision
from sigrec.theory._certify._subspace import certify_point, certify_subspace
from sigrec.theory._certify._subspace_balls import ball_field, inertia
from sigrec.theory._field._equilibria import _polish


def _random_models(seed, laws, n):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        for law in laws:
            yield Model(rng.uniform(0.4, 3.0), rng.uniform(0.03, 0.6), beta=rng.uniform(0.5, 1.5),
                        sigma2=rng.uniform(0.5, 1.5), prior=law)


def _assert_boxes_hold_independent_equilibria(model, n_random=2):
    """Every certified box contains the equilibrium polished independently at 50 digits, and is
    narrow enough for that to mean something; the stability agrees with the float classification."""
    eqs = find_subspace_equilibria(model, n_random=n_random)
    cert = certify_subspace(model, eqs)
    assert cert.certified, [b.reason for b in cert.boxes]
    for e, box in zip(eqs, cert.boxes, strict=True):
        with mpmath.workdps(50):
            r = _polish(model, np.array(e.r), 50)
        assert box.contains(r) and box.contains(r, enclosure=True)
        assert max(float(b.rad()) for b in box.box) < 1e-15  # the box is not the whole ball
        assert box.status == ("stable" if e.stable else "unstable"), (e, box)
        if e.kind == "sphere" and model.k > 1:
            assert box.tangent_inertia == (sum(z.real < 0 for z in e.tangent), sum(z.real > 0 for z in e.tangent))
    return cert


def test_ball_field_encloses_the_float_field():
    rng = np.random.default_rng(3)
    for law in ("onehot(k=2)", "onehot(k=2, probs=[3/5, 2/5])", "gaussian(k=2, tau=0.7, mu=[1, 0.5])",
                "rademacher"):
        model = Model(1.3, 0.2, beta=0.8, sigma2=1.2, prior=law)
        r = rng.normal(size=model.k)
        r *= 0.8 / np.linalg.norm(r)
        v = evaluate(model, r, engine="subspace")
        g, h = ball_field(model.law)([arb(x) for x in r], [arb(p) for p in model.params()])
        for gb, gf in zip(g, v.gradient, strict=True):
            assert abs(float(gb.mid()) - gf) <= 1e-12 * (1 + abs(gf)) and float(gb.rad()) < 1e-12
        assert np.allclose([[float(x.mid()) for x in row] for row in h], v.hessian, rtol=1e-12, atol=1e-12)


def test_inertia_against_numpy_and_the_bordered_matrix():
    """Certified inertia equals numpy's; the border adds one positive and one negative eigenvalue
    (Haynsworth), which is what the sphere certificate uses; a singular matrix is undecided."""
    rng = np.random.default_rng(0)
    for n in (2, 3, 4):
        A = rng.normal(size=(n, n))
        A = A + A.T
        b = rng.normal(size=n)
        w = np.linalg.eigvalsh(A)
        assert inertia([[arb(x) for x in row] for row in A]) == (int((w < 0).sum()), int((w > 0).sum()))
        Z = np.linalg.qr(np.column_stack([b, np.eye(n)]))[0][:, 1:n]
        t = np.linalg.eigvalsh(Z.T @ A @ Z)
        B = np.block([[A, -b[:, None]], [-b[None, :], np.zeros((1, 1))]])
        assert inertia([[arb(x) for x in row] for row in B]) == (int((t < 0).sum()) + 1, int((t > 0).sum()) + 1)
    assert inertia([[arb(1), arb(1)], [arb(1), arb(1)]]) is None


@pytest.mark.parametrize("spec,theta,alpha", [("fixed", 3.0, 0.05), ("rademacher", 2.0, 0.1), ("fixed", 1.0, 0.3),
                                              ("gaussian(1, 1/2)", 3.0, 0.02)])
def test_k1_agrees_with_the_scalar_certificate(spec, theta, alpha):
    """Same interior equilibria (each box inside the scalar bracket, or at the exact root 0), same
    stability, and the poles' radial signs are the scalar pole signs."""
    cert = certify_subspace(Model(theta, alpha, prior=spec))
    scalar = certify(Model(theta, alpha, prior=spec))
    assert cert.certified
    interior = [b for b in cert.boxes if b.kind == "interior"]
    assert len(interior) == len(scalar.equilibria)
    for box, br in zip(sorted(interior, key=lambda b: b.start), scalar.equilibria, strict=True):
        assert box.box[0].contains(arb(br.midpoint)) if br.exact else arb(br.lo).union(arb(br.hi)).contains(box.box[0])
        assert box.status == br.stability
    plus, minus = pole_signs(Model(theta, alpha, prior=spec))
    poles = {b.start[0]: b for b in cert.boxes if b.kind == "sphere"}
    assert set(poles) == {1.0, -1.0}
    assert (poles[1.0].radial_sign, poles[-1.0].radial_sign) == (plus, minus)


@pytest.mark.parametrize("model", list(_random_models(1, ["onehot(k=2)", "gaussian(k=2, tau=0.7, mu=[1, 0.5])",
                                                          "onehot(k=2, probs=[3/5, 2/5])"], 1)), ids=str)
def test_random_models_boxes_hold_the_mpmath_equilibria(model):
    _assert_boxes_hold_independent_equilibria(model)


@pytest.mark.slow
@pytest.mark.parametrize("model", list(_random_models(2, ["onehot(k=2)", "onehot(k=3)",
                                                          "onehot(k=3, probs=[1/2, 3/10, 1/5])"], 2)), ids=str)
def test_random_models_boxes_hold_the_mpmath_equilibria_slow(model):
    _assert_boxes_hold_independent_equilibria(model, n_random=6)


def test_documented_table_k2():
    """docs/subspace.md section 3 at theta = 3, alpha = 0.05: the stable anti-mixture and the
    specialised points are certified stable, the mixture a saddle; the k = 2 tangent eigenvalue
    ball holds the closed form at the mixture."""
    model = Model(3.0, 0.05, prior="onehot(k=2)")
    cert = _assert_boxes_hold_independent_equilibria(model)
    stable = sorted(b.label for b in cert.stable)
    assert stable == ["mixture-", "specialised(1)", "specialised(2)"]
    mix = next(b for b in cert.boxes if b.label == "mixture+")
    with mpmath.workdps(40), precision(256):
        tangent, radial = mixture_eigenvalues(2, 3.0, 0.05)
        assert mix.tangent_eigenvalue.contains(arb(mpmath.nstr(tangent, 40)))
        assert (-2 * mix.lam).contains(arb(mpmath.nstr(radial, 40)))
    assert float(mix.tangent_eigenvalue.rad()) < 1e-12


def _perturbed(field, factor):
    def fld(r, params):
        g, h = field(r, params)
        return [g[0] * factor, *g[1:]], [[x * factor for x in h[0]], *h[1:]]
    return fld


def test_perturbed_field_is_caught():
    """Scaling one component of the field by 1 + 1e-3 moves the certified boxes off the true
    equilibria (so the containment test above can fail), while the true field's boxes hold them."""
    model = Model(1.5, 0.05, prior="onehot(k=2)")
    eqs = [e for e in find_subspace_equilibria(model, n_random=2) if e.kind == "sphere"]
    bad = certify_subspace(model, eqs, field_fn=_perturbed(ball_field(model.law), arb(1) + arb(10) ** -3))
    good = certify_subspace(model, eqs)
    assert len(eqs) >= 3
    for e, b_bad, b_good in zip(eqs, bad.boxes, good.boxes, strict=True):
        with mpmath.workdps(50):
            r = _polish(model, np.array(e.r), 50)
        assert b_good.contains(r)
        assert b_bad.certified and not b_bad.contains(r)


def test_undecided_is_reported():
    """Isotropic law: a circle of equilibria, none isolated; theta = 0: nothing to certify."""
    with precision(128):
        box = certify_point(Model(1.0, 0.3, prior="gaussian(k=2, tau=1/2)"), [1.0, 0.0], "sphere")
    assert box.status == "undecided" and "singular" in box.reason and not box.certified
    cert = certify_subspace(Model(0.0, 0.3, prior="onehot(k=2)"))
    assert not cert.certified and "theta = 0" in cert.notes[0]
    with pytest.raises(ValueError, match="prec"):
        certify_subspace(Model(1.0, 0.3, prior="onehot(k=2)"), prec=10)


@pytest.mark.parametrize("k,alpha", [(2, 0.05), (2, 0.3), (3, 0.3)])
def test_certified_transition_bracket(k, alpha):
    """Both certified brackets hold the float critical theta, are narrow, and overlap; the
    end states are confirmed by independent Krawczyk certificates just outside the bracket."""
    br = certify_transition(k, alpha)
    (tc,) = critical_thetas(k, alpha, theta_max=5.0)
    assert br.certified and br.lo < tc < br.hi and br.width < 1e-9
    assert br.point_lo < tc < br.point_hi and br.point_hi - br.point_lo < 1e-9
    assert max(br.lo, br.point_lo) < min(br.hi, br.point_hi)
    assert br.float_thetas == pytest.approx((tc,), abs=1e-10)
    with precision(128):
        for theta, want in ((br.lo - 1e-4, "stable"), (br.hi + 1e-4, "unstable")):
            box = certify_point(Model(theta, alpha, prior=f"onehot(k={k})"), [k ** -0.5] * k, "sphere")
            assert box.status == want


@pytest.mark.slow
def test_certified_transition_k3_low_density_and_other_parameters():
    br = certify_transition(3, 0.05)
    assert br.certified and br.lo < 1.0479602199 < br.hi
    br = certify_transition(2, 0.5, beta=1.5, sigma2=0.7)
    (tc,) = critical_thetas(2, 0.5, 1.5, 0.7, theta_max=5.0)
    assert br.certified and br.lo < tc < br.hi


@pytest.mark.parametrize("theta,alpha", [pytest.param(1.5, 0.05, marks=pytest.mark.slow), (3.0, 0.05),
                                         pytest.param(0.25, 0.05, marks=pytest.mark.slow)])
def test_k2_complete_enumeration(theta, alpha):
    """The circle and disk certificates find every equilibrium: exactly as many as the numerical
    search, each numerical one inside its bracket/box with the same stability (tangent sign T' is
    the tangent eigenvalue)."""
    import math

    from sigrec.theory import certify_circle, certify_disk

    model = Model(theta, alpha, prior="onehot(k=2)")
    eqs = find_subspace_equilibria(model, n_random=2)
    circle, disk = certify_circle(model), certify_disk(model)
    assert circle.complete and disk.complete
    sphere = [e for e in eqs if e.kind == "sphere"]
    inside = [e for e in eqs if e.kind == "interior"]
    assert len(circle.equilibria) == len(sphere) and len(disk.equilibria) == len(inside)
    for e in sphere:
        phi = math.atan2(e.r[1], e.r[0])
        phi = phi + 2 * math.pi if phi < -3 else phi
        (match,) = [c for c in circle.equilibria if c.lo - 1e-12 <= phi <= c.hi + 1e-12]
        assert match.stable == e.stable and match.tangent_sign == (1 if e.tangent[0] > 0 else -1)
    for e in inside:
        (match,) = [(X, i) for X, i in disk.equilibria if all(b.contains(arb(x)) for b, x in zip(X, e.r, strict=True))]
        assert (match[1] == (2, 0)) == e.stable
