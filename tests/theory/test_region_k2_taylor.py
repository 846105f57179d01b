"""The enclosures of a k = 2 region leaf (theory._region._circle_taylor): the second-order forms contain
the field at random points of a tile and leaf (the field from the derivation's own expressions, not the
derivatives the forms read), are narrower than the first-order forms, the derivatives are those of the
field (central differences), and the ball powers are sound."""

from functools import cache

import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import arb, fmpq

from sigrec.theory import Model
from sigrec.theory._certify._roots import precision
from sigrec.theory._derivation._subspace import derive_subspace
from sigrec.theory._region._circle_forms import JET, Offsets, enclose
from sigrec.theory._region._circle_taylor import k2_field, power
from sigrec.theory._region._circle_tiles import _Circle, _Leaf

from ._k2_programs import first_order_field

#: the module's cost is its shared setup (the ball field and the derivation's mpmath field, ~6 CPU-s)
pytestmark = pytest.mark.heavy

LAW = "onehot(k=2, probs=[0.55, 0.45])"
BETA, SIGMA2 = 1.2, 0.9


@cache
def _field(spec):
    return k2_field(Model(1.0, 0.1, BETA, SIGMA2, prior=spec).law)


@cache
def _original(spec):
    """The gradient of j (the derivation's expressions, in mpmath): ``theta alpha`` times the reduced
    field the leaves are proved on."""
    d = derive_subspace(spec)
    names = {s.name: s for s in d.gradient[0].free_symbols | d.gradient[1].free_symbols}
    args = (*d.r, *(names.get(n, sp.Symbol(n)) for n in ("theta", "alpha", "beta", "sigma2")))
    return sp.lambdify(args, d.gradient, "mpmath")


def _circle_values(spec, phi, theta, alpha):
    """``(T, T', lam)`` of the reduced field at one point, from :func:`_original` at 30 digits (``T'`` by
    a central difference)."""
    g = _original(spec)

    def T_lam(p):
        c, s = mpmath.cos(p), mpmath.sin(p)
        g1, g2 = (v / (theta * alpha) for v in g(c, s, theta, alpha, BETA, SIGMA2))
        return -s * g1 + c * g2, c * g1 + s * g2

    with mpmath.workdps(30):
        h = mpmath.mpf("1e-12")
        T, lam = T_lam(mpmath.mpf(phi))
        T1 = (T_lam(phi + h)[0] - T_lam(phi - h)[0]) / (2 * h)
        return float(T), float(T1), float(lam)


def _second_and_first(spec, leaf, a, b):
    """The second- and first-order enclosures of ``(T, T', lam)`` on the tile ``[a, b]`` (``u``) of ``leaf``."""
    f = _field(spec)
    circle = _Circle(f, leaf)
    second = (circle.tangent(a, b), *circle.slopes(a, b))
    pi = arb.pi()
    X, c = pi * arb(a).union(arb(b)), pi * arb((a + b) / 2)
    jet = (*f.tangent_jet(c.cos(), c.sin(), *leaf.pc), *f.slope_jet(c.cos(), c.sin(), *leaf.pc))
    grad = first_order_field(Model(1.0, 0.1, BETA, SIGMA2, prior=spec).law)(X.cos(), X.sin(), *leaf.P)
    d = (X - c, leaf.dth, leaf.dal)
    first = tuple(jet[JET * i] + sum((grad[3 * i + k] * d[k] for k in range(3)), arb(0)) for i in range(3))
    return second, first


@pytest.mark.parametrize("spec", [LAW, "onehot(k=2)"])  # the second: the functions read in its weights
def test_second_order_enclosures_contain_the_field_at_random_points(spec):
    t0, t1, a0, a1 = 0.9, 1.0, 0.1, 0.12
    leaf = _Leaf.of(t0, t1, a0, a1, BETA, SIGMA2)
    rng = np.random.default_rng(3)
    with precision(128):
        for a, b in ((fmpq(1, 10), fmpq(3, 25)), (fmpq(-3, 4) - fmpq(1, 64), fmpq(-3, 4) + fmpq(1, 64)),
                     (fmpq(2, 5), fmpq(7, 16))):
            second, _ = _second_and_first(spec, leaf, a, b)
            for _ in range(12):
                phi = np.pi * rng.uniform(float(a), float(b))
                point = _circle_values(spec, phi, rng.uniform(t0, t1), rng.uniform(a0, a1))
                for ball, value in zip(second, point, strict=True):
                    assert ball.contains(arb(value, 1e-9 * (1 + abs(value)))), (a, b, ball, value)


