"""``sga.convergence`` compares each run with the certified basin of its start."""

import numpy as np

import sigrec.verify.checks._sga as _sga
from sigrec.numerics import basins
from sigrec.theory import Model
from sigrec.verify.checks import QUICK, REGISTRY, Case, CheckContext

RADE = Case("rade", 2.0, 0.3, R=300, L=1000, d=3, prior="rademacher")


def test_certified_limits_agree_with_the_float_basins():
    model = Model(3.0, 0.01)
    starts = np.linspace(-0.97, 0.97, 25)
    assert np.array_equal(_sga.certified_limits(model, starts), basins(model, starts).limit)


def test_uncertified_starts_are_not_compared():
    rade = Model(2.0, 0.3, prior="rademacher")
    lim = _sga.certified_limits(rade, [0.0, 1e-60, 0.5])
    assert lim[0] == 0.0 and np.isnan(lim[1]) and lim[2] == 1.0  # fixed, undecided at 128 bits, pole
    assert np.isnan(_sga.certified_limits(Model(0.0, 0.3), [0.2, -0.4])).all()


def test_convergence_uses_the_certified_basin(monkeypatch):
    ctx = CheckContext(seed=2, preset=QUICK)
    cons = next(r for r in REGISTRY["sga.convergence"].run(RADE, ctx) if r.id == "sga.convergence")
    assert cons.status == "pass" and "certified ODE basin" in cons.message
    right = _sga.certified_limits
    monkeypatch.setattr(_sga, "certified_limits", lambda m, r0: -right(m, r0))  # every basin swapped
    flipped = next(r for r in REGISTRY["sga.convergence"].run(RADE, ctx) if r.id == "sga.convergence")
    assert flipped.status == "fail", flipped.message
