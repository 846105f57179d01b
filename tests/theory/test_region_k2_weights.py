"""The region functions of a one-hot law of k = 2 read in its weights (theory._region._circle_taylor:
``_weighted_field``, ``weights``): they are the reduced field's, checked against the programs printed from
the law's derivation (its MGF, differentiated by sympy) over the whole supported space, away from
beta = sigma2 = 1, for equal and unequal probabilities; the weights' balls contain the weights; and on a
leaf of the far corner they prove what the derivation's programs could not."""

from functools import cache

import numpy as np
import pytest
from flint import arb, fmpq

from sigrec.theory._laws._vector import parse_law
from sigrec.theory._region import _circle_taylor as taylor
from sigrec.theory._region._circle_tiles import _Circle, _Leaf

from ._k2_programs import balls

SYMMETRIC = "onehot(k=2)"
LAWS = (SYMMETRIC, "onehot(k=2, probs=[0.55, 0.45])", "discrete(vectors=[[1, 0], [0, 1]], probs=[0.3, 0.7])")


@cache
def _derived(spec, name):
    """The function ``name`` printed from the law's derivation (``_field``), not from its weights."""
    f = taylor._field(parse_law(spec))
    return balls(f, {**taylor._OUTPUTS, **taylor._DIAGONAL}[name][1](f))


def _random_args(rng, name, rad=0.0):
    th, al = rng.uniform(0, 5), 10 ** rng.uniform(-4, 0)
    be, s2 = rng.uniform(0.3, 3), rng.uniform(0.2, 3)
    if name.startswith("diag"):  # r = (s, s) on the diagonal: the same ball twice
        s = arb(rng.uniform(-1, 1) / np.sqrt(2), rad)
        r = (s, s)
    elif name.startswith("disk"):  # a point or a square of the disk
        rho, phi = np.sqrt(rng.uniform(0, 0.98)), rng.uniform(-np.pi, np.pi)
        r = (arb(rho * np.cos(phi), rad), arb(rho * np.sin(phi), rad))
    else:
        phi = arb(rng.uniform(-np.pi, np.pi), rad)
        r = (phi.cos(), phi.sin())
    return (*r, arb(th, rad * th), arb(al, rad * al), arb(be), arb(s2))


CASES = [(SYMMETRIC, name) for name in ("tangent_hess", "slope_jet", "slope_hess", "diag_hess", "fork_jet")] + [
    (spec, name) for spec in LAWS[1:] for name in ("tangent_jet", "slope_hess", "disk_jet", "disk_hess", "disk_slopes")]


@pytest.mark.parametrize(("spec", "name"), CASES)
def test_the_weighted_functions_are_the_derivations_at_random_points(spec, name):
    got_fn, want_fn = getattr(taylor.k2_field(parse_law(spec)), name), _derived(spec, name)
    assert hasattr(got_fn, "program"), "a one-hot law's function reads the weights"
    rng = np.random.default_rng(11)
    for _ in range(15):
        args = _random_args(rng, name)
        got, want = got_fn(*args), want_fn(*args)
        assert len(got) == len(want)
        for x, y in zip(got, want, strict=True):
            assert x.overlaps(y), (name, args, x, y)
            assert abs(float(x.mid()) - float(y.mid())) <= 1e-8 * (1 + abs(float(y.mid()))), (name, args, x, y)
        # on a box both are enclosures of the same function: they meet
        box = _random_args(rng, name, rad=1e-3)
        assert all(x.overlaps(y) for x, y in zip(got_fn(*box), want_fn(*box), strict=True)), (name, box)


def test_the_one_hot_laws_are_recognised_by_their_mgf():
    assert taylor.onehot_probs(parse_law(SYMMETRIC)) == (fmpq(1, 2), fmpq(1, 2))
    assert taylor.onehot_probs(parse_law(LAWS[1])) == (fmpq(11, 20), fmpq(9, 20))
    assert taylor.onehot_probs(parse_law(LAWS[2])) == (fmpq(3, 10), fmpq(7, 10))
    for spec in ("discrete(vectors=[[1, 0], [0, -1]], probs=[1/2, 1/2])", "gaussian(k=2, tau=1)",
                 "discrete(vectors=[[1, 0], [0, 1], [1, 1]], probs=[0.3, 0.3, 0.4])"):
        assert taylor.onehot_probs(parse_law(spec)) is None, spec


@pytest.mark.parametrize("probs", [(fmpq(1, 2), fmpq(1, 2)), (fmpq(11, 20), fmpq(9, 20)), (fmpq(1, 10), fmpq(9, 10))])
def test_the_weights_contain_the_weights_at_every_point_of_the_balls(probs):
    p1, p2 = float(probs[0]), float(probs[1])
    rng = np.random.default_rng(5)
    for _ in range(40):
        (m1, m2), th, al, be = rng.uniform(-1, 1, 2), rng.uniform(0, 5), 10 ** rng.uniform(-4, 0), rng.uniform(0.3, 3)
        rads = rng.uniform(0, 0.05, 4)
        balls = arb(m1, rads[0]), arb(m2, rads[1]), arb(th, rads[2]), arb(al, min(rads[3], al / 2)), arb(be)
        n1, n2, w = taylor.weights(*balls, probs)
        for _ in range(6):
            r1, r2, t, a = (rng.uniform(float(x.lower()), float(x.upper())) for x in balls[:4])
            u1, u2 = np.exp(be * t * r1), np.exp(be * t * r2)
            D = a * (p1 * u1 + p2 * u2) + 1 - a
            for ball, value in zip((n1, n2, w), (p1 * u1 / D, p2 * u2 / D, 1 / D), strict=True):
                assert ball.contains(arb(value, 1e-12 * value)), (balls, ball, value)
    # one ball for both coordinates: the diagonal, where u1 = u2 exactly, and the weights are narrower
    s, params = arb(0.3, 0.01), (arb(4), arb(0.5), arb(1))
    same, copies = taylor.weights(s, s, *params, probs), taylor.weights(s, arb(0.3, 0.01), *params, probs)
    assert same[0].rad() < 0.5 * copies[0].rad()


def test_the_weighted_form_proves_the_tile_about_pi_4_on_a_corner_leaf():
    """A leaf of the far corner at 2^-6 of the default region (theta 4.06-4.14 x alpha 0.5-0.58, beta 1.1,
    sigma2 0.9): ``T'`` on the tile about ``pi/4`` has a certified sign in the weighted form, and not in the
    derivation's programs (the derivatives of ``e^{beta theta r_i} / D`` cancel, and balls lose it)."""
    law = parse_law(SYMMETRIC)
    derived = taylor.K2Field(**{name: taylor._program(law, name, balls, outputs)
                                for name, (balls, outputs) in {**taylor._OUTPUTS, **taylor._DIAGONAL}.items()})
    leaf = _Leaf.of(4.0625, 4.0625 + 5 * 2 ** -6, 0.5, 0.5 * 10 ** (4 * 2 ** -6), 1.1, 0.9)
    a, b = fmpq(1, 4) - fmpq(1, 256), fmpq(1, 4) + fmpq(1, 256)
    weighted = _Circle(taylor.k2_field(law), leaf).slopes(a, b)[0]
    assert weighted > 0
    assert not _Circle(derived, leaf).slopes(a, b)[0] > 0
