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
