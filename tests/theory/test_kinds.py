"""What an equilibrium is (theory/_field/_kinds.py, theory/_certify/_kinds.py): the symmetries
are those of the law (exact), the certified kind is proved from the Krawczyk box, and the kinds
agree with the location of each equilibrium computed independently at 40 digits."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from sigrec.theory import Model
from sigrec.theory._certify._subspace import certify_subspace as certify
from sigrec.theory._field._kinds import kind_of, symmetries
from sigrec.theory._field._subspace import evaluate_subspace_mp
from sigrec.theory._laws import parse_law


@pytest.mark.parametrize(("spec", "pairs"), [
    ("onehot(k=3)", {(0, 1), (0, 2), (1, 2)}),
    ("onehot(k=3, probs=[0.5, 0.25, 0.25])", {(1, 2)}),
    ("onehot(k=2, probs=[0.7, 0.3])", set()),
    ("discrete(vectors=[[1, 0], [0.6, 0.8]], probs=[0.5, 0.5])", {(0, 1)}),
    ("discrete(vectors=[[1, 0], [0.6, 0.8]], probs=[0.6, 0.4])", set()),
    ("discrete(vectors=[[1, 0], [0, 2]], probs=[0.5, 0.5])", set()),
    ("gaussian(k=2, tau=1)", {(0, 1)}),
    ("gaussian(k=2, tau=1, mu=[1, 0])", set()),
])
def test_the_symmetries_are_exactly_those_of_the_law(spec, pairs):
    assert set(symmetries(parse_law(spec))) == pairs


def _mp_equilibrium(model: Model, r0, dps: int = 40):
    """The zero of the tangential field ``g - <r, g> r`` on the sphere near ``r0`` (k = 2, by the
    angle), by mpmath's secant solver on the 40-digit field: a route independent of the boxes."""
    with mpmath.workdps(dps):
        def tangential(phi):
            r = (mpmath.cos(phi), mpmath.sin(phi))
            g = evaluate_subspace_mp(model, r, dps)["gradient"]
            return -mpmath.sin(phi) * g[0] + mpmath.cos(phi) * g[1]

        phi = mpmath.findroot(tangential, mpmath.atan2(r0[1], r0[0]))
        return (mpmath.cos(phi), mpmath.sin(phi))


@pytest.mark.parametrize(("theta", "alpha", "spec"), [
    (3.0, 0.05, "onehot(k=2)"),
    (3.0, 0.5, "onehot(k=2, probs=[0.7, 0.3])"),
    (1.5, 0.3, "discrete(vectors=[[1, 0], [0.6, 0.8]], probs=[0.5, 0.5])"),
])
def test_certified_kinds_agree_with_the_40_digit_equilibria(theta, alpha, spec):
    model = Model(theta, alpha, beta=1.2, sigma2=0.8, prior=spec)
    cert = certify(model)
    sphere = [b for b in cert.boxes if b.kind == "sphere"]
    assert sphere and all(b.classification != "undecided" for b in sphere)
    for b in sphere:
        r = _mp_equilibrium(model, b.start)
        assert b.contains(r, enclosure=True)
        # the kind of the 40-digit point (float predicates) is the certified one, unless the
        # certified predicates could not decide a tie the point has exactly (a symmetric mixture)
        assert kind_of(model.law, np.array([float(x) for x in r])) == b.classification, (b.start, b.classification)


def test_the_tilted_saddle_is_tilted_and_the_symmetric_states_are_proved_mixtures():
    """onehot(k=2) at theta 3, alpha 0.05: the saddle near (-0.907, -0.421) was labelled
    specialised(2); it leans to no direction positively and lies off the diagonal."""
    cert = certify(Model(3.0, 0.05, prior="onehot(k=2)"))
    kinds = {tuple(round(x, 2) for x in b.start): (b.classification, b.status) for b in cert.boxes}
    assert kinds[(-0.91, -0.42)] == ("tilted", "unstable")
    assert kinds[(-0.42, -0.91)] == ("tilted", "unstable")
    assert kinds[(0.71, 0.71)][0] == "mixture+" and kinds[(-0.71, -0.71)][0] == "mixture-"
    assert kinds[(1.0, -0.01)] == ("specialised(1)", "stable")
    assert kinds[(-0.01, 1.0)] == ("specialised(2)", "stable")


def test_a_mixture_is_claimed_only_under_an_exact_symmetry():
    """Probabilities a hair apart break the swap: the state near the diagonal is then not proved
    a mixture (no symmetry to fix it), whatever its float coordinates."""
    near = certify(Model(0.5, 0.3, prior="onehot(k=2, probs=[0.5000001, 0.4999999])"))
    exact = certify(Model(0.5, 0.3, prior="onehot(k=2)"))
    top = max(exact.boxes, key=lambda b: sum(b.start))
    assert top.classification == "mixture+"
    top_near = max(near.boxes, key=lambda b: sum(b.start))
    assert abs(top_near.start[0] - top_near.start[1]) < 1e-5
    assert not top_near.classification.startswith("mixture")