def test_second_order_is_narrower_than_first_order_on_a_leaf():
    # a leaf of about 1/32 of the ranges theta 0.1-3 x alpha 0.01-1, and a tile where T has one sign
    leaf = _Leaf.of(1.5, 1.59, 0.3, 0.32, 1.0, 1.0)
    with precision(128):
        second, first = _second_and_first("onehot(k=2)", leaf, fmpq(1, 10), fmpq(3, 25))
    for s, f in zip(second, first, strict=True):
        assert s.rad() < 0.6 * f.rad(), (s, f)
    assert second[0] < 0  # the sign of T on the tile, for every parameter of the leaf


def _jet_hess(f, phi, th, al):
    c, s = phi.cos(), phi.sin()
    params = (th, al, arb(BETA), arb(SIGMA2))
    return f.tangent_jet(c, s, *params), f.tangent_hess(c, s, *params), f.slope_jet(c, s, *params)


@pytest.mark.parametrize("spec", [LAW, "onehot(k=2)"])
def test_jets_and_hessians_are_the_derivatives_of_the_field(spec):
    """The derivatives the forms read (forward-differentiated programs) against central differences of
    the values at 48 digits; ``T'`` against the difference of ``T``."""
    f = _field(spec)
    with precision(160):
        point, h = (arb("0.7"), arb("1.1"), arb("0.2")), arb(2) ** -50
        jet, hess, slope = _jet_hess(f, *point)
        steps = [tuple(h if k == i else arb(0) for k in range(3)) for i in range(3)]
        shifted = [(_jet_hess(f, *(p + d for p, d in zip(point, v, strict=True))),
                    _jet_hess(f, *(p - d for p, d in zip(point, v, strict=True)))) for v in steps]

        def diff(i, j):  # d/d(phi, theta, alpha)[i] of the jet's entry j
            plus, minus = shifted[i]
            return float(((plus[0][j] - minus[0][j]) / (2 * h)).mid())

    assert jet[1].overlaps(slope[0])  # T_phi is T'
    for i in range(3):
        assert diff(i, 0) == pytest.approx(float(jet[1 + i].mid()), rel=1e-9, abs=1e-9)
    # (F_phiphi, F_phitheta, F_phialpha, F_thetatheta, F_thetaalpha, F_alphaalpha)
    for k, (i, j) in enumerate(((0, 1), (1, 1), (2, 1), (1, 2), (2, 2), (2, 3))):
        assert diff(i, j) == pytest.approx(float(hess[k].mid()), rel=1e-9, abs=1e-9), k


def test_power_encloses_every_point_of_wide_balls():
    rng = np.random.default_rng(5)
    assert power(arb(2, 0.54), -6).is_finite() and power(arb(2, 0.54), -6) > 0
    for _ in range(60):
        mid, rad, n = rng.uniform(-3, 3), rng.uniform(0, 2), int(rng.integers(-6, 7))
        x = arb(mid, rad)
        ball = power(x, n)
        for t in np.linspace(mid - rad, mid + rad, 9):
            if n < 0 and abs(t) < 1e-12:
                continue
            value = arb(1)
            for _ in range(abs(n)):
                value *= arb(t)
            assert ball.contains(1 / value if n < 0 else value) or not ball.is_finite(), (x, n, t)


def test_offsets_square_is_the_range_of_the_square():
    o = Offsets.of(arb(0, 0.5), arb(0, 0.25), arb(0))
    assert o.sq[0].contains(arb(0)) and o.sq[0].contains(arb(0.25)) and o.sq[0] > -1e-6
    assert enclose((arb(1), arb(0), arb(0), arb(0)), (arb(2), *[arb(0)] * 5), o)[0] > 0.99  # 1 + x^2 >= 1
