"""A certificate handed back to the library is checked against its model and its checksum
(theory/_certify/_seal.py): one issued for another model, or changed after it was issued, is
refused by every function that takes one (certified_basin, certified_time,
subspace_completeness) instead of being trusted."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sigrec.theory import (
    Certificate,
    Model,
    certified_basin,
    certified_time,
    certify,
    subspace_completeness,
)

#: random models away from the defaults (every scalar family, beta and sigma2 off 1)
_RNG = np.random.default_rng(20261205)
_PRIORS = ("fixed", "rademacher(p=0.7)", "bernoulli(p=0.4)", "gaussian(mu=1, tau=0.5)",
           "discrete(values=[-1, 0.5, 2], probs=[0.2, 0.3, 0.5])")
_MODELS = [Model(float(_RNG.uniform(1.2, 3.5)), float(_RNG.uniform(0.05, 0.9)), float(_RNG.uniform(0.5, 1.8)),
                 float(_RNG.uniform(0.5, 1.6)), prior=p) for p in _PRIORS]


@pytest.mark.parametrize("i", range(len(_MODELS)))
def test_a_certificate_serves_its_own_model_and_is_refused_for_any_other(i):
    model = _MODELS[i]
    cert = certify(model)
    assert cert.model == model.as_dict() and len(cert.checksum) == 64
    basin = certified_basin(model, 0.3, certificate=cert)
    # the same basin as the one the library computes on its own certificate
    assert basin == certified_basin(model, 0.3)
    t, a, b, s2 = model.params()
    others = [Model(t * 1.01, a, b, s2, prior=model.law), Model(t, a, b + 0.1, s2, prior=model.law),
              Model(t, a, b, s2 * 0.9, prior=model.law), _MODELS[(i + 1) % len(_MODELS)]]
    for other in others:
        with pytest.raises(ValueError, match="issued for another model"):
            certified_basin(other, 0.3, certificate=cert)
        with pytest.raises(ValueError, match="issued for another model"):
            certified_time(other, 0.1, 0.2, certificate=cert)


def test_a_certificate_changed_after_it_was_issued_is_refused():
    model = Model(2.2, 0.2, beta=1.3, sigma2=0.8)
    cert = certify(model)
    assert cert.status == "bistable"
    # dropping the interior equilibrium would send the start to the wrong pole: refused
    for changed in (replace(cert, equilibria=()), replace(cert, status="monotone", monotone=True),
                    replace(cert, model={**cert.model, "theta": 2.3})):
        with pytest.raises(ValueError, match="does not match its checksum"):
            certified_basin(model, 0.0, certificate=changed)
    built = Certificate(status="monotone", monotone=True, certified=True, prec=128, model=model.as_dict())
    with pytest.raises(ValueError, match="no checksum"):
        certified_basin(model, 0.0, certificate=built)


def test_the_checksum_is_a_function_of_the_content_alone():
    """Two independent computations of one model's certificate carry the same checksum, and
    models that differ in one parameter carry different ones."""
    a, b = certify(Model(1.7, 0.4, sigma2=1.3)), certify(Model(1.7, 0.4, sigma2=1.3))
    assert a is not b and a.checksum == b.checksum
    assert a.checksum != certify(Model(1.7, 0.4, sigma2=1.31)).checksum


def test_a_changed_subspace_certificate_is_refused_by_the_completeness_proof():
    model = Model(1.5, 0.3, prior="onehot(k=2)")
    cert = certify(model)
    assert cert.checksum and cert.completeness is not None and cert.completeness.complete
    # one equilibrium dropped: the count would no longer match the circle's
    with pytest.raises(ValueError, match="does not match its checksum"):
        subspace_completeness(replace(cert, boxes=cert.boxes[1:]))
