"""The public API has one certify entry: ``theory.certify`` takes a model or a box of models
through one table of certifiers, every certificate answers the same protocol, and the parallel
stacks it replaced (``certify_region``, ``certify_region_k2``, ``certify_heads``, a k = 2 task
wrapper) are gone from the public names."""

import inspect

import pytest

from sigrec import numerics, theory

GONE = ("certify_region", "certify_region_k2", "certify_heads", "certify_region_k2_tasks")


def test_the_replaced_names_are_not_public():
    assert [n for n in GONE if n in theory.__all__ or hasattr(theory, n)] == []
    assert [n for n in GONE if n in numerics.__all__ or hasattr(numerics, n)] == []


def test_theory_has_one_certify_entry_for_a_model_or_a_box():
    entries = [n for n in theory.__all__ if n == "certify" or (n.startswith("certify_") and "region" in n)]
    assert entries == ["certify"]
    assert set(theory.CERTIFIERS) == {("point", "scalar"), ("point", "subspace"), ("point", "heads"),
                                      ("region", "scalar"), ("region", "subspace")}
    assert next(iter(inspect.signature(theory.certify).parameters)) == "model"


def test_every_certificate_answers_the_protocol():
    certs = [theory.certify(theory.Model(2.0, 0.05)),
             theory.certify(theory.Model(1.5, 0.05, prior="onehot(k=2)"), n_random=2),
             theory.certify(theory.Model(1.5, 0.3, prior="onehot(k=2)", heads=2), n_random=1),
             theory.certify(theory.ModelBox((2.0, 3.0), (0.01, 0.1)), min_width=0.5)]
    for cert in certs:
        assert isinstance(cert, theory.CertificateLike), type(cert).__name__
        assert isinstance(cert.status, str) and isinstance(cert.certified, bool) and isinstance(cert.reason, str)
        assert isinstance(cert.equilibria, tuple) and len(cert.checksum) == 64
        assert cert.certified or cert.reason  # what is not certified says why
    assert not isinstance(theory.Model(2.0, 0.05), theory.CertificateLike)  # the protocol is not vacuous


def test_a_box_of_heads_and_an_engine_for_a_box_are_refused():
    with pytest.raises(ValueError, match="heads"):
        theory.certify(theory.ModelBox((1.0, 2.0), 0.3, prior="onehot(k=2)", heads=2))
    with pytest.raises(ValueError, match="engine"):
        theory.certify(theory.ModelBox((1.0, 2.0), 0.3), engine="scalar")


def test_model_box_validates_naming_the_parameter():
    for kwargs, name in (({"theta": (2.0, 1.0), "alpha": 0.5}, "theta"), ({"theta": 1.0, "alpha": (0.0, 0.5)}, "alpha"),
                         ({"theta": 1.0, "alpha": 0.5, "beta": -1.0}, "beta"),
                         ({"theta": 1.0, "alpha": 0.5, "prior": "gaussian(mu=2:1)"}, "prior"),
                         ({"theta": 1.0, "alpha": 0.5, "heads": 0}, "heads")):
        with pytest.raises(ValueError, match=name):
            theory.ModelBox(**kwargs)
    box = theory.ModelBox((0.5, 4), 0.3, prior="gaussian(mu=0.5:1, tau=0.2)")
    assert box.theta == (0.5, 4.0) and box.alpha == 0.3 and box.k == 1 and box.prior == "gaussian(mu=0.5:1, tau=0.2)"
    assert theory.ModelBox((0.5, 4), 0.3, prior="onehot(k=2)").k == 2
