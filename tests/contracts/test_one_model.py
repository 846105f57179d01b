"""One model, one entry per operation: k = 1, H = 1 through the unified API is the scalar path.

Every operation (derive, evaluate, certify, simulate, predict) takes one :class:`theory.Model` and
chooses its engine from ``k`` and ``H``; the scalar engines (closed forms, 1-D certificates, the
reduced alignment chain) are what ``"auto"`` picks for one query on one signal direction. Here the
generic k-dimensional engines, run at ``k = 1`` (``engine="subspace"``), are checked against the
scalar ones on random models away from ``beta = sigma2 = 1`` and the fixed prior: an independent
route (the sympy derivation in the overlaps ``r`` against the closed forms in ``rho``; the Krawczyk
boxes against the 1-D brackets; the overlap flow against the scalar ODE).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigrec.numerics import Problem, Schedule, SimulationOptions, complexity, predict, simulate
from sigrec.theory import ENGINES, Model, certify, derive, engine_for, evaluate, evaluate_mp

PRIORS = ["fixed", "rademacher(p=0.7)", "bernoulli(p=0.4)", "gaussian(mu=1, tau=1/2)",
          "discrete(values=[0.5, 2], probs=[0.3, 0.7])"]


@st.composite
def models(draw):
    return Model(theta=draw(st.floats(0.1, 2.5)), alpha=draw(st.floats(0.02, 1.0)), beta=draw(st.floats(0.4, 1.8)),
                 sigma2=draw(st.floats(0.4, 2.0)), prior=draw(st.sampled_from(PRIORS)))


@settings(max_examples=25, deadline=None)
@given(model=models(), rho=st.floats(-0.999, 0.999))
def test_the_subspace_engine_at_k1_is_the_scalar_field(model, rho):
    """``j``, ``j'`` and ``F = (1 - rho^2) j'`` of the closed forms equal ``j(r)``, ``g`` and the flow
    ``g - <r, g> r`` of the k-dimensional expressions at ``r = (rho,)``, to 1e-12 relative."""
    assert model.engine == "scalar"
    s = evaluate(model, [rho])
    v = evaluate(model, [[rho]], engine="subspace")
    scale = max(1.0, abs(float(s.slope[0])))
    assert float(v.objective[0]) == pytest.approx(float(s.objective[0]), rel=1e-12)
    assert float(v.gradient[0, 0]) == pytest.approx(float(s.slope[0]), rel=1e-11, abs=1e-12 * scale)
    assert float(v.flow[0, 0]) == pytest.approx(float(s.field[0]), rel=1e-11, abs=1e-12 * scale)


@pytest.mark.parametrize("prior", ["fixed", "gaussian(mu=1, tau=1/2)"])
def test_the_subspace_engine_at_k1_is_the_scalar_field_in_mpmath(prior):
    model = Model(1.7, 0.3, beta=1.3, sigma2=0.7, prior=prior)
    s = evaluate_mp(model, "0.4", dps=40)
    v = evaluate_mp(model, ["0.4"], dps=40, engine="subspace")
    assert abs(v["objective"] / s["objective"] - 1) < 1e-30
    assert abs(v["gradient"][0] / s["slope"] - 1) < 1e-30


def test_derive_dispatches_on_the_law_and_the_engine():
    scalar, general = derive("rademacher"), derive("rademacher", engine="subspace")
    assert type(scalar).__name__ == "Derivation" and len(general.r) == 1
    assert type(derive("onehot(k=2)")).__name__ == "SubspaceDerivation"
    with pytest.raises(ValueError, match="`engine` 'scalar'"):
        derive("onehot(k=2)", engine="scalar")


@pytest.mark.parametrize("theta, alpha, beta, sigma2, prior", [
    (2.0, 0.05, 1.2, 0.8, "fixed"), (1.5, 0.4, 0.9, 1.3, "rademacher(p=0.6)"), (0.8, 0.5, 1.0, 1.5, "fixed")])
def test_the_krawczyk_boxes_at_k1_are_the_scalar_brackets(theta, alpha, beta, sigma2, prior):
    """The interior equilibria certified in ``rho`` (bisection, sign of ``j'``) and in ``r``
    (Krawczyk on the derived flow) are the same points with the same stability; both poles are
    equilibria of the flow on the sphere ``|r| = 1``."""
    model = Model(theta, alpha, beta, sigma2, prior)
    one, gen = certify(model), certify(model, engine="subspace")
    assert type(one).__name__ == "Certificate" and type(gen).__name__ == "SubspaceCertificate"
    interior = sorted((b for b in gen.boxes if b.kind == "interior"), key=lambda b: b.bounds()[0][0])
    assert len(interior) == len(one.equilibria)
    for bracket, box in zip(one.equilibria, interior, strict=True):
        (lo, hi), = box.bounds()
        assert bracket.lo - 1e-9 <= (lo + hi) / 2 <= bracket.hi + 1e-9
        assert box.status == bracket.stability
    poles = sorted(round(b.bounds()[0][0]) for b in gen.boxes if b.kind == "sphere")
    assert poles == [-1, 1]


def test_the_overlap_flow_at_k1_is_the_scalar_ode():
    """``predict`` through the subspace engine integrates ``dr/dt = g - <r, g> r`` at k = 1; the
    scalar engine integrates ``d rho/dt = F`` in ``atanh rho``: two integrators, one flow."""
    p = Problem(2.0, 10, 200, 5, beta=1.2, sigma2=0.8, prior="bernoulli(p=0.6)")
    s = Schedule(eta0=0.5, k0=10, power=0.75)
    plain = predict(p, s, 100, rho0=0.3, stride=20)
    flow = predict(p, s, 100, M0=[[0.3]], stride=20, engine="subspace")
    np.testing.assert_allclose(flow.path.M[:, 0, 0], plain.rho_plain, atol=1e-8)
    assert flow.settled and flow.equilibrium.status == "stable"


def test_simulate_picks_the_scalar_kernels_for_k1_and_the_subspace_ones_on_request():
    p = Problem(1.0, 30, 100, 10, beta=1.3, sigma2=0.7, prior="rademacher")
    s = Schedule(eta0=0.5, k0=10, power=0.75)
    auto = simulate(p, s, steps=20, runs=3, seed=3)
    scalar = simulate(p, s, steps=20, runs=3, seed=3, options=SimulationOptions(engine="scalar"))
    assert auto.engine == scalar.engine == "scalar"
    np.testing.assert_array_equal(auto.overlaps, scalar.overlaps)
    np.testing.assert_array_equal(auto.rho, auto.overlaps[:, :, 0, 0])
    np.testing.assert_allclose(auto.out_gram[..., 0, 0], 1 - auto.rho**2)
    general = simulate(p, s, steps=20, runs=3, seed=3, options=SimulationOptions(engine="subspace"))
    assert general.engine == "subspace" and general.overlaps.shape == auto.overlaps.shape


@pytest.mark.parametrize("prior, heads", [("onehot(k=2)", 1), ("fixed", 2)])
def test_a_model_beyond_one_query_on_one_direction_refuses_every_scalar_engine(prior, heads):
    model = Model(1.5, 0.3, prior=prior, heads=heads)
    assert model.engine == "subspace" and not model.scalar
    with pytest.raises(ValueError, match="`engine` 'scalar'"):
        engine_for(model, "scalar", "evaluate")
    with pytest.raises(ValueError, match=r"`prior`|`heads`"):
        model.prior  # noqa: B018 - the scalar engines read it
    problem = Problem(1.5, 30, 100, 10, prior=prior).with_heads(heads)
    with pytest.raises(ValueError, match=r"`prior`|`heads`"):
        complexity(problem, Schedule.constant(0.1), runs=20, horizon=10)


def test_the_engines_and_the_model_record():
    assert ENGINES == ("scalar", "subspace")
    m = Model(1.0, 0.5, prior="onehot(k=1)")
    assert m.law.spec == "fixed" and m == Model(1.0, 0.5) and m.as_dict()["k"] == 1
    h = Model(1.0, 0.5, prior="onehot(k=3)", heads=2)
    assert h.as_dict() == {"theta": 1.0, "alpha": 0.5, "beta": 1.0, "sigma2": 1.0, "prior": "onehot(k=3)",
                           "k": 3, "heads": 2, "regime": "proportional"}
    assert h.with_heads(1).heads == 1 and h.with_heads(1).law == h.law
    with pytest.raises(ValueError, match="`alpha` must be > 0"):
        Model(1.0, 0.0, prior="fixed", heads=2)
