"""Certified equilibria of H orthonormal heads (theory._certify._heads).

Every certified box is checked by independent routes: the float64 polish of
:func:`heads_equilibrium` and its eigenvalues, an mpmath root of the flow at 40 digits built from
the one-query mp evaluator (:func:`evaluate_subspace_mp`, column by column, not the ball field),
the one-query certificate for ``H = 1``, and the flow itself: integrated from a small
perturbation of the frame, it returns to a stable box and leaves an unstable one or a saddle."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from flint import arb

from sigrec.theory import HeadsCertificate, Model, certify
from sigrec.theory._certify._heads import certify_heads
from sigrec.theory._certify._heads_balls import heads_system, krawczyk_holds, symmetric_eigenvalues
from sigrec.theory._certify._roots import precision
from sigrec.theory._certify._subspace import _params, certify_subspace
from sigrec.theory._certify._subspace_balls import ball_field
from sigrec.theory._field._heads import heads_equilibrium, integrate_heads, random_frame
from sigrec.theory._field._subspace import evaluate_subspace_mp

DPS = 40


def _phi_mp(model: Model, M) -> mpmath.matrix:
    """``Gamma - M sym(M^T Gamma)`` at ``DPS`` digits, the gradient of each head from the one-query
    mp evaluator."""
    one = model.with_heads(1)
    with mpmath.workdps(DPS + 10):
        M = mpmath.matrix(M)
        cols = [evaluate_subspace_mp(one, [M[i, h] for i in range(M.rows)], dps=DPS + 10)["gradient"]
                for h in range(M.cols)]
        G = mpmath.matrix([[cols[h][i] for h in range(M.cols)] for i in range(M.rows)])
        A = M.T * G
        return G - M * ((A + A.T) / 2)


def _mp_root(model: Model, M0) -> mpmath.matrix:
    """An equilibrium polished by mpmath ``findroot`` (multidimensional Newton, numerical
    Jacobian) at ``DPS + 10`` digits from the float one."""
    k, n = np.shape(M0)

    def f(*x):
        P = _phi_mp(model, [[x[i * n + h] for h in range(n)] for i in range(k)])
        return [P[i, h] for i in range(k) for h in range(n)]

    with mpmath.workdps(DPS + 10):
        z = mpmath.findroot(f, [mpmath.mpf(float(v)) for v in np.ravel(M0)], tol=mpmath.mpf(10) ** (-2 * DPS))
        return mpmath.matrix([[z[i * n + h] for h in range(n)] for i in range(k)])


def _perturbed_start(M: np.ndarray, eps: float, rng) -> np.ndarray:
    """``U^T Q'`` for a frame ``Q`` with ``U^T Q = M`` (``d = k + H + 1``) moved by ``eps`` in a random
    direction and re-orthonormalised: a feasible start near ``M`` that also leaves the span."""
    k, n = M.shape
    w, V = np.linalg.eigh(np.eye(n) - M.T @ M)
    N = (V * np.sqrt(np.clip(w, 0, None))) @ V.T  # N^T N = I - M^T M
    Q = np.vstack([M, N, np.zeros((1, n))])
    q, r = np.linalg.qr(Q + eps * rng.normal(size=Q.shape))
    return (q * np.sign(np.diag(r)))[:k]


def _starts(k: int, n: int, count: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    frames = [random_frame(k, n, k + n + 1, rng) for _ in range(count)]
    return [U.T @ Q for Q, U in frames]


def _check_box(model: Model, box, rng) -> None:
    """The independent routes of the module doc, for one certified box."""
    assert box.certified and box.feasibility in ("boundary", "interior"), box.reason
    e = heads_equilibrium(model, box.M)  # float64: the same equilibrium and stability
    assert np.max(np.abs(e.M - box.M)) < 1e-10
    assert e.stable == (box.status == "stable")
    re = sorted(float(v.real) for v in e.eigenvalues)
    cert = sorted(float(v.real.mid()) for v in box.eigenvalues)
    assert np.allclose(re, cert, rtol=1e-7, atol=1e-8)
    assert sum(v < 0 for v in re) == box.inertia[0]
    with mpmath.workdps(DPS + 20):  # the exact ball centres (an mpf is rounded to the working precision)
        flat = [mpmath.mpf(tuple(int(v) for v in x.mid().man_exp())) for x in box.box]
    centre = [flat[i * model.heads:(i + 1) * model.heads] for i in range(model.k)]
    assert mpmath.mnorm(_phi_mp(model, centre), 1) < mpmath.mpf(10) ** -30  # the centre is a zero at 40 digits
    root = _mp_root(model, box.M)
    assert box.contains(root, enclosure=True)
    sv = np.linalg.svd(box.M, compute_uv=False)  # feasibility: the count of unit singular values
    assert np.sum(np.abs(sv - 1) < 1e-9) == box.unit_singular_values
    end = integrate_heads(model, _perturbed_start(box.M, 1e-3, rng), t_max=300.0).M
    distance = float(np.max(np.abs(end - box.M)))
    if box.status == "stable":
        assert distance < 1e-6
    else:
        assert distance > 1e-2


H2_CASES = [(theta, alpha) for theta in (0.5, 1.5, 3.0) for alpha in (0.05, 0.3)]


@pytest.mark.heavy
@pytest.mark.parametrize("theta,alpha", H2_CASES)
def test_two_heads_on_two_directions_agree_with_every_route(theta, alpha):
    model = Model(theta, alpha, prior="onehot(k=2)", heads=2)
    cert = certify(model, starts=_starts(2, 2, 3, seed=11))
    assert isinstance(cert, HeadsCertificate) and cert.certified and cert.boxes
    rng = np.random.default_rng(5)
    for box in cert.boxes:
        _check_box(model, box, rng)
    assert cert.stable  # the flow from every start ends somewhere stable
    if theta >= 1.5:  # above the transition: two heads on distinct directions, span recovered, stable
        spec = [b for b in cert.stable if b.kind == "specialised"]
        assert spec and all(b.unit_singular_values == 2 and all(a == 0 for a in b.angles) for b in spec)


def test_two_heads_share_a_direction_at_strong_signal():
    """theta = 3, alpha = 0.3 (docs/subspace-certificates.md section 3): both heads at the same
    ``m`` with ``|m|^2 = 1/2``, principal angles ``(0, pi/2)``, stable; certified here."""
    model = Model(3.0, 0.3, prior="onehot(k=2)", heads=2)
    M0 = np.array([[0.7, 0.7], [-0.05, -0.06]])
    cert = certify(model, starts=[M0])
    shared = [b for b in cert.boxes if b.kind == "shared-direction"]
    assert len(shared) == 1 and shared[0].status == "stable" and shared[0].unit_singular_values == 1
    box = shared[0]
    with precision(128):
        assert box.angles[0] == 0 and box.angles[1].contains(arb.pi() / 2)
    M = box.M
    assert abs(M[:, 0] @ M[:, 0] - 0.5) < 1e-12 and np.allclose(M[:, 0], M[:, 1], atol=1e-15)
    _check_box(model, box, np.random.default_rng(3))


def test_three_heads_stable_state_leaves_a_direction_outside_the_span():
    """H = 3, k = 2, theta = 3, alpha = 0.5 (docs/guide/verify.md, ``heads.angles``): the stable
    state with one direction of ``span U`` outside ``span Q`` is the three heads on one direction;
    certified stable (eigenvalues -1.9 to -49), with the recovered states from random frames."""
    model = Model(3.0, 0.5, prior="onehot(k=2)", heads=3)
    cert = certify(model, starts=[np.array([[0.3, 0.3, 0.3], [0.01, -0.01, 0.02]]), *_starts(2, 3, 1, 2)])
    assert cert.certified
    shared = [b for b in cert.boxes if b.kind == "shared-direction"]
    assert len(shared) == 1
    box = shared[0]
    assert box.status == "stable" and box.directions == (1, 1, 1) and box.unit_singular_values == 1
    with precision(128):
        assert box.angles[1].contains(arb.pi() / 2) and not box.singular_values[1] > 0.1
    re = sorted(float(e.real.mid()) for e in box.eigenvalues)
    assert re[0] == pytest.approx(-49.21, abs=0.01) and re[-1] == pytest.approx(-1.90, abs=0.01)
    recovered = [b for b in cert.boxes if b.kind == "recovered-shared"]
    assert recovered and all(b.status == "stable" and b.unit_singular_values == 2 for b in recovered)
    rng = np.random.default_rng(7)
    for b in (box, recovered[0]):
        _check_box(model, b, rng)


def test_one_head_is_the_one_query_certificate():
    """H = 1: the same equilibria and stability as certify_subspace (sphere and interior)."""
    model = Model(1.5, 0.05, prior="onehot(k=2)")
    sub = certify_subspace(model, n_random=4)
    cert = certify_heads(model, equilibria=[np.array(b.start)[:, None] for b in sub.boxes])
    assert cert.certified and len(cert.boxes) == len(sub.boxes)
    for a, b in zip(sub.boxes, cert.boxes, strict=True):
        assert all(x.overlaps(y) for x, y in zip(a.enclosure, b.enclosure, strict=True))
        assert (b.status == "stable") == (a.status == "stable")
        assert b.feasibility == ("boundary" if a.kind == "sphere" else "interior")


def _perturbed(field, factor):
    """The ball field with the first component of ``g`` (and its Hessian row) scaled by ``factor``."""

    def fld(r, params):
        g, h = field(r, params)
        return [g[0] * factor, *g[1:]], [[x * factor for x in h[0]], *h[1:]]

    return fld


def test_a_wrong_field_fails_the_krawczyk_test():
    model = Model(1.5, 0.05, prior="onehot(k=2)", heads=2)
    M = heads_equilibrium(model, np.eye(2) * 0.99).M
    box = certify(model, equilibria=[M]).boxes[0]
    assert box.certified and box.kind == "specialised"
    wrong = _perturbed(ball_field(model.law), arb(1) + arb(10) ** -3)
    with precision(128):
        params = _params(model)
        assert krawczyk_holds(heads_system(ball_field(model.law), 2, 2), list(box.box), params)
        assert not krawczyk_holds(heads_system(wrong, 2, 2), list(box.box), params)
    other = certify(model, equilibria=[M], field_fn=wrong).boxes[0]  # a box for the wrong field ...
    assert other.box and not other.contains(_mp_root(model, M))  # ... misses the true equilibrium


def test_a_continuum_of_equilibria_is_undecided_not_a_crash():
    """The isotropic Gaussian law: every rotation of an equilibrium is one (a circle of zeros)."""
    model = Model(1.0, 0.3, prior="gaussian(k=2, tau=1)", heads=2)
    c, s = np.cos(0.4), np.sin(0.4)
    e = heads_equilibrium(model, np.array([[c, -s], [s, c]]))
    assert e.residual < 1e-12
    cert = certify(model, equilibria=[e.M])
    assert not cert.certified and cert.boxes[0].status == "undecided"
    assert "Krawczyk" in cert.boxes[0].reason and "1 of 1 equilibria undecided" in cert.notes


def test_symmetric_eigenvalues_enclose_numpy_and_clusters():
    rng = np.random.default_rng(0)
    B = rng.normal(size=(4, 4))
    B = B + B.T
    enc = symmetric_eigenvalues([[arb(x) for x in row] for row in B])
    exact = np.linalg.eigvalsh(B)
    assert all(e.contains(arb(w)) or abs(float(e.mid()) - w) < 1e-13 for e, w in zip(enc, exact, strict=True))
    double = symmetric_eigenvalues([[arb(1), arb(0), arb(0)], [arb(0), arb(1), arb(0)], [arb(0), arb(0), arb(-2)]])
    assert double[0].contains(-2) and double[1].contains(1) and double[2].contains(1)
    wide = symmetric_eigenvalues([[arb(0, 0.1), arb(0)], [arb(0), arb(3)]])
    assert wide[0].contains(arb(0.1)) and wide[0].contains(arb(-0.1)) and wide[1].contains(3)


def test_theta_zero_and_bad_arguments():
    cert = certify(Model(0.0, 0.3, prior="onehot(k=2)", heads=2))
    assert cert.boxes == () and not cert.certified
    model = Model(1.5, 0.3, prior="onehot(k=2)", heads=2)
    with pytest.raises(ValueError, match="not both"):
        certify(model, starts=[np.eye(2)], equilibria=[np.eye(2)])
    with pytest.raises(ValueError, match=r"`prec`"):
        certify(model, equilibria=[np.eye(2)], prec=16)
    with pytest.raises(ValueError, match=r"theory\.Model"):
        certify("model")


@pytest.mark.heavy
def test_heads_away_from_the_defaults_agree_with_every_route():
    """beta 1.3, sigma2 0.8 and unequal probabilities (no swap symmetry): every box passes the same
    independent routes (float Newton, a 40-digit zero at the centre, an mpmath root in the
    enclosure, the flow from a perturbed start). Here the stable states share a direction and the
    specialised ones are saddles."""
    model = Model(3.0, 0.3, beta=1.3, sigma2=0.8, prior="onehot(k=2, probs=[0.6, 0.4])", heads=2)
    cert = certify(model, starts=_starts(2, 2, 3, seed=17))
    assert cert.certified and {b.kind for b in cert.stable} == {"shared-direction"}
    rng = np.random.default_rng(9)
    for box in cert.boxes:
        _check_box(model, box, rng)
