import math

import pytest

from sigrec.theory import Model


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(theta=-0.1, alpha=0.5), "theta"),
        (dict(theta=1, alpha=-0.01), "alpha"),
        (dict(theta=1, alpha=1.01), "alpha"),
        (dict(theta=1, alpha=0.5, beta=0), "beta"),
        (dict(theta=1, alpha=0.5, beta=-2), "beta"),
        (dict(theta=1, alpha=0.5, sigma2=0), "sigma2"),
        (dict(theta=math.inf, alpha=0.5), "theta"),
        (dict(theta=1, alpha=math.nan), "alpha"),
        (dict(theta=1, alpha=0.5, prior="gaussian"), "prior"),
        (dict(theta="1", alpha=0.5), "theta"),
        (dict(theta=True, alpha=0.5), "theta"),
    ],
)
def test_bad_values_are_refused_with_the_parameter_named(kwargs, name):
    with pytest.raises(ValueError, match=f"`{name}`"):
        Model(**kwargs)


def test_model_is_frozen_and_normalised():
    m = Model(theta=1, alpha=0)
    assert m.sparse and isinstance(m.theta, float)
    with pytest.raises(AttributeError):
        m.theta = 2.0


def test_from_counts():
    m = Model.from_counts(0.25, R=500, L=10_500)
    assert m.alpha == pytest.approx(500 / 10_500)
    for R, L, name in [(5, 3, "R"), (-1, 3, "R"), (1, 0, "L"), (1.5, 3, "R")]:
        with pytest.raises(ValueError, match=f"`{name}`"):
            Model.from_counts(1.0, R=R, L=L)


def test_the_prior_is_parsed_once_and_held_as_a_prior():
    """A spec or a Prior gives the same model; the model holds the parsed Prior, and what
    records print (``as_dict``) is the canonical spec string."""
    from sigrec.theory import Prior, parse_prior

    by_spec = Model(theta=1, alpha=0.5, prior="gaussian(1, 0.50)")
    by_prior = Model(theta=1, alpha=0.5, prior=parse_prior("gaussian(mu=1, tau=1/2)"))
    assert by_spec == by_prior and hash(by_spec) == hash(by_prior)
    assert isinstance(by_spec.prior, Prior) and by_spec.prior.family == "gaussian"
    assert str(by_spec.prior) == by_spec.prior.spec == "gaussian(mu=1, tau=0.5)"
    assert by_spec.as_dict() == {"theta": 1.0, "alpha": 0.5, "beta": 1.0, "sigma2": 1.0,
                                 "prior": "gaussian(mu=1, tau=0.5)", "k": 1, "heads": 1, "regime": "proportional"}
    assert type(by_spec.as_dict()["prior"]) is str
    assert Model(theta=1, alpha=0.5).prior == parse_prior("fixed")
